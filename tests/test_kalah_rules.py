"""Kalah rules: hand-computed positions, a reference implementation, property tests.

``RefKalah`` below is an independent, deliberately plain implementation of the
rules as the seed states them (pits and stores as separate lists, sowing along
an explicit ring of named cells). The property tests play random games with
both and compare after every move; the hand-computed tests pin single rules.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spielwerk import load_game
from spielwerk.core.errors import GameParameterError, IllegalActionError
from spielwerk.core.game import TERMINAL
from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.rules import KalahGame, KalahState


# ----------------------------------------------------------------------------- reference
@dataclass
class RefKalah:
    """Kalah from the rule text: ``pits[p][i]`` is player p's pit i from p's left."""

    pits: list[list[int]]
    stores: list[int]
    to_move: int  # -1 when over
    empty_capture: bool
    mover_empty: bool
    # what the last move did (for the property tests)
    last_cell: tuple[str, int, int] | None = None
    captured: int = 0

    @classmethod
    def start(cls, m: int, n: int, empty_capture: bool, mover_empty: bool) -> RefKalah:
        return cls([[n] * m, [n] * m], [0, 0], 0, empty_capture, mover_empty)

    def board(self) -> list[int]:
        """In the kernel's layout, to compare."""
        return self.pits[0] + [self.stores[0]] + self.pits[1] + [self.stores[1]]

    def move(self, pit: int) -> None:
        p, m = self.to_move, len(self.pits[0])
        # the ring the mover sows along: own pits, own store, opponent's pits (no store)
        ring = [("pit", p, i) for i in range(m)] + [("store", p, 0)]
        ring += [("pit", 1 - p, i) for i in range(m)]
        seeds, self.pits[p][pit] = self.pits[p][pit], 0
        pos = pit
        cell = ring[pos]
        while seeds:
            pos = (pos + 1) % len(ring)
            cell = ring[pos]
            kind, owner, i = cell
            if kind == "store":
                self.stores[owner] += 1
            else:
                self.pits[owner][i] += 1
            seeds -= 1
        self.last_cell, self.captured = cell, 0
        kind, owner, i = cell
        nxt = p if kind == "store" else 1 - p
        if kind == "pit" and owner == p and self.pits[p][i] == 1:
            opposite = m - 1 - i  # facing pits: my leftmost faces the opponent's rightmost
            if self.pits[1 - p][opposite] > 0 or self.empty_capture:
                self.captured = self.pits[1 - p][opposite] + 1
                self.stores[p] += self.captured
                self.pits[p][i] = self.pits[1 - p][opposite] = 0
        if self.mover_empty:
            over = sum(self.pits[nxt]) == 0
        else:
            over = sum(self.pits[0]) == 0 or sum(self.pits[1]) == 0
        if over:
            for q in (0, 1):
                self.stores[q] += sum(self.pits[q])
                self.pits[q] = [0] * m
            nxt = -1
        self.to_move = nxt


def kalah(m: int, n: int, empty_capture: bool = False, end_rule: str = "either_empty") -> KalahGame:
    game = load_game(
        f"kalah(pits={m},seeds={n},empty_capture={str(empty_capture).lower()},end_rule={end_rule})"
    )
    assert isinstance(game, KalahGame)
    return game


variants = st.tuples(
    st.integers(1, 7),  # pits
    st.integers(1, 7),  # seeds
    st.booleans(),  # empty capture
    st.booleans(),  # mover_empty end rule
    st.integers(0, 2**32 - 1),  # playout seed
)


def play_both(m: int, n: int, cap: bool, mover: bool, seed: int):  # type: ignore[no-untyped-def]
    """Random game: yields (state, reference, board before, mover, pit) after every move."""
    game = kalah(m, n, cap, "mover_empty" if mover else "either_empty")
    state = game.new_initial_state()
    ref = RefKalah.start(m, n, cap, mover)
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        before, mover_now = state.board.copy(), state.current_player
        legal = state.legal_actions()
        assert legal == [i for i in range(m) if ref.pits[mover_now][i] > 0]
        pit = legal[int(rng.integers(len(legal)))]
        state.apply(pit)
        ref.move(pit)
        yield state, ref, before, mover_now, pit
        assert len(state.history) < 100_000


# ----------------------------------------------------------------------------- properties
@given(variants)
def test_kernel_matches_reference_implementation(v: tuple[int, int, bool, bool, int]) -> None:
    for state, ref, _, _, _ in play_both(*v):
        assert list(state.board) == ref.board(), state.history
        assert state.current_player == (TERMINAL if ref.to_move < 0 else ref.to_move)


@given(variants)
def test_seeds_are_conserved_and_the_game_ends(v: tuple[int, int, bool, bool, int]) -> None:
    m, n = v[0], v[1]
    state = None
    for state, _, _, _, _ in play_both(*v):
        assert int(state.board.sum()) == 2 * m * n
        assert (state.board >= 0).all()
    assert state is not None and state.is_terminal()
    assert state.store(0) + state.store(1) == 2 * m * n  # everything swept into the stores
    assert state.returns() == [float(state.margin()), float(-state.margin())]


@given(variants)
def test_extra_turn_exactly_when_the_last_seed_lands_in_the_own_store(
    v: tuple[int, int, bool, bool, int],
) -> None:
    m = v[0]
    for state, ref, before, mover, pit in play_both(*v):
        # where the last seed lands, counted without the kernel: the mover's ring has
        # 2m + 1 cells (own pits, own store, opponent's pits); the store is cell m
        landing = (pit + int(before[mover * (m + 1) + pit])) % (2 * m + 1)
        assert (landing == m) == (ref.last_cell == ("store", mover, 0))
        if not state.is_terminal():
            assert (state.current_player == mover) == (landing == m)


def check_captures(v: tuple[int, int, bool, bool, int]) -> tuple[int, int]:
    """Check every move that ends in an own pit; returns (captures, plain moves) seen."""
    m, cap = v[0], v[2]
    captures = plain = 0
    for state, _, before, mover, pit in play_both(*v):
        seeds = int(before[mover * (m + 1) + pit])
        landing = (pit + seeds) % (2 * m + 1)
        if landing >= m or seeds > 2 * m or state.is_terminal():
            continue  # not an own pit; a full lap; or the end sweep moved seeds too
        wrapped = landing < pit  # went round: own store and every opponent pit got a seed
        own = mover * (m + 1) + landing
        opposite = 2 * m - own
        opposite_now = int(before[opposite]) + wrapped
        store_gain = state.store(mover) - int(before[mover * (m + 1) + m])
        if before[own] == 0 and (opposite_now > 0 or cap):
            assert state.board[own] == 0 and state.board[opposite] == 0
            assert store_gain == opposite_now + 1 + wrapped
            captures += 1
        else:
            assert state.board[own] == before[own] + 1
            assert state.board[opposite] == opposite_now
            assert store_gain == wrapped
            plain += 1
    return captures, plain


@given(variants)
def test_captures(v: tuple[int, int, bool, bool, int]) -> None:
    check_captures(v)


@pytest.mark.parametrize("cap", [False, True])
def test_capture_property_sees_both_branches(cap: bool) -> None:
    seen = [check_captures((6, 4, cap, False, seed)) for seed in range(30)]
    assert sum(c for c, _ in seen) > 10 and sum(p for _, p in seen) > 10


# ----------------------------------------------------------------------------- hand-computed
def board_of(game: KalahGame, south: list[int], s_store: int, north: list[int], n_store: int,
             to_move: int = 0) -> KalahState:
    return game.state_from_board(south + [s_store] + north + [n_store], to_move)


def test_initial_position_and_first_sowing() -> None:
    state = kalah(6, 4).new_initial_state()
    assert list(state.board) == [4] * 6 + [0] + [4] * 6 + [0]
    assert state.current_player == 0 and state.legal_actions() == list(range(6))
    state.apply(0)  # pit 1: seeds to pits 2..5
    assert state.pits_of(0) == [0, 5, 5, 5, 5, 4] and state.store(0) == 0
    assert state.current_player == 1
    state.apply(5)  # North's pit 6 (4 seeds): store, then South's pits 1..3
    assert state.pits_of(1) == [4, 4, 4, 4, 4, 0] and state.store(1) == 1
    assert state.pits_of(0) == [1, 6, 6, 5, 5, 4]
    assert state.current_player == 0


def test_sowing_skips_the_opponents_store_south() -> None:
    game = kalah(3, 3)
    state = board_of(game, [0, 0, 8], 0, [1, 1, 1], 0)
    state.apply(2)  # 8 seeds: store, N1, N2, N3, (skip North's store), S1, S2, S3, store
    assert state.pits_of(0) == [1, 1, 1] and state.store(0) == 2
    assert state.pits_of(1) == [2, 2, 2] and state.store(1) == 0
    assert state.current_player == 0  # the last seed went into the own store


def test_sowing_skips_the_opponents_store_north() -> None:
    game = kalah(2, 3)
    state = board_of(game, [1, 1], 4, [2, 4], 0, to_move=1)
    state.apply(1)  # 4 seeds: N store, S1, S2, (skip S store), N1
    assert state.pits_of(1) == [3, 0] and state.store(1) == 1
    assert state.pits_of(0) == [2, 2] and state.store(0) == 4
    assert state.current_player == 0


def test_capture_with_a_full_opposite_pit() -> None:
    for cap in (False, True):
        state = board_of(kalah(3, 5, cap), [1, 0, 2], 0, [3, 4, 5], 0)
        state.apply(0)  # lands in the empty pit 2, which faces North's pit 2 (4 seeds)
        assert state.pits_of(0) == [0, 0, 2] and state.store(0) == 5
        assert state.pits_of(1) == [3, 0, 5] and state.current_player == 1


def test_leftmost_pit_faces_the_opponents_rightmost() -> None:
    state = board_of(kalah(3, 5), [0, 1, 0], 0, [3, 4, 7], 0)
    state.apply(1)  # lands in the empty pit 3, which faces North's pit 1 (3 seeds, not 7)
    # South's side is empty now: the game is over and North sweeps 4 + 7
    assert state.is_terminal() and state.store(0) == 1 + 3 and state.store(1) == 11


def test_capture_of_an_empty_opposite_pit_depends_on_the_rule() -> None:
    standard = board_of(kalah(3, 5), [1, 0, 2], 0, [3, 0, 5], 0)
    standard.apply(0)
    assert standard.pits_of(0) == [0, 1, 2] and standard.store(0) == 0
    empty = board_of(kalah(3, 5, empty_capture=True), [1, 0, 2], 0, [3, 0, 5], 0)
    empty.apply(0)
    assert empty.pits_of(0) == [0, 0, 2] and empty.store(0) == 1
    assert empty.pits_of(1) == [3, 0, 5]


def test_no_capture_on_the_opponents_side() -> None:
    state = board_of(kalah(3, 5), [1, 0, 2], 0, [0, 4, 5], 0)
    state.apply(2)  # 2 seeds: store, North's empty pit 1 -> no capture
    assert state.pits_of(1) == [1, 4, 5] and state.store(0) == 1
    assert state.current_player == 1


def test_end_sweep_when_the_mover_empties_his_side() -> None:
    state = board_of(kalah(2, 3), [0, 1], 3, [2, 1], 1)
    state.apply(1)  # into the own store; South's side is empty -> game over
    assert state.is_terminal() and state.legal_actions() == []
    assert list(state.board) == [0, 0, 4, 0, 0, 4]
    assert state.returns() == [0.0, 0.0]
    assert str(state).endswith("game over: draw")


def test_end_rules_differ_when_the_opponent_is_empty_and_the_mover_moves_again() -> None:
    either = board_of(kalah(2, 3), [1, 1], 5, [0, 0], 5)
    assert either.is_terminal()  # either_empty: over at once, swept
    assert list(either.board) == [0, 0, 7, 0, 0, 5]
    mover = board_of(kalah(2, 3, end_rule="mover_empty"), [1, 1], 5, [0, 0], 5)
    assert not mover.is_terminal()
    mover.apply(1)  # into the store: South moves again, North's side is still empty
    assert mover.current_player == 0 and list(mover.board) == [1, 0, 6, 0, 0, 5]
    mover.apply(0)  # lands in the empty pit 2, opposite empty: no capture; North to move
    assert mover.is_terminal()  # North cannot move: over, South sweeps 1
    assert list(mover.board) == [0, 0, 7, 0, 0, 5] and mover.returns() == [2.0, -2.0]


def test_state_from_board_validates_and_detects_the_end() -> None:
    game = kalah(3, 2)
    with pytest.raises(GameParameterError, match="8 cells"):
        game.state_from_board([1, 2, 3], 0)
    with pytest.raises(GameParameterError, match="negative"):
        game.state_from_board([1, -1, 2, 0, 2, 2, 2, 0], 0)
    with pytest.raises(GameParameterError, match="at most 12 seeds, not 13"):
        game.state_from_board([2, 2, 2, 1, 2, 2, 2, 0], 0)
    with pytest.raises(GameParameterError, match="player to move"):
        game.state_from_board([2, 2, 2, 0, 2, 2, 2, 0], 2)
    board = [1, 0, 3, 4, 0, 2, 0, 2]
    state = game.state_from_board(board, 1)
    assert list(state.board) == board and state.current_player == 1 and state.history == []
    board[0] = 9  # the state owns a copy
    assert state.board[0] == 1
    assert state.legal_actions() == [1]


def test_illegal_actions_leave_the_state_unchanged() -> None:
    state = board_of(kalah(3, 2), [0, 2, 2], 1, [1, 2, 3], 1, to_move=0)
    before = (state.board.copy(), state.current_player, list(state.history))
    for bad in (0, 3, -1, 7):  # an empty pit, out of range
        with pytest.raises(IllegalActionError) as info:
            state.apply(bad)
        assert "legal: 2, 3" in str(info.value)
    assert (state.board == before[0]).all() and state.current_player == before[1]
    assert state.history == before[2]


def test_fast_path_refuses_what_is_not_a_legal_pit() -> None:
    # apply's inline path takes only a plain int whose bit is set in the known mask;
    # a huge pit, a bool, a float, a numpy int go the checked way (errors or the same move)
    import numpy as np

    state = kalah(6, 4).new_initial_state()
    for bad in (16, 99, 2**70, -(2**70), 2.0, "2"):
        with pytest.raises((IllegalActionError, TypeError)):
            state.apply(bad)  # type: ignore[arg-type]
    assert state.history == [] and state.current_player == 0
    twin = kalah(6, 4).new_initial_state()
    state.apply(np.int64(2))  # type: ignore[arg-type]
    twin.apply(2)
    assert (state.board == twin.board).all() and state.history == twin.history == [2]
    assert state.current_player == twin.current_player == 0  # the last seed in the store


def test_legal_actions_are_a_new_list_every_call() -> None:
    game = kalah(6, 4)
    state = game.new_initial_state()
    mine = state.legal_actions()
    mine.clear()
    mine.append(99)
    assert state.legal_actions() == [0, 1, 2, 3, 4, 5]
    assert game.new_initial_state().legal_actions() == [0, 1, 2, 3, 4, 5]
    state.apply(5)
    assert state.legal_actions() == [0, 1, 2, 3, 4, 5]  # North, all full
    assert game.actions_of_mask(0b101) == (0, 2)


def test_string_to_action_uses_pits_from_the_movers_left() -> None:
    state = kalah(4, 2).new_initial_state()
    assert [state.action_to_string(a) for a in range(4)] == ["1", "2", "3", "4"]
    assert state.string_to_action(" 3 ") == 2
    state.apply(state.string_to_action("1"))  # South pit 1 -> North to move
    assert state.current_player == 1 and state.string_to_action("4") == 3
    for text in ("0", "5", "x", ""):
        with pytest.raises(IllegalActionError, match="no legal action is written"):
            state.string_to_action(text)


def test_text_rendering() -> None:
    state = board_of(kalah(3, 7), [1, 0, 12], 3, [4, 5, 6], 7)
    expected = "\n".join(
        [
            "      3   2   1    North",
            "    [ 6][ 5][ 4]",
            "[ 7]            [ 3]   stores: North left, South right",
            "    [ 1][ 0][12]",
            "      1   2   3    South",
            "South to move",
        ]
    )
    assert str(state) == expected
    won = board_of(kalah(2, 3), [0, 1], 9, [0, 0], 2)
    assert str(won).endswith("game over: South wins by 8")


def test_kernel_random_playout_conserves_seeds() -> None:
    for seed in range(20):
        board = kernel.initial_board(5, 3)
        moves = kernel.random_playout(board, 0, 5, False, kernel.END_EITHER_EMPTY, seed)
        assert moves > 0 and board.sum() == 30
        assert board[:5].sum() == 0 and board[6:11].sum() == 0


@pytest.mark.parametrize(
    "spec, message",
    [
        ("kalah(pits=0)", "pits must be at least 1"),
        ("kalah(seeds=0)", "seeds must be at least 1"),
        ("kalah(pits=17)", "at most 16 pits"),
        ("kalah(end_rule=sometimes)", "end_rule must be one of either_empty, mover_empty"),
        ("kalah(empty_capture=maybe)", "must be true or false"),
    ],
)
def test_bad_kalah_parameters(spec: str, message: str) -> None:
    with pytest.raises(GameParameterError, match=message):
        load_game(spec)


def test_game_type_and_spec() -> None:
    game = kalah(5, 3, True, "mover_empty")
    gt = game.game_type
    assert (gt.num_players, gt.chance) == (2, False)
    assert gt.perfect_information and gt.zero_sum
    assert (gt.min_utility, gt.max_utility, gt.utility_sum) == (-30.0, 30.0, 0.0)
    assert game.spec() == "kalah(empty_capture=true,end_rule=mover_empty,pits=5,seeds=3)"
    assert gt.long_name == "Kalah(5,3)"
