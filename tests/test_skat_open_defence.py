"""The open-hand defence (games/skat_ai/open_defence.py) against a brute force: on the last
three tricks of seeded deals, every card it picks is one after which a full minimax over
the remaining cards (through the game's own rules) says the declarer cannot win, if such a
card exists, and among those leaves the declarer the fewest card points.

The positions are suit and grand games, hand or not (the baselines rarely reach the last
tricks of a null: it ends at the declarer's first trick); the null query itself is the
double-dummy solver's, tested against its own brute force in tests/test_skat_dds*.py."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat.rules import PLAY, SkatState
from spielwerk.games.skat_ai.open_defence import OpenHandDefence


class _Reached(Exception):
    pass


def _cards(state: SkatState) -> list[int]:
    return [a for a in state.legal_actions() if a < 32]


def _minimax(state: SkatState, key: Any) -> int:
    """The declarer's best ``key(final details)`` with every card known (both sides best)."""
    if state.is_terminal():
        return int(key(final_details(state)))
    values = []
    for card in _cards(state):
        child = state.clone()
        child.apply(card)
        values.append(_minimax(child, key))
    return max(values) if state.current_player == state.declarer else min(values)


def _endgames(count: int) -> list[SkatState]:
    """Positions with three tricks left, a defender to move and more than one card."""
    game = load_game("skat")
    out: list[SkatState] = []
    deal = 0
    while len(out) < count and deal < 400:
        deal += 1
        kind = "random" if deal % 2 else "rule"  # random declares hand games too
        agents = [make_agent(kind, game, seed=deal * 3 + s) for s in range(3)]
        state = game.new_initial_state()

        def stop(s: Any, player: int, action: int) -> None:
            if s.phase != PLAY or s.contract is None:
                return
            left = sum(bin(int(h)).count("1") for h in s.hands)
            if left <= 9 and s.current_player != s.declarer and len(_cards(s)) > 1:
                raise _Reached

        try:
            play(state, agents, np.random.default_rng(deal), after=stop)
        except _Reached:
            assert isinstance(state, SkatState)
            out.append(state)
    return out


@functools.cache
def _positions() -> list[SkatState]:
    return _endgames(24)


def test_enough_positions_of_every_kind() -> None:
    positions = _positions()
    assert len(positions) == 24
    kinds = {(p.contract.game, p.contract.hand) for p in positions if p.contract is not None}
    assert {game for game, _ in kinds} >= {GRAND, 0, 1, 2, 3}  # grand and every suit
    assert {hand for _, hand in kinds} == {False, True}


@pytest.mark.parametrize("i", range(24))
def test_the_open_hand_card_is_the_brute_force_best(i: int) -> None:
    state = _positions()[i]
    card = OpenHandDefence()(state, state.current_player)
    assert card in _cards(state)
    after: dict[int, SkatState] = {}
    for c in _cards(state):
        child = state.clone()
        child.apply(c)
        after[c] = child
    wins = {c: _minimax(s, lambda d: d["won"]) for c, s in after.items()}
    if not all(wins.values()):  # a card beats the contract: it plays one
        assert wins[card] == 0
    assert state.contract is not None
    if state.contract.game != NULL:
        candidates = [c for c in after if wins[c] == wins[card]]
        points = {c: _minimax(after[c], lambda d: d["declarer_points"]) for c in candidates}
        assert points[card] == min(points.values())


def test_it_refuses_the_declarer_and_the_auction() -> None:
    state = _positions()[0]
    with pytest.raises(ValueError, match="defends"):
        OpenHandDefence()(state, state.declarer)
    with pytest.raises(ValueError, match="declared game"):
        OpenHandDefence()(load_game("skat").new_initial_state(), 0)
