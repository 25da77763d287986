"""Kalah solver: iterative-deepening MTD(f) over a numba null-window alpha-beta.

Positions are seen from the player to move (the kernel layout with the mover
as player 0 and both stores zeroed); a node's value is the *future store gain*
of the mover minus the opponent's, so it does not depend on the stores and the
transposition table can be keyed on the pits alone (Irving, Donkers and
Uiterwijk 2000). A game's final margin is the current store difference plus
that value.

The search (``solver_kernel.nws``) is one loop over an explicit stack of plies and can be
paused after a node budget and resumed, which gives progress reports and time
budgets without Python recursion in the hot path. Per node:

* endgame database: a child with at most ``N`` seeds in the pits gets its
  exact value from the database without a search;
* futility: with ``s`` seeds left the value lies in ``[-s, s]`` (and has the
  parity of ``s``), which answers many null-window tests at once;
* transposition table: lower and upper bound, search depth and best move;
* enhanced transposition cut-offs (ETC): before searching any child, the
  table is asked whether one child already proves the cut-off;
* move ordering: the table's move, then extra turns, captures, the rest (pits
  nearest the store first).

The driver searches to depth 3, 6, ... 30 (leaf value 0 = store difference
so far), each iteration an MTD(f) seeded by the previous value, then without a
depth limit, which gives the exact value.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.kalah import egdb as egdb_mod
from spielwerk.games.kalah import egdb_index, kernel
from spielwerk.games.kalah.egdb_index import rank, swap_sides
from spielwerk.games.kalah.solver_kernel import (
    C_EGDB,
    C_ETC_CUTS,
    C_FUTILITY,
    C_MAX_PLY,
    C_NODES,
    C_TT_CUTS,
    DONE,
    ENTER,
    N_COUNTERS,
    OVERFLOW,
    RUNNING,
)
from spielwerk.games.kalah.solver_kernel import nws as _nws
from spielwerk.search import tt
from spielwerk.search.iterative import depth_schedule, iterative_deepening
from spielwerk.search.mtdf import mtdf
from spielwerk.search.tt import DEPTH_INF

TT_LOG2_MIN, TT_LOG2_MAX = 10, 30
DEPTH_MAX = 12
"""Deepest depth-limited iteration before an exact solve (the seed's 30 costs more than it
saves on Kalah(5,4): docs/kalah.md)."""
DEPTH_MAX_LARGE, DEPTH_MAX_LARGE_FROM = 18, 48
"""From 48 seeds on the iterations go to depth 18: on Kalah(6,4) the depth-18 estimate (+8)
is a better first guess than depth 12's (+6) and saves 13-15 % of the nodes (both rules,
docs/kalah.md); on 40-seed instances it did not pay."""
"""Transposition-table sizes (log2 of the slots) accepted by the CLI and the agent."""


def table_log2(tt_log2: int, pits: int, max_seeds: int) -> tuple[int, str]:
    """The table size actually used for ``tt_log2`` asked, and why it differs (or "").

    A table never needs many more slots than the instance has positions (every
    position with at most ``max_seeds`` seeds, seen from the mover), and never
    gets more than a quarter of the machine's memory. Tables of 2**20 slots
    (16 MB) or less are used as asked.
    """
    positions = egdb_index.entries(max_seeds, pits)
    by_instance = max(20, (8 * positions - 1).bit_length())
    memory = egdb_mod.machine_memory_bytes()
    by_memory = max(20, ((memory // 4) // 16).bit_length() - 1) if memory else 64
    use = min(tt_log2, by_instance, by_memory)
    if use == tt_log2:
        return use, ""
    why = (f"Kalah({pits}) with {max_seeds} seeds has only {positions:,} positions"
           if use == by_instance else
           f"a quarter of this machine's {memory / 2**30:.0f} GiB memory")
    return use, (f"transposition table: 2^{use} slots ({(16 << use) / 2**20:,.0f} MiB) "
                 f"instead of 2^{tt_log2} ({(16 << tt_log2) / 2**20:,.0f} MiB): {why}")


STOP_CHUNK = 1 << 18
"""Most nodes the kernel searches before it returns to Python (~0.1-0.3 s at 1-3 M nodes/s):
numba code cannot see a signal, so this bounds how long Ctrl-C (and a ``stop`` event) waits.
The kernel resumes exactly where it paused, so the chunk size changes no node count."""
DEADLINE_CHUNK = 1 << 15
"""Nodes between two looks at the clock when a search has a deadline (1 M otherwise): at
1-3 M nodes/s a 1 M-node chunk let a 0.5 s move run 0.7-0.9 s."""


class SolverError(SpielwerkError):
    """A position or instance the solver cannot handle as asked."""


@dataclass
class SearchStats:
    """Counters of one solver (cumulative over its searches)."""

    nodes: int = 0
    egdb_probes: int = 0
    tt_cuts: int = 0
    etc_cuts: int = 0
    futility_cuts: int = 0
    max_ply: int = 0
    seconds: float = 0.0
    iterations: list[tuple[int, int, int]] = field(default_factory=list)  # depth, value, nodes

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class SearchTimeout(SolverError):
    """The time budget ran out before the search finished."""


@dataclass
class Analysis:
    """Result of :meth:`Solver.solve` for one position (values are final margins for the mover
    relative to the current stores, i.e. future store gain difference)."""

    value: int
    best_move: int
    move_values: dict[int, int]
    pv: list[int]


class Solver:
    """Exact values and best moves for Kalah(m, n) positions.

    ``egdb_seeds``: endgame database size (0: none); ``tt_log2``: table slots
    as a power of two (16 bytes each); ``progress(text)`` is called about
    every ``progress_nodes`` nodes.
    """

    def __init__(
        self,
        pits: int,
        empty_capture: bool = False,
        end_rule: int = kernel.END_EITHER_EMPTY,
        max_seeds: int = 48,
        egdb_seeds: int = 0,
        egdb_path: str | None = None,
        tt_log2: int = 22,
        etc_min_seeds: int = 30,
        tt_skip: int = 1,
        max_ply: int = 1024,
        depth_step: int = 3,
        depth_max: int | None = None,
        progress: Callable[[str], None] | None = None,
        progress_nodes: int = 1 << 22,
        egdb_values: np.ndarray | None = None,
        db_margin: int = 0,
    ) -> None:
        if pits < 1 or pits > 15:
            raise SolverError("solver: pits must be in 1..15")
        if end_rule not in (kernel.END_EITHER_EMPTY, kernel.END_MOVER_EMPTY):
            raise SolverError("solver: unknown end rule")
        if not 0 <= egdb_seeds <= egdb_mod.MAX_SEEDS:
            raise SolverError(f"solver: the endgame database size must be in "
                              f"0..{egdb_mod.MAX_SEEDS} seeds, not {egdb_seeds}")
        self.m = pits
        self.empty_capture = bool(empty_capture)
        self.end_rule = int(end_rule)
        self.max_seeds = max(int(max_seeds), egdb_seeds)
        try:
            self.binom = egdb_index.binomials(self.max_seeds, pits)
        except egdb_index.EgdbError as exc:
            raise SolverError(str(exc)) from None
        self.progress = progress
        self.progress_nodes = progress_nodes
        self.etc_min_seeds = etc_min_seeds
        self.db_margin = db_margin
        """Nodes with at most ``egdb_seeds + db_margin`` seeds value their game-ending moves
        and database children before searching any other child (0: off, as the searched
        nodes all have more seeds)."""
        self.tt_skip = tt_skip
        self.report_iterations = False
        self.depth_step = depth_step
        self.depth_max = DEPTH_MAX if depth_max is None else depth_max
        self.depth_max_auto = depth_max is None
        """Exact solves of positions with >= ``DEPTH_MAX_LARGE_FROM`` seeds iterate to
        ``DEPTH_MAX_LARGE`` (only when no ``depth_max`` was given)."""
        self.egdb: egdb_mod.Egdb | None = None
        if egdb_values is not None:
            db = egdb_values
            self.db_n = egdb_seeds
        elif egdb_seeds > 0:
            self.egdb = egdb_mod.open_egdb(pits, egdb_seeds, self.empty_capture, self.end_rule,
                                           egdb_path, progress=progress)
            db = self.egdb.values
            self.db_n = egdb_seeds
        else:
            db = egdb_mod.empty(pits)
            self.db_n = 0
        self.db = egdb_mod.read_only(db)  # one compiled search for every case (read_only)
        if not 1 <= tt_log2 <= 34:
            raise SolverError(f"solver: the table size (log2 slots) must be in 1..34, "
                              f"not {tt_log2}")
        self.tt_log2, note = table_log2(tt_log2, pits, self.max_seeds)
        if note and progress is not None:
            progress(note)
        self.table = tt.new_table(self.tt_log2)
        cells = 2 * pits + 2
        p = max_ply + 1
        self._regs = np.zeros(4, np.int64)
        self._brd = np.zeros((p, cells), np.int32)
        self._nbeta = np.zeros(p, np.int64)
        self._ndepth = np.zeros(p, np.int64)
        self._nkey = np.zeros(p, np.int64)
        self._nseeds = np.zeros(p, np.int64)
        self._curg = np.zeros(p, np.int64)
        self._curx = np.zeros(p, np.int64)
        self._nstart = np.zeros(p, np.int64)
        # the search's scratch rows (move priorities, children's keys and gains; two
        # boards): passed in, as the kernel allocates nothing (it runs without reference
        # counting)
        self._work = np.zeros((3, pits), np.int64)
        self._boards = np.zeros((2, cells), np.int32)
        self._ckey = np.zeros((p, pits), np.int64)
        self._corder = np.zeros((p, pits), np.int64)
        self._nmv = np.zeros(p, np.int64)
        self._mi = np.zeros(p, np.int64)
        self._best = np.zeros(p, np.int64)
        self._bestmv = np.zeros(p, np.int64)
        self._counters = np.zeros(N_COUNTERS, np.int64)
        self.stats = SearchStats()
        self.deadline: float | None = None
        self.node_budget: int | None = None
        """Stop (:class:`SearchTimeout`) once this many nodes (cumulative) are searched."""
        self.stop: threading.Event | None = None
        """Stop (:class:`SearchTimeout`) soon after this event is set (checked between
        chunks of at most ``progress_nodes`` nodes): the parallel search's cancellation."""
        self._next_report = progress_nodes
        self.bounds = (-self.max_seeds, self.max_seeds)
        """Bounds proven so far by the current MTD(f) (of the position being solved)."""
        self.exact_from = self.bounds
        """The bounds the exact MTD(f) started from (nothing proven while they stand)."""
        self.testing = (0, DEPTH_INF)
        self._paused: tuple[list[int], int, int] | None = None
        self.estimate: tuple[int, int] | None = None
        """(depth, value) of the deepest depth-limited iteration finished."""

    # -- positions ---------------------------------------------------------------------------

    def relative(self, board: np.ndarray, player: int) -> np.ndarray:
        """The kernel board seen from ``player`` (mover as player 0, stores zeroed)."""
        m = self.m
        b = np.asarray(board, dtype=np.int32).copy()
        if b.shape != (2 * m + 2,):
            raise SolverError(f"solver: a board of {m} pits has {2 * m + 2} cells")
        if player == 1:
            swap_sides(b, m)
        b[m] = 0
        b[2 * m + 1] = 0
        if int(b.sum()) > self.max_seeds:
            raise SolverError(f"solver: more than {self.max_seeds} seeds in the pits")
        return b

    def is_over(self, rel: np.ndarray) -> bool:
        return bool(egdb_index.is_over(rel, self.m, self.end_rule))

    def children(self, rel: np.ndarray) -> list[tuple[int, int, int, np.ndarray]]:
        """(pit, gain, next mover 0/1 or -1 when over, child seen from its mover) per move."""
        m = self.m
        out = []
        for i in range(m):
            if rel[i] == 0:
                continue
            c = rel.copy()
            nxt = int(kernel.sow(c, 0, i, m, self.empty_capture, self.end_rule))
            g = int(c[m] - c[2 * m + 1])
            c[m] = 0
            c[2 * m + 1] = 0
            if nxt == 1:
                swap_sides(c, m)
            out.append((i, g, nxt, c))
        return out

    # -- the search --------------------------------------------------------------------------

    def _check_time(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise SearchTimeout("time budget exhausted")
        if self.node_budget is not None and self._counters[C_NODES] >= self.node_budget:
            raise SearchTimeout("node budget exhausted")
        if self.stop is not None and self.stop.is_set():
            raise SearchTimeout("stopped")

    _STACK = ("_brd", "_nbeta", "_ndepth", "_nkey", "_nseeds", "_curg", "_curx", "_nstart",
              "_ckey", "_corder", "_nmv", "_mi", "_best", "_bestmv")

    def snapshot(self) -> dict[str, Any] | None:
        """The null-window test that the last :class:`SearchTimeout` paused, as plain lists
        (JSON or pickle): ``test(..., resume=snapshot)`` on this or another solver of the
        same game continues it where it stopped (the table may differ: its entries only
        save work). None when no test is paused."""
        if self._paused is None:
            return None
        rel, beta, depth = self._paused
        ply = int(self._regs[0])
        snap: dict[str, Any] = {"m": self.m, "empty_capture": self.empty_capture,
                                "end_rule": self.end_rule, "rel": rel, "beta": beta,
                                "depth": depth, "regs": [int(x) for x in self._regs],
                                "nodes": int(self._counters[C_NODES])}
        for name in self._STACK:
            snap[name] = getattr(self, name)[: ply + 1].tolist()
        return snap

    def _restore(self, rel: np.ndarray, beta: int, depth: int, snap: dict[str, Any]) -> None:
        same = (snap.get("m"), snap.get("empty_capture"), snap.get("end_rule"), snap.get("rel"),
                snap.get("beta"), snap.get("depth"))
        if same != (self.m, self.empty_capture, self.end_rule, [int(x) for x in rel], beta,
                    depth):
            raise SolverError("solver: the snapshot is of another test or game")
        ply = int(snap["regs"][0])
        if not 0 <= ply < self._brd.shape[0] or int(snap["regs"][1]) != ENTER:
            raise SolverError("solver: not a paused test's snapshot")
        for name in self._STACK:
            getattr(self, name)[: ply + 1] = np.asarray(snap[name], dtype=np.int64)
        # subtree sizes count on from this solver's node counter
        self._nstart[: ply + 1] += int(self._counters[C_NODES]) - int(snap["nodes"])
        self._regs[:] = snap["regs"]

    def test(self, rel: np.ndarray, beta: int, depth: int = DEPTH_INF,
             resume: dict[str, Any] | None = None) -> tuple[int, int]:
        """Null-window search of ``rel`` (player 0 to move, not over): (bound, best move).

        ``resume``: a :meth:`snapshot` of this test, paused earlier, to continue."""
        s = int(rel[: self.m].sum() + rel[self.m + 1 : 2 * self.m + 1].sum())
        regs = self._regs
        if resume is not None:
            self._restore(rel, beta, depth, resume)
        else:
            self._brd[0, :] = rel
            self._nseeds[0] = s
            self._nbeta[0] = beta
            self._ndepth[0] = depth
            self._nkey[0] = -1
            self._bestmv[0] = -1
            regs[:] = (0, ENTER, 0, RUNNING)
        self._paused = ([int(x) for x in rel], int(beta), int(depth))
        ctr = self._counters
        start = time.perf_counter()
        try:
            # the kernel pauses after each chunk and resumes exactly where it stopped; under
            # a deadline the chunks are small enough (~10-30 ms) for the clock to be kept
            chunk = min(STOP_CHUNK, self.progress_nodes)
            if self.deadline is not None:
                chunk = min(chunk, DEADLINE_CHUNK)
            while True:
                limit = int(ctr[C_NODES]) + chunk
                if self.node_budget is not None:
                    self._check_time()
                    limit = min(limit, self.node_budget)
                _nws(regs, self._brd, self._nbeta, self._ndepth, self._nkey, self._nseeds,
                     self._ckey, self._corder, self._nmv, self._mi, self._best, self._bestmv,
                     self._curg, self._curx, self._nstart, self.table, self.db, self.db_n,
                     self.binom, self.m, self.empty_capture, self.end_rule, self.etc_min_seeds,
                     self.db_n + 1 + self.tt_skip, self.db_margin, ctr, limit,
                     self._work, self._boards)
                if regs[3] == DONE:
                    self._paused = None
                    break
                if regs[3] == OVERFLOW:
                    self._paused = None
                    raise SolverError("solver: search deeper than max_ply; raise max_ply")
                if self.progress is not None and ctr[C_NODES] >= self._next_report:
                    self._next_report = int(ctr[C_NODES]) + self.progress_nodes
                    self.progress(self._progress_line(time.perf_counter() - start))
                self._check_time()
        finally:
            self.stats.seconds += time.perf_counter() - start
            self._sync_stats()
        return int(regs[2]), int(self._bestmv[0])

    def tester(self, rel: np.ndarray, depth: int) -> Callable[[int], int]:
        """``beta -> fail-soft bound`` for :func:`~spielwerk.search.mtdf.mtdf`; the bounds
        proven so far are kept in ``self.bounds`` (and shown in progress lines)."""

        def run(beta: int) -> int:
            self.testing = (beta, depth)
            g = self.test(rel, beta, depth)[0]
            lo, hi = self.bounds
            self.bounds = (max(lo, g), hi) if g >= beta else (lo, min(hi, g))
            return g

        return run

    def _sync_stats(self) -> None:
        c = self._counters
        st = self.stats
        st.nodes = int(c[C_NODES])
        st.egdb_probes = int(c[C_EGDB])
        st.tt_cuts = int(c[C_TT_CUTS])
        st.etc_cuts = int(c[C_ETC_CUTS])
        st.futility_cuts = int(c[C_FUTILITY])
        st.max_ply = int(c[C_MAX_PLY])

    def _progress_line(self, running: float = 0.0) -> str:
        """Phase, bounds, nodes, seconds and rate (``running``: seconds of the search in
        progress)."""
        self._sync_stats()
        st = self.stats
        seconds = st.seconds + running
        rate = st.nodes / seconds if seconds > 0 else 0.0
        beta, depth = self.testing
        lo, hi = self.bounds
        phase = "exact" if depth == DEPTH_INF else f"depth {depth}"
        return (f"{phase}: value in [{lo:+d}, {hi:+d}], testing >= {beta:+d}; "
                f"{st.nodes / 1e6:.1f} M nodes, {seconds:.1f} s, {rate / 1e6:.2f} M nodes/s")

    def exact_depth_max(self, seeds: int) -> int:
        """The deepest iteration before the exact search of a position with ``seeds`` seeds."""
        if self.depth_max_auto and seeds >= DEPTH_MAX_LARGE_FROM:
            return DEPTH_MAX_LARGE
        return self.depth_max

    def value(self, rel: np.ndarray, guess: int | None = None, iterative: bool = True) -> int:
        """Exact future gain difference for the mover of ``rel``.

        ``guess``: the first MTD(f) guess of the exact search (e.g. a published
        value); when given, the depth-limited iterations (which only supply a
        guess) are skipped and the exact search starts with the null-window
        tests ``>= guess`` and ``>= guess + 2``.
        """
        m = self.m
        if self.is_over(rel):
            return int(egdb_index.over_value(rel, m))
        s = int(rel[:m].sum() + rel[m + 1 : 2 * m + 1].sum())
        if s <= self.db_n:
            return int(self.db[rank(rel, m, self.binom)])
        first = self.first_guess(rel, guess, iterative)
        self.bounds = self.exact_from = (-s, s)
        v = mtdf(self.tester(rel, DEPTH_INF), first, -s, s, step=2)
        self.stats.iterations.append((-1, v, self.stats.nodes))
        return v

    def first_guess(self, rel: np.ndarray, guess: int | None = None,
                    iterative: bool = True) -> int:
        """The exact MTD(f)'s first guess for ``rel`` (more than ``db_n`` seeds, not over):
        ``guess`` if given, else the value of the depth-limited iterations (0 without)."""
        m = self.m
        s = int(rel[:m].sum() + rel[m + 1 : 2 * m + 1].sum())
        first = 0 if guess is None else guess
        if iterative and self.depth_step > 0 and guess is None:

            def iteration(depth: int, first: int) -> int:
                self.bounds = (-s, s)
                return mtdf(self.tester(rel, depth), first, -s, s)

            def done(depth: int, first: int) -> None:
                self.estimate = (depth, first)
                self.stats.iterations.append((depth, first, self.stats.nodes))
                if self.progress is not None and self.report_iterations:
                    self.progress(f"depth {depth}: estimate {first:+d}; "
                                  + self._progress_line().split("; ", 1)[1])

            first = iterative_deepening(
                iteration, depth_schedule(self.depth_step, self.exact_depth_max(s)), first, done)
        return first

    def best_move(self, rel: np.ndarray, value: int) -> int:
        """A move achieving ``value`` (exact) in ``rel``."""
        if self.is_over(rel):
            raise SolverError("the game is over: no move")
        for pit, g, nxt, _child in self.children(rel):
            if nxt < 0 and g == value:
                return pit
        g, mv = self.test(rel, value)
        if g < value or mv < 0:  # pragma: no cover - would be a solver bug
            raise SolverError("internal error: value not confirmed")
        return mv

    def move_values(self, rel: np.ndarray) -> dict[int, int]:
        """Exact value (future gain difference for the mover) of every legal move."""
        out: dict[int, int] = {}
        for pit, g, nxt, child in self.children(rel):
            if nxt < 0:
                out[pit] = g
            elif nxt == 0:
                out[pit] = g + self.value(child)
            else:
                out[pit] = g - self.value(child)
        return out

    def principal_variation(self, rel: np.ndarray, value: int, limit: int = 200) -> list[int]:
        """Moves of one optimal line from ``rel`` (exact value ``value``) to the end."""
        pv: list[int] = []
        pos = rel
        v = value
        while len(pv) < limit and not self.is_over(pos):
            mv = self.best_move(pos, v)
            pv.append(mv)
            for pit, g, nxt, child in self.children(pos):
                if pit != mv:
                    continue
                if nxt < 0:
                    return pv
                pos = child
                v = v - g if nxt == 0 else g - v
                break
        return pv

    def pv_notation(self, board: np.ndarray, mover: int, pv: list[int]) -> str:
        """A principal variation as 'S3 S6 N2 ...' (side and pit 1..m from that player's
        left), re-sown from the kernel ``board`` with ``mover`` to move."""
        b = np.asarray(board, dtype=np.int32).copy()
        p = mover
        out = []
        for pit in pv:
            out.append(("S" if p == 0 else "N") + str(pit + 1))
            nxt = kernel.sow(b, p, pit, self.m, self.empty_capture, self.end_rule)
            if nxt < 0:
                break
            p = int(nxt)
        return " ".join(out)

    def analyze(self, rel: np.ndarray, pv_limit: int = 200) -> Analysis:
        """Value, best move, per-move values and a principal variation of ``rel``."""
        if self.is_over(rel):
            raise SolverError("the game is over: nothing to analyse")
        values = self.move_values(rel)
        v = max(values.values())
        best = min(p for p, x in values.items() if x == v)
        return Analysis(v, best, values, self.principal_variation(rel, v, pv_limit))


__all__ = ["Analysis", "SearchStats", "SearchTimeout", "Solver", "SolverError", "table_log2"]
