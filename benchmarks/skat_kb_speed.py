"""Speed of the KNN bidder: loading the base, a bidding decision, a putting decision.

Median (and p90) wall time over ``--hands`` random hands (1,000 by default)
of :func:`decide_bid` (ten cards: 5 suit/grand + null values from the hand
and the pick-up base, i.e. 12 neighbour queries) and of :func:`decide_put`
(twelve cards; the pruned putting as the agent uses it, and all 66 puts in
each of the 5 suit/grand games plus null, the issue's "66 x 5"). Also the
time to load the shipped base (after the imports). Prints the machine and
its load; never fails on time.

    python benchmarks/skat_kb_speed.py [--hands 1000] [--base DIR]
    python benchmarks/skat_kb_speed.py --decision score --calibration strong --putting refined
    python benchmarks/skat_kb_speed.py --decision score --calibration strong --putting refined \
        --caution 0.4

``--decision`` / ``--calibration`` time the bot's decisions with those parameters;
``--putting refined`` times the pick-up decision as the ``knn`` agent makes it
(:func:`bot_put`: the refined put of each game, the game by the neighbours' values).
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
import time

import numpy as np

from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.store import default_base_dir
from spielwerk.games.skat_ai.params import CALIBRATION_NAMES, DECISIONS, NULL_MODELS, KnnParams
from spielwerk.games.skat_ai.putting import bot_put, decide_put


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--base", default=str(default_base_dir()))
    ap.add_argument("--seed", type=int, default=0)
    # the workload its figures were taken with (KnnParams' defaults are now score, auto)
    ap.add_argument("--decision", choices=DECISIONS, default="ev")
    ap.add_argument("--calibration", choices=CALIBRATION_NAMES, default="rule")
    ap.add_argument("--putting", choices=("knn", "refined"), default="knn",
                    help="the pick-up decision: decide_put's knn putting, or bot_put with "
                         "refined selection as the knn agent puts")
    ap.add_argument("--caution", type=float, default=0.0,
                    help="the knn agent's caution (chances moved towards the open-hand bound)")
    ap.add_argument("--put-grand-shift", type=float, default=KnnParams().put_grand_shift,
                    help="log-odds off grand's chance in the choice after picking up "
                         "(default: the shipped agent's)")
    ap.add_argument("--null-model", choices=NULL_MODELS, default=KnnParams().null_model,
                    help="a plain null's chance after picking up (default: the shipped "
                         "agent's)")
    args = ap.parse_args()
    print(f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs; Python {platform.python_version()}")
    loads = []
    for _ in range(5):
        t0 = time.perf_counter()
        model = KnnModel.load(args.base)
        loads.append(time.perf_counter() - t0)
    print(f"base {args.base}: {model.size} deals; load (read, check, build trees): "
          f"median {statistics.median(loads) * 1000:.0f} ms of 5")
    rng = np.random.default_rng(args.seed)
    params = KnnParams(decision=args.decision, calibration=args.calibration,
                       caution=args.caution, put_grand_shift=args.put_grand_shift,
                       null_model=args.null_model)
    bid_t, put_t, full_t = [], [], []
    for _ in range(args.hands):
        cards = rng.choice(32, 12, replace=False)
        ten = int(sum(1 << int(c) for c in cards[:10]))
        twelve = ten | (1 << int(cards[10])) | (1 << int(cards[11]))
        t0 = time.perf_counter()
        decide_bid(model, ten, params)
        bid_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        if args.putting == "refined":
            bot_put(model, twelve, 18, params, "refined", 0, choose_by_put=True)
        else:
            decide_put(model, twelve, 18, params)
        put_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        every = [(1 << a) | (1 << b) for a, b in
                 itertools.combinations([c for c in range(32) if twelve >> c & 1], 2)]
        for g in range(6):
            model.put_values(twelve, g, every)
        full_t.append(time.perf_counter() - t0)

    def show(name: str, xs: list[float]) -> None:
        xs_ms = np.array(xs) * 1000
        print(f"{name:44} median {np.median(xs_ms):7.2f} ms   "
              f"p90 {np.percentile(xs_ms, 90):7.2f} ms")

    print(f"{args.hands} random hands, k={params.k}, decision={params.decision}, "
          f"calibration={params.calibration}, caution={params.caution:g}, "
          f"put_grand_shift={params.put_grand_shift:g}, "
          f"put_null_shift={params.put_null_shift:g}, null_model={params.null_model}:")
    show("bidding decision (decide_bid)", bid_t)
    show("putting decision, refined (bot_put)" if args.putting == "refined"
         else "putting decision, pruned (decide_put)", put_t)
    show("all 66 puts x (5 games + null), classified", full_t)
    print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
