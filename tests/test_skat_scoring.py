"""Skat scoring: the ISkO worked examples, the disputed cases, Seeger-Fabian lists."""

from __future__ import annotations

import pytest

from spielwerk.games.skat.bidding import BID_VALUES
from spielwerk.games.skat.scoring import (
    GRAND,
    NULL,
    Contract,
    ScoringError,
    SeegerFabianList,
    evaluate,
    parse_contract,
    passed_in,
    seeger_fabian,
)

D, H, S, C = 0, 1, 2, 3


def test_the_63_bid_values_are_the_game_values() -> None:
    # suit games: multiplier 2 (with/without 1, game) .. 18 (11 matadors + game + hand +
    # schneider + announced + schwarz + announced + ouvert); grand: 2 .. 11; null fixed.
    values = {base * m for base in (9, 10, 11, 12) for m in range(2, 19)}
    values |= {24 * m for m in range(2, 12)}
    values |= {23, 35, 46, 59}
    derived = sorted(v for v in values if 18 <= v <= 264)
    assert len(derived) == 63
    assert list(BID_VALUES) == derived
    assert BID_VALUES[:6] == (18, 20, 22, 23, 24, 27)


def test_clubs_ouvert_with_two_is_108() -> None:
    r = evaluate(parse_contract("CO"), 18, 2, 120, 10)
    assert r.won and r.value == 9 * 12 == 108 and r.score == 108


def test_grand_ouvert_with_four_is_264() -> None:
    r = evaluate(parse_contract("GO"), 264, 4, 120, 10)
    assert r.won and r.value == 11 * 24 == 264


def test_grand_with_four_schneider_is_144() -> None:
    r = evaluate(Contract(GRAND), 18, 4, 95, 8)
    assert r.won and r.schneider and not r.schwarz and r.value == 144


def test_diamonds_without_two_lost_is_minus_54() -> None:
    r = evaluate(Contract(D), 18, -2, 59, 4)
    assert not r.won and r.value == 27 and r.score == -54


def test_null_ouvert_won_46_seeger_fabian_96_lost_minus_142() -> None:
    won = evaluate(Contract(NULL, ouvert=True), 46, 0, 10, 0)
    assert won.won and won.value == 46 and won.score == 46
    assert seeger_fabian(won, 3) == [96, 0, 0]
    lost = evaluate(Contract(NULL, ouvert=True), 46, 0, 10, 1)
    assert not lost.won and lost.score == -92
    assert seeger_fabian(lost, 3, declarer_seat=1) == [40, -142, 40]
    assert seeger_fabian(lost, 4, declarer_seat=1) == [30, -142, 30, 30]


def test_overbid_diamonds_with_one_at_36_is_minus_72() -> None:
    r = evaluate(Contract(D), 36, 1, 80, 7)  # 80 points would win, but 2 x 9 = 18 < 36
    assert r.overbid and not r.won and r.value == 36 and r.score == -72


def test_overbid_value_is_the_smallest_multiple_of_the_base_not_below_the_bid() -> None:
    r = evaluate(Contract(H), 33, 1, 70, 6)  # hearts with 1 = 20 < 33 -> 40
    assert r.overbid and r.value == 40 and r.score == -80
    ok = evaluate(Contract(H), 30, 1, 95, 9)  # schneider reached: 3 x 10 = 30 covers the bid
    assert ok.won and not ok.overbid and ok.value == 30


def test_disputed_overbid_null_is_valued_at_the_next_multiple_of_its_value() -> None:
    r = evaluate(Contract(NULL), 24, 0, 0, 0)
    assert r.overbid and not r.won and r.value == 46 and r.score == -92
    hand = evaluate(Contract(NULL, hand=True), 36, 0, 0, 0)
    assert hand.overbid and hand.value == 70


def test_disputed_schneider_announced_not_reached_counts_the_announced_level() -> None:
    # spades hand schneider announced with 1: 1 + game + hand + schneider + announced = 5
    r = evaluate(parse_contract("SHS"), 18, 1, 75, 7)
    assert not r.won and r.value == 5 * 11 and r.score == -110
    reached = evaluate(parse_contract("SHS"), 18, 1, 90, 8)
    assert reached.won and reached.value == 55


def test_disputed_schneider_against_the_declarer_after_announcement_counts_once() -> None:
    r = evaluate(parse_contract("SHS"), 18, 1, 25, 2)
    assert not r.won and r.schneider and r.value == 5 * 11


def test_schwarz_announced_lost_counts_every_level() -> None:
    r = evaluate(parse_contract("CHZ"), 18, 3, 100, 9)
    # 3 + game + hand + schneider + announced + schwarz + announced = 9
    assert not r.won and r.value == 108 and r.score == -216


def test_schneider_and_schwarz_count_against_a_losing_declarer() -> None:
    schneider = evaluate(Contract(D), 18, 1, 28, 3)
    assert not schneider.won and schneider.value == 3 * 9
    schwarz = evaluate(Contract(D), 18, 1, 4, 0)  # skat points but no trick
    assert not schwarz.won and schwarz.schwarz and schwarz.value == 4 * 9


def test_schwarz_is_by_tricks_not_points() -> None:
    # the defenders took one trick worth 0 points: 120 points but no schwarz
    r = evaluate(Contract(GRAND), 18, 1, 120, 9)
    assert r.won and r.schneider and not r.schwarz and r.value == 3 * 24


def test_hand_game_multiplier() -> None:
    r = evaluate(parse_contract("HH"), 18, -3, 70, 6)
    assert r.won and r.value == (3 + 1 + 1) * 10


def test_contract_rules_and_notation() -> None:
    assert parse_contract("GO") == Contract(GRAND, True, True, True, True)
    assert parse_contract("NO") == Contract(NULL, ouvert=True)
    assert parse_contract("NO", hand=True) == Contract(NULL, hand=True, ouvert=True)
    assert parse_contract("CHZ") == Contract(C, True, True, True)
    for text in ("D", "GH", "CHS", "CHZ", "SO", "N", "NH", "NO", "NOH"):
        c = parse_contract(text)
        assert parse_contract(c.iss()) == c
    with pytest.raises(ScoringError):
        parse_contract("CS", hand=False)  # announcements only in hand games
    with pytest.raises(ScoringError):
        parse_contract("NS")
    with pytest.raises(ScoringError):
        parse_contract("X")
    with pytest.raises(ScoringError):
        Contract(D, schneider_announced=True)
    with pytest.raises(ScoringError):
        evaluate(Contract(GRAND), 18, 5, 70, 5)  # at most 4 matadors in grand


def test_seeger_fabian_list_totals_and_tie_break() -> None:
    sf = SeegerFabianList(players=3, first_dealer=0)
    assert sf.length == 36
    assert [sf.dealer_for(i) for i in range(4)] == [0, 1, 2, 0]
    win_a = evaluate(Contract(GRAND), 18, 1, 70, 6, declarer=0)  # 48
    lose_b = evaluate(Contract(D), 18, 1, 50, 4, declarer=1)  # 18 -> -36
    win_c = evaluate(Contract(H), 18, 2, 70, 6, declarer=2)  # 30
    sf.record(win_a)
    sf.record(lose_b)
    sf.record(passed_in())
    sf.record(win_c)
    assert sf.entries[0].points == [98, 0, 0]
    assert sf.entries[1].points == [40, -86, 40]
    assert sf.entries[2].points == [0, 0, 0]
    assert sf.totals() == [98 + 40, -86, 40 + 80]
    assert sf.won() == [1, 0, 1] and sf.lost() == [0, 1, 0]
    assert sf.standings() == [0, 2, 1]


def test_seeger_fabian_ties_more_won_then_fewer_lost() -> None:
    sf = SeegerFabianList(players=4)
    assert sf.length == 48
    # seat 0: one won game worth 40 (= 90 points); seat 1: gets 30 three times (= 90)
    sf.record(evaluate(Contract(D), 18, 3, 70, 6, declarer=0))  # 4 x 9 = 36 -> 86
    assert sf.totals()[0] == 86
    lost = evaluate(Contract(D), 18, 1, 50, 4, declarer=2)  # -36-50 = -86, others +30
    sf.record(lost)
    sf.record(lost)
    # seat 0: 86 + 60 = 146, seat 1: 60, seat 3: 60
    assert sf.totals() == [146, 60, -172, 60]
    assert sf.standings()[0] == 0 and sf.standings()[-1] == 2
    # seats 1 and 3 tie on points and on games: seat order decides last
    assert sf.standings()[1:3] == [1, 3]
    full = SeegerFabianList(players=3)
    for _ in range(36):
        full.record(passed_in())
    with pytest.raises(ScoringError):
        full.record(passed_in())


def test_standings_tie_break_by_won_then_lost_games() -> None:
    from spielwerk.games.skat.scoring import ListEntry

    win0 = evaluate(Contract(D), 18, 1, 70, 6, declarer=0)
    win1 = evaluate(Contract(D), 18, 1, 70, 6, declarer=1)
    lose0 = evaluate(Contract(D), 18, 1, 50, 6, declarer=0)
    lose2 = evaluate(Contract(D), 18, 1, 50, 6, declarer=2)
    sf = SeegerFabianList(players=3)
    # equal totals (points set by hand): seat 1 has more won games than seat 0
    sf.entries = [
        ListEntry(1, 0, win0, [100, 0, 0]),
        ListEntry(2, 1, win1, [0, 50, 0]),
        ListEntry(3, 2, win1, [0, 50, 0]),
        ListEntry(4, 0, lose2, [0, 0, 100]),
    ]
    assert sf.totals() == [100, 100, 100]
    assert sf.standings() == [1, 0, 2]  # 2 wins, then 1 win and 0 lost, then 0 wins
    sf.entries = [
        ListEntry(1, 0, win0, [100, 0, 0]),
        ListEntry(2, 1, win1, [0, 100, 0]),
        ListEntry(3, 2, lose0, [0, 0, 0]),
    ]
    assert sf.standings()[:2] == [1, 0]  # same points and wins: fewer lost first


def test_utility_bound_covers_every_overbid_game() -> None:
    from spielwerk.games.skat.rules import DECLARATIONS, MAX_SCORE

    worst = 0
    for c in DECLARATIONS:
        matadors = 0 if c.game == NULL else 1
        r = evaluate(c, 264, matadors, 0, 0)
        worst = max(worst, -r.score, r.value)
    assert worst == MAX_SCORE == 590  # null ouvert hand (59) overbid at 264: 5 x 59 = 295


def test_contract_goal_is_the_query_that_decides_the_declarers_win() -> None:
    from spielwerk.games.skat.scoring import GRAND, NULL, Contract

    assert Contract(GRAND).goal() == "61"
    assert Contract(0, hand=True, schneider_announced=True).goal() == "90"
    assert Contract(GRAND, hand=True, schneider_announced=True,
                    schwarz_announced=True).goal() == "schwarz"
    assert Contract(GRAND, hand=True, schneider_announced=True, schwarz_announced=True,
                    ouvert=True).goal() == "schwarz"
    assert Contract(NULL).goal() == "null"
    assert Contract(NULL, hand=True, ouvert=True).goal() == "null"


@pytest.mark.parametrize(
    "contract,points,tricks,won",
    [
        (Contract(C), 61, 3, True),
        (Contract(C), 60, 9, False),
        (Contract(GRAND, hand=True, schneider_announced=True), 89, 8, False),
        (Contract(GRAND, hand=True, schneider_announced=True), 90, 8, True),
        (Contract(H, hand=True, schneider_announced=True, schwarz_announced=True), 120, 9, False),
        (Contract(H, hand=True, schneider_announced=True, schwarz_announced=True), 120, 10, True),
        (Contract(NULL), 0, 0, True),
        (Contract(NULL, ouvert=True), 0, 1, False),
    ],
)
def test_is_won_follows_the_goal_and_evaluate(contract: Contract, points: int, tricks: int,
                                              won: bool) -> None:
    assert contract.is_won(points, tricks) == won
    matadors = 0 if contract.game == NULL else 1
    result = evaluate(contract, 18, matadors, points, tricks)
    assert result.won == won  # bid 18: never overbid
    assert contract.goal() in ("61", "90", "schwarz", "null")
