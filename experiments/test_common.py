"""The putting studies' shared helpers (:mod:`common`): Seeger scoring from thresholds,
the resumable JSON Lines files, and the set-up of a fixed declarer, game and put.

``make test`` collects this folder too; pytest puts it first on the import path, so
``common`` is imported as the scripts import it. Tests of the package are in tests/."""

from __future__ import annotations

import json
from pathlib import Path

import common
from spielwerk.games.skat.cards import CLUBS, GRAND, string_to_card
from spielwerk.games.skat.rules import PLAY
from spielwerk.games.skat_ai.knowledge.deals import WEAK_ACCEPT, make_deal


def h(text: str) -> int:
    return sum(1 << string_to_card(t) for t in text.split())


def test_seeger_from_won_and_schneider() -> None:
    # clubs with the club and spade jacks: "with 2", game 3 x 12 = 36, schneider 48
    twelve = h("CJ SJ CA CT C9 C8 SA S7 HT H8 D7 D8")
    assert common.seeger(twelve, CLUBS, True, False) == 36 + 50
    assert common.seeger(twelve, CLUBS, True, True) == 48 + 50
    assert common.seeger(twelve, CLUBS, False, False) == -(2 * 36 + 50)
    assert common.seeger(twelve, CLUBS, False, True) == -(2 * 48 + 50)
    # grand "without 1" (no club jack): 2 x 24
    assert common.seeger(h("SJ CA CT C9 C8 SA S7 HT H8 D7 D8 DA"), GRAND, True, False) == 48 + 50


def test_load_merges_updates_and_cuts_a_broken_last_line(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    row = {"deal": 3, "puts": {"knn": "D7 D8"}, "won": {"knn": True}}
    upd = {"deal": 3, "update": True, "puts": {"pimc": "HT H8"}, "won": {"pimc": False},
           "pimc_solves": 9}
    out.write_text(json.dumps(row) + "\n" + json.dumps(upd) + "\n" + '{"deal": 4, "pu')
    rows = common.load(out)
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
        st = common.start(hands, skat, position, GRAND, mask)
        assert st.phase == PLAY and st.put == mask and st.auction.value == 18
        assert st.declarer == st.sgame.seat_of(position)
        assert st.contract is not None and st.contract.game == GRAND
        assert st.hands[st.declarer] == twelve & ~mask


def test_rule_put_puts_the_blank_ten() -> None:
    hand = h("CJ SJ CA CT C9 C8 C7 SA SK HT")
    skat = h("D7 D8")
    rest = [c for c in range(32) if not (hand | skat) >> c & 1]
    hands = (hand, sum(1 << c for c in rest[:10]), sum(1 << c for c in rest[10:]))
    put = common.rule_put(hands, skat, 0)
    assert put.bit_count() == 2 and put & ~(hand | skat) == 0
    assert put & h("HT")


def test_exact_file_merges_only_the_put_it_was_solved_for(tmp_path: Path) -> None:
    rows = {3: {"deal": 3, "puts": {"knn": "D7 D8", "refined": "HT H8"}}}
    path = tmp_path / "exact.jsonl"
    line = {"deal": 3, "points": {"knn": 70, "refined": 80},
            "puts": {"knn": "D7 D8", "refined": "SA S7"}}
    path.write_text(json.dumps(line) + "\n" + '{"deal": 9, "po')  # a half-written line
    common.merge_exact(rows, path)
    assert rows[3]["points"] == {"knn": 70}
    assert path.read_text().endswith('{"deal": 9, "po')  # read only: left for its writer
    assert common.missing(rows[3], line) == {"refined": "HT H8"}


def test_selfplay_rows_merge_the_strategies_played_later(tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    first = {"deal": 5, "game": "clubs", "position": 1, "worlds": 4,
             "results": {"knn": {"won": True, "points": 70, "seeger": 86, "seconds": 1.0}}}
    later = {"deal": 5, "update": True,
             "results": {"pimc": {"won": False, "points": 50, "seeger": -122, "seconds": 2.0}}}
    out.write_text(json.dumps(first) + "\n" + json.dumps(later) + "\n")
    rows = common.load_rows(out)
    assert list(rows) == [5] and set(rows[5]["results"]) == {"knn", "pimc"}
    assert rows[5]["results"]["pimc"]["points"] == 50 and "update" not in rows[5]
