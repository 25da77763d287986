"""Do the declarer's strongest worlds tell a tied defender's losing card from a keeping one?

In the gap games (``skat_gap_moves.py``) about half the suit defenders' losing cards are
exact ties of the PIMC vote, most of them with every sampled world beaten by the losing
card and by a card that would have kept the game beaten. Where the sampled worlds cannot
tell the cards apart, the difference lies in worlds the sample rarely holds: those in
which the declarer is strong enough to win. This probe replays each such tie, draws
DRAW further worlds from the defender's own sampler (its weights), and solves the tied
losing card and the tied keeping cards in SOLVE of them twice: the SOLVE the declarer is
strongest in (trumps, jacks, side aces and tens, the points he holds), and SOLVE drawn at
random. It records the worlds each card beats in both sets, and where the real deal's
declarer ranks in strength among the DRAW worlds.

    python experiments/skat_tie_tail.py results/suit-gap-7164.jsonl --defence knn \\
        --out results/tie-tail-7164.jsonl
    python experiments/skat_tie_tail.py --summarize results/tie-tail-7164.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from skat_defence_gap import read_results
from skat_gap_moves import gap_arguments, replay_gap
from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import ACE, JACKS_MASK, RANK_MASKS, TEN
from spielwerk.games.skat.dds import DealPosition
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai.inference import weighted_deals
from spielwerk.games.skat_ai.pimc_agent import goal_query


def declarer_strength(pos: DealPosition) -> float:
    """A rough measure of the declarer's strength in world ``pos``: two per trump, one more
    per jack, one per side ace, a half per side ten, and the card points he holds (the skat
    and his tricks) in elevenths."""
    hand = pos.hands[pos.declarer]
    trumps = hand & kernel.trump_mask(pos.game)
    side = hand & ~trumps
    return (2 * trumps.bit_count() + (hand & JACKS_MASK).bit_count()
            + (side & RANK_MASKS[ACE]).bit_count() + 0.5 * (side & RANK_MASKS[TEN]).bit_count()
            + pos.declarer_points / 11)


def make_probe(draw: int, solve: int, seed: int) -> Any:
    """The probe :func:`skat_gap_moves.replay` asks at each losing defender card: at a tie
    of the vote with a keeping card, the worlds beaten by the losing card and by the best
    tied keeping card in the ``solve`` strongest distinct of ``draw`` further worlds
    (``tail``) and in the first ``solve`` of them (``random``), and the real declarer's
    strength percentile among them; nothing for the other losing cards."""

    def probe(state: Any, player: int, defender: Any, record: dict[str, Any],
              keep: list[int]) -> dict[str, Any]:
        top = record.get("top")
        if top is None or record["chosen"] != top or record["best_keep"] != top:
            return {}
        pimc = getattr(defender, "player", defender)
        counts = pimc.last.best_counts
        tied_keep = [c for c in keep if counts.get(c, 0) == top]
        lose = record["card"]
        info = state.info_state(player)
        rng = np.random.default_rng([seed, record["trick"], lose, player])
        if pimc.inference is not None:
            worlds = weighted_deals(info, rng, draw, pimc.inference)
        else:
            worlds = [deal_from_state(info.sample_world(rng)) for _ in range(draw)]
        real = declarer_strength(deal_from_state(state))
        s = np.array([declarer_strength(w) for w in worlds])
        distinct = list({w: None for w in sorted(worlds, key=declarer_strength, reverse=True)})
        query = goal_query(info)
        mask = sum(1 << c for c in [lose, *tied_keep])
        out: dict[str, Any] = {"percentile": float((s < real).mean() + 0.5 * (s == real).mean()),
                               "tied_keep": len(tied_keep)}
        for name, chosen in (("tail", distinct[:solve]), ("random", worlds[:solve])):
            beats = dict.fromkeys([lose, *tied_keep], 0)
            for w in chosen:
                values = pimc.card_values(w, query, False, mask)
                for c in beats:
                    beats[c] += int(values.get(c) == 1.0)
            out[name] = [beats[lose], max(beats[c] for c in tied_keep)]
        return out
    return probe


def summarize(path: Path) -> None:
    rows = [json.loads(x) for x in path.read_text().splitlines()[1:] if x.strip()]
    cards = [c for r in rows for c in r["losing"] if "tail" in c]
    print(f"{len(cards)} tied losing defender cards in {len(rows)} gap games")
    if not cards:
        return
    pct = np.array([c["percentile"] for c in cards])
    print(f"the real declarer's strength among the drawn worlds: mean percentile {pct.mean():.2f}, "
          f"top quarter {np.mean(pct >= 0.75):.2f}")
    for name in ("tail", "random"):
        d = np.array([c[name][1] - c[name][0] for c in cards])
        print(f"{name}: keeping card beats more worlds {np.sum(d > 0)}, the losing card "
              f"{np.sum(d < 0)}, tied {np.sum(d == 0)}; mean worlds beaten losing "
              f"{np.mean([c[name][0] for c in cards]):.2f} keeping "
              f"{np.mean([c[name][1] for c in cards]):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--draw", type=int, default=256, help="further worlds drawn per tie")
    ap.add_argument("--solve", type=int, default=16, help="of them solved, per set")
    args = gap_arguments(ap, summarize)
    if args is None:
        return
    header, _ = read_results(args.results)
    probe = make_probe(args.draw, args.solve, header["seed"])
    replay_gap(args.results, args.defence, args.out, probe=probe, every=10)
    summarize(args.out)


if __name__ == "__main__":
    main()
