"""Differential test of the Skat play phase against OpenSpiel's ``skat``.

OpenSpiel deals the same 32 cards in the same order (3 - skat 2 - 4 - 3, player
0 first = our forehand, seat 0 with the default dealer) and uses the same card
numbers (suit D H S C x rank 7 8 9 Q K T A J). Its bidding is simplified (the
first player to name a game declares), so each deal is set up in both engines
with the same declarer, the same two cards put and the same game; then random
cards are played and, after every card, the player to move (so every trick
winner, who leads next), the legal cards and the end of the game must agree.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from spielwerk.core.registry import load_game
from spielwerk.games.skat import rules
from spielwerk.games.skat.cards import points_of
from spielwerk.games.skat.rules import PASS, PICKUP, bid_action, declaration_action
from spielwerk.games.skat.scoring import Contract

pyspiel = pytest.importorskip("pyspiel")

OS_PASS = 32  # OpenSpiel bidding actions: 32 pass, 33..38 diamonds..null
_POINTS = re.compile(r"Points \(Solo / Team\): \((\d+) / (\d+)\)")


def _bidding_for(declarer: int) -> list[int]:
    """ISkO bidding that makes ``declarer`` (a position) the declarer at 18."""
    if declarer == 0:
        return [PASS, PASS, bid_action(18)]
    if declarer == 1:
        return [bid_action(18), PASS, PASS]
    return [PASS, bid_action(18), PASS]


def play_deal(seed: int, game_code: int) -> int:
    """Play one random deal in both engines; returns the number of cards compared."""
    rng = np.random.default_rng(seed)
    declarer = int(rng.integers(3))
    os_state = pyspiel.load_game("skat").new_initial_state()
    mine = load_game("skat").new_initial_state()
    for card in rng.permutation(32):
        os_state.apply_action(int(card))
        mine.apply(int(card))
    for _ in range(declarer):
        os_state.apply_action(OS_PASS)
    os_state.apply_action(33 + game_code)
    for a in _bidding_for(declarer):
        mine.apply(a)
    mine.apply(PICKUP)
    for _ in range(2):
        os_legal = os_state.legal_actions()
        assert sorted(os_legal) == [a for a in mine.legal_actions()]
        put = int(os_legal[int(rng.integers(len(os_legal)))])
        os_state.apply_action(put)
        mine.apply(put)
    mine.apply(declaration_action(Contract(game_code)))
    compared = 0
    while not os_state.is_terminal():
        assert not mine.is_terminal(), "our game ended first"
        assert mine.current_player == os_state.current_player()
        os_legal = sorted(os_state.legal_actions())
        my_legal = [a for a in mine.legal_actions() if a < 32]
        assert my_legal == os_legal, (mine.history, my_legal, os_legal)
        card = int(os_legal[int(rng.integers(len(os_legal)))])
        os_state.apply_action(card)
        mine.apply(card)
        compared += 1
    assert mine.is_terminal(), "OpenSpiel's game ended first"
    m = _POINTS.search(str(os_state))
    assert m is not None
    solo, team = int(m.group(1)), int(m.group(2))
    pts = mine.card_points()
    if game_code != rules.NULL:  # OpenSpiel counts the put skat for the declarer
        assert (pts["declarer"] + points_of(mine.put), pts["defenders"]) == (solo, team)
    return compared


@pytest.mark.parametrize("game_code", range(6), ids=["D", "H", "S", "C", "G", "N"])
def test_play_phase_agrees_with_openspiel(game_code: int) -> None:
    cards = sum(play_deal(10_000 * game_code + seed, game_code) for seed in range(500))
    assert cards > 500 * 3  # every deal compared at least one full trick


@pytest.mark.slow
@pytest.mark.parametrize("game_code", range(6), ids=["D", "H", "S", "C", "G", "N"])
def test_play_phase_agrees_with_openspiel_many(game_code: int) -> None:
    for seed in range(1000, 3000):
        play_deal(10_000 * game_code + seed, game_code)
