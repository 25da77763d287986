"""Root-split Kalah solving on several cores or a Dask cluster, with checkpoints.

Work split: the start's first *turns* (a move and, after an extra turn, the
mover's further moves: ``1-2`` is pit 1 then pit 2) end in positions with the
opponent to move; equal pit configurations are merged (the value does not
depend on the stores). Each is a task: an exact MTD(f) with its own
transposition table, run with a node budget; a task that runs out of budget
returns the bounds it proved and is continued later from them (the bounds
narrow its MTD(f) window), with twice the budget if its bounds did not move.
The root's value interval follows from the task intervals by minimax over
intervals, so bounds are proven even when no task has finished.

Database sharing: every worker opens the same cached endgame database file
memory-mapped read-only, so the worker processes of one machine share one copy
in the page cache; on a cluster each machine needs the file once (a shared
folder or a copy; :func:`spielwerk.games.kalah.egdb.open_egdb` checks it).

Checkpoints: after every task result the state (each task's bounds and nodes)
is written atomically to a JSON file; a restarted run reads it and gives out
only the unfinished work.
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

from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.egdb import rank
from spielwerk.games.kalah.solver import SearchTimeout, Solver, SolverError
from spielwerk.search.mtdf import mtdf
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


_WORKER_SOLVERS: dict[tuple[Any, ...], Solver] = {}
_LOCK = threading.Lock()


def _worker_solver(config: dict[str, Any]) -> Solver:
    """One solver (and table) per worker thread and configuration, kept between tasks."""
    key = (threading.get_ident(), *sorted(config.items()))
    with _LOCK:
        solver = _WORKER_SOLVERS.get(key)
    if solver is None:
        solver = Solver(config["m"], config["empty_capture"], config["end_rule"],
                        max_seeds=config["max_seeds"], egdb_seeds=config["egdb"],
                        egdb_path=config.get("egdb_dir"), tt_log2=config["tt_log2"],
                        depth_step=0)
        with _LOCK:
            _WORKER_SOLVERS[key] = solver
    return solver


def solve_task(config: dict[str, Any], position: list[int], lo: int, hi: int,
               node_budget: int, attempt: int = 0) -> tuple[int, int, int, float]:
    """MTD(f) of one task within ``lo <= value <= hi`` and ``node_budget`` nodes:
    (lower, upper, nodes, seconds); lower == upper when it finished. ``attempt``
    only makes repeated submissions distinct (Dask would otherwise return the
    earlier result of the same arguments)."""
    solver = _worker_solver(config)
    rel = np.asarray(position, dtype=np.int32)
    start_nodes = solver.stats.nodes
    t0 = time.perf_counter()
    solver.node_budget = start_nodes + node_budget
    s = int(rel.sum())
    lo, hi = lo + (lo - s) % 2, hi - (hi - s) % 2  # the value has the parity of s
    solver.bounds = (lo, hi)
    try:
        if solver.is_over(rel) or s <= solver.db_n:
            v = solver.value(rel)
            lo = hi = v
        else:
            guess = max(lo, min(hi, 0))
            v = mtdf(solver.tester(rel, DEPTH_INF), guess, lo, hi, step=2)
            lo = hi = v
    except SearchTimeout:
        lo, hi = solver.bounds
    finally:
        solver.node_budget = None
    return lo, hi, solver.stats.nodes - start_nodes, time.perf_counter() - t0


@dataclass
class RunState:
    """Bounds and nodes of every task, saved as the checkpoint."""

    bounds: list[tuple[int, int]]
    nodes: list[int]
    seconds: list[float]
    log: list[str] = field(default_factory=list)
    interrupted: bool = False

    def save(self, file: Path, meta: dict[str, Any]) -> None:
        tmp = file.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"meta": meta, "bounds": self.bounds, "nodes": self.nodes,
                                   "seconds": self.seconds}))
        os.replace(tmp, file)


def _load_state(file: Path | None, meta: dict[str, Any], n: int,
                fresh: list[tuple[int, int]]) -> RunState:
    if file is not None and file.exists():
        data = json.loads(file.read_text())
        if data.get("meta") != meta:
            raise SolverError(f"{file}: a checkpoint of another run ({data.get('meta')})")
        return RunState([tuple(b) for b in data["bounds"]], data["nodes"],
                        data["seconds"])
    return RunState(list(fresh), [0] * n, [0.0] * n)


def solve_split(
    m: int, n: int, empty_capture: bool, submit: Callable[..., Any],
    wait: Callable[..., Any], egdb: int = 0, egdb_dir: str | None = None,
    tt_log2: int = 22, node_budget: int = 50_000_000, checkpoint: Path | None = None,
    stop_after: float | None = None, progress: Callable[[str], None] | None = None,
) -> tuple[Split, RunState]:
    """Solve Kalah(m, n) from the start by root split.

    ``submit(fn, *args)`` returns a future and ``wait(futures,
    return_when="FIRST_COMPLETED")`` gives (done, not done): a Dask
    ``Client.submit`` and ``distributed.wait``, or a ``concurrent.futures``
    executor's ``submit`` and ``concurrent.futures.wait``. Unfinished tasks are resubmitted with
    their narrowed bounds until every task is exact or ``stop_after`` seconds.
    """
    end_rule = kernel.END_EITHER_EMPTY
    root = Solver(m, empty_capture, end_rule, max_seeds=2 * m * n, tt_log2=10)
    split = split_root(root, root.relative(kernel.initial_board(m, n), 0))
    config = {"m": m, "empty_capture": empty_capture, "end_rule": end_rule,
              "max_seeds": 2 * m * n, "egdb": egdb, "tt_log2": tt_log2, "egdb_dir": egdb_dir}
    meta = {"m": m, "n": n, "empty_capture": empty_capture, "keys": split.keys}
    sums = [int(t.sum()) for t in split.tasks]
    state = _load_state(checkpoint, meta, len(split.tasks), [(-s, s) for s in sums])
    t0 = time.perf_counter()
    futures = {}
    for i, pos in enumerate(split.tasks):
        lo, hi = state.bounds[i]
        if lo < hi:
            futures[submit(solve_task, config, pos.tolist(), lo, hi, node_budget, 0)] = i
    attempt = 0
    stalls = [0] * len(split.tasks)
    try:
        while futures:
            done, _rest = wait(list(futures), return_when="FIRST_COMPLETED")
            for fut in done:
                i = futures.pop(fut)
                lo, hi, nodes, secs = fut.result()
                before = state.bounds[i]
                _record(state, split, i, lo, hi, nodes, secs, time.perf_counter() - t0,
                        progress)
                if checkpoint is not None:
                    state.save(checkpoint, meta)
                lo, hi = state.bounds[i]
                # a null-window test cut short starts again from its root (on whichever
                # worker): a task whose bounds did not move gets twice the budget next time
                stalls[i] = stalls[i] + 1 if (lo, hi) == before else 0
                late = stop_after is not None and time.perf_counter() - t0 > stop_after
                if lo < hi and not late:
                    attempt += 1
                    f = submit(solve_task, config, split.tasks[i].tolist(), lo, hi,
                               node_budget << min(stalls[i], 20), attempt)
                    futures[f] = i
    except KeyboardInterrupt:  # the bounds so far stand (and are in the checkpoint)
        state.interrupted = True
        for fut in futures:
            fut.cancel()
    return split, state


def _record(state: RunState, split: Split, i: int, lo: int, hi: int, nodes: int, secs: float,
            elapsed: float, progress: Callable[[str], None] | None) -> None:
    olo, ohi = state.bounds[i]
    state.bounds[i] = (max(lo, olo), min(hi, ohi))
    state.nodes[i] += nodes
    state.seconds[i] += secs
    rlo, rhi = root_bounds(split, state.bounds)
    b = state.bounds[i]
    line = (f"task {i} ({'exact' if b[0] == b[1] else 'budget spent'}): [{b[0]:+d}, "
            f"{b[1]:+d}], {nodes / 1e6:.1f} M nodes in {secs:.1f} s; root in "
            f"[{rlo:+d}, {rhi:+d}] after {elapsed:.0f} s")
    state.log.append(line)
    if progress is not None:
        progress(line)
