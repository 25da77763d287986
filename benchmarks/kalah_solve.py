"""Solve Kalah(m, n) from the start on one core; print value, time, nodes, nodes/s, EGDB size.

    .venv/bin/python benchmarks/kalah_solve.py --pits 6 --seeds 4 --egdb 20 [--empty-capture]

Numba kernels are compiled (or loaded from the cache) by a small warm-up solve
first, so the timing covers only the database (build or load) and the search. Prints the
machine; never fails on time.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time

from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.solver import Solver


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pits", type=int, default=6)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--empty-capture", action="store_true")
    ap.add_argument("--egdb", type=int, default=15, help="endgame database seeds (0: none)")
    ap.add_argument("--egdb-dir", default=None)
    ap.add_argument("--tt", type=int, default=24, help="log2 table slots")
    ap.add_argument("--depth-step", type=int, default=3, help="0: no iterative deepening")
    ap.add_argument("--depth-max", type=int, default=None,
                    help="deepest iteration (default: the solver's, 12; 18 from 48 seeds)")
    ap.add_argument("--etc-min-seeds", type=int, default=30)
    ap.add_argument("--time-limit", type=float, default=None, help="give up after this many s")
    args = ap.parse_args()

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}; Python {platform.python_version()}")
    warm = Solver(3, args.empty_capture, max_seeds=18, tt_log2=10)
    warm.value(kernel.initial_board(3, 3))

    t0 = time.perf_counter()
    solver = Solver(args.pits, args.empty_capture, max_seeds=2 * args.pits * args.seeds,
                    egdb_seeds=args.egdb, egdb_path=args.egdb_dir, tt_log2=args.tt,
                    depth_step=args.depth_step, depth_max=args.depth_max,
                    etc_min_seeds=args.etc_min_seeds,
                    progress=lambda s: print("  ", s, flush=True), progress_nodes=1 << 25)
    solver.report_iterations = True
    t_db = time.perf_counter() - t0
    if args.time_limit is not None:
        solver.deadline = time.perf_counter() + args.time_limit
    rel = kernel.initial_board(args.pits, args.seeds)
    rule = "empty capture" if args.empty_capture else "standard capture"
    try:
        value = solver.value(rel)
        move = solver.best_move(rel, value)
        result = f"value {value:+d}, best move pit {move + 1}"
    except Exception as exc:  # a time limit: report how far it got
        result = f"not finished ({exc})"
    total = time.perf_counter() - t0
    st = solver.stats
    db = solver.egdb
    db_text = "none"
    if db is not None:
        how = (f"built {db.build_seconds:.1f} s" if db.build_seconds is not None
               else f"loaded {db.load_seconds:.1f} s")
        db_text = f"<= {args.egdb} seeds, {db.size_bytes / 1e6:.0f} MB, {how}"
    print(f"Kalah({args.pits},{args.seeds}) {rule}: {result}")
    print(f"  wall {total:.1f} s (database {t_db:.1f} s, search {st.seconds:.1f} s); "
          f"nodes {st.nodes:,}; {st.nodes_per_second / 1e6:.2f} M nodes/s")
    print(f"  egdb {db_text}; tt 2^{args.tt} slots ({(16 << args.tt) / 1e6:.0f} MB); "
          f"egdb probes {st.egdb_probes:,}, tt cuts {st.tt_cuts:,}, etc cuts {st.etc_cuts:,}, "
          f"futility cuts {st.futility_cuts:,}, max ply {st.max_ply}")
    print(f"  iterations (depth, value, nodes so far): {st.iterations}")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.0f} MB")


if __name__ == "__main__":
    main()
