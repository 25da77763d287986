"""von Stegen and Kinback counts on hand-checked hands (the sums are worked out in comments)."""

from __future__ import annotations

import pytest

from spielwerk.games.skat.cards import HandError, as_hand, string_to_card
from spielwerk.games.skat_ai.handstrength import kinback, stegen, strength, strength_bid

CLUBS, HEARTS, GRAND = 3, 1, 4


def hand(text: str) -> int:
    return sum(1 << string_to_card(t) for t in text.split())


STRONG = hand("CJ SJ HJ CA CT C9 SA S7 HT H8")
WEAK = hand("SJ DJ HA HK H7 SA ST S9 C8 D7")


def test_stegen_clubs_hand_checked() -> None:
    # jacks 3 x 2 = 6; club trumps CA CT C9 = 3; aces/tens CA CT SA HT = 4;
    # club jack +1, spade jack with it +1; bid 18 <= 20: +1  -> 16
    assert stegen(STRONG, CLUBS) == 16
    # no low-bid bonus at 24
    assert stegen(STRONG, CLUBS, bid=24) == 15


def test_stegen_grand_and_without_club_jack() -> None:
    # grand: 6 + 0 + 4 + 2 + 1 = 13
    assert stegen(STRONG, GRAND) == 13
    # hearts: jacks 2 x 2 = 4; HA HK H7 = 3; HA SA ST = 3; no club jack; bid 24 -> 10
    assert stegen(WEAK, HEARTS, bid=24) == 10


def test_kinback_clubs_forehand_hand_checked() -> None:
    # top sequence CJ SJ HJ = 3 (DJ missing); CA 1, CT 0.5 -> 4.5; 6 trumps: +1 -> 5.5;
    # spades SA 1 -> 6.5; hearts T without K 0; diamonds void with 6 trumps +0.5 -> 7;
    # forehand +0.5 -> 7.5
    assert kinback(STRONG, CLUBS, position=0) == 7.5
    assert kinback(STRONG, CLUBS, position=2) == 7.0


def test_kinback_grand_and_no_top_jack() -> None:
    # grand: top 3; clubs CA CT 2; spades SA 1; forehand +1 -> 7
    assert kinback(STRONG, GRAND, position=0) == 7.0
    # hearts, middlehand: no club jack: SJ 0.5, DJ 0.5, HA 1 -> 2; spades SA ST 2 -> 4
    assert kinback(WEAK, HEARTS, position=1) == 4.0


def test_strength_and_bid_choice() -> None:
    s = strength(STRONG)
    assert s["stegen"]["clubs"] == 16 and s["kinback"]["grand"] == 7.0
    assert strength_bid(STRONG, "stegen") == CLUBS  # 16 is the best Stegen count
    assert strength_bid(hand("S7 S8 S9 H7 H8 H9 D7 D8 D9 C7"), "kinback") == -1  # pass


def test_hands_refused_with_a_clear_error() -> None:
    with pytest.raises(HandError, match="10 or 12 distinct cards, not 9"):
        stegen(hand("CJ SJ HJ CA CT C9 SA S7 HT"), CLUBS)
    with pytest.raises(HandError, match="twice"):
        kinback(["CJ", "CJ", "SJ", "HJ", "CA", "CT", "C9", "SA", "S7", "HT"], CLUBS)
    with pytest.raises(HandError, match="game 5"):
        stegen(STRONG, 5)
    with pytest.raises(HandError, match="position"):
        kinback(STRONG, CLUBS, position=3)
    with pytest.raises(HandError, match="stegen or kinback"):
        strength_bid(STRONG, "bogus")
    assert as_hand(["CJ", "SJ", "HJ", "CA", "CT", "C9", "SA", "S7", "HT", "H8"]) == STRONG
