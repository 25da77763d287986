"""Card play against card play on the same contracts: a paired duplicate Skat match.

Both agents must bid, put and declare identically (e.g. ``knn:play=infer`` and
``knn:play=pimc`` with one calibration named for both: the same decisions before the first
card, only the card play differs; ``auto`` gives the two different win chances).
Per deal, the auction is run once to find the declarer; then the deal is played twice:
A in the declarer's seat against two B defenders, and B declaring against two A defenders.
Per deal and agent, the mean Seeger-Fabian points per seat-game (one declarer seat, two
defender seats), times 36: the points per 36-game list. The paired difference A - B per deal
splits exactly into the declarer's share (A's and B's declarer scores) and the defenders'
share. Passed-in deals count as deals with 0. The card decisions' times (every decision with
more than one card to choose from) give the p95 per agent.

The deals are :mod:`spielwerk.games.skat_ai.cardplay_runs` tasks: ``--executor
dask://HOST:PORT`` plays them on a Dask cluster (the workers need spielwerk installed).
Results go to a JSON Lines file (its first line the match and the machine, then one line
per deal in the order they finish), resumed when it exists; a file of another match is
refused.

    python experiments/skat_card_play_match.py --deals 2000 --seed 9101 --time 0.1 \\
        --workers 2 --out results/infer-vs-pimc.jsonl
    python experiments/skat_card_play_match.py --summarize results/infer-vs-pimc.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
from pathlib import Path

import numpy as np

from skat_defence_gap import add_run_options, run_tasks
from spielwerk.games.skat_ai.cardplay_runs import (
    CardPlayRun,
    CardPlayRunError,
    play_cardplay_deal,
)


def summarize(path: Path) -> None:
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    rows = [json.loads(x) for x in lines[1:] if x.strip()]
    print(f"A = {header['a']}\nB = {header['b']}\nseed {header['seed']}")
    diffs, decl, fend, sf_a, sf_b = [], [], [], [], []
    times_a: list[float] = []
    times_b: list[float] = []
    wins = {"a": 0, "b": 0}
    played = 0
    for r in rows:
        if r["passed"]:
            diffs.append(0.0)
            decl.append(0.0)
            fend.append(0.0)
            sf_a.append(0.0)
            sf_b.append(0.0)
            continue
        played += 1
        ga, gb = r["games"]["a_declares"], r["games"]["b_declares"]
        wins["a"] += ga["won"]
        wins["b"] += gb["won"]
        a_mean = (ga["declarer_sf"] + sum(gb["defender_sf"])) / 3
        b_mean = (gb["declarer_sf"] + sum(ga["defender_sf"])) / 3
        sf_a.append(36 * a_mean)
        sf_b.append(36 * b_mean)
        diffs.append(36 * (a_mean - b_mean))
        decl.append(36 * (ga["declarer_sf"] - gb["declarer_sf"]) / 3)
        fend.append(36 * (sum(gb["defender_sf"]) - sum(ga["defender_sf"])) / 3)
        times_a += ga["times_lone"] + gb["times_pair"]
        times_b += gb["times_lone"] + ga["times_pair"]

    def ci(v: list[float]) -> str:
        x = np.array(v)
        se = x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
        return f"{x.mean():+7.1f}  (95% {x.mean() - 1.96 * se:+.1f}..{x.mean() + 1.96 * se:+.1f})"

    print(f"{len(rows)} deals, {played} played, {len(rows) - played} passed in")
    print(f"declarer wins: A {wins['a']}/{played}, B {wins['b']}/{played}")
    print(f"SF per 36 games, A:             {ci(sf_a)}")
    print(f"SF per 36 games, B:             {ci(sf_b)}")
    print(f"paired difference A - B:        {ci(diffs)}")
    print(f"  of it as declarer:            {ci(decl)}")
    print(f"  of it as defenders:           {ci(fend)}")
    for name, t in (("A", times_a), ("B", times_b)):
        if t:
            print(f"card decisions {name}: {len(t)}, mean {np.mean(t) * 1000:.0f} ms, "
                  f"p95 {np.percentile(t, 95) * 1000:.0f} ms, max {max(t) * 1000:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", default="knn:play=infer:calibration=strong:worlds=64:time={time}")
    ap.add_argument("--b", default="knn:play=pimc:calibration=strong:worlds=64:time={time}")
    ap.add_argument("--time", type=float, default=0.1, help="seconds per card decision")
    add_run_options(ap, 9001, executor=True)
    ap.set_defaults(deals=20, workers=1)
    args = ap.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}")
    if args.summarize:
        summarize(args.summarize)
        return
    run = CardPlayRun(args.a.format(time=args.time), args.b.format(time=args.time), args.seed)
    try:
        run.check()
    except CardPlayRunError as exc:
        raise SystemExit(str(exc)) from None
    out = args.out or Path(f"results/cardplay-{args.seed}.jsonl")
    header = run.header()
    print(f"A = {run.a}; B = {run.b}", flush=True)
    try:
        run_tasks(out, header, lambda found: {
            k: v for k, v in found.items() if k != "machine"} == header,
            run.tasks(range(args.deals)), play_cardplay_deal, args.executor, args.workers,
            every=20)
    except CardPlayRunError as exc:
        raise SystemExit(f"{exc}; {out} keeps the deals that finished") from None
    summarize(out)


if __name__ == "__main__":
    main()
