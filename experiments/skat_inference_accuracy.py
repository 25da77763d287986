"""How much closer to the truth are worlds weighted by the auction (:mod:`skat_ai.inference`)?

Self-play deals of the ``knn`` bot (its bidding, putting and declaring; its card play,
``--card-play``, by default the rule agent's cheap one, only moves the games along). At the
card decisions of tricks ``--tricks`` each player's knowledge is scored two ways against the
true deal:

* **log-likelihood gain**: ``log L(true world) - log mean L(uniform worlds)``, the log of how
  many times likelier the weighted sampler makes the true hidden hands than the uniform one
  (0: no better; natural log, mean over positions with a 95% interval);
* **cards placed right**: the share of hidden cards a sampled world puts where they truly
  are, uniform worlds vs worlds resampled by weight.

Both as declarer and as defender. Held-out deals: the seed must not be one the bid model or
any tuning used.

    python experiments/skat_inference_accuracy.py --deals 300 --seed 8101
    python experiments/skat_inference_accuracy.py --deals 100 --seed 8101 --card-play pimc
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from typing import Any

import numpy as np

from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.rules import PLAY
from spielwerk.games.skat_ai.infer_models import (
    HeuristicPlayModel,
    PlayModel,
    shared_bid_model,
    shared_play_model,
    shared_put_model,
)
from spielwerk.games.skat_ai.inference import (
    Inference,
    InferenceSettings,
    candidate_worlds,
    resample,
)

MODES = ("bids", "put", "auction", "play", "heuristic", "both")
"""Each piece alone (the bids and the declaration; the put; the play under the fitted
network, and under the rule of thumb: ``heuristic``) and together (``auction``: bids and put,
what ``knn:play=infer`` uses; ``both``: everything, the network for the play)."""


def inference_of(mode: str, settings: InferenceSettings, smear: float, take: float
                 ) -> Inference:
    bids = shared_bid_model() if mode in ("bids", "auction", "both") else None
    put = shared_put_model() if mode in ("put", "auction", "both") else None
    play: PlayModel | HeuristicPlayModel | None = (
        shared_play_model() if mode in ("play", "both")
        else HeuristicPlayModel(smear, take) if mode == "heuristic" else None)
    return Inference(bids, play, put, settings)


def placed_right(info: SkatInfoState, truth: dict[int, int], hands: dict[int, int]) -> float:
    """Share of this player's unseen cards that ``hands`` puts in their true place."""
    unseen = info.unseen()
    total = bin(unseen).count("1")
    right = sum(bin(hands[s] & truth[s] & unseen).count("1") for s in truth)
    return right / total if total else 1.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=8101)
    ap.add_argument("--worlds", type=int, default=256, help="candidate worlds per position")
    ap.add_argument("--tricks", default="0,3,6", help="tricks (0-based) whose decisions count")
    ap.add_argument("--floor", type=float, default=InferenceSettings.floor)
    ap.add_argument("--power", type=float, default=InferenceSettings.power)
    ap.add_argument("--play-power", type=float, default=InferenceSettings.play_power)
    ap.add_argument("--smear", type=float, default=HeuristicPlayModel.smear,
                    help="heuristic play model: weight of a card's points")
    ap.add_argument("--take", type=float, default=HeuristicPlayModel.take,
                    help="heuristic play model: weight of taking the trick")
    ap.add_argument("--card-play", default="rule", choices=("rule", "pimc", "infer"),
                    help="the players' card play (knn's play=): rule (fast), pimc or infer "
                    "(16 worlds a card)")
    args = ap.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs; deals {args.deals}, seed "
          f"{args.seed}, {args.worlds} worlds per position")
    tricks = {int(t) for t in args.tricks.split(",")}
    game = load_game("skat")
    settings = InferenceSettings(floor=args.floor, power=args.power,
                                 play_power=args.play_power)
    inferences = {m: inference_of(m, settings, args.smear, args.take) for m in MODES}
    agents = [make_agent(f"knn:play={args.card_play}:calibration=strong:worlds=16", game,
                         seed=i) for i in range(3)]
    rows: dict[str, list[list[float]]] = {"declarer": [], "defender": []}
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()

    def measure(state: Any, player: int, action: int) -> None:
        if player < 0 or state.phase != PLAY or state.contract is None:
            return
        info = state.info_view(player)
        if not isinstance(info, SkatInfoState) or len(info.trick_history) not in tricks \
                or info.trick or len([a for a in info.legal_actions() if a < 32]) < 2:
            return  # the leader's decision of each counted trick
        truth = {s: state.hands[s] for s in state.sgame.positions if s != player}
        cands = candidate_worlds(info, rng, args.worlds)
        # the true world, scored as one more candidate
        true_c = candidate_worlds(info, rng, 1)[0]
        true_c.hands.update(truth)
        true_c.skat = state.put if state.picked_up else state.skat
        for s in true_c.dealt:
            true_c.dealt[s] = state.dealt[s]
        row = [float(np.mean([placed_right(info, truth, c.hands) for c in cands]))]
        for mode in MODES:
            inference = inferences[mode]
            lw = inference.weights(info, [*cands, true_c])
            gain = math.log(lw[-1] / lw[:-1].mean())
            picked = resample(inference.weights(info, cands), args.worlds, rng)
            row += [gain, float(np.mean([placed_right(info, truth, cands[i].hands)
                                         for i in picked]))]
        side = "declarer" if player == state.declarer else "defender"
        rows[side].append(row)

    for deal in range(args.deals):
        for i, a in enumerate(agents):
            a.reset(args.seed * 1000 + deal * 3 + i)
        play(game.new_initial_state(), agents, np.random.default_rng([args.seed, deal]),
             before=measure)
        if (deal + 1) % 50 == 0:
            print(f"  {deal + 1}/{args.deals} deals, {time.perf_counter() - t0:.0f} s",
                  flush=True)
    print(f"{'side':<9} {'positions':>9} {'inference':>9} {'log-lik gain':>13} "
          f"{'95% CI':>13} {'cards placed right':>18}")
    for side, r in rows.items():
        if not r:
            continue
        table = np.array(r)
        print(f"{side:<9} {len(table):>9} {'none':>9} {0.0:>+13.2f} {'':>13} "
              f"{table[:, 0].mean():>18.1%}")
        for j, mode in enumerate(MODES):
            g = table[:, 1 + 2 * j]
            m = float(g.mean())
            se = float(g.std(ddof=1)) / math.sqrt(len(g)) if len(g) > 1 else 0.0
            print(f"{'':<9} {'':>9} {mode:>9} {m:>+13.2f} "
                  f"{f'{m - 1.96 * se:+.2f}..{m + 1.96 * se:+.2f}':>13} "
                  f"{table[:, 2 + 2 * j].mean():>18.1%}")
    print(f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
