"""Skat declarers' card play compared on the same declared games, against two defences.

Per seeded deal, AGENT sits in all three seats through the auction and declares as it does
(``--force none``; ``--force own-nulls``: only the nulls it declares are played), or whoever
wins the auction picks up the skat, puts as AGENT does and declares a plain null
(``--force null``, the default; a deal whose bid went past the null's 23 is left out, as in
``skat_defence_gap.py --force null``). The game is then played out
from the declaration once per declarer spec of ``--declarer`` (the same seeds each time)
against two defenders of ``--defence`` (default ``knn``) and once more each against the
open-hand defence (defenders who see every card: the bound no defence passes). Per game
type the summary gives each declarer's win rate against both, and for every declarer after
the first the paired difference of the win rates (the games one wins and the other loses)
with a 95% interval for matched pairs. The declarer's card play alone differs: the
auction, the put and the declaration are AGENT's in every row. ``--declarer open`` is the
open-hand declarer: it sees every card and plays a card after which it still reaches the
contract's goal against best defence when there is one; in a game lost against best
defence it plays AGENT's card (playing on for the defenders' mistakes). Against our
defence it bounds what better card play could win where the cards allow it.

Results go to a JSON Lines file (one line per deal), resumed when it exists. The deals
are :mod:`spielwerk.games.skat_ai.declaration_runs` tasks (``--executor dask://HOST:PORT``
plays them on a Dask cluster).

    python experiments/skat_declarer_compare.py --deals 2000 --seed 7103 --workers 2 \\
        --declarer knn --declarer knn:worlds=64 --out results/null-declarer.jsonl
    python experiments/skat_declarer_compare.py --summarize results/null-declarer.jsonl
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
from spielwerk.core.intervals import wilson_interval
from spielwerk.games.skat_ai.calibration import GAME_TYPES
from spielwerk.games.skat_ai.declaration_runs import (
    OPEN,
    OWN_NULLS,
    DeclarerRun,
    play_declarers,
)
from spielwerk.games.skat_ai.defence_runs import paired_interval


def paired_difference(rows: list[dict[str, Any]], a: str, b: str, against: str
                      ) -> tuple[float, float, float]:
    """Win rate of declarer ``b`` minus ``a`` against ``against`` over the same games, with a
    95% interval for matched pairs."""
    return paired_interval([int(r[b][against]["won"]) - int(r[a][against]["won"])
                            for r in rows])


def summarize(path: Path) -> None:
    header, rows = read_results(path)
    played = [r for r in rows if not r["passed"]]
    declarers = header["declarers"]
    what = {"null": "forced nulls", OWN_NULLS: "nulls declared"}.get(header["force"],
                                                                    "games declared")
    print(f"auction {header['agent']}, defence {header['defence']}, seed {header['seed']}: "
          f"{len(rows)} deals, {len(played)} {what}")
    types = [t for t in GAME_TYPES if any(r["type"] == t for r in played)]
    for t in [*types, "all"] if len(types) > 1 else types:
        rs = [r for r in played if t == "all" or r["type"] == t]
        n = len(rs)
        print(f"{t} ({n}):")
        print(f"  {'declarer':<44} {'won vs ours':>11} {'won vs open':>11} {'s/game':>6}")
        for d in declarers:
            ours = sum(r[d]["ours"]["won"] for r in rs) / n
            opn = sum(r[d][OPEN]["won"] for r in rs) / n
            secs = sum(r[d]["ours"]["seconds"] for r in rs) / n
            print(f"  {d:<44} {ours:>11.3f} {opn:>11.3f} {secs:>6.2f}")
        for d in declarers[1:]:
            for against in ("ours", OPEN):
                mean, lo, hi = paired_difference(rs, declarers[0], d, against)
                print(f"  {d} minus {declarers[0]}, against {against}: {mean:+.3f} "
                      f"({lo:+.3f} .. {hi:+.3f})")
    if header["force"] == OWN_NULLS:
        threshold_table(header, rows)


NULL_TYPES = ("null", "null_hand", "null_ouvert")


def threshold_table(header: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """With ``--force own-nulls``: were only the nulls declared whose chance (as the
    decisions compared it) reaches a threshold, what share of all declarations would the
    nulls be, and how often would the plain nulls kept be won against our defence (the
    first declarer)? The declarations given up are counted as declared still (as another
    game), so the share is of the same total."""
    declared = [r for r in rows if "type" in r]
    nulls = [r for r in declared if r["type"] in NULL_TYPES and "decided" in r]
    if not nulls:
        return
    first = header["declarers"][0]
    print(f"nulls kept by their decided chance ({len(declared)} declarations; "
          f"plain nulls won by {first} against our defence):")
    print(f"  {'chance >=':>9} {'nulls':>6} {'share':>6} {'plain':>6} {'predicted':>9} "
          f"{'won':>6}  95% interval")
    for t in (0.0, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
        kept = [r for r in nulls if r["decided"] >= t]
        plain = [r for r in kept if r["type"] == "null"]
        won = sum(r[first]["ours"]["won"] for r in plain)
        lo, hi = wilson_interval(won, len(plain), 0.95)
        pred = sum(r["predicted"] for r in plain) / len(plain) if plain else float("nan")
        rate = won / len(plain) if plain else float("nan")
        print(f"  {t:>9.2f} {len(kept):>6} {len(kept) / len(declared):>6.3f} {len(plain):>6} "
              f"{pred:>9.3f} {rate:>6.3f}  {lo:.3f}-{hi:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="knn", help="the auction, the put and the declaration")
    ap.add_argument("--declarer", action="append", dest="declarers",
                    help="a declarer spec for the card play (repeat the option; the first "
                         "is the one the others are compared with; default: AGENT)")
    ap.add_argument("--defence", default="knn", help="the defenders' spec")
    add_run_options(ap, 7103, executor=True)
    ap.add_argument("--force", choices=("null", "none", OWN_NULLS), default="null",
                    help="null: the auction's winner declares a plain null; none: AGENT's own "
                         "declarations; own-nulls: AGENT's own declarations, only its nulls "
                         "played (null, hand, ouvert)")
    args = ap.parse_args()
    if summarized(ap, args, summarize):
        return
    declarers = [d.strip() for d in args.declarers or [args.agent] if d.strip()]
    if len(set(declarers)) != len(declarers):
        ap.error("each --declarer once")
    run = DeclarerRun(args.agent, tuple(declarers), args.defence, args.force, args.seed)
    checked(run)  # a bad spec stops here, before any deal
    header = run.header()
    run_tasks(args.out, header, lambda h: all(h.get(k) == v for k, v in header.items()),
              run.tasks(range(args.deals)), play_declarers, args.executor, args.workers,
              every=25)
    summarize(args.out)


if __name__ == "__main__":
    main()
