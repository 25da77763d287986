"""Where the bot's nulls after picking up come from, and which of them another spec keeps.

Input: the records of ``skat_declarer_compare.py --force own-nulls`` (each of the bot's own
nulls with the chance it told and whether it was won against our defence and against open
hands). Each null declared after picking up is reached again from its deal's seeds with the
agent that made the file (``--agent``, default the records' own), which gives the
declarer's ten cards dealt, the twelve after picking up, the bid and the position. For each
null it reports what the hand was bid on (the option with the highest expected score when
bidding: a suit or grand game with the skat, or the null with the skat) and the bid; for
each ``--as SPEC`` it decides the game after picking up again with that spec (the same
twelve cards, bid and position: a spec that changes the choice after picking up only) and
reports the nulls it keeps and those it turns into another game, with the rates at which the
file's declarer won them.

    K=knn:calibration=played_suit_knn7:put_grand_shift=0.85:null_model=features
    python experiments/skat_null_rescue.py results/nullmodel2-own-7118.jsonl \\
        --as $K:put_null_shift=0.5 --as $K:put_null_shift=-0.15:null_floor=0.6

A re-decided null's other game is not played here: ``skat_declaration_diff.py`` plays both
where they differ.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from skat_null_model import reached_nulls
from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GAME_NAMES, NULL
from spielwerk.games.skat_ai.bidding import options
from spielwerk.games.skat_ai.putting import bot_put


def read_nulls(path: Path, agent: str | None, specs: list[str]) -> list[dict[str, Any]]:
    """The nulls after picking up of an own-nulls file, each reached again and re-decided
    with every spec of ``specs``."""
    game = load_game("skat")
    others = [make_agent(s, game, 0) for s in specs]
    rows = []
    for r, state, agents, first in reached_nulls(path, agent, ("null", "null_ouvert")):
        if not state.put:  # a hand game: nothing was picked up
            continue
        d = state.declarer
        info = state.info_state(d)
        me = agents[d]
        position = game.position_of(d)
        decision = me.bid_decision(info.own_dealt, position)
        best = max(options(info.own_dealt, me.params, position, decision),
                   key=lambda o: (o[0], o[3]))
        twelve = state.hands[d] | state.put
        again = []
        for other in others:
            prefer = other.bid_decision(info.own_dealt, position).game
            p = bot_put(other.model, twelve, info.bid, other.params, other.putting, position,
                        prefer, other.choose_by_put)
            again.append("null_ouvert" if p.game == NULL and p.ouvert
                         else "null" if p.game == NULL else GAME_NAMES[p.game])
        rows.append({"type": r["type"], "told": r["predicted"], "bid": info.bid,
                     "bid_on": "null" if best[1] == NULL else "hand game" if best[2]
                     else "suit/grand", "ours": bool(r[first]["ours"]["won"]),
                     "open": bool(r[first]["open"]["won"]), "again": again})
    return rows


def rates(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "     0"
    n = len(rows)
    return (f"{n:6d}  told {sum(r['told'] for r in rows) / n:.3f}  won ours "
            f"{sum(r['ours'] for r in rows) / n:.3f}  open {sum(r['open'] for r in rows) / n:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", type=Path, help="an own-nulls record file")
    ap.add_argument("--agent", help="the spec that made the file (default: its own)")
    ap.add_argument("--as", dest="specs", action="append", default=[], metavar="SPEC",
                    help="decide the game after picking up again with this spec")
    args = ap.parse_args()
    rows = read_nulls(args.file, args.agent, args.specs)
    print(f"{args.file}: {len(rows)} nulls after picking up")
    for kind in ("null", "null_ouvert"):
        of = [r for r in rows if r["type"] == kind]
        print(f"{kind}: {rates(of)}")
        for on, _ in Counter(r["bid_on"] for r in of).most_common():
            print(f"  bid on {on:10s} {rates([r for r in of if r['bid_on'] == on])}")
        print("  bids: " + ", ".join(f"{b} x{n}" for b, n in
                                     sorted(Counter(r["bid"] for r in of).items())))
    for i, spec in enumerate(args.specs):
        print(f"as {spec}:")
        for kind in ("null", "null_ouvert"):
            of = [r for r in rows if r["type"] == kind]
            kept = [r for r in of if r["again"][i] == kind]
            moved = [r for r in of if r["again"][i] != kind]
            print(f"  {kind:11s} kept  {rates(kept)}")
            print(f"  {kind:11s} moved {rates(moved)}  to " + ", ".join(
                f"{g} {n}" for g, n in Counter(r["again"][i] for r in moved).most_common()))


if __name__ == "__main__":
    main()
