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


def _solver(game: Any) -> Any:
    from spielwerk.games.kalah.solver import Solver

    return Solver(game.pits, game.empty_capture, game.end_rule,
                  max_seeds=2 * game.pits * game.seeds, egdb_seeds=0, tt_log2=20)


def move_values(game: Any, solver: Any, state: Any, seconds: float) -> tuple[dict[str, int], int]:
    """The value of each legal move of ``state`` (final margin for the mover, pits named
    1..m) and the search depth: -1 (exact) with at most ``MAX_SEEDS_IN_PLAY`` seeds in the
    pits, else the deepest estimate found in ``seconds``."""
    from spielwerk.games.kalah.perfect import analyze_within

    board, mover, m = state.board, state.current_player, game.pits
    in_pits = int(board.sum()) - int(board[m]) - int(board[2 * m + 1])
    rel = solver.relative(board, mover)
    if in_pits <= MAX_SEEDS_IN_PLAY:
        values, depth = solver.analyze(rel).move_values, -1
    else:
        timed = analyze_within(solver, rel, seconds)
        values, depth = timed.move_values, timed.depth
    diff = int(board[m] - board[2 * m + 1]) * (1 if mover == 0 else -1)
    return {str(p + 1): int(v) + diff for p, v in sorted(values.items())}, depth


def review(spec: str, history: list[int]) -> list[dict[str, Any]]:
    """Value of each legal move (final margin for the mover, as ``kalah analyze``) for
    every position of the game: exact with few enough seeds left in the pits, else the
    deepest estimate found in ``ESTIMATE_SECONDS`` (``exact`` false, ``depth``)."""
    from spielwerk.games.kalah import kernel

    game: Any = load_game(spec)
    state: Any = game.new_initial_state()
    solver = _solver(game)
    out = []
    for ply, action in enumerate(history):
        if game.end_rule == kernel.END_EITHER_EMPTY:
            values, depth = move_values(game, solver, state, ESTIMATE_SECONDS)
            best = max(values.values())
            out.append({"ply": ply, "mover": state.current_player, "move": str(action + 1),
                        "values": values, "best": best, "played": values.get(str(action + 1)),
                        "mistake": values.get(str(action + 1)) != best,
                        "exact": depth == -1, "depth": depth})
        state.apply(action)
    return out


def hint(info: Any, seed: int, time_s: float) -> dict[str, Any]:
    """The hint for the player to move (Kalah hides nothing): each legal pit's final margin
    under best play, exact with at most ``MAX_SEEDS_IN_PLAY`` seeds in the pits, else the
    deepest estimate found in ``time_s`` seconds (the table's engine time, at least the
    server's hint minimum). ``seed`` is unused: the values are the solver's."""
    from spielwerk.games.kalah import kernel

    state: Any = info.state
    game: Any = state.game
    if game.end_rule != kernel.END_EITHER_EMPTY:
        return {"kind": "none", "text": "no hint: the solver plays only the standard end rule"}
    values, depth = move_values(game, _solver(game), state, time_s)
    best = max(values.values())
    order = sorted(values, key=lambda p: (-values[p], int(p)))
    how = "exact" if depth == -1 else (
        f"estimated by a search {depth} moves deep, not exact" if depth > 0 else
        "the immediate store gains only (no search finished), not exact")
    outcome = (f"you finish {abs(best)} {'ahead' if best > 0 else 'behind'}" if best else
               "the game is drawn")
    pits = " or ".join(p for p in order if values[p] == best)
    return {
        "kind": "moves",
        "text": f"best: pit {pits}; with best play on both sides {outcome} ({how})",
        "columns": ["move", "final margin with best play"],
        "rows": [[f"pit {p}", f"{values[p]:+d}"] for p in order],
        "best": [int(p) - 1 for p in order if values[p] == best],
        "exact": depth == -1,
    }


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
