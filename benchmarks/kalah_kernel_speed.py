"""Nodes per CPU second of the Kalah search kernel on fixed exact solves (no iterations).

    .venv/bin/python benchmarks/kalah_kernel_speed.py [--repeat 3]

Two workloads: Kalah(6,3) without a database and a 2^12-slot table (pure kernel work,
everything in cache) and Kalah(5,4) with the database <= 14 seeds and a 2^22-slot
table (64 MiB: table misses). Node counts are machine independent and identical
before and after a speed change; the CPU time (the best of ``--repeat`` runs, process
time, so other processes' load disturbs it less than wall time) is what a speed change
moves. On a shared machine differences under about 5 % are noise.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.solver import Solver

WORKLOADS = [(6, 3, 0, 12), (5, 4, 14, 22)]
"""(pits, seeds, database seeds, log2 table slots)."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    Solver(3, False, max_seeds=18, tt_log2=10, depth_step=0).value(kernel.initial_board(3, 3))
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    for m, n, db, tt in WORKLOADS:
        best = float("inf")
        for _ in range(max(1, args.repeat)):
            solver = Solver(m, False, max_seeds=2 * m * n, egdb_seeds=db, tt_log2=tt,
                            depth_step=0)
            c0 = time.process_time()
            value = solver.value(kernel.initial_board(m, n))
            best = min(best, time.process_time() - c0)
        nodes = solver.stats.nodes
        print(f"Kalah({m},{n}) standard, database <= {db}, table 2^{tt}: value {value:+d}, "
              f"{nodes:,} nodes, {best:.2f} s CPU, {nodes / best / 1e6:.2f} M nodes per CPU-s",
              flush=True)


if __name__ == "__main__":
    main()
