"""Time per putting decision of the ``knn`` bot, per strategy (median, p90).

One decision = what the bot does after picking up: choose the game and put two
cards (:func:`spielwerk.games.skat_ai.putting.bot_put`), over random twelve-card
hands and the shipped knowledge base. Prints the machine and its load; never
fails on time.

    python benchmarks/skat_selection_speed.py [--hands 300]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.params import KnnParams
from spielwerk.games.skat_ai.putting import bot_put

STRATEGIES = (
    ("knn", "knn", False),
    ("refined, game by the KNN put", "refined", False),
    ("refined, choose_by_put (the bot's default)", "refined", True),
    ("random", "random", False),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    # the workload its figures were taken with (KnnParams' defaults are now score, auto)
    model, params = KnnModel.load(None), KnnParams(decision="ev", calibration="rule")
    rng = np.random.default_rng(args.seed)
    hands = [int(sum(1 << int(c) for c in rng.choice(32, 12, replace=False)))
             for _ in range(args.hands)]
    print(f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"{args.hands} hands, base {model.size} deals, k {model.k}")
    for name, putting, by_put in STRATEGIES:
        times = []
        for h in hands:
            t0 = time.perf_counter()
            bot_put(model, h, 18, params, putting, 0, -1, by_put)
            times.append(time.perf_counter() - t0)
        ms = np.array(times) * 1000
        print(f"{name:45} median {np.median(ms):6.1f} ms   p90 {np.percentile(ms, 90):6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
