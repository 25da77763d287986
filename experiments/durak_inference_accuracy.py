"""How well do the card weights of ``infer`` place the opponent's hidden cards?

Plays ``--games`` two-player games of ``--agent`` (seat 0) against ``--opponent``
(seat 1) on fresh deals and, at every decision of seat 0 while the stock lasts and
the opponent holds cards seat 0 has not seen, deals ``--worlds`` worlds with the
weights of each ``--trust`` (0 = uniform worlds, the plain search's) and counts
how many of the opponent's true hidden cards each world puts in its hand. Printed:
per trust, the mean share of the opponent's hidden cards placed right (knowing the
hand, as ``durak_hand_oracle`` does, would be 100%) and the mean log-probability
of the true hand's cards under the worlds' card frequencies (higher is better).

    python experiments/durak_inference_accuracy.py --games 60 --seed 2048
"""

from __future__ import annotations

import argparse

import numpy as np

from spielwerk.core.agent import make_agent
from spielwerk.core.game import sample_chance
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.inference import card_weights, hidden_places
from spielwerk.games.durak.rules import DurakInfoState
from spielwerk.games.durak.worlds import weighted_order


def dealt_to_opponent(info: DurakInfoState, trust: float, worlds: int,
                      rng: np.random.Generator) -> np.ndarray:
    """How often each card (52) went to the other seat's hidden places in ``worlds`` worlds
    dealt with the weights of ``trust`` (0: uniformly)."""
    W = card_weights(info, trust) if trust > 0 else None
    unseen, counts, weights = hidden_places(info, W)
    freq = np.zeros(52)
    for _ in range(worlds):
        if weights.shape[0] == 0:
            order = rng.permutation(unseen)
        else:
            order = weighted_order(unseen, counts, weights, int(rng.integers(2**31 - 1)))
        freq[order[: counts[0]]] += 1
    return freq / worlds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="durak(preset=zarlykov2023)")
    ap.add_argument("--agent", default="greedy", help="seat 0, whose worlds are measured")
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--worlds", type=int, default=100)
    ap.add_argument("--trust", type=float, nargs="+", default=[0.0, 0.8, 1.0])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    game = load_game(args.game)
    if game.num_players != 2:
        ap.error("a two-player game, please")
    rng = np.random.default_rng(args.seed)
    placed: dict[float, list[float]] = {t: [] for t in args.trust}
    loglik: dict[float, list[float]] = {t: [] for t in args.trust}
    for g in range(args.games):
        s = game.new_initial_state()
        agents = [make_agent(args.agent, game, seed=2 * g), make_agent(args.opponent, game,
                                                                         seed=2 * g + 1)]
        while not s.is_terminal():
            p = s.current_player
            if p < 0:
                s.apply(sample_chance(s, rng))
                continue
            info = s.info_state(p)
            assert isinstance(info, DurakInfoState)
            if p == 0 and info.stock > 0:
                truth = int(s.S[K.HANDS + 1]) & ~info.known[1]
                cards = [c for c in range(52) if truth >> c & 1]
                if cards:
                    for t in args.trust:
                        freq = dealt_to_opponent(info, t, args.worlds, rng)
                        placed[t].append(float(freq[cards].mean()))
                        loglik[t].append(float(np.log(np.maximum(freq[cards], 0.5 / args.worlds))
                                               .mean()))
            s.apply(agents[p].act(info))
        print(f"game {g + 1}/{args.games}: {len(placed[args.trust[0]])} positions", flush=True)
    print(f"{game.game_type.long_name}: {args.agent} watching {args.opponent}, {args.games} "
          f"games, seed {args.seed}, {args.worlds} worlds a position")
    print("| trust | positions | hidden cards placed right | mean log-probability per card |")
    print("| ---: | ---: | ---: | ---: |")
    for t in args.trust:
        v = np.array(placed[t])
        se = v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else float("nan")
        print(f"| {t:g} | {len(v)} | {100 * v.mean():.1f}% (+- {100 * 1.96 * se:.1f}) | "
              f"{np.mean(loglik[t]):.3f} |")


if __name__ == "__main__":
    main()
