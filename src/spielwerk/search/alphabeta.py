"""Generic depth-limited alpha-beta over the core API, and its determinized form.

Values are from the point of view of one ``player`` (the root mover): nodes
where that player moves maximise, all other players minimise (the "paranoid"
reduction, exact for two-player zero-sum games). This works for games where a
player moves several times in a row. Terminal nodes score the player's
return; at depth 0 ``evaluate(state, player)`` scores the position (default
0.0). Chance nodes inside the search are averaged (expectimax, no pruning
across them).

:func:`determinized_alphabeta` searches k worlds sampled from an info state and
averages the root values; on a perfect-information game every world is the
state itself, so it returns exactly the plain alpha-beta values.

:func:`determinized_alphabeta_timed` does the same within a time budget: the
first world is searched by iterative deepening (depth 1 always finishes, so
there is always an answer), then further worlds at the depth the first one
reached while time is left; a search the clock interrupts is dropped, and the
answer is the mean over the worlds finished at that depth.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import CHANCE, TERMINAL, InfoState, State

Evaluate = Callable[[State, int], float]


class AlphaBetaError(SpielwerkError, ValueError):
    """A search that cannot run (no moves, bad depth or worlds)."""


class _OutOfTime(Exception):
    """The clock ran out inside a timed search (caught by the timed search itself)."""


def zero_evaluation(state: State, player: int) -> float:
    return 0.0


def alphabeta(
    state: State,
    depth: int,
    player: int,
    evaluate: Evaluate = zero_evaluation,
    alpha: float = -math.inf,
    beta: float = math.inf,
    deadline: float | None = None,
) -> float:
    """Value of ``state`` for ``player`` searched ``depth`` plies deep (state unchanged).

    ``deadline`` (a ``time.perf_counter()`` value) is for the timed searches of this
    module: past it the search stops by raising their internal exception."""
    if deadline is not None and time.perf_counter() > deadline:
        raise _OutOfTime
    to_move = state.current_player
    if to_move == TERMINAL:
        return float(state.returns()[player])
    if depth <= 0:
        return float(evaluate(state, player))
    if to_move == CHANCE:
        total = 0.0
        for action, prob in state.chance_outcomes():
            child = state.clone()
            child.apply_unchecked(action)
            total += prob * alphabeta(child, depth - 1, player, evaluate,
                                      deadline=deadline)
        return total
    maximise = to_move == player
    best = -math.inf if maximise else math.inf
    for action in state.legal_actions():
        child = state.clone()
        child.apply_unchecked(action)
        v = alphabeta(child, depth - 1, player, evaluate, alpha, beta, deadline)
        if maximise:
            if v > best:
                best = v
            alpha = max(alpha, v)
        else:
            if v < best:
                best = v
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


def root_values(state: State, depth: int, evaluate: Evaluate = zero_evaluation,
                deadline: float | None = None) -> dict[int, float]:
    """Exact depth-limited value (for the mover) of every legal root action (``deadline``:
    as for :func:`alphabeta`)."""
    player = state.current_player
    if player < 0:
        raise AlphaBetaError("alpha-beta needs a state with a player to move")
    if depth < 1:
        raise AlphaBetaError(f"depth must be at least 1, not {depth}")
    out: dict[int, float] = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_unchecked(action)
        out[action] = alphabeta(child, depth - 1, player, evaluate, deadline=deadline)
    return out


def best_action(values: dict[int, float]) -> int:
    """Highest value; ties to the lowest action (deterministic)."""
    return max(values, key=lambda a: (values[a], -a))


def determinized_alphabeta(
    info_state: InfoState,
    *,
    worlds: int,
    depth: int,
    evaluate: Evaluate = zero_evaluation,
    rng: np.random.Generator | None = None,
) -> dict[int, float]:
    """Mean root values over ``worlds`` determinizations of ``info_state``."""
    if worlds < 1:
        raise AlphaBetaError(f"worlds must be at least 1, not {worlds}")
    legal = info_state.legal_actions()
    if not legal:
        raise AlphaBetaError("the player has no move here")
    rng = rng if rng is not None else np.random.default_rng()
    totals = dict.fromkeys(legal, 0.0)
    for _ in range(worlds):
        world = info_state.sample_world(rng)
        for a, v in root_values(world, depth, evaluate).items():
            totals[a] += v
    return {a: v / worlds for a, v in totals.items()}


@dataclass(frozen=True)
class TimedValues:
    """What :func:`determinized_alphabeta_timed` found within its budget."""

    values: dict[int, float]
    """Mean root value of every legal action over the finished worlds."""
    depth: int
    """The depth those worlds were searched to (the first world's deepest finished)."""
    worlds: int
    """How many worlds were searched to ``depth`` (at least one)."""


def determinized_alphabeta_timed(
    info_state: InfoState,
    *,
    worlds: int,
    depth: int,
    seconds: float,
    evaluate: Evaluate = zero_evaluation,
    rng: np.random.Generator | None = None,
    start: float | None = None,
) -> TimedValues:
    """Mean root values over at most ``worlds`` determinizations, searched at most ``depth``
    plies deep, within ``seconds`` counted from ``start`` (a ``time.perf_counter()`` value;
    default now).

    The first world is searched by iterative deepening from depth 1 (which always
    finishes, however small the budget: at least one world answers) up to ``depth``; the
    deepest finished search counts. If it reached ``depth``, further worlds are searched
    to ``depth`` while time is left. A search the clock interrupts is dropped, so the
    values are those of whole searches, all to the same depth."""
    if worlds < 1:
        raise AlphaBetaError(f"worlds must be at least 1, not {worlds}")
    if seconds <= 0:
        raise AlphaBetaError(f"a timed search needs seconds > 0, not {seconds}")
    legal = info_state.legal_actions()
    if not legal:
        raise AlphaBetaError("the player has no move here")
    rng = rng if rng is not None else np.random.default_rng()
    deadline = (time.perf_counter() if start is None else start) + seconds
    world = info_state.sample_world(rng)
    totals = root_values(world, 1, evaluate)
    reached = 1
    for d in range(2, depth + 1):
        try:
            totals = root_values(world, d, evaluate, deadline)
        except _OutOfTime:
            break
        reached = d
    done = 1
    if reached == depth:
        while done < worlds and time.perf_counter() < deadline:
            world = info_state.sample_world(rng)
            try:
                values = root_values(world, depth, evaluate, deadline)
            except _OutOfTime:
                break
            for a, v in values.items():
                totals[a] += v
            done += 1
    return TimedValues({a: totals[a] / done for a in legal}, reached, done)
