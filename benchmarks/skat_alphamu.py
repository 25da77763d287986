"""αμ endgame search (``skat_ai/alphamu.py``): time and nodes per decision by tricks left.

Endgames come from deals bid and played by the rule agent up to the start of a trick with
``N`` tricks left; the player to move searches every consistent world (or ``--worlds``
drawn when there are more). Prints, per N, the mean and largest time and nodes, how often
αμ counts fewer worlds won than PIMC for some card (strategy fusion seen), and the
machine. Never fails on time.

    .venv/bin/python benchmarks/skat_alphamu.py [--positions 36] [--tricks 2,3,4]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai.alphamu import alphamu_card
from spielwerk.games.skat_ai.baseline import rule_deal_until
from spielwerk.games.skat_ai.pimc_agent import enumerate_deals, goal_query


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=36, help="endgames per tricks-left")
    ap.add_argument("--tricks", default="2,3,4")
    ap.add_argument("--worlds", type=int, default=64)
    args = ap.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, load average {load:.2f}")
    solver = Solver()
    print(f"{'tricks left':>11} {'positions':>9} {'worlds':>7} {'mean ms':>8} {'max ms':>8} "
          f"{'mean nodes':>10} {'max nodes':>9} {'fusion seen':>11}")
    for k in (int(t) for t in args.tricks.split(",")):
        times, nodes, worlds_n, fused, seed = [], [], [], 0, 0
        while len(times) < args.positions:
            state = rule_deal_until(seed, k)
            seed += 1
            if state is None:
                continue
            info = state.info_state(state.current_player)
            query = goal_query(info)
            worlds = enumerate_deals(info, args.worlds)
            if worlds is None:
                rng = np.random.default_rng(seed)
                worlds = [deal_from_state(info.sample_world(rng)) for _ in range(args.worlds)]
            t0 = time.perf_counter()
            res = alphamu_card(worlds, query, node_limit=10**8)
            times.append(time.perf_counter() - t0)
            nodes.append(res.nodes)
            worlds_n.append(len(set(worlds)))
            me_declarer = info.player == info.declarer
            pimc: dict[int, int] = {}
            for w in worlds:
                for c, v in solver.move_values(w, query).items():
                    pimc[c] = pimc.get(c, 0) + int(bool(v) == me_declarer)
            fused += any(res.scores[c] < pimc[c] for c in pimc)
        print(f"{k:>11} {len(times):>9} {np.mean(worlds_n):>7.1f} "
              f"{1000 * np.mean(times):>8.1f} {1000 * max(times):>8.1f} "
              f"{np.mean(nodes):>10.0f} {max(nodes):>9} {fused:>11}")


if __name__ == "__main__":
    main()
