"""Time-bounded Kalah searches and the ``perfect`` agent, on :class:`~.solver.Solver`."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from spielwerk.core.agent import Agent, register_agent
from spielwerk.core.game import Game, InfoState, PerfectInfoState
from spielwerk.games.kalah import egdb as egdb_mod
from spielwerk.games.kalah.solver import (
    TT_LOG2_MAX,
    SearchTimeout,
    Solver,
    SolverError,
)
from spielwerk.search.iterative import depth_schedule, iterative_deepening
from spielwerk.search.mtdf import mtdf
from spielwerk.search.tt import DEPTH_INF


@dataclass
class TimedAnalysis:
    """Result of :func:`analyze_within`: ``depth`` -1 when the values are exact, else the
    depth of the deepest iteration that finished for every move (0: none did)."""

    move_values: dict[int, int]
    depth: int
    seconds: float


def analyze_within(solver: Solver, rel: np.ndarray, budget_s: float) -> TimedAnalysis:
    """Values of every move of ``rel`` within about ``budget_s`` seconds.

    Depth-limited iterations (``solver.depth_step``, 2x, ...) give estimates for
    every move first; the exact search follows with the time left. The result is
    the exact values if they finished, else those of the deepest full iteration.
    """
    start = time.perf_counter()
    if solver.is_over(rel):
        raise SolverError("the game is over: no move")
    kids = solver.children(rel)
    best: dict[int, int] = {pit: g for pit, g, _nxt, _c in kids}
    found_depth = 0
    solver.deadline = start + budget_s

    def values(depth: int) -> dict[int, int]:
        out: dict[int, int] = {}
        for pit, g, nxt, child in kids:
            if nxt < 0:
                out[pit] = g
                continue
            s = int(child[: solver.m].sum() + child[solver.m + 1 : 2 * solver.m + 1].sum())
            if depth == DEPTH_INF:
                v = solver.value(child, iterative=False)
            else:
                v = mtdf(solver.tester(child, depth), 0, -s, s)
            out[pit] = g + v if nxt == 0 else g - v
        return out

    def keep(depth: int, found: dict[int, int]) -> None:
        nonlocal best, found_depth
        best, found_depth = found, depth

    try:
        depths = depth_schedule(max(1, solver.depth_step), solver.depth_max)
        iterative_deepening(lambda depth, _: values(depth), depths, best, keep)
        best, found_depth = values(DEPTH_INF), -1
    except SearchTimeout:
        pass
    finally:
        solver.deadline = None
    return TimedAnalysis(best, found_depth, time.perf_counter() - start)


def solver_for(game: object, **kwargs: object) -> Solver:
    """A solver for a :class:`~spielwerk.games.kalah.rules.KalahGame`."""
    from spielwerk.games.kalah.rules import KalahGame

    if not isinstance(game, KalahGame):
        raise SolverError("the Kalah solver needs a Kalah game")
    total = 2 * game.pits * game.seeds
    return Solver(game.pits, game.empty_capture, game.end_rule, max_seeds=total,
                  **kwargs)  # type: ignore[arg-type]


def search_move(solver: Solver, rel: np.ndarray, budget_s: float) -> tuple[int, int, int]:
    """Best move within ``budget_s`` seconds: (move, value, depth; -1 = exact).

    Iterative deepening as in :meth:`Solver.value`; when time runs out, the
    move of the deepest completed iteration is returned (the largest
    immediate gain, extra turns first, if not even the first one finished).
    """
    m = solver.m
    if solver.is_over(rel):
        raise SolverError("the game is over: no move")
    kids = solver.children(rel)
    fallback = max(kids, key=lambda k: (k[2] == 0, k[1], k[0]))[0]
    result = (fallback, 0, 0)
    s = int(rel[:m].sum() + rel[m + 1 : 2 * m + 1].sum())
    solver.deadline = time.perf_counter() + budget_s
    try:
        if s <= solver.db_n:
            vals = solver.move_values(rel)
            v = max(vals.values())
            return min(p for p, x in vals.items() if x == v), v, -1
        def keep(depth: int, guess: int) -> None:
            nonlocal result
            _, mv = solver.test(rel, guess, depth)
            if mv >= 0:
                result = (mv, guess, depth)

        guess = iterative_deepening(
            lambda depth, guess: mtdf(solver.tester(rel, depth), guess, -s, s),
            depth_schedule(solver.depth_step, solver.depth_max), 0, keep)
        v = mtdf(solver.tester(rel, DEPTH_INF), guess, -s, s, step=2)
        return solver.best_move(rel, v), v, -1
    except SearchTimeout:
        return result
    finally:
        solver.deadline = None


AGENT_TT_LOG2 = 24
"""Largest table an agent chooses by itself (2^24 slots, 256 MiB): arenas run many."""


def _stderr_line(text: str) -> None:
    print(f"perfect agent: {text}", file=sys.stderr, flush=True)


class PerfectAgent(Agent):
    """Solver-backed Kalah agent: exact play when the search finishes within ``time``
    seconds per move, else the best move of the deepest completed iteration.

    ``egdb=-1`` (default) and ``tt=0`` (default) choose as ``kalah solve`` does
    (:func:`~spielwerk.games.kalah.defaults.choose`: the largest cached database
    that fits, a table from the free memory, at most 2^24 slots per agent).
    """

    def __init__(self, game: Game, seed: int | None = None, time: float = 5.0, egdb: int = -1,
                 tt: int = 0) -> None:
        super().__init__(game, seed)
        from spielwerk.games.kalah import defaults
        from spielwerk.games.kalah.rules import KalahGame

        if time <= 0:
            raise SolverError("perfect: the time budget must be positive")
        if not isinstance(game, KalahGame):
            raise SolverError("the perfect agent plays Kalah only")
        self.budget = float(time)
        total = 2 * game.pits * game.seeds
        self.choice = defaults.choose(game.pits, total, game.empty_capture, game.end_rule,
                                      egdb=None if egdb < 0 else egdb,
                                      tt_log2=None if tt == 0 else tt, tt_cap=AGENT_TT_LOG2)
        values = None
        if self.choice.egdb_seeds > 0:  # a build can take minutes: say so on stderr
            values = egdb_mod.open_egdb(game.pits, self.choice.egdb_seeds, game.empty_capture,
                                        game.end_rule, progress=_stderr_line).values
        self.solver = solver_for(game, egdb_seeds=self.choice.egdb_seeds,
                                 tt_log2=self.choice.tt_log2, egdb_values=values)
        self.last: tuple[int, int, int] | None = None

    def act(self, info_state: InfoState) -> int:
        from spielwerk.games.kalah.rules import KalahState

        if not isinstance(info_state, PerfectInfoState) or not isinstance(info_state.state,
                                                                          KalahState):
            raise SolverError("the perfect agent plays Kalah only")
        state = info_state.state
        rel = self.solver.relative(state.board, state.current_player)
        self.last = search_move(self.solver, rel, self.budget)
        return self.last[0]


def _perfect(game: Game, seed: int | None = None, time: float = 5.0, egdb: int = -1,
             tt: int = 0) -> Agent:
    return PerfectAgent(game, seed, time, egdb, tt)


register_agent(
    "perfect",
    _perfect,
    {"time": 5.0, "egdb": -1, "tt": 0},
    "MTD(f) solver: exact play when it finishes in time, else deepest completed iteration",
    ("kalah",),
    {
        "time": "seconds per move",
        "egdb": "endgame database size in seeds (-1: the largest cached that fits; 0: none; "
                "built once, cached on disk)",
        "tt": "transposition table size, log2 of the slots (16 bytes each; 0: from the memory)",
    },
    {"time": (0.001, None), "egdb": (-1, egdb_mod.MAX_SEEDS), "tt": (0, TT_LOG2_MAX)},
)
