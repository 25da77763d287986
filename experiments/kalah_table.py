"""The seed's Kalah results table: value, best first move, nodes and time of every Kalah(m, n)
with m = 1..6 and n = 1..5 (m * n <= 30), both capture rules, written into docs/kalah.md.

    .venv/bin/python experiments/kalah_table.py [--budget 600] [--row-limit 600] [--only 6,5]
                                               [--skip 6,5] [--redo]
                                               [--threads 2]

Resumable: every finished row is kept in experiments/kalah_table_rows.json (with the
machine and command that produced it) and not recomputed (``--redo`` recomputes);
rows that did not finish within ``--row-limit`` seconds are retried on the next run.
``--budget`` bounds the seconds of new searching per run, smallest instances first,
so the script can run in the background and be continued. Each row is one
``spielwerk kalah solve`` (same defaults: the largest cached endgame database that
fits, none for instances of at most 30 seeds; a table from the free memory) in a
fresh solver; the time includes loading the database. ``--threads T`` (default 1)
splits the exact search of the rows it runs over T threads, as ``kalah solve
--threads T`` does (node counts then vary a little from run to run; the row records
its thread count). Every value with a published
counterpart (REFERENCE.md) is checked; a mismatch is printed and marked in the docs.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import cast

from spielwerk.core.machine import describe
from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.parallel import ParallelSolver
from spielwerk.games.kalah.plan import AUTO, KalahPlan
from spielwerk.games.kalah.solver import SearchTimeout, Solver

HERE = Path(__file__).resolve().parent
ROWS = HERE / "kalah_table_rows.json"
DOC = HERE.parent / "docs" / "kalah.md"
BEGIN, END = "<!-- kalah-table:begin -->", "<!-- kalah-table:end -->"
SMALL = 30
"""Instances with at most this many seeds are searched without a database."""

# published first-player margins (REFERENCE.md): Irving, Donkers & Uiterwijk 2000 (empty
# capture), CMancala / OpenSpiel (standard); Kalah(6,3) = +2 under both rules
PUBLISHED = {
    (6, 1, True): 2, (6, 2, True): 10, (6, 3, True): 2, (6, 4, True): 10, (6, 5, True): 12,
    (6, 3, False): 2, (6, 4, False): 8, (6, 5, False): 10,
}


def key(m: int, n: int, ec: bool) -> str:
    return f"{m},{n},{'empty' if ec else 'std'}"


def solve_row(m: int, n: int, ec: bool, limit: float, threads: int = 1) -> dict[str, object]:
    total = 2 * m * n
    choice = KalahPlan(m, total, ec, egdb=0 if total <= SMALL else AUTO,
                       threads=threads).choose()
    egdb = min(choice.egdb_seeds, total - 1)
    t0 = time.perf_counter()
    solver = Solver(m, ec, max_seeds=total, egdb_seeds=egdb, tt_log2=choice.tt_log2)
    solver.deadline = time.perf_counter() + limit
    par = ParallelSolver(solver, threads)
    rel = solver.relative(kernel.initial_board(m, n), 0)
    row: dict[str, object] = {"m": m, "n": n, "empty_capture": ec, "egdb": egdb,
                              "tt_log2": choice.tt_log2, "threads": threads}
    cmd = (f"spielwerk kalah solve --pits {m} --seeds {n}{' --empty-capture' if ec else ''} "
           f"--egdb {egdb} --tt {choice.tt_log2} --threads {threads}")
    try:
        value = par.value(rel)
        move = par.best_move(rel, value)
        row.update(value=value, move=move + 1, done=True)
    except SearchTimeout:
        lo, hi = solver.bounds
        row.update(done=False, bounds=[lo, hi], estimate=solver.estimate)
    row.update(nodes=par.nodes, seconds=round(time.perf_counter() - t0, 2),
               command=cmd, machine=describe(), when=time.strftime("%Y-%m-%d %H:%M UTC",
                                                                  time.gmtime()))
    return row


def render(rows: dict[str, dict[str, object]]) -> str:
    out = [BEGIN, "",
           "| m | n | rule | value | best first move | nodes | time (s) | database | "
           "published |", "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for m, n, ec in instances():
        r = rows.get(key(m, n, ec))
        rule = "empty" if ec else "standard"
        pub = PUBLISHED.get((m, n, ec))
        if r is None:
            out.append(f"| {m} | {n} | {rule} | not run yet | | | | | "
                       f"{'' if pub is None else f'{pub:+d}'} |")
            continue
        db = f"<= {r['egdb']}" if r["egdb"] else "none"
        if r.get("done"):
            check = "" if pub is None else (f"{pub:+d} ok" if pub == r["value"]
                                            else f"{pub:+d} **MISMATCH**")
            out.append(f"| {m} | {n} | {rule} | {r['value']:+d} | {r['move']} | "
                       f"{r['nodes']:,} | {r['seconds']} | {db} | {check} |")
        else:
            lo, hi = cast("list[int]", r["bounds"])
            out.append(f"| {m} | {n} | {rule} | not finished in {r['seconds']} s (exact "
                       f"bounds [{lo:+d}, {hi:+d}]) | | {r['nodes']:,} | {r['seconds']} | "
                       f"{db} | {'' if pub is None else f'{pub:+d}'} |")
    machines = sorted({str(r["machine"]).rsplit(", load", 1)[0] for r in rows.values()})
    out += ["", "Machine: " + "; ".join(machines) + ". Each row: "
            "`" + "spielwerk kalah solve --pits M --seeds N [--empty-capture] --egdb E --tt T "
            "--threads H"
            + "` (the exact command of each row is in `experiments/kalah_table_rows.json`), "
            "value for South (first player), a best first move (pit 1..m from South's left), "
            "time including loading the database, in a fresh solver.", "", END]
    return "\n".join(out)


def instances() -> list[tuple[int, int, bool]]:
    return sorted(((m, n, ec) for m in range(1, 7) for n in range(1, 6) for ec in (False, True)
                   if m * n <= 30), key=lambda x: (x[0] * x[1], x[0], x[2]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=600.0, help="seconds of new searching")
    ap.add_argument("--row-limit", type=float, default=600.0, help="seconds per instance")
    ap.add_argument("--only", default=None, help="one instance 'm,n' (both rules)")
    ap.add_argument("--skip", action="append", default=[],
                    help="an instance 'm,n' to leave as it is (repeatable)")
    ap.add_argument("--redo", action="store_true", help="recompute finished rows too")
    ap.add_argument("--threads", type=int, default=1, help="threads of each exact search")
    args = ap.parse_args()
    rows: dict[str, dict[str, object]] = json.loads(ROWS.read_text()) if ROWS.exists() else {}
    print(f"machine: {describe()}", flush=True)
    # load the compiled kernels once, untimed (else the first row carries numba's start-up)
    warm = Solver(2, False, max_seeds=8, tt_log2=8)
    warm.value(warm.relative(kernel.initial_board(2, 2), 0))
    spent = 0.0
    for m, n, ec in instances():
        k = key(m, n, ec)
        if (args.only and args.only != f"{m},{n}") or f"{m},{n}" in args.skip:
            continue
        if k in rows and rows[k].get("done") and not args.redo:
            continue
        if spent >= args.budget:
            print(f"{k}: left for the next run (budget spent)", flush=True)
            continue
        row = solve_row(m, n, ec, min(args.row_limit, args.budget - spent), args.threads)
        spent += float(row["seconds"])  # type: ignore[arg-type]
        old = rows.get(k)
        if row.get("done") or old is None or not old.get("done"):
            rows[k] = row
        pub = PUBLISHED.get((m, n, ec))
        flag = "" if pub is None or not row.get("done") else (
            " (published: ok)" if pub == row["value"] else f" MISMATCH: published {pub:+d}")
        print(f"{k}: " + (f"{row['value']:+d}, move {row['move']}" if row.get("done")
                          else f"not finished, bounds {row['bounds']}")
              + f", {row['nodes']:,} nodes, {row['seconds']} s{flag}", flush=True)
        tmp = ROWS.with_suffix(".tmp")
        tmp.write_text(json.dumps(rows, indent=1, sort_keys=True))
        os.replace(tmp, ROWS)
    doc = DOC.read_text()
    table = render(rows)
    if BEGIN in doc and END in doc:
        doc = doc[: doc.index(BEGIN)] + table + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip() + "\n\n## Results table (all instances)\n\n" + table + "\n"
    DOC.write_text(doc)
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
