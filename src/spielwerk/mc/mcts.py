"""UCT Monte-Carlo tree search over the core game API, with pluggable rollouts.

Works for any registered game on a full :class:`State` (perfect information,
or one determinized world of an imperfect-information game). Rewards are the
players' returns scaled to [0, 1] with the game's utility range; each node
keeps the reward of the player who made the move into it, so the search is
correct for any number of players and for games where a player moves several
times in a row (Durak defences, Kalah extra turns). Chance nodes are sampled
by their probabilities.

Budgets: ``iterations`` and/or ``time_limit`` seconds (whichever ends first;
at least one iteration always runs).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import CHANCE, TERMINAL, State, sample_chance

Rollout = Callable[[State, np.random.Generator], Sequence[float]]
"""Plays ``state`` (which it may change) to the end; returns the players' returns."""


class SearchError(SpielwerkError, ValueError):
    """A search asked to run on something it cannot handle (bad budget, no moves)."""


def random_rollout(state: State, rng: np.random.Generator) -> Sequence[float]:
    """Uniformly random moves (chance by its probabilities) to the end of the game."""
    while True:
        player = state.current_player
        if player == TERMINAL:
            return state.returns()
        if player == CHANCE:
            action = sample_chance(state, rng)
        else:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        state.apply_unchecked(action)


class Budget:
    """Iterations and/or seconds; ``done(i)`` after ``i`` finished iterations.

    The clock is read after every iteration (a read costs well under 1% of one
    iteration), so a search stops within one iteration of its time limit.
    ``start`` (a ``time.perf_counter()`` value) lets a caller count its own
    set-up against the limit.
    """

    def __init__(self, iterations: int | None = None, time_limit: float | None = None,
                 start: float | None = None) -> None:
        if iterations is None and time_limit is None:
            raise SearchError("give a budget: iterations, a time limit, or both")
        if iterations is not None and iterations < 1:
            raise SearchError(f"iterations must be at least 1, not {iterations}")
        if time_limit is not None and time_limit <= 0:
            raise SearchError(f"the time limit must be positive, not {time_limit}")
        self.iterations = iterations
        self.time_limit = time_limit
        self.start = time.perf_counter() if start is None else start

    def done(self, i: int) -> bool:
        if i < 1:
            return False
        if self.iterations is not None and i >= self.iterations:
            return True
        if self.time_limit is not None:
            return time.perf_counter() - self.start >= self.time_limit
        return False


class Node:
    """A tree node: visits ``n`` and summed reward ``w`` of the player who moved into it."""

    __slots__ = ("children", "n", "player", "untried", "w")

    def __init__(self, player: int, untried: list[int]) -> None:
        self.player = player  # to move at this node
        self.untried = untried
        self.children: dict[int, Node] = {}
        self.n = 0
        self.w = 0.0


@dataclass
class SearchResult:
    """Root statistics: visits and mean reward (scaled to [0, 1]) of each root action."""

    visits: dict[int, int]
    values: dict[int, float]
    iterations: int
    seconds: float

    def best(self, final: str = "visits") -> int:
        if final == "mean":
            return max(self.values, key=lambda a: (self.values[a], self.visits[a], -a))
        return max(self.visits, key=lambda a: (self.visits[a], self.values[a], -a))


def _scale(game_type_min: float, game_type_max: float) -> tuple[float, float]:
    span = game_type_max - game_type_min
    if not math.isfinite(span) or span <= 0:
        return 0.0, 1.0
    return game_type_min, span


def uct_search(
    state: State,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    c: float = 1.4,
    rollout: Rollout = random_rollout,
    rng: np.random.Generator | None = None,
) -> SearchResult:
    """Run UCT from ``state`` (not changed) and return the root statistics."""
    if state.current_player < 0:
        raise SearchError("UCT needs a state with a player to move")
    rng = rng if rng is not None else np.random.default_rng()
    gt = state.game.game_type
    lo, span = _scale(gt.min_utility, gt.max_utility)
    budget = Budget(iterations, time_limit)
    root = Node(state.current_player, list(state.legal_actions()))
    if not root.untried:
        raise SearchError("UCT: no legal actions")
    log = math.log
    sqrt = math.sqrt
    it = 0
    while not budget.done(it):
        it += 1
        s = state.clone()
        node = root
        path = [root]
        movers = [-1]
        # selection
        while True:
            player = node.player
            if player == TERMINAL:
                break
            if player == CHANCE:
                a = sample_chance(s, rng)
                s.apply_unchecked(a)
                child = node.children.get(a)
                if child is None:
                    child = Node(s.current_player, _legal(s))
                    node.children[a] = child
                node = child
                path.append(node)
                movers.append(-1)
                continue
            if node.untried:
                a = node.untried.pop(int(rng.integers(len(node.untried))))
                s.apply_unchecked(a)
                child = Node(s.current_player, _legal(s))
                node.children[a] = child
                path.append(child)
                movers.append(player)
                node = child
                break
            logn = log(node.n)
            best_score = -1.0
            best_a = -1
            best_child = None
            for a, ch in node.children.items():
                score = ch.w / ch.n + c * sqrt(logn / ch.n)
                if score > best_score:
                    best_score, best_a, best_child = score, a, ch
            assert best_child is not None
            s.apply_unchecked(best_a)
            node = best_child
            path.append(node)
            movers.append(player)
        returns = s.returns() if node.player == TERMINAL else rollout(s, rng)
        for nd, mover in zip(path, movers, strict=True):
            nd.n += 1
            if mover >= 0:
                nd.w += (returns[mover] - lo) / span
    visits = {a: ch.n for a, ch in root.children.items()}
    values = {a: ch.w / ch.n for a, ch in root.children.items()}
    return SearchResult(visits, values, it, time.perf_counter() - budget.start)


def _legal(s: State) -> list[int]:
    if s.current_player < 0:
        return []
    return list(s.legal_actions())
