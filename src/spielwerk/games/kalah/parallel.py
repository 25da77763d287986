"""Root-split exact search on the cores of one machine (threads sharing one database).

:class:`ParallelSolver` runs the depth-limited iterations of a :class:`Solver`
as usual, then the exact MTD(f) with every null-window test ("is the start
worth >= beta?") split over the start's first *turns* (a move and, after an
extra turn, the mover's further moves; :func:`~spielwerk.games.kalah.distributed.split_root`).
The test holds iff one turn reaches ``beta``: each distinct position a turn
leads to is a task, "is the opponent's value <= gain - beta?" as a null-window
test of its own, and the tasks are handed out to worker threads in order
(the turn of the table's principal variation first, then the most expensive
ones of the previous test). The first task that proves a turn reaches ``beta``
stops the others; otherwise all of them must fail it (the fail-low tests that
cost most of a solve, where the split pays).

Each worker is a :class:`Solver` with its own stacks and transposition table
(a copy of the main table after the iterations); the endgame database (a
read-only, possibly memory-mapped array) is shared. The numba search releases
the GIL, so the threads run in parallel. Node counts vary from run to run
(which worker gets which task depends on timing); values and best moves do not.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from spielwerk.games.kalah.distributed import Split, Turn, split_root
from spielwerk.games.kalah.egdb_index import rank
from spielwerk.games.kalah.solver import SearchTimeout, Solver, SolverError
from spielwerk.games.kalah.solver_kernel import C_NODES
from spielwerk.search import tt
from spielwerk.search.mtdf import mtdf

WORKER_CHUNK = 1 << 16
"""Nodes a worker searches between checks of the stop flag (a few tens of ms)."""


def default_threads() -> int:
    """Worker threads by default: the cores this process may use, at most 8."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))


def twin(solver: Solver) -> Solver:
    """A solver with the same settings and database (shared) and a copy of its table."""
    w = Solver(solver.m, solver.empty_capture, solver.end_rule, max_seeds=solver.max_seeds,
               egdb_seeds=solver.db_n, egdb_values=solver.db, tt_log2=1,
               etc_min_seeds=solver.etc_min_seeds, tt_skip=solver.tt_skip,
               max_ply=solver._brd.shape[0] - 1, depth_step=0,
               progress_nodes=WORKER_CHUNK, db_margin=solver.db_margin)
    # one pass, not fill + copy; in steps, so a Ctrl-C during gigabytes is seen at once
    w.table, w.tt_log2 = tt.copy_table(solver.table), solver.tt_log2
    return w


class ParallelSolver:
    """Exact values of Kalah positions with the exact search split over ``threads`` threads.

    ``solver`` is the main solver (its database, settings, progress callback and
    table; it is also the first worker). ``threads`` <= 1 searches as ``solver``
    alone would.
    """

    def __init__(self, solver: Solver, threads: int | None = None) -> None:
        self.main = solver
        self.threads = default_threads() if threads is None else int(threads)
        if self.threads < 1:
            raise SolverError("solver: threads must be at least 1")
        self.workers: list[Solver] = [solver]
        self.seconds = 0.0
        self.best_turn: Turn | None = None
        """The turn that proved the last fail-high (its first pit is a best move)."""
        self._split: Split | None = None
        self._cost: list[int] = []

    @property
    def nodes(self) -> int:
        """Nodes searched by all workers (the main solver's iterations included)."""
        return sum(int(w._counters[C_NODES]) for w in self.workers)

    def value(self, rel: np.ndarray, guess: int | None = None) -> int:
        """Exact value of ``rel`` for its mover (as :meth:`Solver.value`)."""
        main = self.main
        m = main.m
        s = int(rel[:m].sum() + rel[m + 1 : 2 * m + 1].sum())
        t0 = time.perf_counter()
        try:
            if self.threads <= 1 or main.is_over(rel) or s <= main.db_n:
                return main.value(rel, guess)
            first = main.first_guess(rel, guess)
            split = split_root(main, rel)
            if len(split.tasks) < 2:
                return main.value(rel, guess)
            self._prepare(split, rel)
            main.bounds = (-s, s)
            v = mtdf(self._tester(), first, -s, s, step=2)
            main.stats.iterations.append((-1, v, self.nodes))
            return v
        finally:
            self.seconds += time.perf_counter() - t0

    def best_move(self, rel: np.ndarray, value: int) -> int:
        """A move reaching ``value`` in ``rel``: the first pit of the turn that proved it,
        else the main solver's search."""
        t = self.best_turn
        if t is not None and self._turn_value >= value:
            return t.pits[0]
        return self.main.best_move(rel, value)

    # -- the split test ----------------------------------------------------------------------

    def _prepare(self, split: Split, rel: np.ndarray) -> None:
        main = self.main
        n = min(self.threads, len(split.tasks))
        for w in self.workers[1:]:
            tt.copy_table(main.table, w.table)  # what the iterations learned: move ordering
        while len(self.workers) < n:
            self.workers.append(twin(main))
        self._split = split
        self._cost = [0] * len(split.tasks)
        self._first = _pv_task(main, rel, split)
        self.best_turn = None
        self._turn_value = -(1 << 30)

    def _order(self) -> list[int]:
        split = self._split
        assert split is not None
        rest = sorted((i for i in range(len(split.tasks)) if i != self._first),
                      key=lambda i: -self._cost[i])
        return [self._first, *rest] if self._first >= 0 else rest

    def _tester(self) -> Callable[[int], int]:
        main = self.main

        def run(beta: int) -> int:
            main.testing = (beta, tt.DEPTH_INF)
            g = self._test(beta)
            lo, hi = main.bounds
            main.bounds = (max(lo, g), hi) if g >= beta else (lo, min(hi, g))
            return g

        return run

    def _test(self, beta: int) -> int:
        """Fail-soft null-window test of the root at ``beta``, split over the workers."""
        split = self._split
        assert split is not None
        upper = -(1 << 30)
        gains = [-(1 << 30)] * len(split.tasks)
        turn_of: list[Turn | None] = [None] * len(split.tasks)
        for t in split.turns:
            if t.task < 0:
                if t.gain >= beta:
                    self._proved(t, t.gain)
                    return t.gain
                upper = max(upper, t.gain)
            elif t.gain > gains[t.task]:
                gains[t.task], turn_of[t.task] = t.gain, t
        queue = self._order()
        results: dict[int, int] = {}
        found: list[tuple[int, int]] = []
        lock = threading.Lock()
        stop = threading.Event()

        def work(w: Solver) -> None:
            while not stop.is_set():
                with lock:
                    if not queue:
                        return
                    i = queue.pop(0)
                need = gains[i] - beta + 1  # the turn stays below beta iff task value >= need
                before = int(w._counters[C_NODES])
                w.stop = stop
                try:
                    b = _task_test(w, split.tasks[i], need)
                except SearchTimeout:
                    if stop.is_set():  # another task proved the test: this one is moot
                        return
                    raise  # the main solver's own time or node budget
                finally:
                    w.stop = None
                    with lock:
                        self._cost[i] += int(w._counters[C_NODES]) - before
                with lock:
                    results[i] = b
                    if b < need:
                        found.append((i, gains[i] - b))
                        stop.set()

        self._run(work, stop)
        if found:
            i, g = found[0]
            turn = turn_of[i]
            assert turn is not None
            self._first = i
            self._proved(turn, g)
            return g
        for i, b in results.items():
            upper = max(upper, gains[i] - b)
        return upper

    def _proved(self, turn: Turn, value: int) -> None:
        if value >= self._turn_value:
            self.best_turn, self._turn_value = turn, value

    def _run(self, work: Callable[[Solver], None], stop: threading.Event) -> None:
        """Run ``work`` on every worker thread; progress lines from the main thread; Ctrl-C
        stops the workers and is raised again, as is an error in a worker."""
        main = self.main
        progress, chunk = main.progress, main.progress_nodes
        main.progress, main.progress_nodes = None, WORKER_CHUNK
        errors: list[BaseException] = []

        def guarded(w: Solver) -> None:
            try:
                work(w)
            except BaseException as exc:  # noqa: BLE001 - raised again in the main thread
                errors.append(exc)
                stop.set()

        threads = [threading.Thread(target=guarded, args=(w,), daemon=True)
                   for w in self.workers]
        t0 = time.perf_counter()
        next_report = t0 + 5.0
        try:
            for th in threads:
                th.start()
            for th in threads:
                while th.is_alive():
                    th.join(0.05)
                    if progress is not None and time.perf_counter() >= next_report:
                        next_report = time.perf_counter() + 5.0
                        progress(self._progress_line(time.perf_counter() - t0))
        except BaseException:
            stop.set()  # every worker sees it within WORKER_CHUNK nodes
            with _sigint_ignored():  # a second Ctrl-C must not cut the wrap-up short
                for th in threads:
                    th.join()
            raise
        finally:
            main.progress, main.progress_nodes = progress, chunk
        if errors:
            raise errors[0]

    def _progress_line(self, running: float) -> str:
        beta, _depth = self.main.testing
        lo, hi = self.main.bounds
        seconds = self.seconds + running
        return (f"exact ({len(self.workers)} threads): value in [{lo:+d}, {hi:+d}], testing "
                f">= {beta:+d}; {self.nodes / 1e6:.1f} M nodes, {seconds:.1f} s, "
                f"{self.nodes / max(seconds, 1e-9) / 1e6:.2f} M nodes/s")


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored inside (in the main thread; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _task_test(w: Solver, pos: np.ndarray, beta: int) -> int:
    """Fail-soft bound of ``pos`` (the opponent to move) against ``beta``."""
    if w.is_over(pos) or int(pos.sum()) <= w.db_n:
        return w.value(pos)
    return w.test(pos, beta)[0]


def _pv_task(solver: Solver, rel: np.ndarray, split: Split) -> int:
    """The task of the turn the main table's moves lead along (-1 if none)."""
    pits: list[int] = []
    pos = rel
    for _ in range(4 * solver.m):
        slot = tt.probe(solver.table, int(rank(pos, solver.m, solver.binom)))
        if slot < 0:
            break
        mv = tt.data_move(int(solver.table[2 * slot + 1]))
        nxt_pos = None
        for pit, _g, nxt, child in solver.children(pos):
            if pit == mv:
                pits.append(pit)
                nxt_pos = child if nxt == 0 else None
        if nxt_pos is None:
            break
        pos = nxt_pos
    for t in split.turns:
        if t.pits == pits:
            return t.task
    return -1
