"""Determinized MCTS (PIMC-MCTS): k sampled worlds x n UCT iterations, plurality vote.

Each world is drawn with ``info_state.sample_world(rng)``, searched as a
perfect-information game with :func:`uct_search`, and votes for its best root
action; the action with the most votes wins (ties: most total visits, then the
lowest action). A time budget is split evenly over the worlds: world ``i`` stops at
``start + (i + 1) * time_limit / worlds``, so sampling the worlds counts against
the budget too, and a slow world leaves the later ones less time; once the whole
budget is spent no further world is drawn (at least one world is always searched).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from spielwerk.core.game import InfoState, State
from spielwerk.mc.mcts import Rollout, SearchError, random_rollout, uct_search

Sampler = Callable[[InfoState, np.random.Generator], State]
"""Draws one world of an info state (default: ``info_state.sample_world(rng)``); a game's
agent may pass one that weights worlds by what the opponents' moves suggest."""


def uniform_sampler(info_state: InfoState, rng: np.random.Generator) -> State:
    """Every world consistent with the info state equally likely (its ``sample_world``)."""
    return info_state.sample_world(rng)


@dataclass
class VoteResult:
    """Votes and summed root visits per action over all worlds."""

    votes: dict[int, int]
    visits: dict[int, int]
    iterations: int

    def best(self) -> int:
        return max(self.votes, key=lambda a: (self.votes[a], self.visits.get(a, 0), -a))


def determinized_mcts(
    info_state: InfoState,
    *,
    worlds: int = 30,
    iterations: int | None = 30,
    time_limit: float | None = None,
    c: float = 1.4,
    rollout: Rollout = random_rollout,
    final: str = "visits",
    rng: np.random.Generator | None = None,
    sampler: Sampler | None = None,
    start: float | None = None,
) -> VoteResult:
    """Search ``worlds`` determinizations of ``info_state``; ``time_limit`` is for all worlds,
    counted from ``start`` (a ``time.perf_counter()`` value; default: now)."""
    if worlds < 1:
        raise SearchError(f"worlds must be at least 1, not {worlds}")
    legal = info_state.legal_actions()
    if not legal:
        raise SearchError("determinized MCTS: the player has no move here")
    rng = rng if rng is not None else np.random.default_rng()
    start = time.perf_counter() if start is None else start
    sample = sampler if sampler is not None else uniform_sampler
    votes: Counter[int] = Counter()
    visits: Counter[int] = Counter()
    total = 0
    for i in range(worlds):
        per_world = None
        if time_limit is not None:
            now = time.perf_counter()
            if i > 0 and now - start >= time_limit:
                break  # the move's time is spent: vote with the worlds searched so far
            # this world's share ends at its deadline; at least one iteration always runs
            per_world = max(start + (i + 1) * time_limit / worlds - now, 1e-9)
        world = sample(info_state, rng)
        res = uct_search(
            world, iterations=iterations, time_limit=per_world, c=c, rollout=rollout, rng=rng
        )
        votes[res.best(final)] += 1
        for a, n in res.visits.items():
            visits[a] += n
        total += res.iterations
    return VoteResult(dict(votes), dict(visits), total)
