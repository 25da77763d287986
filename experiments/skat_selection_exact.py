"""Exact double-dummy card points for the glassbox deals (the Table III mean card points).

``skat_selection_glassbox.py`` finds won / lost and schneider of every put from
threshold solves (61, then 90 or 31). Those answers already bound the final
card points: won without schneider 61..89, won with schneider 90..120, lost
without schneider 31..60, lost with schneider 0..30. This script solves the
exact points inside those bounds (:meth:`Solver.exact_within`: the same MTD-bi
tests as :meth:`Solver.exact`, started in a quarter of the range) with one
solver table for the whole run, and writes them to a SEPARATE JSON Lines file
(``--exact-out``), so it never races the glassbox run's appends to its own
file; ``skat_selection_glassbox.py --report-only --exact-out FILE`` merges
them. Resumable: a rerun skips the puts already solved, and picks up puts the
glassbox file gained since (the PIMC and rule puts of its second pass).

    nice -n 10 .venv/bin/python experiments/skat_selection_exact.py \\
        --glassbox /tmp/S/run/glassbox.jsonl --exact-out /tmp/S/run/exact.jsonl --deals 10000
    # the rate and the check against the unbounded exact solve, on deals that have both
    .venv/bin/python experiments/skat_selection_exact.py --check 50 \\
        --glassbox /tmp/S/run/glassbox.jsonl

Prints progress and the machine; never fails on time.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from common import bounds, load, missing, past, put_mask
from spielwerk.games.skat.cards import GAME_NAMES, points_of
from spielwerk.games.skat.dds import DealPosition, Solver, SolverConfig
from spielwerk.games.skat_ai.knowledge.deals import WEAK_ACCEPT, make_deal

RELOAD_EVERY = 200  # deals between re-reads of the glassbox file (new PIMC / rule puts)


def position_for(seed: int, row: dict, put: str) -> DealPosition:
    position, hands, skat = make_deal(seed, row["deal"], WEAK_ACCEPT)
    twelve = hands[position] | skat
    p = put_mask(twelve, put)
    h = list(hands)
    h[position] = twelve & ~p
    return DealPosition(GAME_NAMES.index(row["game"]), position, (h[0], h[1], h[2]),
                        declarer_points=points_of(p))


def solve_row(solver: Solver, seed: int, row: dict, want: dict[str, str]) -> dict[str, int]:
    by_put: dict[str, int] = {}
    for k, put in want.items():
        if put not in by_put:
            lo, hi = bounds(row["won"][k], row["schneider"][k])
            by_put[put] = solver.exact_within(position_for(seed, row, put), lo, hi)
    return {k: by_put[put] for k, put in want.items()}


def run(args: argparse.Namespace) -> None:
    gb, out = Path(args.glassbox), Path(args.exact_out)
    have = load(out)  # repairs a half-written last line of its own file only
    solver = Solver(SolverConfig(tt_log2=20))
    print(f"machine: {platform.machine()} python {platform.python_version()}", flush=True)
    t0, cpu0, done, solved = time.perf_counter(), time.process_time(), 0, 0
    rows = load(gb, fix=False)
    order = sorted(rows)[: args.deals]
    with out.open("a") as f:
        for n, deal in enumerate(order):
            if past(args.until):
                break
            if n % RELOAD_EVERY == 0 and n:
                rows = load(gb, fix=False)
            row, prev = rows[deal], have.get(deal, {})
            want = missing(row, prev)
            if not want:
                continue
            t = time.process_time()
            pts = solve_row(solver, args.seed, row, want)
            line = {"deal": deal, "points": {**prev.get("points", {}), **pts},
                    "puts": {**prev.get("puts", {}), **want},
                    "cpu_seconds": round(time.process_time() - t, 4)}
            f.write(json.dumps(line) + "\n")
            f.flush()
            have[deal] = line
            done += 1
            solved += len(set(want.values()))
            if done % 50 == 0:
                cpu = time.process_time() - cpu0
                print(f"{n + 1}/{len(order)} deals looked at, {done} solved this run "
                      f"({solved} puts), {cpu / done:.3f} s CPU per deal, "
                      f"{time.perf_counter() - t0:.0f} s wall", flush=True)
    cpu = time.process_time() - cpu0
    print(f"done: {done} deals ({solved} puts) in {cpu:.0f} s CPU, "
          f"{time.perf_counter() - t0:.0f} s wall", flush=True)


def check(args: argparse.Namespace) -> None:
    """On the first ``--check`` deals that already have exact points: the bounded
    solve against the stored value and against :meth:`Solver.exact`, CPU time each."""
    rows = load(Path(args.glassbox), fix=False)
    sub = [r for r in (rows[d] for d in sorted(rows)) if r.get("points")][: args.check]
    plain, bounded = Solver(SolverConfig(tt_log2=20)), Solver(SolverConfig(tt_log2=20))
    warm = position_for(args.seed, sub[0], sub[0]["puts"]["knn"])  # compile, then forget
    plain.exact(warm)
    bounded.exact_within(warm, 0, 120)
    plain.clear()
    bounded.clear()
    t_plain = t_bounded = 0.0
    n_plain = n_bounded = puts = 0
    for row in sub:
        seen: set[str] = set()
        for k, put in row["puts"].items():
            if put in seen or k not in row["points"]:
                continue
            seen.add(put)
            pos = position_for(args.seed, row, put)
            t = time.process_time()
            a = plain.exact(pos)
            t_plain += time.process_time() - t
            t = time.process_time()
            lo, hi = bounds(row["won"][k], row["schneider"][k])
            b = bounded.exact_within(pos, lo, hi)
            t_bounded += time.process_time() - t
            if not a == b == row["points"][k]:
                raise SystemExit(f"deal {row['deal']} {k}: exact {a}, bounded {b}, "
                                 f"stored {row['points'][k]}")
            puts += 1
    n_plain, n_bounded = plain.nodes, bounded.nodes
    print(f"machine: {platform.machine()} python {platform.python_version()}")
    print(f"{len(sub)} deals, {puts} puts: all equal (exact, bounded, stored)")
    print(f"exact (0..upper bound): {t_plain:.1f} s CPU, {n_plain:,} nodes")
    print(f"bounded (threshold answers): {t_bounded:.1f} s CPU, {n_bounded:,} nodes "
          f"(x{t_plain / max(t_bounded, 1e-9):.2f} faster)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--glassbox", required=True, help="the glassbox study's JSON Lines file")
    ap.add_argument("--exact-out", default="skat_selection_exact.jsonl")
    ap.add_argument("--deals", type=int, default=10000, help="the first N deals of the file")
    ap.add_argument("--seed", type=int, default=7, help="the glassbox run's --seed")
    ap.add_argument("--until", default=None, help="stop (resumably) at this UTC time, HH:MM")
    ap.add_argument("--check", type=int, default=0,
                    help="instead: compare with the unbounded solve on N deals with points")
    args = ap.parse_args()
    if args.check:
        check(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
