"""Time-bounded Kalah searches and the ``perfect`` agent, on :class:`~.solver.Solver`."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from spielwerk.core.agent import (
    Agent,
    AgentSpecError,
    check_declared,
    param,
    register_declared,
)
from spielwerk.core.game import Game, InfoState, PerfectInfoState
from spielwerk.games.kalah import egdb as egdb_mod
from spielwerk.games.kalah.plan import (
    AUTO,
    EGDB_HELP,
    TT_HELP,
    TT_LOG2_SHARED_CAP,
    KalahPlan,
    PlanError,
)
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


def analyze_within(solver: Solver, rel: np.ndarray, budget_s: float,
                   started: float | None = None) -> TimedAnalysis:
    """Values of every move of ``rel`` within about ``budget_s`` seconds from ``started``
    (a ``time.perf_counter()`` reading, e.g. before the solver was made, so that its setup
    counts; default: now).

    Depth-limited iterations (``solver.depth_step``, 2x, ...) give estimates for
    every move first; the exact search follows with the time left. The result is
    the exact values if they finished, else those of the deepest full iteration
    (the immediate gains, depth 0, when the time was gone before the first).
    """
    start = time.perf_counter() if started is None else started
    if solver.is_over(rel):
        raise SolverError("the game is over: no move")
    kids = solver.children(rel)
    best: dict[int, int] = {pit: g for pit, g, _nxt, _c in kids}
    found_depth = 0
    solver.deadline = start + budget_s
    if time.perf_counter() >= solver.deadline:
        solver.deadline = None
        return TimedAnalysis(best, found_depth, time.perf_counter() - start)

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


def _stderr_line(text: str) -> None:
    print(f"perfect agent: {text}", file=sys.stderr, flush=True)


_LAST_SOLVER: tuple[tuple[int | bool | str, ...], Solver] | None = None
"""The solver of the last ``perfect`` agent made in this thread, for the next one of the same
game and choice: the web table makes a new agent for every move, and a fresh solver (its
table of up to 256 MiB, the database) cost up to a second of the move's time. One entry,
so a process that probes many sizes holds one table."""


def _remember(key: tuple[int | bool | str, ...], solver: Solver) -> None:
    global _LAST_SOLVER
    _LAST_SOLVER = (key, solver)


def _new_solver(game: Any, egdb_seeds: int, tt_log2: int) -> Solver:
    values = None
    if egdb_seeds > 0:  # a build can take minutes: say so on stderr
        values = egdb_mod.open_egdb(game.pits, egdb_seeds, game.empty_capture, game.end_rule,
                                    progress=_stderr_line).values
    return solver_for(game, egdb_seeds=egdb_seeds, tt_log2=tt_log2, egdb_values=values)


@dataclass(frozen=True)
class PerfectParams:
    """``perfect``: its parameters declared once. ``egdb`` and ``tt`` are checked by the
    :class:`~spielwerk.games.kalah.plan.KalahPlan` they make (the same check as the CLI's)."""

    time: float = param(5.0, "seconds per move", (0.001, None))
    egdb: int = param(AUTO, EGDB_HELP, (AUTO, egdb_mod.MAX_SEEDS))
    tt: int = param(AUTO, TT_HELP, (AUTO, TT_LOG2_MAX))

    def __post_init__(self) -> None:
        check_declared("perfect", self)


class PerfectAgent(Agent):
    """Solver-backed Kalah agent: exact play when the search finishes within ``time``
    seconds per move, else the best move of the deepest completed iteration.

    ``egdb`` and ``tt`` (default :data:`~spielwerk.games.kalah.plan.AUTO`) choose as
    ``kalah solve`` does (:meth:`~spielwerk.games.kalah.plan.KalahPlan.choose`: the
    largest cached database that fits, a table from the free memory, at most 2^22 slots
    per agent).
    """

    def __init__(self, game: Game, seed: int | None = None, **params: Any) -> None:
        super().__init__(game, seed)
        from spielwerk.games.kalah.rules import KalahGame

        settings = PerfectParams(**params)
        if not isinstance(game, KalahGame):
            raise SolverError("the perfect agent plays Kalah only")
        self.budget = float(settings.time)
        try:
            self.plan = KalahPlan(game.pits, 2 * game.pits * game.seeds, game.empty_capture,
                                  game.end_rule, settings.egdb, settings.tt,
                                  tt_cap=TT_LOG2_SHARED_CAP)
        except PlanError as exc:  # the registry's one-line form
            raise AgentSpecError(f"agent 'perfect': {exc}") from None
        self.choice = self.plan.choose()
        if self.choice.egdb_seeds > 0:  # a database too large for the machine: refused now,
            egdb_mod.check_size(game.pits, self.choice.egdb_seeds)  # not at the first move
        self._solver: Solver | None = None
        self.last: tuple[int, int, int] | None = None

    @property
    def solver(self) -> Solver:
        """The agent's solver (table and database), made at its first use: an agent made
        only to ask whether it accepts a game size (the lobby's limits probe about twenty
        sizes) maps and checks no database. The last one made in this thread for the same
        game and choice is used again (:data:`_LAST_SOLVER`)."""
        if self._solver is None:
            game: Any = self.game
            key = (threading.get_ident(), game.pits, game.seeds, game.empty_capture,
                   game.end_rule, self.choice.egdb_seeds, self.choice.tt_log2)
            if _LAST_SOLVER is not None and _LAST_SOLVER[0] == key:
                self._solver = _LAST_SOLVER[1]
            else:
                self._solver = _new_solver(game, self.choice.egdb_seeds, self.choice.tt_log2)
                _remember(key, self._solver)
        return self._solver

    def act(self, info_state: InfoState) -> int:
        from spielwerk.games.kalah.rules import KalahState

        if not isinstance(info_state, PerfectInfoState) or not isinstance(info_state.state,
                                                                          KalahState):
            raise SolverError("the perfect agent plays Kalah only")
        state = info_state.state
        rel = self.solver.relative(state.board, state.current_player)
        self.last = search_move(self.solver, rel, self.budget)
        return self.last[0]


register_declared(
    "perfect", PerfectAgent, PerfectParams,
    "MTD(f) solver: exact play when it finishes in time, else deepest completed iteration",
    ("kalah",))
