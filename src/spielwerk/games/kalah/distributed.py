"""Root-split Kalah solving on any executor (threads, processes, a Dask cluster), with
checkpoints.

Work split: the start's first *turns* (a move and, after an extra turn, the
mover's further moves: ``1-2`` is pit 1 then pit 2) end in positions with the
opponent to move; equal pit configurations are merged (the value does not
depend on the stores). Each is a task: null-window tests (MTD(f), or from the
outside in: :data:`STRATEGIES`) with a table per worker, run in rounds of a node
budget. A round that runs out of budget returns the bounds it proved, its last
answer and a snapshot of the test it was in (the kernel's explicit stack, a few
kilobytes); the next round, on any worker, resumes that test where it stopped,
so no work is repeated (only table entries of another worker are missing).
The root's value interval follows from the task intervals by minimax over
intervals, so bounds are proven even when no task has finished.

Database sharing: every worker opens the same cached endgame database file
memory-mapped read-only, so the worker processes of one machine share one copy
in the page cache; on a cluster each machine needs the file once (a shared
folder or a copy; :func:`spielwerk.games.kalah.egdb.open_egdb` checks it).

Checkpoints: after every task result the state (each task's bounds, nodes, last
answer and paused test) is written atomically to a JSON file; a restarted run
reads it and continues the paused tests.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from spielwerk.core.parallel import Executor
from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.egdb_index import rank
from spielwerk.games.kalah.solver import SearchTimeout, Solver, SolverError
from spielwerk.search.nullwindow import narrow, next_beta
from spielwerk.search.tt import DEPTH_INF


@dataclass
class Turn:
    """One first turn: its pits (0-based), the store gain for the mover and the task (the
    opponent's position) it leads to, or -1 when the game ends during the turn."""

    pits: list[int]
    gain: int
    task: int


@dataclass
class Split:
    """The root's turns and the distinct tasks they lead to (positions of the opponent)."""

    m: int
    empty_capture: bool
    end_rule: int
    turns: list[Turn]
    tasks: list[np.ndarray]
    keys: list[int]


def split_root(solver: Solver, rel: np.ndarray) -> Split:
    """Every first turn of ``rel`` (extra turns followed to the end of the turn)."""
    turns: list[Turn] = []
    tasks: list[np.ndarray] = []
    keys: list[int] = []
    index: dict[int, int] = {}
    stack: list[tuple[list[int], int, np.ndarray]] = [([], 0, rel)]
    while stack:
        pits, gain, pos = stack.pop()
        for pit, g, nxt, child in sorted(solver.children(pos), key=lambda c: -c[0]):
            path = [*pits, pit]
            if nxt == 0:
                stack.append((path, gain + g, child))
                continue
            if nxt < 0:
                turns.append(Turn(path, gain + g, -1))
                continue
            k = int(rank(child, solver.m, solver.binom))
            if k not in index:
                index[k] = len(tasks)
                tasks.append(child)
                keys.append(k)
            turns.append(Turn(path, gain + g, index[k]))
    turns.sort(key=lambda t: t.pits)
    return Split(solver.m, solver.empty_capture, solver.end_rule, turns, tasks, keys)


def turn_name(turn: Turn) -> str:
    return "-".join(str(p + 1) for p in turn.pits)


def root_bounds(split: Split, bounds: list[tuple[int, int]]) -> tuple[int, int]:
    """Interval of the root's value (future gain for the mover) from the task intervals."""
    lo = hi = -(1 << 30)
    for t in split.turns:
        if t.task < 0:
            a = b = t.gain
        else:
            tlo, thi = bounds[t.task]
            a, b = t.gain - thi, t.gain - tlo
        lo, hi = max(lo, a), max(hi, b)
    return lo, hi


def turn_bounds(split: Split, bounds: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    """(turn, lower, upper) of every first turn, for the mover."""
    out = []
    for t in split.turns:
        if t.task < 0:
            out.append((turn_name(t), t.gain, t.gain))
        else:
            tlo, thi = bounds[t.task]
            out.append((turn_name(t), t.gain - thi, t.gain - tlo))
    return out


_WORKER = threading.local()
"""Each worker thread's solvers by configuration (``solvers``), kept between its tasks and
gone with the thread. (A dict keyed by the thread's ident kept every finished pool's
solvers and tables, and a later pool's thread that got a recycled ident took over another
run's warm table.)"""


def _worker_solver(config: dict[str, Any]) -> Solver:
    """One solver (and table) per worker thread and configuration, kept between tasks."""
    key = tuple(sorted(config.items()))
    solvers: dict[tuple[Any, ...], Solver] | None = getattr(_WORKER, "solvers", None)
    if solvers is None:
        solvers = _WORKER.solvers = {}
    solver = solvers.get(key)
    if solver is None:
        solver = Solver(config["m"], config["empty_capture"], config["end_rule"],
                        max_seeds=config["max_seeds"], egdb_seeds=config["egdb"],
                        egdb_path=config.get("egdb_dir"), tt_log2=config["tt_log2"],
                        depth_step=0)
        solvers[key] = solver
    return solver


STRATEGIES = ("mtdf", "outside-in")
"""How a task picks its next null-window test: ``mtdf`` tests at the last answer (the
fastest way to the exact value); ``outside-in`` tests a quarter of the open interval in from
its upper and lower ends in turn, so cheap tests far from the value narrow the bounds
first (for runs that cannot finish, e.g. Kalah(6,6) on a few cores)."""


def _check_strategy(strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise SolverError(f"unknown strategy {strategy!r}: one of {', '.join(STRATEGIES)}")


def next_test(lo: int, hi: int, guess: int, tests: int, strategy: str) -> int:
    """The next test value of a task with bounds ``lo < hi`` on the value's lattice (step 2)."""
    if strategy == "mtdf":
        return next_beta(lo, hi, guess, lo, 2, False)
    d = max(2, (hi - lo) // 4 // 2 * 2)
    return hi - d + 2 if tests % 2 == 0 else lo + d


def solve_task(config: dict[str, Any], position: list[int], lo: int, hi: int,
               node_budget: int, attempt: int = 0, guess: int = 0, tests: int = 0,
               resume: dict[str, Any] | None = None, strategy: str = "mtdf",
               ) -> dict[str, Any]:
    """Null-window tests of one task within ``lo <= value <= hi`` for ``node_budget`` nodes.

    Returns ``lo``, ``hi`` (equal when it finished), ``nodes``, ``seconds``, ``guess`` (the
    last test's answer, MTD(f)'s next guess), ``tests`` (tests finished, counted on from
    ``tests``) and ``paused``: the :meth:`Solver.snapshot` of the test the budget cut short
    (None if none), which the next round passes back as ``resume`` so that no work is
    repeated, on any worker. ``attempt`` only makes repeated submissions distinct (Dask
    would otherwise return the earlier result of the same arguments)."""
    _check_strategy(strategy)
    solver = _worker_solver(config)
    rel = np.asarray(position, dtype=np.int32)
    start_nodes = solver.stats.nodes
    t0 = time.perf_counter()
    solver.node_budget = start_nodes + node_budget
    s = int(rel.sum())
    lo, hi = lo + (lo - s) % 2, hi - (hi - s) % 2  # the value has the parity of s
    if resume is not None and not lo < resume.get("beta", lo) <= hi:
        resume = None  # a test of bounds since proven otherwise
    solver.bounds = (lo, hi)
    paused = None
    try:
        if solver.is_over(rel) or s <= solver.db_n:
            lo = hi = guess = solver.value(rel)
        while lo < hi:
            beta = int(resume["beta"]) if resume is not None else next_test(
                lo, hi, guess, tests, strategy)
            solver.testing = (beta, DEPTH_INF)
            guess = solver.test(rel, beta, DEPTH_INF, resume)[0]
            resume = None
            tests += 1
            lo, hi = narrow(lo, hi, beta, guess, lo, 2)
            solver.bounds = (lo, hi)
    except SearchTimeout:
        paused = solver.snapshot()
    finally:
        solver.node_budget = None
    return {"lo": lo, "hi": hi, "nodes": solver.stats.nodes - start_nodes,
            "seconds": time.perf_counter() - t0, "guess": guess, "tests": tests,
            "paused": paused}


@dataclass
class RunState:
    """Bounds, nodes and the MTD(f) state (last answer, tests done, paused test) of every
    task, saved as the checkpoint."""

    bounds: list[tuple[int, int]]
    nodes: list[int]
    seconds: list[float]
    guess: list[int] = field(default_factory=list)
    tests: list[int] = field(default_factory=list)
    paused: list[dict[str, Any] | None] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    interrupted: bool = False

    def __post_init__(self) -> None:
        n = len(self.bounds)
        self.guess = self.guess or [0] * n
        self.tests = self.tests or [0] * n
        self.paused = self.paused or [None] * n

    def save(self, file: Path, meta: dict[str, Any]) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)  # folders made on the way, as --output
        tmp = file.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"meta": meta, "bounds": self.bounds, "nodes": self.nodes,
                                   "seconds": self.seconds, "guess": self.guess,
                                   "tests": self.tests, "paused": self.paused}))
        os.replace(tmp, file)


def _load_state(file: Path | None, meta: dict[str, Any], n: int,
                fresh: list[tuple[int, int]]) -> RunState:
    if file is not None and file.exists():
        try:
            data = json.loads(file.read_text())
        except (OSError, ValueError) as exc:
            raise SolverError(f"{file}: not a readable checkpoint ({exc})") from None
        if not isinstance(data, dict) or data.get("meta") != meta:
            got = data.get("meta") if isinstance(data, dict) else None
            raise SolverError(f"{file}: a checkpoint of another run ({got})")
        return RunState([tuple(b) for b in data["bounds"]], data["nodes"], data["seconds"],
                        data.get("guess", []), data.get("tests", []), data.get("paused", []))
    return RunState(list(fresh), [0] * n, [0.0] * n)


def check_checkpoint(file: Path, m: int, n: int, empty_capture: bool) -> None:
    """:class:`SolverError` (one line) unless ``file`` is missing (a fresh run) or a readable
    checkpoint of this run; cheap (the root split only), so it is said before any other
    work."""
    root = Solver(m, empty_capture, kernel.END_EITHER_EMPTY, max_seeds=2 * m * n, tt_log2=10)
    split = split_root(root, root.relative(kernel.initial_board(m, n), 0))
    meta = {"m": m, "n": n, "empty_capture": empty_capture, "keys": split.keys}
    sums = [int(t.sum()) for t in split.tasks]
    _load_state(file, meta, len(split.tasks), [(-s, s) for s in sums])


def solve_split(
    m: int, n: int, empty_capture: bool, executor: Executor,
    egdb: int = 0, egdb_dir: str | None = None,
    tt_log2: int = 22, node_budget: int = 50_000_000, checkpoint: Path | None = None,
    stop_after: float | None = None, progress: Callable[[str], None] | None = None,
    strategy: str = "mtdf", slots: int | None = None,
) -> tuple[Split, RunState]:
    """Solve Kalah(m, n) from the start by root split.

    The rounds run on ``executor`` (:mod:`spielwerk.core.parallel`: threads, the
    process pool or a Dask cluster, as everywhere else). Unfinished tasks are resubmitted
    with their bounds and paused test until every task is exact or ``stop_after`` seconds.
    ``slots``: at most this many rounds submitted at a time (default: the executor's
    :meth:`~spielwerk.core.parallel.Executor.slots`), the others wait here in turn, so a
    stop waits only for the rounds running.
    """
    if slots is None:
        slots = executor.slots()
    if slots < 1:
        raise SolverError("solve_split: slots must be at least 1")
    _check_strategy(strategy)
    end_rule = kernel.END_EITHER_EMPTY
    root = Solver(m, empty_capture, end_rule, max_seeds=2 * m * n, tt_log2=10)
    split = split_root(root, root.relative(kernel.initial_board(m, n), 0))
    config = {"m": m, "empty_capture": empty_capture, "end_rule": end_rule,
              "max_seeds": 2 * m * n, "egdb": egdb, "tt_log2": tt_log2, "egdb_dir": egdb_dir}
    meta = {"m": m, "n": n, "empty_capture": empty_capture, "keys": split.keys}
    sums = [int(t.sum()) for t in split.tasks]
    state = _load_state(checkpoint, meta, len(split.tasks), [(-s, s) for s in sums])
    t0 = time.perf_counter()
    attempt = 0

    def give(i: int) -> Any:
        nonlocal attempt
        attempt += 1
        lo, hi = state.bounds[i]
        return executor.submit(solve_task, config, split.tasks[i].tolist(), lo, hi, node_budget,
                      attempt, state.guess[i], state.tests[i], state.paused[i], strategy)

    queue = [i for i in range(len(split.tasks)) if state.bounds[i][0] < state.bounds[i][1]]
    fresh = set(queue)  # every unfinished task gets one round; after stop_after no more
    futures: dict[Any, int] = {}
    try:
        while queue or futures:
            late = stop_after is not None and time.perf_counter() - t0 > stop_after
            if late:
                queue = [i for i in queue if i in fresh]
            while queue and len(futures) < slots:
                i = queue.pop(0)
                fresh.discard(i)
                futures[give(i)] = i
            if not futures:
                break
            for fut in executor.first_done(list(futures)):
                i = futures.pop(fut)
                _record(state, split, i, fut.result(), time.perf_counter() - t0, progress)
                if checkpoint is not None:
                    state.save(checkpoint, meta)
                lo, hi = state.bounds[i]
                if lo < hi:
                    queue.append(i)  # its next round, after the tasks waiting
    except KeyboardInterrupt:  # the bounds so far stand (and are in the checkpoint)
        state.interrupted = True
        for fut in futures:
            fut.cancel()
    return split, state


def _record(state: RunState, split: Split, i: int, res: dict[str, Any], elapsed: float,
            progress: Callable[[str], None] | None) -> None:
    olo, ohi = state.bounds[i]
    state.bounds[i] = b = (max(res["lo"], olo), min(res["hi"], ohi))
    state.nodes[i] += res["nodes"]
    state.seconds[i] += res["seconds"]
    state.guess[i], state.tests[i], state.paused[i] = res["guess"], res["tests"], res["paused"]
    rlo, rhi = root_bounds(split, state.bounds)
    what = "exact" if b[0] == b[1] else (
        f"paused testing >= {res['paused']['beta']:+d}" if res["paused"] else "budget spent")
    line = (f"task {i} ({what}): [{b[0]:+d}, {b[1]:+d}], {res['nodes'] / 1e6:.1f} M nodes in "
            f"{res['seconds']:.1f} s; root in [{rlo:+d}, {rhi:+d}] after {elapsed:.0f} s")
    state.log.append(line)
    if progress is not None:
        progress(line)
