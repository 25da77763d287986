"""How often the knn extensions (null, schneider, schwarz, ouvert) act on a match's deals.

For the deals of ``spielwerk skat match ... --deals N --seed S`` (the same
shuffles), every seat's ten cards are decided with the extensions on and off
(:func:`decide_bid`), and after taking the skat the best null put's value is
compared with the null threshold. A deal where no seat's decision differs is
played identically with the extension off when the card play is deterministic
(``play=rule``; tested), so its contribution there is exactly zero.

``--contribution`` plays those deals that may differ as the match
``knn:play=rule rule`` (pairs seating, the same seeds) once with the extensions on
and once off: how often each extension game is declared and won, and the
contribution of the extension to knn's Seeger-Fabian points per 36 seat-games and to
the knn - rule difference (over all N deals: the other deals add exactly 0).
``--check N`` also replays N deals where nothing differs and checks that they are
identical.

    python experiments/skat_kb_extensions.py --deals 2000 --seed 1 [--base DIR] \\
        [--contribution] [--check 5]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from spielwerk.arena.match import _game, derive_seed
from spielwerk.arena.match import run_detailed_task as run_skat_task
from spielwerk.core.play import play
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.cli_match import skat_match_config
from spielwerk.games.skat.rules import SkatState
from spielwerk.games.skat.scoring import parse_contract
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.params import KnnParams

MATCH_GAME = "skat(dealer=2,players=3,ramsch=false)"


def play_deals(agents: list[str], deals: list[int], total: int, seed: int
               ) -> dict[int, list[dict]]:
    """The games (details per seating) of the given deals of ``skat match AGENTS --deals
    total --seed seed`` (pairs seating), played in this process; the seats' agents as
    ``labels``: "knn" (the first agent) or "rule"."""
    config = skat_match_config(agents, total, seed)
    wanted = set(deals)
    out: dict[int, list[dict]] = {}
    for task in config.schedule():
        if task.deal in wanted:
            r = run_skat_task(task)
            roles = tuple("knn" if label == config.labels[0] else "rule" for label in task.labels)
            out.setdefault(task.deal, []).append({"labels": roles, **r.details})
    return out


def tally(games: dict[int, list[dict]], label: str) -> tuple[float, float, Counter[str]]:
    """(label's SF summed over its seats, the other agent's, counts of extension games of
    the label: declared / won per kind)."""
    mine = other = 0.0
    kinds: Counter[str] = Counter()
    for rows in games.values():
        for g in rows:
            for seat, who in enumerate(g["labels"]):
                if who == label:
                    mine += g["seeger"][seat]
                else:
                    other += g["seeger"][seat]
            decl = int(g["declarer"])
            if decl < 0 or g["labels"][decl] != label or g["contract"] is None:
                continue
            c = parse_contract(str(g["contract"]))
            names = []
            if c.game == NULL:
                names.append("null" + (" hand" if c.hand else "")
                             + (" ouvert" if c.ouvert else ""))
            else:
                if c.schneider_announced:
                    names.append("schneider announced")
                if c.schwarz_announced:
                    names.append("schwarz announced")
                if c.ouvert:
                    names.append("ouvert")
            for name in names:
                kinds[name + " declared"] += 1
                kinds[name + " won"] += bool(g["won"])
    return mine, other, kinds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--base", default="", help="knowledge base directory (default: shipped)")
    ap.add_argument("--null-threshold", type=float, default=KnnParams().null_threshold,
                    help="the agent's null_threshold (default: the shipped one)")
    ap.add_argument("--contribution", action="store_true",
                    help="play the deals that may differ with the extensions on and off")
    ap.add_argument("--check", type=int, default=0,
                    help="also replay this many deals where nothing differs (must be equal)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    model = KnnModel.load(args.base or None)
    rule = {"decision": "ev", "calibration": "rule"}  # this study's rule (not the default)
    on = KnnParams(null_threshold=args.null_threshold, **rule)
    off = KnnParams(null_threshold=args.null_threshold, extensions=False, **rule)
    counts: Counter[str] = Counter()
    null_values = []
    differing: list[int] = []
    game = _game(MATCH_GAME)
    for deal in range(args.deals):
        state = game.new_initial_state()
        play(state, [lambda s, p: None] * 3, np.random.default_rng(derive_seed(args.seed, 1, deal)))
        assert isinstance(state, SkatState) and state.skat is not None
        differs = False
        for seat in range(3):
            hand = state.info_state(seat).own_dealt
            # dealer seat 2: seat s is at position s (0 forehand)
            a, b = decide_bid(model, hand, on, seat), decide_bid(model, hand, off, seat)
            counts["seat hands"] += 1
            counts["null bid"] += a.game == NULL
            counts["null hand bid"] += a.game == NULL and a.hand_game
            counts["suit game bid up to a null value"] += bool(a.null_bid)
            counts["schneider announced"] += a.schneider
            counts["schwarz announced"] += a.schwarz
            changed = (a.game, a.hand_game, a.max_bid) != (b.game, b.hand_game, b.max_bid)
            counts["bid decision differs on/off"] += changed
            null_value = model.best_put(hand | int(state.skat), NULL)[1]
            null_values.append(null_value)
            differs |= changed or null_value >= on.null_threshold
        if differs:
            differing.append(deal)
    for key in ("seat hands", "bid decision differs on/off", "null bid", "null hand bid",
                "suit game bid up to a null value", "schneider announced", "schwarz announced"):
        print(f"{key:34} {counts[key]}")
    v = np.array(null_values)
    print(f"after the pick-up, best null put value: max {v.max():.2f}, reaching the threshold "
          f"{on.null_threshold}: {int((v >= on.null_threshold).sum())} of {len(v)}")
    print(f"deals where some seat may decide differently: {len(differing)} of {args.deals} "
          f"({time.perf_counter() - t0:.0f} s)")
    if not args.contribution:
        return 0
    base = f":base={args.base}" if args.base else ""
    if args.null_threshold != KnnParams().null_threshold:
        base += f":null_threshold={args.null_threshold}"
    knn_on, knn_off = f"knn:play=rule{base}", f"knn:play=rule:extensions=false{base}"
    games_on = play_deals([knn_on, "rule"], differing, args.deals, args.seed)
    games_off = play_deals([knn_off, "rule"], differing, args.deals, args.seed)
    mine_on, rule_on, kinds_on = tally(games_on, "knn")
    mine_off, rule_off, kinds_off = tally(games_off, "knn")
    seat_games = 9 * args.deals  # pairs: each agent holds 9 of the 18 seats of a deal
    print(f"played {len(differing)} deals x 6 seatings, extensions on and off "
          f"({time.perf_counter() - t0:.0f} s)")
    for name, kinds in (("on", kinds_on), ("off", kinds_off)):
        print(f"knn's extension games, extensions {name}: "
              + (", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none"))
    print(f"contribution over all {args.deals} deals, SF per 36 seat-games: knn "
          f"{(mine_on - mine_off) / seat_games * 36:+.1f}, rule "
          f"{(rule_on - rule_off) / seat_games * 36:+.1f}, knn - rule "
          f"{((mine_on - mine_off) - (rule_on - rule_off)) / seat_games * 36:+.1f}")
    changed_deals = sum(games_on[d] != games_off[d] for d in differing)
    print(f"deals whose games changed: {changed_deals} of {len(differing)}")
    if args.check:
        same = [d for d in range(args.deals) if d not in set(differing)][:args.check]
        a = play_deals([knn_on, "rule"], same, args.deals, args.seed)
        b = play_deals([knn_off, "rule"], same, args.deals, args.seed)
        ok = all(a[d] == b[d] for d in same)
        print(f"check: {len(same)} deals without a differing decision played identically on "
              f"and off: {ok}")
        if not ok:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
