"""How often the knn extensions (null, schneider, schwarz, ouvert) can act on a match's deals.

For the deals of ``spielwerk skat match ... --deals N --seed S`` (the same
shuffles), every seat's ten cards are decided with the extensions on and off
(:func:`decide_bid`), and after taking the skat the best null put's value is
compared with the null threshold. When no decision differs, a match with the
extension off plays the same games (with deterministic card play, e.g.
``play=rule``): its contribution is exactly zero.

    python benchmarks/skat_kb_extensions.py --deals 2000 --seed 1
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from spielwerk.arena.match import _game, derive_seed
from spielwerk.core.play import play
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.knowledge.knn import KnnModel, KnnParams, decide_bid
from spielwerk.games.skat.rules import SkatState

MATCH_GAME = "skat(dealer=2,players=3,ramsch=false)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    model = KnnModel.load(None)
    on, off = KnnParams(), KnnParams(extensions=False)
    counts: Counter[str] = Counter()
    null_values = []
    game = _game(MATCH_GAME)
    for deal in range(args.deals):
        state = game.new_initial_state()
        play(state, [lambda s, p: None] * 3, np.random.default_rng(derive_seed(args.seed, 1, deal)))
        assert isinstance(state, SkatState) and state.skat is not None
        for seat in range(3):
            hand = state.info_state(seat).own_dealt
            # dealer seat 2: seat s is at position s (0 forehand)
            a, b = decide_bid(model, hand, on, seat), decide_bid(model, hand, off, seat)
            counts["seat hands"] += 1
            counts["null bid"] += a.game == NULL
            counts["suit game bid up to a null value"] += bool(a.null_bid)
            counts["schneider announced"] += a.schneider
            counts["schwarz announced"] += a.schwarz
            counts["bid decision differs on/off"] += ((a.game, a.hand_game, a.max_bid)
                                                      != (b.game, b.hand_game, b.max_bid))
            null_values.append(model.best_put(hand | int(state.skat), NULL)[1])
    for key in ("seat hands", "bid decision differs on/off", "null bid",
                "suit game bid up to a null value", "schneider announced", "schwarz announced"):
        print(f"{key:34} {counts[key]}")
    v = np.array(null_values)
    print(f"after the pick-up, best null put value: max {v.max():.2f}, reaching the threshold "
          f"{on.null_threshold}: {int((v >= on.null_threshold).sum())} of {len(v)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
