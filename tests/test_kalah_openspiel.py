"""Differential test: Kalah(6,4) against OpenSpiel's ``mancala``, move by move.

OpenSpiel's board (open_spiel/games/mancala/mancala.cc) has 14 cells: index 0
is player 1's store, 1..6 player 0's pits (from player 0's left), 7 player 0's
store, 8..13 player 1's pits (from player 1's left); sowing runs to increasing
indices. Its actions are board indices: player 0's pit i is action i + 1,
player 1's pit i is action 8 + i. Ours (``kernel``) is the same ring started
one cell later: our cell k is OpenSpiel cell (k + 1) mod 14.

OpenSpiel does not sweep the remaining seeds at the end: its returns count
each side's pits plus store. We sweep, so at the end we compare with
OpenSpiel's board swept by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from spielwerk import load_game
from spielwerk.core.game import TERMINAL
from spielwerk.games.kalah.rules import KalahState

pyspiel = pytest.importorskip("pyspiel")

M = 6
N_GAMES = 4000


def os_board(os_state: object) -> np.ndarray:
    """OpenSpiel's board in our layout (observation tensor: 14 cells, player, move number)."""
    obs = np.asarray(os_state.observation_tensor(0), dtype=np.int64)  # type: ignore[attr-defined]
    return np.roll(obs[:14], -1)  # our cell k = OpenSpiel cell k + 1


def os_action(player: int, pit: int) -> int:
    return pit + 1 if player == 0 else 8 + pit


def swept(board: np.ndarray) -> np.ndarray:
    out = board.copy()
    for p in range(2):
        base = p * (M + 1)
        out[base + M] += out[base : base + M].sum()
        out[base : base + M] = 0
    return out


def test_layout_mapping_on_the_initial_position() -> None:
    os_state = pyspiel.load_game("mancala").new_initial_state()
    ours = load_game("kalah").new_initial_state()
    assert (os_board(os_state) == ours.board).all()
    # South sows pit 3 (4 seeds): pits 4, 5, 6 and the store -> South moves again
    os_state.apply_action(os_action(0, 2))
    ours.apply(2)
    expected = [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    assert list(os_board(os_state)) == expected == list(ours.board)
    assert os_state.current_player() == ours.current_player == 0


def test_random_games_match_openspiel_move_by_move() -> None:
    game = load_game("kalah")  # Kalah(6,4), standard capture, either-side-empty end
    os_game = pyspiel.load_game("mancala")
    rng = np.random.default_rng(20261129)
    results = {1: 0, -1: 0, 0: 0}
    for _ in range(N_GAMES):
        ours: KalahState = game.new_initial_state()
        theirs = os_game.new_initial_state()
        while not ours.is_terminal():
            player = ours.current_player
            legal = ours.legal_actions()
            assert sorted(theirs.legal_actions()) == [os_action(player, a) for a in legal]
            pit = legal[int(rng.integers(len(legal)))]
            ours.apply(pit)
            theirs.apply_action(os_action(player, pit))
            assert theirs.is_terminal() == ours.is_terminal(), ours.history
            if ours.is_terminal():
                assert (swept(os_board(theirs)) == ours.board).all(), ours.history
                assert theirs.current_player() == pyspiel.PlayerId.TERMINAL
                assert ours.current_player == TERMINAL
            else:
                assert (os_board(theirs) == ours.board).all(), ours.history
                assert theirs.current_player() == ours.current_player, ours.history
        margin = ours.returns()[0]
        their_returns = theirs.returns()
        assert np.sign(margin) == np.sign(their_returns[0]) == -np.sign(their_returns[1])
        assert ours.returns() == [margin, -margin]
        results[int(np.sign(margin))] += 1
    # the differential test covers wins for both sides and draws
    assert min(results.values()) > 0, results
