"""The null defender's tie-break (games/skat_ai/null_play.py): catch the declarer in the
current trick, checked against the double-dummy solver and on hand-made tricks; the PIMC
agent consults it only as a null defender and only with ``null_defence``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.dds import DealPosition, Solver
from spielwerk.games.skat.staging import stage_play
from spielwerk.games.skat_ai import pimc_agent
from spielwerk.games.skat_ai.null_play import declarer_takes_trick, null_defender_preference
from spielwerk.games.skat_ai.pimc_agent import SkatPimcAgent

SEVEN, EIGHT, NINE, QUEEN, KING, TEN, ACE, JACK = range(8)
DIAMONDS, HEARTS, SPADES, CLUBS = range(4)


def card(suit: int, rank: int) -> int:
    return suit * 8 + rank


def mask(cards: list[int]) -> int:
    return sum(1 << c for c in cards)


def test_the_last_trick_agrees_with_the_double_dummy_solver() -> None:
    """With one card in each hand, the declarer loses the null exactly when it must take
    the last trick: the solver's answer is an independent oracle for every lead."""
    rng = np.random.default_rng(5)
    solver = Solver()
    checked = 0
    for _ in range(300):
        cards = [int(c) for c in rng.choice(32, size=3, replace=False)]
        declarer, leader = int(rng.integers(3)), int(rng.integers(3))
        hands = [0, 0, 0]
        for seat, c in enumerate(cards):
            hands[seat] = 1 << c
        pos = DealPosition(NULL, declarer, (hands[0], hands[1], hands[2]), (), leader)
        lead = cards[leader]
        after = [h & ~(1 << lead) if s == leader else h for s, h in enumerate(hands)]
        caught = declarer_takes_trick([lead], leader, after, declarer)
        won = solver.move_values(pos, "null")[lead]
        assert caught == (not won), (cards, declarer, leader)
        checked += 1
    assert checked == 300


def test_the_partner_helps_and_the_declarer_ducks() -> None:
    # seat 1 leads the eight of hearts; the declarer (seat 0) holds the nine and a club
    declarer = mask([card(HEARTS, NINE), card(CLUBS, ACE)])
    low_partner = mask([card(HEARTS, SEVEN), card(SPADES, ACE)])
    high_partner = mask([card(HEARTS, ACE), card(SPADES, ACE)])
    lead = card(HEARTS, EIGHT)
    for partner, caught in ((low_partner, True), (high_partner, False)):
        hands = [declarer, 0, partner]
        assert declarer_takes_trick([lead], 1, hands, 0) is caught
    # a declarer with a lower heart ducks under the lead
    ducking = mask([card(HEARTS, NINE), card(HEARTS, SEVEN)])
    assert not declarer_takes_trick([lead], 1, [ducking, 0, low_partner], 0)
    # void in hearts, the declarer discards: never caught by a heart
    assert not declarer_takes_trick([lead], 1, [mask([card(CLUBS, ACE)]), 0, low_partner], 0)


def staged_null() -> Any:
    """A null, the declarer middle hand (seat 1), forehand (seat 0, a defender) to lead."""
    declarer = [card(HEARTS, r) for r in (NINE, KING)] + \
        [card(DIAMONDS, r) for r in (SEVEN, EIGHT, NINE)] + \
        [card(SPADES, r) for r in (SEVEN, EIGHT, NINE, QUEEN, KING)]
    rest = [c for c in range(32) if c not in declarer]
    skat, rest = rest[-2:], rest[:-2]
    fore, rear = rest[:10], rest[10:]
    state = stage_play((mask(fore), mask(declarer), mask(rear)), mask(skat), 1, NULL,
                       mask(skat))
    return state


def test_the_preference_counts_catches_over_the_worlds() -> None:
    state = staged_null()
    info = state.info_state(0)
    assert info.player != info.declarer
    legal = [a for a in info.legal_actions() if a < 32]
    # worlds: the real deal twice; catching cards are those the solver-free trick says
    pos = DealPosition(NULL, 1, tuple(int(h) for h in state.hands), (), 0)  # type: ignore[arg-type]
    catching = [c for c in legal if declarer_takes_trick(
        [c], 0, [h & ~(1 << c) if s == 0 else h for s, h in enumerate(pos.hands)], 1)]
    choice = null_defender_preference(info, legal, [pos, pos])
    if catching:
        assert choice in catching
    else:
        assert choice is None
    # nothing for the declarer, nor without worlds
    assert null_defender_preference(state.info_state(1), legal, [pos]) is None
    assert null_defender_preference(info, legal, []) is None


@pytest.mark.parametrize("null_defence", [True, False])
def test_the_agent_asks_only_with_null_defence(monkeypatch: pytest.MonkeyPatch,
                                               null_defence: bool) -> None:
    calls: list[list[int]] = []

    def spy(info: Any, tied: list[int], worlds: Any) -> int:
        calls.append(list(tied))
        assert worlds, "the worlds the vote solved are handed over"
        return tied[-1]

    monkeypatch.setattr(pimc_agent, "null_defender_preference", spy)
    state = staged_null()
    agent = SkatPimcAgent(load_game("skat"), seed=3, worlds=8, null_defence=null_defence)
    action = agent.act(state.info_state(0))
    if null_defence:  # at the first lead the eight worlds' vote ties (the declarer loses in all)
        assert calls and action == calls[-1][-1]
    if not null_defence:
        assert calls == []
    # the declarer is never asked
    calls.clear()
    state.apply(action)
    agent.act(state.info_state(1))
    assert calls == []


# ----- the suit and grand defender's tie-break (games/skat_ai/suit_defence.py) ------------
def test_the_last_trick_balance_agrees_with_the_solver() -> None:
    """With one card in each hand the trick's balance is its points, to the defenders or
    from them: the solver's exact card points are the oracle."""
    from spielwerk.games.skat.cards import POINTS_BY_CARD
    from spielwerk.games.skat_ai.suit_defence import trick_balance

    rng = np.random.default_rng(8)
    solver = Solver()
    for _ in range(300):
        cards = [int(c) for c in rng.choice(32, size=3, replace=False)]
        game = int(rng.integers(5))  # the four suits and grand
        declarer, leader = int(rng.integers(3)), int(rng.integers(3))
        hands = [1 << c for c in cards]
        pos = DealPosition(game, declarer, (hands[0], hands[1], hands[2]), (), leader,
                           declarer_points=30, defender_points=60)
        lead = cards[leader]
        after = [h & ~(1 << lead) if s == leader else h for s, h in enumerate(hands)]
        balance = trick_balance([lead], leader, after, declarer, game)
        final = int(solver.move_values(pos, "exact")[lead])
        points = sum(POINTS_BY_CARD[c] for c in cards)
        assert balance == points - 2 * (final - 30), (cards, game, declarer, leader)


def test_a_defender_smears_onto_the_partners_sure_trick() -> None:
    from spielwerk.games.skat_ai.suit_defence import trick_balance

    # a clubs game, the declarer seat 0; seat 1 leads, seat 2 (void in hearts, no trump)
    # holds the ten and the seven of spades, the declarer one heart
    ten, seven = card(SPADES, TEN), card(SPADES, SEVEN)
    for declarer_heart, lead, smear in ((SEVEN, ACE, True), (ACE, SEVEN, False)):
        hearts = card(HEARTS, declarer_heart)
        led = card(HEARTS, lead)
        with_ten = trick_balance([led, ten], 1, [mask([hearts]), 0, mask([seven])], 0, CLUBS)
        with_seven = trick_balance([led, seven], 1, [mask([hearts]), 0, mask([ten])], 0, CLUBS)
        if smear:  # the partner's ace wins: the ten goes onto it
            assert (with_ten, with_seven) == (21, 11)
        else:  # the declarer's ace wins: the ten is kept
            assert (with_ten, with_seven) == (-21, -11)


@pytest.mark.parametrize("suit_defence", [True, False])
def test_the_agent_asks_the_suit_rule_only_with_suit_defence(
        monkeypatch: pytest.MonkeyPatch, suit_defence: bool) -> None:
    from spielwerk.games.skat.cards import GRAND

    calls: list[list[int]] = []

    def spy(info: Any, tied: list[int], worlds: Any) -> int:
        calls.append(list(tied))
        assert worlds
        return tied[-1]

    monkeypatch.setattr(pimc_agent, "suit_defender_preference", spy)
    declarer = [card(s, JACK) for s in range(4)] + [card(CLUBS, r) for r in (ACE, TEN, KING)] + \
        [card(SPADES, r) for r in (ACE, TEN, KING)]
    rest = [c for c in range(32) if c not in declarer]
    skat, rest = rest[-2:], rest[:-2]
    state = stage_play((mask(rest[:10]), mask(declarer), mask(rest[10:])), mask(skat), 1,
                       GRAND, mask(skat))
    agent = SkatPimcAgent(load_game("skat"), seed=3, worlds=8, suit_defence=suit_defence)
    action = agent.act(state.info_state(0))
    if suit_defence:  # a grand with every jack: the declarer wins in every world
        assert calls and action == calls[-1][-1]
    else:
        assert calls == []
