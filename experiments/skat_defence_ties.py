"""How often a suit or grand defender's PIMC vote ties.

Plays seeded self-play deals with AGENT in every seat and counts, for every card decision
of a suit or grand defender with more than one legal card, whether the vote told the cards
apart or tied them all, and if tied, whether the declarer won in every world whatever the
card (``lost``), in none (``won``), or in some (``mixed``: the world decides, not the
card). Early: 6 or more cards in hand.

    python experiments/skat_defence_ties.py --deals 40 --agent knn:worlds=16
"""

from __future__ import annotations

import argparse
import collections
import time
from typing import Any

import numpy as np

from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat_ai import pimc_agent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="knn:worlds=16")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    decide = pimc_agent.SkatPimcAgent.decide

    def counted(self: Any, info: Any) -> Any:
        result = decide(self, info)
        if info.player != info.declarer and info.game_code != NULL and len(result.totals) > 1:
            values = set(result.totals.values())
            if len(values) > 1:
                kind = "told apart"
            else:
                total = values.pop()
                kind = "tie: lost" if total == 0 else (
                    "tie: won" if total >= result.worlds else "tie: mixed")
            counts[kind, "early" if int(info.hand).bit_count() >= 6 else "late"] += 1
        return result

    pimc_agent.SkatPimcAgent.decide = counted  # type: ignore[method-assign]
    game = load_game("skat")
    start = time.perf_counter()
    for d in range(args.deals):
        seed = args.seed * 1_000_000 + d
        agents = [make_agent(args.agent, game, seed=100 * seed + s) for s in range(3)]
        play(game.new_initial_state(), agents, np.random.default_rng(seed))
    total = sum(counts.values())
    print(f"{args.agent}: {args.deals} deals, {total} defender decisions with a choice "
          f"in suit and grand games, {time.perf_counter() - start:.0f} s")
    for kind in ("told apart", "tie: lost", "tie: mixed", "tie: won"):
        early, late = counts[kind, "early"], counts[kind, "late"]
        print(f"  {kind:11} {early + late:5} ({(early + late) / max(total, 1):.0%})  "
              f"early {early:4}  late {late:4}")


if __name__ == "__main__":
    main()
