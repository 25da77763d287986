"""Generic alpha-beta: against brute-force minimax, against the Kalah numba searcher,
determinized alpha-beta equal to plain alpha-beta on a perfect-information game, and the
timed search equal to the untimed one with ample time, dropping what the clock cut."""

from __future__ import annotations

import numpy as np
import pytest

import spielwerk.games  # noqa: F401
from spielwerk.core.game import State
from spielwerk.core.registry import load_game
from spielwerk.games.kalah.agents import alphabeta_root_values
from spielwerk.games.kalah.rules import KalahState
from spielwerk.search.alphabeta import (
    AlphaBetaError,
    alphabeta,
    best_action,
    determinized_alphabeta,
    determinized_alphabeta_timed,
    root_values,
)


def store_difference(state: State, player: int) -> float:
    assert isinstance(state, KalahState)
    return float(state.store(player) - state.store(1 - player))


def minimax(state: State, depth: int, player: int) -> float:
    """Brute force, no pruning: the oracle."""
    if state.is_terminal():
        return float(state.returns()[player])
    if depth == 0:
        return store_difference(state, player)
    values = []
    for a in state.legal_actions():
        child = state.clone()
        child.apply(a)
        values.append(minimax(child, depth - 1, player))
    return max(values) if state.current_player == player else min(values)


def random_positions(spec: str, n: int, seed: int) -> list[State]:
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        s = game.new_initial_state()
        for _ in range(int(rng.integers(0, 12))):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
        if not s.is_terminal():
            out.append(s)
    return out


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_alphabeta_equals_brute_force_minimax(depth: int) -> None:
    for s in random_positions("kalah(pits=4,seeds=3)", 12, depth):
        p = s.current_player
        assert alphabeta(s, depth, p, store_difference) == minimax(s, depth, p)
        vals = root_values(s, depth, store_difference)
        for a, v in vals.items():
            child = s.clone()
            child.apply(a)
            assert v == minimax(child, depth - 1, p)


def test_root_values_equal_the_kalah_numba_search() -> None:
    for s in random_positions("kalah", 6, 7):
        assert isinstance(s, KalahState)
        ours = root_values(s, 4, store_difference)
        theirs = alphabeta_root_values(s, 4)
        for a, v in ours.items():
            assert v == theirs[a]


def test_determinized_equals_plain_on_perfect_information() -> None:
    rng = np.random.default_rng(0)
    for s in random_positions("kalah(pits=5,seeds=3)", 8, 3):
        plain = root_values(s, 4, store_difference)
        info = s.info_state(s.current_player)
        det = determinized_alphabeta(info, worlds=3, depth=4, evaluate=store_difference, rng=rng)
        assert det == plain
        assert best_action(det) == best_action(plain)


def test_errors() -> None:
    s = load_game("kalah").new_initial_state()
    with pytest.raises(AlphaBetaError):
        root_values(s, 0)
    with pytest.raises(AlphaBetaError):
        determinized_alphabeta(s.info_state(1), worlds=2, depth=2)  # not player 1's move
    with pytest.raises(AlphaBetaError):
        determinized_alphabeta(s.info_state(0), worlds=0, depth=2)
    with pytest.raises(AlphaBetaError):
        determinized_alphabeta_timed(s.info_state(0), worlds=2, depth=2, seconds=0)


def skat_play_positions(n: int, seed: int) -> list[State]:
    """Skat positions in the card play (random moves), more than one card to choose."""
    from spielwerk.core.game import CHANCE, sample_chance
    from spielwerk.games.skat.rules import PLAY

    game = load_game("skat")
    rng = np.random.default_rng(seed)
    out: list[State] = []
    while len(out) < n:
        s = game.new_initial_state()
        stop = int(rng.integers(0, 20))
        while not s.is_terminal():
            if s.current_player == CHANCE:
                s.apply(sample_chance(s, rng))
                continue
            legal = s.legal_actions()
            if s.phase == PLAY and len(legal) > 1:  # type: ignore[attr-defined]
                if stop == 0:
                    out.append(s)
                    break
                stop -= 1
            s.apply(legal[int(rng.integers(len(legal)))])
    return out


def test_timed_with_ample_time_is_the_untimed_search() -> None:
    """Same worlds (the same generator), a deterministic evaluation: the same values."""
    for s in random_positions("kalah(pits=5,seeds=3)", 4, 5):
        info = s.info_state(s.current_player)
        timed = determinized_alphabeta_timed(info, worlds=3, depth=4, seconds=60,
                                             evaluate=store_difference)
        assert (timed.depth, timed.worlds) == (4, 3)
        assert timed.values == root_values(s, 4, store_difference)
    for i, s in enumerate(skat_play_positions(4, 11)):
        info = s.info_state(s.current_player)
        plain = determinized_alphabeta(info, worlds=3, depth=2, rng=np.random.default_rng(i))
        timed = determinized_alphabeta_timed(info, worlds=3, depth=2, seconds=60,
                                             rng=np.random.default_rng(i))
        assert (timed.depth, timed.worlds) == (2, 3)
        assert timed.values == plain


def test_timed_drops_the_search_the_clock_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow evaluation (10 ms a leaf on the search's clock, which only the evaluation
    moves, so the machine's speed does not matter): depth 1 of the first world always
    finishes, the deeper search is cut by the clock and dropped, so the values are exactly
    depth 1's."""
    import spielwerk.search.alphabeta as alphabeta

    class Clock:
        now = 100.0

        def perf_counter(self) -> float:
            return self.now

    clock = Clock()
    monkeypatch.setattr(alphabeta, "time", clock)
    calls = []

    def slow(state: State, player: int) -> float:
        calls.append(1)
        clock.now += 0.01
        return store_difference(state, player)

    s = random_positions("kalah", 1, 2)[0]
    info = s.info_state(s.current_player)
    t0 = clock.perf_counter()
    timed = determinized_alphabeta_timed(info, worlds=5, depth=4, seconds=0.001, evaluate=slow)
    spent = clock.perf_counter() - t0
    assert (timed.depth, timed.worlds) == (1, 1)
    assert timed.values == root_values(s, 1, store_difference)
    assert len(calls) == len(s.legal_actions())  # depth 2 stopped before its first leaf
    assert spent == pytest.approx(0.01 * len(calls))
    # a budget for depth 1 and part of depth 2: still depth 1's values
    calls.clear()
    timed = determinized_alphabeta_timed(info, worlds=5, depth=4, seconds=0.2, evaluate=slow)
    assert timed.depth == 1 and timed.values == root_values(s, 1, store_difference)
    assert len(calls) > len(s.legal_actions())
