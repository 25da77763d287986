"""Kalah at the web table: the review of a game record and the lobby's limits.

The review values every legal move of every position (final margin for the mover, as
``kalah analyze``); the limits are probed on the game and agent code, so a limit of the
rules or of the solver behind an agent is never written down twice.
"""

from __future__ import annotations

import functools
from typing import Any

from spielwerk.core.agent import list_agents
from spielwerk.core.probe import largest, plays
from spielwerk.core.registry import load_game

MAX_SEEDS_IN_PLAY = 30
"""Positions with at most this many seeds in the pits are solved exactly in a review."""

ESTIMATE_SECONDS = 0.25
"""Time for each larger position: depth-limited estimates, marked as such (as
``kalah analyze --time``), exact where the search finishes within it."""


def review(spec: str, history: list[int]) -> list[dict[str, Any]]:
    """Value of each legal move (final margin for the mover, as ``kalah analyze``) for
    every position of the game: exact with few enough seeds left in the pits, else the
    deepest estimate found in ``ESTIMATE_SECONDS`` (``exact`` false, ``depth``)."""
    from spielwerk.games.kalah import kernel
    from spielwerk.games.kalah.perfect import analyze_within
    from spielwerk.games.kalah.solver import Solver

    game: Any = load_game(spec)
    state: Any = game.new_initial_state()
    m = game.pits
    solver = Solver(m, game.empty_capture, game.end_rule, max_seeds=2 * m * game.seeds,
                    egdb_seeds=0, tt_log2=20)
    out = []
    for ply, action in enumerate(history):
        board = state.board
        mover = state.current_player
        in_pits = int(board.sum()) - int(board[m]) - int(board[2 * m + 1])
        if game.end_rule == kernel.END_EITHER_EMPTY:
            rel = solver.relative(board, mover)
            if in_pits <= MAX_SEEDS_IN_PLAY:
                move_values, depth = solver.analyze(rel).move_values, -1
            else:
                timed = analyze_within(solver, rel, ESTIMATE_SECONDS)
                move_values, depth = timed.move_values, timed.depth
            diff = int(board[m] - board[2 * m + 1]) * (1 if mover == 0 else -1)
            values = {str(p + 1): int(v) + diff for p, v in sorted(move_values.items())}
            best = max(values.values())
            out.append({"ply": ply, "mover": mover, "move": str(action + 1), "values": values,
                        "best": best, "played": values.get(str(action + 1)),
                        "mistake": values.get(str(action + 1)) != best,
                        "exact": depth == -1, "depth": depth})
        state.apply(action)
    return out


def _plays_seeds(name: str, agent: str, pits: int, seeds: int) -> bool:
    return plays(name, agent, pits=pits, seeds=seeds)


@functools.cache
def agent_limits(name: str, agent: str) -> dict[str, Any]:
    """The pits (1..max) and, for each number of pits, the most seeds per pit with which
    the game ``name`` loads and ``agent`` plays it (probed once per process)."""
    pits = largest(lambda m: plays(name, agent, pits=m, seeds=1), 1)
    seeds = {str(m): largest(functools.partial(_plays_seeds, name, agent, m), 1)
             for m in range(1, pits + 1)}
    return {"pits": {"min": 1, "max": pits}, "seeds": {"min": 1, "max_by_pits": seeds}}


def lobby_limits(name: str) -> dict[str, Any]:
    """:func:`agent_limits` of every agent of the game ``name``."""
    return {e.name: agent_limits(name, e.name) for e in list_agents(name)}
