"""Measure the Kalah solver's search ideas one by one (nodes are machine independent; the
time depends on the machine's load).

    .venv/bin/python experiments/kalah_ideas.py [--pits 5 --seeds 4] [--egdb 12]

For one instance and both capture rules, each line changes one thing against the
baseline (iterative deepening 3..12, ETC from 30 seeds, table 2^22, the database
given): the first MTD(f) guess (0 without iterations; the true value, as a
published value would give: null-window proofs around it), ETC at more or fewer
depths, the table size, the database size.
"""

from __future__ import annotations

import argparse
import os
import time

from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.solver import Solver


def run(m: int, n: int, ec: bool, guess: int | None = None, **kw: int) -> tuple[int, int, float]:
    opts = {"tt_log2": 22, "etc_min_seeds": 30, "depth_step": 3, "egdb_seeds": 0, **kw}
    t0 = time.perf_counter()
    solver = Solver(m, ec, max_seeds=2 * m * n, **opts)  # type: ignore[arg-type]
    rel = solver.relative(kernel.initial_board(m, n), 0)
    v = solver.value(rel, guess=guess)
    return v, solver.stats.nodes, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pits", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--egdb", type=int, default=12)
    ap.add_argument("--short", action="store_true",
                    help="only iterations, guesses, ETC >= 0 and the larger database")
    args = ap.parse_args()
    m, n, db = args.pits, args.seeds, args.egdb
    run(3, 2, False)  # compile / load the kernels
    print(f"Kalah({m},{n}); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| rule | configuration | value | nodes | seconds |")
    print("| --- | --- | ---: | ---: | ---: |")
    for ec in (False, True):
        rule = "empty" if ec else "standard"
        base = run(m, n, ec, egdb_seeds=db)
        lines = [("baseline: iterations 3..12, ETC >= 30 seeds, 2^22, db " + str(db), base)]
        lines.append(("no iterations, first guess 0", run(m, n, ec, egdb_seeds=db, depth_step=0)))
        lines.append(("first guess = the value (published), no iterations",
                      run(m, n, ec, guess=base[0], egdb_seeds=db)))
        if not args.short:
            lines.append(("first guess = value + 2",
                          run(m, n, ec, guess=base[0] + 2, egdb_seeds=db)))
        for etc in (0,) if args.short else (0, 20, 99):
            lines.append((f"ETC at nodes with >= {etc} seeds" if etc < 99 else "no ETC",
                          run(m, n, ec, egdb_seeds=db, etc_min_seeds=etc)))
        for t in () if args.short else (18, 26):
            lines.append((f"table 2^{t}", run(m, n, ec, egdb_seeds=db, tt_log2=t)))
        for d in (db + 4,) if args.short else (0, db + 4):
            lines.append((f"database <= {d} seeds", run(m, n, ec, egdb_seeds=d)))
        for name, (v, nodes, secs) in lines:
            print(f"| {rule} | {name} | {v:+d} | {nodes:,} | {secs:.1f} |", flush=True)


if __name__ == "__main__":
    main()
