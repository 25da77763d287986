"""Skat putting strategies side by side under double-dummy ("glassbox") play.

The seed's Table III on our deals: the same seeded deals (the knowledge-base
generator's :func:`make_deal`, a seed the shipped base does not use), the
declarer's position as dealt and the game fixed per deal as the KNN game
choice picks it among the suit games and grand (a deal is kept only when
that game's KNN pick-up value is at least ``--min-value`` card points, i.e.
the game is reasonable). For each deal every strategy puts two cards:

* ``random`` - two of the twelve at random (seeded by the deal);
* ``knn`` - the KNN putting for that game (shipped base);
* ``refined`` - hard rules + soft score (:mod:`spielwerk.games.skat_ai.selection`);
* ``pimc`` - each plausible put solved over ``--pimc-worlds`` sampled opponent hands
  (only on the first ``--pimc-deals`` kept deals: it is the expensive one);
* ``rule`` - the rule baseline's own put (:class:`SkatRuleAgent`, which guards the
  trumps of the game it would pick itself), on the first ``--rule-deals``.

Each put is then solved double-dummy (forehand leads): win or loss with the
null-window "61" query and schneider with one more threshold (90 when won, 31
when lost), on every deal; the exact final card points only on the first
``--exact-deals`` kept deals (MTD-bi, about 4-5 times the cost of the two
thresholds), which is where the mean card points come from. Reported per
strategy: deals, win rate (61+), mean card points (exact subset), the
declarer's extended-Seeger points per 36 games (won: value + 50, lost:
-(2 value + 50); value with the twelve cards' matadors, schneider counted
from 90 / 30 points, schwarz not counted, no overbidding: bid 18) with a 95%
interval, the paired difference to ``knn``, and the time per putting decision
(median, p90). The PIMC put solves its candidates in the refined score's order
with pruning (:func:`pimc_put` ``prune=True``: the same put at fewer solves),
one solver (table) kept across all solves.

Two passes over one JSON Lines file: first every deal with random, knn and
refined; then the PIMC put and the exact points on the first deals, written as
update lines (``"update": true``) that are merged into the deal's row. A rerun
with the same file continues where it stopped (resumable). Never fails on time.

    nice -n 5 .venv/bin/python experiments/skat_selection_glassbox.py --deals 10000 \\
        --pimc-deals 1000 --exact-deals 1000 --out /tmp/glassbox.jsonl
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import TextIO

import numpy as np

from common import (
    LOSE_SCHNEIDER,
    SCHNEIDER,
    STRATEGIES,
    WIN,
    ci,
    load,
    merge_exact,
    past,
    put_mask,
    rule_put,
    seeger,
)
from spielwerk.games.skat.cards import GAME_NAMES, mask_to_string, points_of
from spielwerk.games.skat.dds import DealPosition, Solver, SolverConfig
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.deals import WEAK_ACCEPT, make_deal
from spielwerk.games.skat_ai.params import KnnParams
from spielwerk.games.skat_ai.putting import knn_put
from spielwerk.games.skat_ai.selection import pimc_put, random_put, refined_put


def outcome(solver: Solver, game: int, position: int, hands: tuple[int, int, int],
            twelve: int, put: int, exact: bool) -> dict[str, int | bool]:
    """Won / schneider of one put under double-dummy play (thresholds), exact card
    points as well when ``exact``."""
    h = list(hands)
    h[position] = twelve & ~put
    pos = DealPosition(game, position, (h[0], h[1], h[2]), declarer_points=points_of(put))
    if exact:
        pts = solver.exact(pos)
        return {"won": pts >= WIN, "schneider": pts >= SCHNEIDER or pts <= LOSE_SCHNEIDER,
                "points": pts}
    won = solver.reaches(pos, WIN)
    schneider = solver.reaches(pos, SCHNEIDER) if won else not solver.reaches(
        pos, LOSE_SCHNEIDER + 1)
    return {"won": won, "schneider": schneider}


def record(row: dict, name: str, put: int, res: dict[str, int | bool], twelve: int,
           game: int) -> None:
    row.setdefault("puts", {})[name] = mask_to_string(put)
    row.setdefault("won", {})[name] = bool(res["won"])
    row.setdefault("schneider", {})[name] = bool(res["schneider"])
    row.setdefault("seeger", {})[name] = seeger(twelve, game, bool(res["won"]),
                                                bool(res["schneider"]))
    if "points" in res:
        row.setdefault("points", {})[name] = int(res["points"])


def first_pass(args: argparse.Namespace, f: TextIO, done: dict[int, dict], model: KnnModel,
               solver: Solver) -> None:
    """Every deal up to ``--deals``: random, knn and refined puts and their outcomes."""
    kept = len(done)
    i = max(done) + 1 if done else 0
    t_start = time.perf_counter()
    new = 0
    while kept < args.deals and not past(args.until):
        deal = i
        i += 1
        position, hands, skat = make_deal(args.seed, deal, WEAK_ACCEPT)
        twelve = hands[position] | skat
        d = knn_put(model, twelve, 18,
                    KnnParams(extensions=False, decision="ev", calibration="rule"))
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
        exact = kept < args.exact_deals
        t = time.perf_counter()
        res = {p: outcome(solver, game, position, hands, twelve, p, exact)
               for p in set(puts.values())}
        row: dict = {"deal": deal, "position": position, "game": GAME_NAMES[game],
                     "twelve": mask_to_string(twelve), "candidates": len(sel.candidates),
                     "solve_seconds": round(time.perf_counter() - t, 4)}
        for k, p in puts.items():
            record(row, k, p, res[p], twelve, game)
        row["seconds"] = {k: round(v, 5) for k, v in times.items()}
        f.write(json.dumps(row) + "\n")
        f.flush()
        done[deal] = row
        kept += 1
        new += 1
        if kept % 100 == 0:
            rate = (time.perf_counter() - t_start) / new
            print(f"{kept}/{args.deals} deals ({deal + 1} dealt), "
                  f"{rate:.2f} s per kept deal this run", flush=True)


def second_pass(args: argparse.Namespace, f: TextIO, done: dict[int, dict],
                solver: Solver) -> None:
    """The PIMC put on the first ``--pimc-deals``, exact points on the first ``--exact-deals``."""
    t_start = time.perf_counter()
    rule_deals = args.pimc_deals if args.rule_deals is None else args.rule_deals
    todo = sorted(done)[:max(args.pimc_deals, args.exact_deals, rule_deals)]
    if todo and args.pimc_deals:  # compile the kernels before any decision is timed
        position, hands, skat = make_deal(args.seed, todo[0], WEAK_ACCEPT)
        pimc_put(hands[position] | skat, GAME_NAMES.index(done[todo[0]]["game"]), position, 1,
                 0, None, solver)
    for n, deal in enumerate(todo):
        if past(args.until):
            break
        row = done[deal]
        want_pimc = n < args.pimc_deals and "pimc" not in row["puts"]
        want_exact = n < args.exact_deals and len(row.get("points", {})) < len(row["puts"])
        want_rule = n < rule_deals and "rule" not in row["puts"]
        if not (want_pimc or want_exact or want_rule):
            continue
        position, hands, skat = make_deal(args.seed, deal, WEAK_ACCEPT)
        twelve = hands[position] | skat
        game = GAME_NAMES.index(row["game"])
        update: dict = {"deal": deal, "update": True}
        puts = {k: put_mask(twelve, v) for k, v in row["puts"].items()}
        if want_pimc:
            t = time.perf_counter()
            sel = refined_put(twelve, game, position)
            order = sorted(sel.candidates, key=lambda p: (-sel.scores[p], p))
            r = pimc_put(twelve, game, position, args.pimc_worlds,
                         np.random.default_rng([args.seed, deal, 1]), order, solver,
                         prune=True)
            puts["pimc"] = r.put
            update["seconds"] = {"pimc": round(time.perf_counter() - t, 5)}
            update["pimc_solves"] = r.solves
        if want_rule:
            t = time.perf_counter()
            puts["rule"] = rule_put(hands, skat, position)
            update.setdefault("seconds", {})["rule"] = round(time.perf_counter() - t, 5)
        # solve only what is new: the pimc put, and every put when exact points are missing
        exact = n < args.exact_deals
        need = {k: p for k, p in puts.items()
                if k not in row["puts"] or (exact and k not in row.get("points", {}))}
        res = {p: outcome(solver, game, position, hands, twelve, p, exact)
               for p in set(need.values())}
        for k, p in need.items():
            record(update, k, p, res[p], twelve, game)
        f.write(json.dumps(update) + "\n")
        f.flush()
        if (n + 1) % 20 == 0:
            print(f"second pass: {n + 1}/{len(todo)} deals, "
                  f"{time.perf_counter() - t_start:.0f} s this run", flush=True)


def run(args: argparse.Namespace) -> None:
    out = Path(args.out)
    done = load(out)
    model = KnnModel.load()
    solver = Solver(SolverConfig(tt_log2=20))
    with out.open("a") as f:
        first_pass(args, f, done, model, solver)
        second_pass(args, f, done, solver)
    report(list(load(out).values()))


def table(rows: list[dict]) -> None:
    """One line per strategy over the rows that have its put."""
    print(f"{'strategy':9} {'deals':>5} {'won %':>6} {'points':>18} {'SF/36':>16} "
          f"{'vs knn /36':>16} {'vs refined':>16} {'median s':>9} {'p90 s':>8}")
    for s in STRATEGIES:
        sub = [r for r in rows if s in r["puts"]]
        if not sub:
            continue
        won = 100 * statistics.fmean(r["won"][s] for r in sub)
        exact = [r["points"][s] for r in sub if s in r.get("points", {})]
        pm, ph = ci(exact) if exact else (float("nan"), float("nan"))
        pts = f"{pm:5.1f}+-{ph:3.1f} ({len(exact)})" if exact else "-"
        m, h = ci([36 * r["seeger"][s] for r in sub])
        dm, dh = ci([36 * (r["seeger"][s] - r["seeger"]["knn"]) for r in sub])
        rm, rh = ci([36 * (r["seeger"][s] - r["seeger"]["refined"]) for r in sub])
        ts = sorted(r["seconds"][s] for r in sub)
        med = ts[len(ts) // 2]
        p90 = ts[min(len(ts) - 1, int(0.9 * len(ts)))]
        print(f"{s:9} {len(sub):5d} {won:6.1f} {pts:>18} {m:8.0f} +-{h:5.0f} "
              f"{dm:8.0f} +-{dh:5.0f} {rm:8.0f} +-{rh:5.0f} {med:9.4f} {p90:8.4f}")


def report(rows: list[dict]) -> None:
    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"python {platform.python_version()}; {len(rows)} deals")
    games: dict[str, int] = {}
    for r in rows:
        games[r["game"]] = games.get(r["game"], 0) + 1
    print("games:", ", ".join(f"{g} {n}" for g, n in sorted(games.items())))
    table(rows)
    with_pimc = [r for r in rows if "pimc" in r["puts"]]
    if with_pimc and len(with_pimc) < len(rows):
        print(f"the same, on the {len(with_pimc)} deals with the pimc put:")
        table(with_pimc)
    for s in STRATEGIES:
        diff = [r["points"][s] - r["points"]["refined"] for r in rows
                if s in r.get("points", {}) and "refined" in r.get("points", {})]
        if diff and s != "refined":
            m, h = ci(diff)
            print(f"exact card points, {s} - refined, paired: {m:+.1f} +-{h:.1f} "
                  f"({len(diff)} deals)")
    cands = [r["candidates"] for r in rows]
    print(f"refined candidates after the hard rules: median {statistics.median(cands)}, "
          f"min {min(cands)}, max {max(cands)}")
    same = sum(r["puts"]["refined"] == r["puts"]["knn"] for r in rows)
    print(f"refined and knn chose the same put on {same} of {len(rows)} deals")
    sub = [r for r in rows if "pimc" in r["puts"]]
    if sub:
        print(f"on the {len(sub)} deals with the pimc put, same put as refined: "
              f"{sum(r['puts']['pimc'] == r['puts']['refined'] for r in sub)}; pimc solves "
              f"median {statistics.median(r['pimc_solves'] for r in sub)}")
    solve = [r["solve_seconds"] for r in rows]
    print(f"glassbox solve seconds per deal (first pass): mean {statistics.fmean(solve):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--min-value", type=float, default=55.0)
    ap.add_argument("--pimc-deals", type=int, default=10)
    ap.add_argument("--exact-deals", type=int, default=100)
    ap.add_argument("--rule-deals", type=int, default=None,
                    help="the rule agent's own put on the first deals (default: --pimc-deals)")
    ap.add_argument("--pimc-worlds", type=int, default=8)
    ap.add_argument("--out", default="skat_selection_glassbox.jsonl")
    ap.add_argument("--until", default=None, help="stop (resumably) at this UTC time, HH:MM")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--exact-out", default=None,
                    help="merge the exact card points of skat_selection_exact.py into the report")
    args = ap.parse_args()
    if args.report_only:
        rows = load(Path(args.out))
        if args.exact_out:
            merge_exact(rows, Path(args.exact_out))
        report(list(rows.values()))
        return
    run(args)


if __name__ == "__main__":
    main()
