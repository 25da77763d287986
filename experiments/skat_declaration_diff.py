"""Two agent specs' declarations compared where they differ, played out against a defence.

A duplicate match between two specs that differ in a few declarations spends nearly all of
its deals on games both would play alike, and its ±30 SF per 36 games hides a change that
touches one game in thirty. This measures the difference directly. Per seeded deal, each
spec bids in all three seats (the same seeds, so the same auction while the decisions are
the same) and declares; where the two declarations differ in any way (declarer, game, put
skat, hand, announcements), both games are played out from their declarations, the
declarer the spec that declared it (the same card-play seeds for both), against:

* ``ours``: two defenders of the declaring spec (the two specs' card play is the same when
  they differ in their decisions before the first card only: calibration, bidding), and
* ``open``: the open-hand defence (defenders who see every card: the bound), and
* each ``--defence SPEC`` (say ``rule``): two defenders of that spec.

Per defence the summary gives, over the deals that differ, the declarer's Seeger-Fabian
score of B minus A, and the relative score (the declarer's minus the mean of the two
defenders', so a lost game's 40 points to each defender count against it, as the bot's
``loss_bonus`` counts them), with 95% intervals for matched pairs; and per 36 seat-games
of all deals (every deal holds three seat-games; an unchanged deal adds 0). Deals the
two specs declare alike are not played: they would score the same.

Where the specs differ only after the auction (the game chosen after picking up, the put,
announcements; not the card play), their auctions are the same and the same seat declares,
so this is the difference a match between them would measure. A change to the bidding
moves the auction: then it compares a table of A with a table of B, not A against B.

Results go to a JSON Lines file (one line per deal), resumed when it exists. The deals
are :mod:`spielwerk.games.skat_ai.declaration_runs` tasks (``--executor dask://HOST:PORT``
plays them on a Dask cluster).

    python experiments/skat_declaration_diff.py knn:calibration=played_grand_hand:worlds=4 \\
        knn:calibration=played_put:worlds=4 --deals 6000 --seed 545454 --workers 2 \\
        --out results/decl-diff.jsonl
    python experiments/skat_declaration_diff.py knn4 knn --defence rule --deals 3000 \
        --seed 5 --workers 2 --out results/decl-diff-rule.jsonl
    python experiments/skat_declaration_diff.py --summarize results/decl-diff.jsonl
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from skat_defence_gap import (  # the same runner and options
    add_run_options,
    checked,
    read_results,
    run_tasks,
    summarized,
)
from spielwerk.core.intervals import mean_and_se, z_value
from spielwerk.games.skat_ai.declaration_runs import DIFF_DEFENCES, DiffRun, play_diff


def score(side: dict[str, Any], name: str, key: str) -> float:
    """The declarer's score of one side against defence ``name`` (0 when passed in)."""
    return float(side[name][key]) if name in side else 0.0


def mean_interval(diff: list[float]) -> tuple[float, float, float]:
    """Mean and 95% interval for matched pairs (:func:`spielwerk.core.intervals.mean_and_se`;
    one changed game: no interval, its bounds the mean)."""
    mean, se = mean_and_se(diff)
    half = z_value(0.95) * se if len(diff) > 1 else 0.0
    return mean, mean - half, mean + half


def summarize(path: Path) -> None:
    header, rows = read_results(path)
    changed = [r for r in rows if not r["same"]]
    a, b = header["specs"]
    print(f"A {a}\nB {b}\nseed {header['seed']}: {len(rows)} deals, {len(changed)} "
          f"declared otherwise ({len(changed) / max(1, len(rows)):.1%})")
    kinds: dict[str, list[dict[str, Any]]] = {}
    for r in changed:
        kinds.setdefault(move(r), []).append(r)
    print("  " + ", ".join(f"{k} {len(v)}" for k, v in sorted(kinds.items(),
                                                               key=lambda x: -len(x[1]))))
    if not changed:
        return
    print(f"{'defence':<8} {'won A':>6} {'won B':>6} {'SF B-A per game':>22} "
          f"{'relative B-A per game':>24} {'per 36 seat-games':>22}")
    for name in [*DIFF_DEFENCES, *header.get("defences", [])]:
        won = [sum(1 for r in changed if r[s].get(name, {}).get("won")) / len(changed)
               for s in "ab"]
        sf = mean_interval([score(r["b"], name, "sf") - score(r["a"], name, "sf")
                            for r in changed])
        rel = mean_interval([score(r["b"], name, "relative") - score(r["a"], name, "relative")
                             for r in changed])
        per36 = [v * len(changed) / len(rows) * 12 for v in rel]  # 36 / 3 seat-games a deal
        print(f"{name:<8} {won[0]:>6.3f} {won[1]:>6.3f} "
              f"{sf[0]:+7.1f} ({sf[1]:+.1f}..{sf[2]:+.1f}) "
              f"{rel[0]:+8.1f} ({rel[1]:+.1f}..{rel[2]:+.1f}) "
              f"{per36[0]:+7.1f} ({per36[1]:+.1f}..{per36[2]:+.1f})")
    by_move(kinds, [*DIFF_DEFENCES, *header.get("defences", [])])


def move(row: dict[str, Any]) -> str:
    """A changed deal's change: A's game type -> B's (``passed`` where a spec passes in)."""
    return f"{row['a'].get('type', 'passed')} -> {row['b'].get('type', 'passed')}"


def by_move(kinds: dict[str, list[dict[str, Any]]], names: list[str]) -> None:
    """Per change (``kinds``: the changed deals by :func:`move`; the most frequent first): the
    deals, the share A won against our defence, and per defence the relative score B - A per
    deal with its sum over them."""
    print("by change: relative B-A per deal (sum)")
    print(f"{'change':<26} {'deals':>5} {'A won':>6}" + "".join(f" {n:>18}" for n in names))
    for key, rows in sorted(kinds.items(), key=lambda x: (-len(x[1]), x[0])):
        won = sum(1 for r in rows if r["a"].get("ours", {}).get("won")) / len(rows)
        cells = ""
        for name in names:
            total = sum(score(r["b"], name, "relative") - score(r["a"], name, "relative")
                        for r in rows)
            cell = f"{total / len(rows):+.1f} ({total:+.0f})"
            cells += f" {cell:>18}"
        print(f"{key:<26} {len(rows):>5} {won:>6.2f}{cells}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="*", metavar="SPEC", help="the two agent specs, A and B")
    ap.add_argument("--defence", action="append", default=[], metavar="SPEC",
                    help="also play each changed game against two defenders of SPEC")
    add_run_options(ap, seed=1, executor=True)
    args = ap.parse_args()
    if summarized(ap, args, summarize):
        return
    if len(args.specs) != 2:
        ap.error("give two agent specs, A and B")
    run = DiffRun((args.specs[0], args.specs[1]), args.seed, tuple(args.defence))
    checked(run)
    run_tasks(args.out, run.header(),
              lambda h: (h.get("specs"), h.get("seed"), h.get("defences", [])) == (
                  args.specs, args.seed, args.defence),
              run.tasks(range(args.deals)), play_diff, args.executor, args.workers, every=200)
    summarize(args.out)


if __name__ == "__main__":
    main()
