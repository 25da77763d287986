"""The null declarer's tie-break (games/skat_ai/null_play.py) and PIMC's ``prefer`` hook."""

from __future__ import annotations

import numpy as np
import pytest

from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.staging import stage_play
from spielwerk.games.skat_ai.null_play import (
    exposure,
    null_declarer_preference,
    null_lead_risk,
)
from spielwerk.mc.pimc import choose

SEVEN, EIGHT, NINE, QUEEN, KING, TEN, ACE, JACK = range(8)
DIAMONDS, HEARTS, SPADES, CLUBS_SUIT = range(4)


def card(suit: int, rank: int) -> int:
    return suit * 8 + rank


def mask(cards: list[int]) -> int:
    return sum(1 << c for c in cards)


DECLARER = [card(HEARTS, r) for r in (SEVEN, NINE, KING)] + \
    [card(DIAMONDS, r) for r in (SEVEN, TEN, ACE)] + \
    [card(SPADES, r) for r in (SEVEN, EIGHT, NINE, QUEEN)]
"""Middle hand's ten cards: void in clubs."""
LEADS = {"hearts": card(HEARTS, QUEEN), "clubs": card(CLUBS_SUIT, SEVEN)}


def staged(game: int, lead: str) -> SkatInfoState:
    """Forehand leads ``lead``'s card; the declarer (middle hand) is to play. ``lead``
    empty: forehand, a defender, is to lead."""
    rest = [c for c in range(32) if c not in DECLARER]
    skat = rest[-2:]
    rest = rest[:-2]
    fore = [LEADS["hearts"], LEADS["clubs"]]
    fore += [c for c in rest if c not in fore][:8]
    rear = [c for c in rest if c not in fore]
    state = stage_play((mask(fore), mask(DECLARER), mask(rear)), mask(skat), 1, game, mask(skat))
    if lead:
        state.apply(LEADS[lead])
    info = state.info_state(state.current_player)
    assert isinstance(info, SkatInfoState) and (info.player == info.declarer) == bool(lead)
    return info


def test_exposure_is_the_rank_above_the_own_cover() -> None:
    hand = mask(DECLARER)
    assert exposure(card(DIAMONDS, ACE), hand) == 7 - 2 * 2  # 7 and T below it
    assert exposure(card(DIAMONDS, TEN), hand) == 3 - 2 * 1
    assert exposure(card(HEARTS, KING), hand) == 6 - 2 * 2
    assert exposure(card(SPADES, QUEEN), hand) == 5 - 2 * 3
    assert exposure(card(DIAMONDS, SEVEN), hand) == 0


def test_following_stays_under_as_high_as_possible() -> None:
    info = staged(NULL, "hearts")  # the queen of hearts is led
    hearts = [card(HEARTS, r) for r in (SEVEN, NINE, KING)]
    assert null_declarer_preference(info, hearts) == card(HEARTS, NINE)
    assert null_declarer_preference(info, [hearts[0], hearts[2]]) == card(HEARTS, SEVEN)
    assert null_declarer_preference(info, [hearts[2]]) == card(HEARTS, KING)


def test_void_discards_the_most_exposed_card() -> None:
    info = staged(NULL, "clubs")
    tied = [c for c in DECLARER]
    assert null_declarer_preference(info, tied) == card(DIAMONDS, ACE)
    assert null_declarer_preference(info, [card(SPADES, QUEEN), card(HEARTS, KING)]) \
        == card(HEARTS, KING)


def test_no_preference_outside_a_null_declarer_following() -> None:
    assert null_declarer_preference(staged(GRAND, "hearts"), DECLARER[:3]) is None
    defender = staged(NULL, "")
    assert null_declarer_preference(defender, [LEADS["hearts"], LEADS["clubs"]]) is None


@pytest.mark.parametrize("seed", range(5))
def test_choose_prefer_breaks_ties_only(seed: int) -> None:
    per_world = [{1: 1.0, 2: 1.0, 3: 0.0}, {1: 1.0, 2: 1.0, 3: 1.0}]
    plain = choose(per_world, np.random.default_rng(seed))[0]
    assert plain in (1, 2)
    assert choose(per_world, np.random.default_rng(seed), lambda tied: 2)[0] == 2
    assert choose(per_world, np.random.default_rng(seed), lambda tied: 1)[0] == 1
    # not a tied action, or no preference: the same seeded pick as without the hook
    assert choose(per_world, np.random.default_rng(seed), lambda tied: 3)[0] == plain
    assert choose(per_world, np.random.default_rng(seed), lambda tied: None)[0] == plain
    # a clear winner is never overridden
    assert choose([{1: 1.0, 2: 0.0}], np.random.default_rng(seed), lambda tied: 2)[0] == 1


LEADER = [card(HEARTS, SEVEN), card(HEARTS, ACE), card(CLUBS_SUIT, EIGHT)] + \
    [card(DIAMONDS, r) for r in (SEVEN, EIGHT, NINE)] + \
    [card(SPADES, r) for r in (SEVEN, EIGHT, NINE, TEN)]
"""Forehand's ten cards, the null declarer on lead: a short heart suit with a safe seven."""


def leading_declarer() -> SkatInfoState:
    skat = [card(CLUBS_SUIT, ACE), card(CLUBS_SUIT, KING)]
    rest = [c for c in range(32) if c not in LEADER and c not in skat]
    state = stage_play((mask(LEADER), mask(rest[:10]), mask(rest[10:])), mask(skat), 0, NULL,
                       mask(skat))
    info = state.info_state(state.current_player)
    assert isinstance(info, SkatInfoState) and info.player == info.declarer
    assert not info.trick
    return info


def test_lead_risk_counts_the_unseen_cards_below_then_the_own_suit() -> None:
    hand = mask(LEADER)
    unseen = mask([c for c in range(32) if c not in LEADER
                   and c not in (card(CLUBS_SUIT, ACE), card(CLUBS_SUIT, KING))])
    # the seven: nothing below, unseen hearts above: a defender must go over it
    assert null_lead_risk(card(HEARTS, SEVEN), hand, unseen) == (0, 2, 0)
    # over the own seven the eight of spades is as safe, and the ten over 7-8-9 too
    assert null_lead_risk(card(SPADES, EIGHT), hand, unseen) == (0, 4, -1)
    assert null_lead_risk(card(SPADES, TEN), hand, unseen) == (0, 4, -3)
    # the eight of clubs: the unseen seven can stay under it
    assert null_lead_risk(card(CLUBS_SUIT, EIGHT), hand, unseen) == (1, 1, -1)
    # the ace of hearts: the unseen eight, nine, ten, jack, queen and king can stay under
    assert null_lead_risk(card(HEARTS, ACE), hand, unseen)[0] == 6
    # a suit with no unseen card left: the lead takes the trick whatever follows
    no_spades = unseen & ~(0xFF << (SPADES * 8))
    assert null_lead_risk(card(SPADES, SEVEN), hand, no_spades)[0] == 99


def test_leading_only_with_lead_picks_the_safe_card_of_the_shortest_suit() -> None:
    info = leading_declarer()
    assert null_declarer_preference(info, LEADER) is None  # the random pick stays
    assert null_declarer_preference(info, LEADER, lead=True) == card(HEARTS, SEVEN)
    rest = [c for c in LEADER if c != card(HEARTS, SEVEN)]
    # then the diamonds (three) over the spades (four), the highest safe one
    assert null_declarer_preference(info, rest, lead=True) == card(DIAMONDS, NINE)
    assert null_declarer_preference(info, [card(HEARTS, ACE), card(CLUBS_SUIT, EIGHT)],
                                    lead=True) == card(CLUBS_SUIT, EIGHT)
    # not null: no preference
    assert null_declarer_preference(staged(GRAND, "hearts"), DECLARER[:3], lead=True) is None
