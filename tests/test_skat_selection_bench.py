"""The Table III benchmarks' helpers: Seeger scoring from thresholds, the resumable
JSON Lines file, and the self-play set-up of a fixed declarer, game and put."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from spielwerk.games.skat.cards import points_of, string_to_card
from spielwerk.games.skat.dds import DealPosition, Solver, SolverConfig, SolverError
from spielwerk.games.skat.rules import PLAY
from spielwerk.games.skat_ai.knowledge.deals import WEAK_ACCEPT, make_deal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import skat_selection_exact as ex  # noqa: E402
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


def test_exact_within_the_threshold_bounds_equals_the_exact_solve() -> None:
    """The exact-points job starts MTD-bi inside the bounds the glassbox run's threshold
    answers leave (won without schneider: 61..89, ...); the value must not move."""
    assert ex.bounds(True, False) == (61, 89) and ex.bounds(True, True) == (90, 120)
    assert ex.bounds(False, False) == (31, 60) and ex.bounds(False, True) == (0, 30)
    plain, bounded = Solver(SolverConfig(tt_log2=16)), Solver(SolverConfig(tt_log2=16))
    seen = set()
    for deal in range(4):
        position, hands, skat = make_deal(7, deal, WEAK_ACCEPT)
        twelve = hands[position] | skat
        cards = sorted(c for c in range(32) if twelve >> c & 1)
        for game, put in ((CLUBS, (1 << cards[0]) | (1 << cards[1])),
                          (GRAND, (1 << cards[-1]) | (1 << cards[-3]))):
            h3 = list(hands)
            h3[position] = twelve & ~put
            pos = DealPosition(game, position, (h3[0], h3[1], h3[2]),
                               declarer_points=points_of(put))
            v = plain.exact(pos)
            won = plain.reaches(pos, 61)
            schneider = plain.reaches(pos, 90) if won else not plain.reaches(pos, 31)
            lo, hi = ex.bounds(won, schneider)
            assert lo <= v <= hi
            assert bounded.exact_within(pos, lo, hi) == v
            assert bounded.exact_within(pos, 0, 120) == v
            assert bounded.exact_within(pos, v, v) == v
            seen.add((won, schneider))
    assert len(seen) >= 2  # more than one kind of bound was used
    with pytest.raises(SolverError, match="empty bounds"):
        bounded.exact_within(pos, 70, 60)


def test_exact_file_merges_only_the_put_it_was_solved_for(tmp_path: Path) -> None:
    rows = {3: {"deal": 3, "puts": {"knn": "D7 D8", "refined": "HT H8"}}}
    path = tmp_path / "exact.jsonl"
    line = {"deal": 3, "points": {"knn": 70, "refined": 80},
            "puts": {"knn": "D7 D8", "refined": "SA S7"}}
    path.write_text(json.dumps(line) + "\n" + '{"deal": 9, "po')  # a half-written line
    gb.merge_exact(rows, path)
    assert rows[3]["points"] == {"knn": 70}
    assert path.read_text().endswith('{"deal": 9, "po')  # read only: left for its writer
    assert ex.missing(rows[3], line) == {"refined": "HT H8"}


def test_selfplay_rows_merge_the_strategies_played_later(tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    first = {"deal": 5, "game": "clubs", "position": 1, "worlds": 4,
             "results": {"knn": {"won": True, "points": 70, "seeger": 86, "seconds": 1.0}}}
    later = {"deal": 5, "update": True,
             "results": {"pimc": {"won": False, "points": 50, "seeger": -122, "seconds": 2.0}}}
    out.write_text(json.dumps(first) + "\n" + json.dumps(later) + "\n")
    rows = sp.load_rows(out)
    assert list(rows) == [5] and set(rows[5]["results"]) == {"knn", "pimc"}
    assert rows[5]["results"]["pimc"]["points"] == 50 and "update" not in rows[5]
