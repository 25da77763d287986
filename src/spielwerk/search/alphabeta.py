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
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import CHANCE, TERMINAL, InfoState, State

Evaluate = Callable[[State, int], float]


class AlphaBetaError(SpielwerkError, ValueError):
    """A search that cannot run (no moves, bad depth or worlds)."""


def zero_evaluation(state: State, player: int) -> float:
    return 0.0


def alphabeta(
    state: State,
    depth: int,
    player: int,
    evaluate: Evaluate = zero_evaluation,
    alpha: float = -math.inf,
    beta: float = math.inf,
) -> float:
    """Value of ``state`` for ``player`` searched ``depth`` plies deep (state unchanged)."""
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
            total += prob * alphabeta(child, depth - 1, player, evaluate)
        return total
    maximise = to_move == player
    best = -math.inf if maximise else math.inf
    for action in state.legal_actions():
        child = state.clone()
        child.apply_unchecked(action)
        v = alphabeta(child, depth - 1, player, evaluate, alpha, beta)
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


def root_values(state: State, depth: int, evaluate: Evaluate = zero_evaluation) -> dict[int, float]:
    """Exact depth-limited value (for the mover) of every legal root action."""
    player = state.current_player
    if player < 0:
        raise AlphaBetaError("alpha-beta needs a state with a player to move")
    if depth < 1:
        raise AlphaBetaError(f"depth must be at least 1, not {depth}")
    out: dict[int, float] = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_unchecked(action)
        out[action] = alphabeta(child, depth - 1, player, evaluate)
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
