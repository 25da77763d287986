"""Perfect-information Monte Carlo (PIMC): decide by solving sampled worlds exactly.

For the player to move, draw worlds consistent with what the player knows
(``InfoState.sample_world``), solve each world with a perfect-information
solver that values every legal action, and pick the action that is best in
the most worlds; ties go to the highest total value over the worlds, then to
a seeded random choice (the DDSS procedure in the Skat seed, "Ausspielen").

The driver is generic: any game works that offers a world sampler and a
solver returning ``{action: value}`` from the mover's point of view (higher is
better). When the info state can list its worlds (an optional
``enumerate_worlds(limit)`` method returning ``None`` when there are more than
``limit``), few worlds are solved exactly instead of sampled.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import InfoState

W = TypeVar("W")


class PimcError(SpielwerkError, ValueError):
    """Bad PIMC parameters or a solver that values no legal action."""


@dataclass
class PimcResult:
    """The chosen action and the tallies behind it."""

    action: int
    best_counts: dict[int, int]
    """Worlds in which each action was (one of) the best."""
    totals: dict[int, float]
    """Sum of each action's value over the worlds."""
    worlds: int
    exhaustive: bool
    """True when every consistent world was solved (enumeration)."""
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)


def choose(
    per_world: Sequence[dict[int, float]], rng: np.random.Generator,
    prefer: Callable[[list[int]], int | None] | None = None,
    slack: int = 0,
) -> tuple[int, dict[int, int], dict[int, float]]:
    """Most worlds best, then highest total, then ``prefer(tied)`` when it names one of
    the tied actions, else a seeded random pick. With ``slack`` > 0, ``prefer`` is asked
    about every action best in at least the most worlds less ``slack`` (a near tie, which
    it weighs itself), and the pick without it is as before."""
    counts: dict[int, int] = {}
    totals: dict[int, float] = {}
    for values in per_world:
        if not values:
            continue
        top = max(values.values())
        for a, v in values.items():
            totals[a] = totals.get(a, 0.0) + float(v)
            counts.setdefault(a, 0)
            if v == top:
                counts[a] += 1
    if not counts:
        raise PimcError("PIMC: the solver valued no action in any world")
    best_count = max(counts.values())
    cands = [a for a in sorted(counts) if counts[a] == best_count]
    best_total = max(totals[a] for a in cands)
    cands = [a for a in cands if totals[a] == best_total]
    near = [a for a in sorted(counts) if counts[a] >= best_count - slack] if slack > 0 \
        else cands
    if len(near) > 1 and prefer is not None:
        pick = prefer(near)
        if pick is not None and pick in near:
            return pick, counts, totals
    action = cands[int(rng.integers(len(cands)))] if len(cands) > 1 else cands[0]
    return action, counts, totals


def pimc_search(
    sample: Callable[[np.random.Generator], W],
    solve: Callable[[W], dict[int, float]],
    rng: np.random.Generator,
    *,
    worlds: int = 64,
    time_limit: float | None = None,
    enumerate_worlds: Callable[[int], list[W] | None] | None = None,
    solve_some: Callable[[W, frozenset[int] | None], dict[int, float]] | None = None,
    prefer: Callable[[list[int]], int | None] | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
    slack: int = 0,
) -> PimcResult:
    """PIMC over any world type ``W``.

    ``worlds`` caps the number of sampled worlds and ``time_limit`` (seconds)
    stops sampling early: no further world is started when one more, at the mean time per
    world so far, would end past the limit (at least one world is always solved). If
    ``enumerate_worlds(worlds)`` returns a list, those worlds are solved (each once)
    instead of samples - under a time limit in random order and as many as it allows
    (``exhaustive`` says whether all were).

    ``solve_some(world, actions)`` - for solvers whose values are win/loss
    (0 or 1) only - values just the listed actions (None: all). Then actions
    that can no longer reach the most-best count even if they were best in
    every world left are not solved any more, and sampling stops when one
    action is left. The choice is the one full solving would make on the
    same worlds (with two values, the actions still counted gain the same
    per world either way); ``best_counts`` then differ from full solving.

    ``prefer(tied)`` breaks a tie between equally good actions (a game's heuristic);
    when it returns None or an action not in the list, the pick is random as without it.
    With ``slack`` > 0 it is asked about near ties too (:func:`choose`), and pruning keeps
    every action that can still come within ``slack`` of the most-best count.

    ``deadline`` (a time on ``clock``) is a hard stop: the clock is read before each world
    and no world is started once it has passed (not even the first: then no world is
    solved and :class:`PimcError` says so). ``details`` names the ``planned`` worlds and
    why fewer were solved: ``stopped`` is ``"time"`` (the limit or the deadline) or
    ``"decided"`` (pruning left one action).
    """
    if worlds < 1:
        raise PimcError(f"PIMC needs at least 1 world, not {worlds}")
    if time_limit is not None and time_limit <= 0:
        raise PimcError(f"PIMC time limit must be positive, not {time_limit}")
    if clock is None:  # read at the call, so a stand-in for ``time`` is seen
        clock = time.perf_counter
    start = clock()
    listed = enumerate_worlds(worlds) if enumerate_worlds is not None else None
    if listed is not None and time_limit is not None and len(listed) > 1:
        # the time limit may stop before the end of the list: solve it in random order
        listed = [listed[j] for j in rng.permutation(len(listed))]
    per_world: list[dict[int, float]] = []
    total = len(listed) if listed is not None else worlds
    alive: frozenset[int] | None = None
    counts: dict[int, int] = {}
    skipped = 0
    stopped: str | None = None
    for i in range(total):
        if deadline is not None and clock() >= deadline:
            stopped = "time"
            break
        w = listed[i] if listed is not None else sample(rng)
        if solve_some is None:
            per_world.append(solve(w))
        else:
            values = solve_some(w, alive)
            per_world.append(values)
            if values:
                top = max(values.values())
                for a, v in values.items():
                    counts[a] = counts.get(a, 0) + (v == top)
                lead = max(counts.values())
                left = total - i - 1
                alive = frozenset(a for a, k in counts.items() if k + left >= lead - slack)
                if len(alive) == 1:
                    skipped = left
                    stopped = "decided" if left else None
                    break
        if time_limit is not None and i + 1 < total:
            spent = clock() - start
            if spent * (i + 2) / (i + 1) >= time_limit:  # the next world would overrun
                stopped = "time"
                break
    if not per_world:
        raise PimcError("PIMC: the deadline passed before a world was solved")
    action, counts_out, totals = choose(per_world, rng, prefer, slack)
    exhaustive = listed is not None and len(per_world) + skipped == len(listed)
    details: dict[str, Any] = {"planned": total, "stopped": stopped}
    if solve_some:
        details["skipped_worlds"] = skipped
    return PimcResult(action, counts_out, totals, len(per_world), exhaustive,
                      clock() - start, details)


def pimc_decide(
    info_state: InfoState,
    solve: Callable[[Any], dict[int, float]],
    rng: np.random.Generator,
    *,
    worlds: int = 64,
    time_limit: float | None = None,
) -> PimcResult:
    """PIMC on the core API: worlds from ``info_state.sample_world`` (or its
    ``enumerate_worlds`` when present), ``solve(state)`` values the legal actions."""
    legal = info_state.legal_actions()
    if not legal:
        raise PimcError("PIMC: the player has no move here")
    if len(legal) == 1:
        return PimcResult(int(legal[0]), {int(legal[0]): 0}, {int(legal[0]): 0.0}, 0, True)
    enum = getattr(info_state, "enumerate_worlds", None)
    return pimc_search(
        info_state.sample_world, solve, rng, worlds=worlds, time_limit=time_limit,
        enumerate_worlds=enum if callable(enum) else None,
    )
