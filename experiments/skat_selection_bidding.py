"""Bidding by hand strength (von Stegen, Kinback) against KNN bidding on the same deals.

A single-bidder comparison, no auction: on seeded deals (the knowledge-base
generator's :func:`make_deal`, the dealt declarer position), each system looks
at the ten dealt cards and either passes or names a suit game or grand
(``knn``: :func:`decide_bid` without extensions; ``stegen`` / ``kinback``:
:func:`strength_bid` over their thresholds). A game that is played is played
with the skat, put by the refined selection for that game, and solved
double-dummy. Reported per system: share of deals played, win rate of the
played games, and the declarer's extended-Seeger points per 36 deals (passes
count 0; won: value + 50, lost: -(2 value + 50); no overbidding since there
is no auction). Resumable JSON Lines output; never fails on time.

    nice -n 15 .venv/bin/python experiments/skat_selection_bidding.py --deals 100 \\
        --out /tmp/bidding.jsonl
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
from pathlib import Path

from spielwerk.games.skat.cards import GAME_NAMES, mask_to_string, points_of
from spielwerk.games.skat.dds import DealPosition, Solver, SolverConfig
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.handstrength import strength_bid
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.deals import WEAK_ACCEPT, make_deal
from spielwerk.games.skat_ai.params import KnnParams
from spielwerk.games.skat_ai.selection import refined_put
from spielwerk.games.skat_ai.winprob import game_value

SYSTEMS = ("knn", "stegen", "kinback")


def seeger(points: int, value: int, game: int) -> int:
    base = (9, 10, 11, 12, 24)[game]
    if points >= 90 or points <= 30:
        value += base
    return value + 50 if points >= 61 else -(2 * value + 50)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default="skat_selection_bidding.jsonl")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    rows = [json.loads(x) for x in out.read_text().splitlines() if x.strip()] \
        if out.exists() else []
    if not args.report_only:
        model = KnnModel.load()
        solver = Solver(SolverConfig(tt_log2=18))
        with out.open("a") as f:
            for deal in range(len(rows), args.deals):
                position, hands, skat = make_deal(args.seed, deal, WEAK_ACCEPT)
                ten = hands[position]
                twelve = ten | skat
                games = {
                    "knn": decide_bid(model, ten, KnnParams(extensions=False, decision="ev",
                                                          calibration="rule")).game,
                    "stegen": strength_bid(ten, "stegen", position),
                    "kinback": strength_bid(ten, "kinback", position),
                }
                solved: dict[int, int] = {}
                for g in set(games.values()):
                    if g < 0:
                        continue
                    put = refined_put(twelve, g, position).put
                    h = list(hands)
                    h[position] = twelve & ~put
                    solved[g] = solver.exact(DealPosition(g, position, (h[0], h[1], h[2]),
                                                          declarer_points=points_of(put)))
                row = {"deal": deal, "position": position, "ten": mask_to_string(ten),
                       "games": {s: (GAME_NAMES[g] if g >= 0 else "pass")
                                 for s, g in games.items()},
                       "points": {s: solved.get(g, -1) for s, g in games.items()},
                       "seeger": {s: (seeger(solved[g], game_value(twelve, g), g)
                                      if g >= 0 else 0) for s, g in games.items()}}
                f.write(json.dumps(row) + "\n")
                f.flush()
                rows.append(row)
                if len(rows) % 20 == 0:
                    print(f"{len(rows)}/{args.deals} deals", flush=True)
    print(f"machine: {platform.machine()} python {platform.python_version()}; "
          f"{len(rows)} deals, seed {args.seed}")
    print(f"{'system':8} {'played %':>8} {'won % of played':>15} {'SF per 36 deals':>18}")
    for s in SYSTEMS:
        played = [r for r in rows if r["games"][s] != "pass"]
        won = [r for r in played if r["points"][s] >= 61]
        sf = [36 * r["seeger"][s] for r in rows]
        half = 1.96 * statistics.stdev(sf) / len(sf) ** 0.5 if len(sf) > 1 else float("nan")
        print(f"{s:8} {100 * len(played) / max(1, len(rows)):8.1f} "
              f"{100 * len(won) / max(1, len(played)):15.1f} "
              f"{statistics.fmean(sf) if sf else 0:10.0f} +-{half:5.0f}")


if __name__ == "__main__":
    main()
