"""The Table III benchmarks' helpers: Seeger scoring from thresholds, the resumable
JSON Lines file, and the self-play set-up of a fixed declarer, game and put."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from spielwerk.games.skat.cards import string_to_card
from spielwerk.games.skat.knowledge.deals import WEAK_ACCEPT, make_deal
from spielwerk.games.skat.rules import PLAY

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import skat_selection_glassbox as gb  # noqa: E402
import skat_selection_selfplay as sp  # noqa: E402

CLUBS, GRAND = 3, 4


def h(text: str) -> int:
    return sum(1 << string_to_card(t) for t in text.split())


def test_seeger_from_won_and_schneider() -> None:
    # clubs with the club and spade jacks: "with 2", game 3 x 12 = 36, schneider 48
    twelve = h("CJ SJ CA CT C9 C8 SA S7 HT H8 D7 D8")
    assert gb.seeger(twelve, CLUBS, True, False) == 36 + 50
    assert gb.seeger(twelve, CLUBS, True, True) == 48 + 50
    assert gb.seeger(twelve, CLUBS, False, False) == -(2 * 36 + 50)
    assert gb.seeger(twelve, CLUBS, False, True) == -(2 * 48 + 50)
    # grand "without 1" (no club jack): 2 x 24
    assert gb.seeger(h("SJ CA CT C9 C8 SA S7 HT H8 D7 D8 DA"), GRAND, True, False) == 48 + 50


def test_load_merges_updates_and_cuts_a_broken_last_line(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    row = {"deal": 3, "puts": {"knn": "D7 D8"}, "won": {"knn": True}}
    upd = {"deal": 3, "update": True, "puts": {"pimc": "HT H8"}, "won": {"pimc": False},
           "pimc_solves": 9}
    out.write_text(json.dumps(row) + "\n" + json.dumps(upd) + "\n" + '{"deal": 4, "pu')
    rows = gb.load(out)
    assert list(rows) == [3]
    assert rows[3]["puts"] == {"knn": "D7 D8", "pimc": "HT H8"}
    assert rows[3]["won"] == {"knn": True, "pimc": False} and rows[3]["pimc_solves"] == 9
    assert out.read_text() == json.dumps(row) + "\n" + json.dumps(upd) + "\n"


def test_selfplay_start_sets_declarer_game_and_put() -> None:
    for deal in range(3):
        position, hands, skat = make_deal(7, deal, WEAK_ACCEPT)
        twelve = hands[position] | skat
        put = sorted(c for c in range(32) if twelve >> c & 1)[:2]
        mask = (1 << put[0]) | (1 << put[1])
        st = sp.start(hands, skat, position, GRAND, mask)
        assert st.phase == PLAY and st.put == mask and st.auction.value == 18
        assert st.declarer == st.sgame.seat_of(position)
        assert st.contract is not None and st.contract.game == GRAND
        assert st.hands[st.declarer] == twelve & ~mask


def test_rule_put_puts_the_blank_ten() -> None:
    hand = h("CJ SJ CA CT C9 C8 C7 SA SK HT")
    skat = h("D7 D8")
    rest = [c for c in range(32) if not (hand | skat) >> c & 1]
    hands = (hand, sum(1 << c for c in rest[:10]), sum(1 << c for c in rest[10:]))
    put = sp.rule_put(hands, skat, 0)
    assert put.bit_count() == 2 and put & ~(hand | skat) == 0
    assert put & h("HT")
