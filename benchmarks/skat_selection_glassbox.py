"""Skat putting strategies side by side under double-dummy ("glassbox") play.

The seed's Table III on our deals: the same seeded deals (the knowledge-base
generator's :func:`make_deal`, a seed the shipped base does not use), the
declarer's position as dealt and the game fixed per deal as the KNN game
choice picks it among the suit games and grand (a deal is kept only when
that game's KNN pick-up value is at least ``--min-value`` card points, i.e.
the game is reasonable). For each deal every strategy puts two cards:

* ``random`` - two of the twelve at random (seeded by the deal);
* ``knn`` - the KNN putting for that game (shipped base);
* ``refined`` - hard rules + soft score (:mod:`spielwerk.games.skat.selection`);
* ``pimc`` - each plausible put solved over ``--pimc-worlds`` sampled opponent hands
  (only on the first ``--pimc-deals`` kept deals: it is the expensive one).

Each put is then solved double-dummy (exact card points, forehand leads).
Reported per strategy: deals, win rate (61+), mean card points, the
declarer's extended-Seeger points per 36 games (won: value + 50, lost:
-(2 value + 50); value with the twelve cards' matadors, schneider counted
from 90 / 30 points, no overbidding: bid 18) with a 95% interval, the paired
difference to ``knn``, and the time per putting decision (median, p90).

Results go to a JSON Lines file, one line per deal; a rerun with the same
file skips the deals already there (resumable). Never fails on time.

    nice -n 15 .venv/bin/python benchmarks/skat_selection_glassbox.py --deals 200 \\
        --pimc-deals 20 --out /tmp/glassbox.jsonl
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from spielwerk.games.skat.cards import mask_to_string, points_of
from spielwerk.games.skat.dds import DealPosition, Solver, SolverConfig
from spielwerk.games.skat.knowledge.deals import WEAK_ACCEPT, make_deal
from spielwerk.games.skat.knowledge.knn import KnnModel, KnnParams, knn_put
from spielwerk.games.skat.selection import GAME_KEYS, pimc_put, random_put, refined_put
from spielwerk.games.skat.winprob import game_value

STRATEGIES = ("random", "knn", "refined", "pimc")


def seeger(points: int, value_base: int, game: int) -> int:
    """Declarer's extended-Seeger points of a game ending with ``points`` card points."""
    base = 24 if game == 4 else (9, 10, 11, 12)[game]
    mult = value_base // base
    if points >= 90 or points <= 30:
        mult += 1
    value = base * mult
    return value + 50 if points >= 61 else -(2 * value + 50)


def run(args: argparse.Namespace) -> None:
    out = Path(args.out)
    done: dict[int, dict] = {}
    if out.exists():
        for line in out.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                done[r["deal"]] = r
    model = KnnModel.load()
    solver = Solver(SolverConfig(tt_log2=18))
    kept = len(done)
    i = max(done) + 1 if done else 0
    t_start = time.perf_counter()
    with out.open("a") as f:
        while kept < args.deals:
            deal = i
            i += 1
            position, hands, skat = make_deal(args.seed, deal, WEAK_ACCEPT)
            twelve = hands[position] | skat
            d = knn_put(model, twelve, 18, KnnParams(extensions=False))
            if d.value < args.min_value:
                continue
            game = d.game
            puts: dict[str, int] = {}
            times: dict[str, float] = {}
            t = time.perf_counter()
            puts["random"] = random_put(twelve, np.random.default_rng([args.seed, deal]))
            times["random"] = time.perf_counter() - t
            t = time.perf_counter()
            puts["knn"] = model.best_put(twelve, game)[0]
            times["knn"] = time.perf_counter() - t
            t = time.perf_counter()
            sel = refined_put(twelve, game, position)
            puts["refined"] = sel.put
            times["refined"] = time.perf_counter() - t
            if kept < args.pimc_deals:
                t = time.perf_counter()
                r = pimc_put(twelve, game, position, args.pimc_worlds,
                             np.random.default_rng([args.seed, deal, 1]), sel.candidates,
                             solver)
                puts["pimc"] = r.put
                times["pimc"] = time.perf_counter() - t
            points: dict[int, int] = {}
            for p in set(puts.values()):
                h = list(hands)
                h[position] = twelve & ~p
                points[p] = solver.exact(DealPosition(game, position, (h[0], h[1], h[2]),
                                                      declarer_points=points_of(p)))
            value = game_value(twelve, game)
            row = {
                "deal": deal, "position": position, "game": GAME_KEYS[game],
                "twelve": mask_to_string(twelve), "candidates": len(sel.candidates),
                "puts": {k: mask_to_string(v) for k, v in puts.items()},
                "points": {k: points[v] for k, v in puts.items()},
                "seeger": {k: seeger(points[v], value, game) for k, v in puts.items()},
                "seconds": {k: round(v, 5) for k, v in times.items()},
            }
            f.write(json.dumps(row) + "\n")
            f.flush()
            done[deal] = row
            kept += 1
            if kept % 10 == 0:
                rate = (time.perf_counter() - t_start) / max(1, kept)
                print(f"{kept}/{args.deals} deals ({deal + 1} dealt), "
                      f"{rate:.1f} s per kept deal this run", flush=True)
    report(list(done.values()))


def ci(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else float("nan")
    return m, h


def report(rows: list[dict]) -> None:
    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"python {platform.python_version()}; {len(rows)} deals")
    games: dict[str, int] = {}
    for r in rows:
        games[r["game"]] = games.get(r["game"], 0) + 1
    print("games:", ", ".join(f"{g} {n}" for g, n in sorted(games.items())))
    print(f"{'strategy':9} {'deals':>5} {'won %':>6} {'points':>7} {'SF/36':>16} "
          f"{'vs knn /36':>16} {'median s':>9} {'p90 s':>8}")
    for s in STRATEGIES:
        sub = [r for r in rows if s in r["points"]]
        if not sub:
            continue
        won = 100 * statistics.fmean(r["points"][s] >= 61 for r in sub)
        pts = statistics.fmean(r["points"][s] for r in sub)
        m, h = ci([36 * r["seeger"][s] for r in sub])
        dm, dh = ci([36 * (r["seeger"][s] - r["seeger"]["knn"]) for r in sub])
        ts = sorted(r["seconds"][s] for r in sub)
        med = ts[len(ts) // 2]
        p90 = ts[min(len(ts) - 1, int(0.9 * len(ts)))]
        print(f"{s:9} {len(sub):5d} {won:6.1f} {pts:7.1f} {m:8.0f} +-{h:5.0f} "
              f"{dm:8.0f} +-{dh:5.0f} {med:9.4f} {p90:8.4f}")
    cands = [r["candidates"] for r in rows]
    print(f"refined candidates after the hard rules: median {statistics.median(cands)}, "
          f"min {min(cands)}, max {max(cands)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--min-value", type=float, default=55.0)
    ap.add_argument("--pimc-deals", type=int, default=10)
    ap.add_argument("--pimc-worlds", type=int, default=8)
    ap.add_argument("--out", default="skat_selection_glassbox.jsonl")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    if args.report_only:
        rows = [json.loads(x) for x in Path(args.out).read_text().splitlines() if x.strip()]
        report(rows)
        return
    run(args)


if __name__ == "__main__":
    main()
