"""Determinized MCTS (PIMC-MCTS): k sampled worlds x n UCT iterations, plurality vote.

Each world is drawn with ``info_state.sample_world(rng)``, searched as a
perfect-information game with :func:`uct_search`, and votes for its best root
action; the action with the most votes wins (ties: most total visits, then the
lowest action). A time budget is split evenly over the worlds.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from spielwerk.core.game import InfoState
from spielwerk.mc.mcts import Rollout, SearchError, random_rollout, uct_search


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
) -> VoteResult:
    """Search ``worlds`` determinizations of ``info_state``; ``time_limit`` is for all worlds."""
    if worlds < 1:
        raise SearchError(f"worlds must be at least 1, not {worlds}")
    legal = info_state.legal_actions()
    if not legal:
        raise SearchError("determinized MCTS: the player has no move here")
    rng = rng if rng is not None else np.random.default_rng()
    per_world = None if time_limit is None else time_limit / worlds
    votes: Counter[int] = Counter()
    visits: Counter[int] = Counter()
    total = 0
    for _ in range(worlds):
        world = info_state.sample_world(rng)
        res = uct_search(
            world, iterations=iterations, time_limit=per_world, c=c, rollout=rollout, rng=rng
        )
        votes[res.best(final)] += 1
        for a, n in res.visits.items():
            visits[a] += n
        total += res.iterations
    return VoteResult(dict(votes), dict(visits), total)
