"""Kalah solver: iterative-deepening MTD(f) over a numba null-window alpha-beta.

Positions are seen from the player to move (the kernel layout with the mover
as player 0 and both stores zeroed); a node's value is the *future store gain*
of the mover minus the opponent's, so it does not depend on the stores and the
transposition table can be keyed on the pits alone (Irving, Donkers and
Uiterwijk 2000). A game's final margin is the current store difference plus
that value.

The search (``_nws``) is one loop over an explicit stack of plies and can be
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

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from spielwerk.core.agent import Agent, register_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import Game, InfoState, PerfectInfoState
from spielwerk.games.kalah import egdb as egdb_mod
from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.egdb import rank, swap_sides
from spielwerk.search import tt
from spielwerk.search.mtdf import mtdf
from spielwerk.search.tt import DEPTH_INF, VALUE_INF

ENTER, NEXT, RETURN, UPDATE = 0, 1, 2, 3
RUNNING, DONE, OVERFLOW = 0, 1, 2

# counters
C_NODES, C_EGDB, C_TT_CUTS, C_ETC_CUTS, C_MAX_PLY, C_FUTILITY = range(6)
N_COUNTERS = 6


TT_LOG2_MIN, TT_LOG2_MAX = 10, 30
"""Transposition-table sizes (log2 of the slots) accepted by the CLI and the agent."""


def table_log2(tt_log2: int, pits: int, max_seeds: int) -> tuple[int, str]:
    """The table size actually used for ``tt_log2`` asked, and why it differs (or "").

    A table never needs many more slots than the instance has positions (every
    position with at most ``max_seeds`` seeds, seen from the mover), and never
    gets more than a quarter of the machine's memory. Tables of 2**20 slots
    (16 MB) or less are used as asked.
    """
    positions = egdb_mod.entries(max_seeds, pits)
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


class SolverError(SpielwerkError):
    """A position or instance the solver cannot handle as asked."""


@njit(cache=True)
def _nws(
    regs: np.ndarray,
    brd: np.ndarray,
    nbeta: np.ndarray,
    ndepth: np.ndarray,
    nkey: np.ndarray,
    nseeds: np.ndarray,
    ckey: np.ndarray,
    corder: np.ndarray,
    nmv: np.ndarray,
    mi: np.ndarray,
    best: np.ndarray,
    bestmv: np.ndarray,
    curg: np.ndarray,
    curx: np.ndarray,
    table: np.ndarray,
    db: np.ndarray,
    db_n: int,
    binom: np.ndarray,
    m: int,
    empty_capture: bool,
    end_rule: int,
    etc_min_seeds: int,
    tt_min_seeds: int,
    counters: np.ndarray,
    node_limit: int,
) -> None:
    """Null-window search (is the value of ``brd[0]`` >= ``nbeta[0]``?), resumable.

    ``regs``: ply, mode, value, status. Returns when done (``regs[2]`` is a
    fail-soft bound, ``bestmv[0]`` the move that proved a fail high), on stack
    overflow, or paused when ``counters[C_NODES]`` reaches ``node_limit``.
    Children are generated lazily (one sowing per visited move); the move
    order is computed arithmetically from the seed counts.
    """
    ply = regs[0]
    mode = regs[1]
    retval = regs[2]
    max_ply = brd.shape[0] - 1
    cycle = 2 * m + 1
    cells = 2 * m + 2
    prio = np.empty(m, np.int64)
    scratch = np.empty(cells, np.int32)
    v = 0
    while True:
        if mode == ENTER:
            if counters[C_NODES] >= node_limit:
                regs[0] = ply
                regs[1] = mode
                regs[2] = retval
                regs[3] = RUNNING
                return
            counters[C_NODES] += 1
            if ply > counters[C_MAX_PLY]:
                counters[C_MAX_PLY] = ply
            b = brd[ply]
            s = nseeds[ply]
            beta = nbeta[ply]
            d = ndepth[ply]
            root = ply == 0
            if not root:
                if s < beta:
                    counters[C_FUTILITY] += 1
                    retval = s
                    mode = RETURN
                    continue
                if -s >= beta:
                    counters[C_FUTILITY] += 1
                    retval = -s
                    mode = RETURN
                    continue
                if d == 0:
                    retval = 0
                    mode = RETURN
                    continue
            key = nkey[ply]
            if key < 0:
                key = rank(b, m, binom)
                nkey[ply] = key
            ttmove = -1
            slot = tt.probe(table, key) if s >= tt_min_seeds or root else -1
            if slot >= 0:
                dd = table[2 * slot + 1]
                ttmove = tt.data_move(dd)
                if not root and tt.data_depth(dd) >= d:
                    lo = tt.data_lo(dd)
                    if lo >= beta:
                        counters[C_TT_CUTS] += 1
                        retval = lo
                        mode = RETURN
                        continue
                    hi = tt.data_hi(dd)
                    if hi < beta:
                        counters[C_TT_CUTS] += 1
                        retval = hi
                        mode = RETURN
                        continue
            # move order: table move, extra turns, captures, the rest; nearest the store first
            n = 0
            for i in range(m - 1, -1, -1):
                seeds = b[i]
                if seeds == 0:
                    continue
                if i == ttmove:
                    p = 0
                else:
                    last = (i + seeds) % cycle
                    if last == m:
                        p = 1
                    elif (last < m and seeds < cycle and last != i and b[last] == 0
                          and (last < i or empty_capture or b[2 * m - last] > 0)):
                        p = 2
                    else:
                        p = 3
                k = n
                while k > 0 and prio[k - 1] > p:
                    corder[ply, k] = corder[ply, k - 1]
                    prio[k] = prio[k - 1]
                    k -= 1
                corder[ply, k] = i
                prio[k] = p
                ckey[ply, i] = -1
                n += 1
            nmv[ply] = n
            mi[ply] = 0
            best[ply] = -VALUE_INF
            bestmv[ply] = -1
            if s >= etc_min_seeds:
                # enhanced transposition cut-off: does a child's stored bound prove the cut?
                cd = d if d == DEPTH_INF else d - 1
                cut = False
                for k in range(n):
                    i = corder[ply, k]
                    for j in range(cells):
                        scratch[j] = b[j]
                    nxt = kernel.sow(scratch, 0, i, m, empty_capture, end_rule)
                    if nxt < 0:
                        continue
                    g = scratch[m]
                    scratch[m] = 0
                    if nxt == 1:
                        swap_sides(scratch, m)
                    if s - g <= db_n:
                        continue
                    ck = rank(scratch, m, binom)
                    ckey[ply, i] = ck
                    cslot = tt.probe(table, ck)
                    if cslot < 0:
                        continue
                    cdata = table[2 * cslot + 1]
                    if tt.data_depth(cdata) < cd:
                        continue
                    if nxt == 0:
                        v = g + tt.data_lo(cdata)
                    else:
                        v = g - tt.data_hi(cdata)
                    if v >= beta:
                        counters[C_ETC_CUTS] += 1
                        tt.store(table, key, d, v, VALUE_INF, i)
                        bestmv[ply] = i
                        retval = v
                        cut = True
                        break
                if cut:
                    mode = RETURN
                    continue
            mode = NEXT
        elif mode == NEXT:
            k = mi[ply]
            if k >= nmv[ply]:
                bst = best[ply]
                if nseeds[ply] >= tt_min_seeds:
                    tt.store(table, nkey[ply], ndepth[ply], -VALUE_INF, bst, -1)
                retval = bst
                mode = RETURN
                continue
            if ply + 1 > max_ply:
                regs[0] = ply
                regs[1] = mode
                regs[2] = retval
                regs[3] = OVERFLOW
                return
            i = corder[ply, k]
            b = brd[ply]
            c = brd[ply + 1]
            for j in range(cells):
                c[j] = b[j]
            nxt = kernel.sow(c, 0, i, m, empty_capture, end_rule)
            g = c[m] - c[2 * m + 1]
            if nxt < 0:
                v = g
                mode = UPDATE
                continue
            cs = nseeds[ply] - c[m]
            c[m] = 0
            if nxt == 1:
                swap_sides(c, m)
            if cs <= db_n:
                counters[C_EGDB] += 1
                ev = db[rank(c, m, binom)]
                v = g + ev if nxt == 0 else g - ev
                mode = UPDATE
                continue
            nseeds[ply + 1] = cs
            nkey[ply + 1] = ckey[ply, i]
            curg[ply] = g
            curx[ply] = 1 if nxt == 0 else 0
            if nxt == 0:
                nbeta[ply + 1] = nbeta[ply] - g
            else:
                nbeta[ply + 1] = g - nbeta[ply] + 1
            d = ndepth[ply]
            ndepth[ply + 1] = d if d == DEPTH_INF else d - 1
            ply += 1
            mode = ENTER
        elif mode == RETURN:  # the node at ply has the value bound retval
            if ply == 0:
                regs[0] = 0
                regs[1] = mode
                regs[2] = retval
                regs[3] = DONE
                return
            ply -= 1
            g = curg[ply]
            v = g + retval if curx[ply] == 1 else g - retval
            mode = UPDATE
        else:  # UPDATE: move corder[ply, mi[ply]] has value bound v
            i = corder[ply, mi[ply]]
            if v > best[ply]:
                best[ply] = v
                bestmv[ply] = i
            if v >= nbeta[ply]:
                if nseeds[ply] >= tt_min_seeds or ply == 0:
                    tt.store(table, nkey[ply], ndepth[ply], v, VALUE_INF, i)
                retval = v
                mode = RETURN
            else:
                mi[ply] += 1
                mode = NEXT


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
        depth_max: int = 12,
        progress: Callable[[str], None] | None = None,
        progress_nodes: int = 1 << 22,
        egdb_values: np.ndarray | None = None,
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
            self.binom = egdb_mod.binomials(self.max_seeds, pits)
        except egdb_mod.EgdbError as exc:
            raise SolverError(str(exc)) from None
        self.progress = progress
        self.progress_nodes = progress_nodes
        self.etc_min_seeds = etc_min_seeds
        self.tt_skip = tt_skip
        self.report_iterations = False
        self.depth_step = depth_step
        self.depth_max = depth_max
        self.egdb: egdb_mod.Egdb | None = None
        if egdb_values is not None:
            self.db = egdb_values
            self.db_n = egdb_seeds
        elif egdb_seeds > 0:
            self.egdb = egdb_mod.open_egdb(pits, egdb_seeds, self.empty_capture, self.end_rule,
                                           egdb_path, progress=progress)
            self.db = self.egdb.values
            self.db_n = egdb_seeds
        else:
            self.db = egdb_mod.empty(pits)
            self.db_n = 0
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
        self._ckey = np.zeros((p, pits), np.int64)
        self._corder = np.zeros((p, pits), np.int64)
        self._nmv = np.zeros(p, np.int64)
        self._mi = np.zeros(p, np.int64)
        self._best = np.zeros(p, np.int64)
        self._bestmv = np.zeros(p, np.int64)
        self._counters = np.zeros(N_COUNTERS, np.int64)
        self.stats = SearchStats()
        self.deadline: float | None = None
        self._next_report = progress_nodes

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
        return bool(egdb_mod.is_over(rel, self.m, self.end_rule))

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

    def test(self, rel: np.ndarray, beta: int, depth: int = DEPTH_INF) -> tuple[int, int]:
        """Null-window search of ``rel`` (player 0 to move, not over): (bound, best move)."""
        s = int(rel[: self.m].sum() + rel[self.m + 1 : 2 * self.m + 1].sum())
        self._brd[0, :] = rel
        self._nseeds[0] = s
        self._nbeta[0] = beta
        self._ndepth[0] = depth
        self._nkey[0] = -1
        self._bestmv[0] = -1
        regs = self._regs
        regs[:] = (0, ENTER, 0, RUNNING)
        ctr = self._counters
        start = time.perf_counter()
        try:
            while True:
                limit = int(ctr[C_NODES]) + (1 << 20)
                _nws(regs, self._brd, self._nbeta, self._ndepth, self._nkey, self._nseeds,
                     self._ckey, self._corder, self._nmv, self._mi, self._best, self._bestmv,
                     self._curg, self._curx, self.table, self.db, self.db_n,
                     self.binom, self.m, self.empty_capture, self.end_rule, self.etc_min_seeds,
                     self.db_n + 1 + self.tt_skip, ctr, limit)
                if regs[3] == DONE:
                    break
                if regs[3] == OVERFLOW:
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
        """``beta -> fail-soft bound`` for :func:`~spielwerk.search.mtdf.mtdf`."""

        def run(beta: int) -> int:
            return self.test(rel, beta, depth)[0]

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
        """Nodes, seconds and rate so far (``running``: seconds of the search in progress)."""
        self._sync_stats()
        st = self.stats
        seconds = st.seconds + running
        rate = st.nodes / seconds if seconds > 0 else 0.0
        return f"{st.nodes / 1e6:.1f} M nodes, {seconds:.1f} s, {rate / 1e6:.2f} M nodes/s"

    def value(self, rel: np.ndarray, guess: int = 0, iterative: bool = True) -> int:
        """Exact future gain difference for the mover of ``rel``."""
        m = self.m
        if self.is_over(rel):
            return int(egdb_mod.over_value(rel, m))
        s = int(rel[:m].sum() + rel[m + 1 : 2 * m + 1].sum())
        if s <= self.db_n:
            return int(self.db[rank(rel, m, self.binom)])
        if iterative and self.depth_step > 0:
            depth = self.depth_step
            while depth <= self.depth_max:
                guess = mtdf(self.tester(rel, depth), guess, -s, s)
                self.stats.iterations.append((depth, guess, self.stats.nodes))
                if self.progress is not None and self.report_iterations:
                    self.progress(f"depth {depth}: estimate {guess:+d}; " + self._progress_line())
                depth += self.depth_step
        v = mtdf(self.tester(rel, DEPTH_INF), guess, -s, s, step=2)
        self.stats.iterations.append((-1, v, self.stats.nodes))
        return v

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

    def analyze(self, rel: np.ndarray, pv_limit: int = 200) -> Analysis:
        """Value, best move, per-move values and a principal variation of ``rel``."""
        if self.is_over(rel):
            raise SolverError("the game is over: nothing to analyse")
        values = self.move_values(rel)
        v = max(values.values())
        best = min(p for p, x in values.items() if x == v)
        return Analysis(v, best, values, self.principal_variation(rel, v, pv_limit))


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

    try:
        step = max(1, solver.depth_step)
        depth = step
        while depth <= solver.depth_max:
            best, found_depth = values(depth), depth
            depth += step
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
        guess = 0
        step = solver.depth_step if solver.depth_step > 0 else solver.depth_max + 1
        depth = step
        while depth <= solver.depth_max:
            guess = mtdf(solver.tester(rel, depth), guess, -s, s)
            g, mv = solver.test(rel, guess, depth)
            if mv >= 0:
                result = (mv, guess, depth)
            depth += step
        v = mtdf(solver.tester(rel, DEPTH_INF), guess, -s, s, step=2)
        return solver.best_move(rel, v), v, -1
    except SearchTimeout:
        return result
    finally:
        solver.deadline = None


def _stderr_line(text: str) -> None:
    print(f"perfect agent: {text}", file=sys.stderr, flush=True)


class PerfectAgent(Agent):
    """Solver-backed Kalah agent: exact play when the search finishes within ``time``
    seconds per move, else the best move of the deepest completed iteration."""

    def __init__(self, game: Game, seed: int | None = None, time: float = 5.0, egdb: int = 0,
                 tt: int = 20) -> None:
        super().__init__(game, seed)
        if time <= 0:
            raise SolverError("perfect: the time budget must be positive")
        self.budget = float(time)
        values = None
        if egdb > 0:  # a build can take minutes: say so on stderr (loading is silent)
            from spielwerk.games.kalah.rules import KalahGame

            if not isinstance(game, KalahGame):
                raise SolverError("the perfect agent plays Kalah only")
            values = egdb_mod.open_egdb(game.pits, egdb, game.empty_capture, game.end_rule,
                                        progress=_stderr_line).values
        self.solver = solver_for(game, egdb_seeds=egdb, tt_log2=tt, egdb_values=values)
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


def _perfect(game: Game, seed: int | None = None, time: float = 5.0, egdb: int = 0,
             tt: int = 20) -> Agent:
    return PerfectAgent(game, seed, time, egdb, tt)


register_agent(
    "perfect",
    _perfect,
    {"time": 5.0, "egdb": 0, "tt": 20},
    "MTD(f) solver: exact play when it finishes in time, else deepest completed iteration",
    ("kalah",),
    {
        "time": "seconds per move",
        "egdb": "endgame database size in seeds (0: none; built once, cached on disk)",
        "tt": "transposition table size, log2 of the slots (16 bytes each)",
    },
    {"time": (0.001, None), "egdb": (0, egdb_mod.MAX_SEEDS), "tt": (TT_LOG2_MIN, TT_LOG2_MAX)},
)
