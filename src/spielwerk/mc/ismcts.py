"""Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012).

One tree over the searching player's information sets: a node is the sequence
of actions from the root, which every player observes (true for Durak, Kalah
and trick play; games with hidden opponent moves would need MO-ISMCTS). Each
iteration draws a fresh determinization with ``sample_world``, descends only
through actions legal in that world, and selects with availability-aware UCB:
a child's exploration term uses the number of iterations in which it was
available, not its parent's visits. Chance events in the determinization are
sampled and not stored in the tree.
"""

from __future__ import annotations

import math
import time

import numpy as np

from spielwerk.core.game import CHANCE, TERMINAL, InfoState, sample_chance
from spielwerk.mc.determinize import Sampler, uniform_sampler
from spielwerk.mc.mcts import (
    Budget,
    Rollout,
    SearchError,
    SearchResult,
    _scale,
    random_rollout,
)


class ISNode:
    """Visits, summed reward (of the player who moved into it) and availability count."""

    __slots__ = ("avail", "children", "n", "w")

    def __init__(self) -> None:
        self.children: dict[int, ISNode] = {}
        self.n = 0
        self.w = 0.0
        self.avail = 0


def ismcts_search(
    info_state: InfoState,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    c: float = 0.7,
    rollout: Rollout = random_rollout,
    rng: np.random.Generator | None = None,
    sampler: Sampler | None = None,
    start: float | None = None,
) -> SearchResult:
    """SO-ISMCTS from ``info_state``; returns the root statistics (mean reward in [0, 1]).

    ``sampler`` draws the determinization of each iteration (default:
    ``info_state.sample_world``); ``start`` (a ``time.perf_counter()`` value) is when
    the caller's move began, so its set-up counts against ``time_limit``.
    """
    if not info_state.legal_actions():
        raise SearchError("ISMCTS: the player has no move here")
    rng = rng if rng is not None else np.random.default_rng()
    gt = info_state.game.game_type
    lo, span = _scale(gt.min_utility, gt.max_utility)
    budget = Budget(iterations, time_limit, start)
    sample = sampler if sampler is not None else uniform_sampler
    root = ISNode()
    log = math.log
    sqrt = math.sqrt
    it = 0
    while not budget.done(it):
        it += 1
        s = sample(info_state, rng)
        node = root
        path: list[ISNode] = [root]
        movers = [-1]
        expanded = False
        while True:
            player = s.current_player
            if player == TERMINAL:
                break
            if player == CHANCE:
                s.apply_unchecked(sample_chance(s, rng))
                continue
            legal = s.legal_actions()
            children = node.children
            untried = [a for a in legal if a not in children]
            if untried:
                a = untried[int(rng.integers(len(untried)))]
                child = ISNode()
                children[a] = child
                for b in legal:
                    if b in children:
                        children[b].avail += 1
                s.apply_unchecked(a)
                path.append(child)
                movers.append(player)
                expanded = True
                break
            best_score = -1.0
            best_a = -1
            for a in legal:
                ch = children[a]
                ch.avail += 1
                score = ch.w / ch.n + c * sqrt(log(ch.avail) / ch.n)
                if score > best_score:
                    best_score, best_a = score, a
            s.apply_unchecked(best_a)
            node = children[best_a]
            path.append(node)
            movers.append(player)
        returns = rollout(s, rng) if expanded else s.returns()
        for nd, mover in zip(path, movers, strict=True):
            nd.n += 1
            if mover >= 0:
                nd.w += (returns[mover] - lo) / span
    legal_root = set(info_state.legal_actions())
    visits = {a: ch.n for a, ch in root.children.items() if a in legal_root}
    values = {a: ch.w / ch.n for a, ch in root.children.items() if a in legal_root and ch.n}
    return SearchResult(visits, values, it, time.perf_counter() - budget.start)
