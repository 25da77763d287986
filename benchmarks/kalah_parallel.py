"""Serial against root-split parallel exact solves of a Kalah start, in one process.

    .venv/bin/python benchmarks/kalah_parallel.py --pits 6 --seeds 4 [--empty-capture]
        [--egdb N] [--tt 24] [--threads 2] [--repeat 2]

The database is opened once (its loading time is printed apart); then the
serial solve (``Solver.value``) and the split one (``ParallelSolver``)
alternate ``--repeat`` times each, every solve with fresh tables. Printed per
solve: value, best move, nodes, wall and CPU seconds; at the end the best wall
time of each and their ratio. Wall time is what the split buys (and what the
other processes' load disturbs most): compare the ratio within one run, and
read the load average printed before and after.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from spielwerk.games.kalah import egdb, kernel
from spielwerk.games.kalah.parallel import ParallelSolver, default_threads
from spielwerk.games.kalah.solver import Solver


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pits", type=int, default=6)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--empty-capture", action="store_true")
    ap.add_argument("--egdb", type=int, default=-1, help="database seeds (-1: largest cached)")
    ap.add_argument("--tt", type=int, default=24)
    ap.add_argument("--threads", type=int, default=default_threads())
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    ec = a.empty_capture
    n = a.egdb
    if n < 0:
        files = egdb.cached(a.pits, ec)
        n = min(files[-1][0], 2 * a.pits * a.seeds) if files else 0
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}; Kalah({a.pits},{a.seeds}) "
          f"{'empty' if ec else 'standard'} capture, database <= {n}, table 2^{a.tt}")
    t0 = time.perf_counter()
    values = egdb.open_egdb(a.pits, n, ec).values if n else None
    print(f"database opened and checked in {time.perf_counter() - t0:.2f} s")
    best: dict[int, float] = {}
    for rep in range(max(1, a.repeat)):
        order = (1, a.threads) if rep % 2 == 0 else (a.threads, 1)
        for threads in order:
            solver = Solver(a.pits, ec, max_seeds=2 * a.pits * a.seeds, egdb_seeds=n,
                            egdb_values=values, tt_log2=a.tt)
            par = ParallelSolver(solver, threads)
            rel = solver.relative(kernel.initial_board(a.pits, a.seeds), 0)
            w0, c0 = time.perf_counter(), time.process_time()
            v = par.value(rel)
            mv = par.best_move(rel, v)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            best[threads] = min(best.get(threads, float("inf")), wall)
            print(f"threads {threads}: value {v:+d}, move {mv + 1}, {par.nodes:,} nodes, "
                  f"wall {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
    print(f"best wall: serial {best[1]:.2f} s, {a.threads} threads {best[a.threads]:.2f} s, "
          f"ratio {best[1] / best[a.threads]:.2f}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
