"""Views of the web table that are derived from the public moves: Durak's bout pairs
(each defence over the attack card it beats) and Kalah's result from the player's side."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from spielwerk.core.game import CHANCE, sample_chance
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.cards import card_name, mask_to_cards
from spielwerk.games.durak.table import bout_pairs
from spielwerk.web.views import seat_view


def _beats(defence: int, attack: int, trump: int) -> bool:
    if defence & 3 == attack & 3:
        return defence >> 2 > attack >> 2
    return defence & 3 == trump


@pytest.mark.parametrize("spec", ["durak(deck=24)", "durak(preset=perevodnoy)",
                                  "durak(players=3)", "durak(preset=zarlykov2023)"])
def test_durak_pairs_match_the_table_and_each_defence_beats_its_attack(spec: str) -> None:
    by_name = {card_name(c): c for c in range(52)}
    checked = 0
    for seed in range(4):
        st: Any = load_game(spec).new_initial_state()
        rng = np.random.default_rng(seed)
        while not st.is_terminal():
            if st.current_player == CHANCE:
                st.apply(sample_chance(st, rng))
                continue
            pairs = bout_pairs(st)
            S = st.S
            attack = {card_name(c) for c in mask_to_cards(int(S[K.ATTACK]))}
            defence = {card_name(c) for c in mask_to_cards(int(S[K.DEFENCE]))}
            assert {a for a, _ in pairs} == attack
            assert {d for _, d in pairs if d is not None} == defence
            assert sum(d is None for _, d in pairs) == bin(int(S[K.OPEN])).count("1")
            for a, d in pairs:
                if d is not None:
                    assert _beats(by_name[d], by_name[a], int(S[K.TRUMP_SUIT])), (a, d)
                    checked += 1
            # the view carries them, for every seat alike (public cards only)
            assert seat_view(st, 0)["pairs"] == pairs
            legal = st.legal_actions()
            st.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 20


def test_kalah_summary_from_the_players_side() -> None:
    from spielwerk.web.tables import Table

    for seat in (0, 1):
        t = Table("t", {"spec": "kalah(pits=3,seeds=2)", "seat": seat,
                        "agents": [None, "random"] if seat == 0 else ["random", None],
                        "seed": 1, "time": 1.0}, [])
        while not t.state.is_terminal():
            t.apply(t.state.legal_actions()[0])
        d = t.state.returns()[0]
        text = t.summary()
        assert d != 0  # this line of play has a winner
        winner = 0 if d > 0 else 1
        assert ("(you)" in text) == (winner == seat), text
