"""Endgames of 3 and 4 players in which two seats are left (stock empty): the 2-player
state of endgame.two_seat_state plays the same game (lockstep against the original
rules), the solver's value matches a brute-force search of the original position, and
the search agents play those endgames exactly."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from spielwerk.core.agent import make_agent
from spielwerk.core.game import sample_chance
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.agents import endgame_counted
from spielwerk.games.durak.endgame import solve_best, two_seat_state
from spielwerk.games.durak.rules import DurakGame, DurakInfoState, DurakState


def _legal(S: np.ndarray) -> list[int]:
    buf = np.empty(K.MAX_ACTIONS, np.int64)
    return [int(a) for a in buf[:K.legal_actions(S, buf)]]


def _two_seats(S: np.ndarray) -> tuple[int, int] | None:
    if S[K.PHASE] in (K.PH_DEAL, K.PH_OVER) or K.stock_size(S) != 0:
        return None
    seats = sorted({q for q in range(int(S[K.NPLAYERS])) if S[K.HANDS + q] != 0}
                   | {int(S[K.ATTACKER]), int(S[K.DEFENDER])})
    return (seats[0], seats[1]) if len(seats) == 2 else None


def _endgames(spec: str, games: int, seed: int) -> list[tuple[DurakState, tuple[int, int]]]:
    """Positions of random games (random moves, so every phase shows up) with two seats
    left, one per game, the first such decision of the game."""
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.current_player < 0:
                s.apply(sample_chance(s, rng))
                continue
            assert isinstance(s, DurakState)
            seats = _two_seats(s.S)
            if seats is not None and s.dgame.players > 2:
                out.append((s.clone(), seats))
                break
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
    return out  # type: ignore[return-value]


@pytest.mark.parametrize("players", [3, 4])
def test_two_seat_state_plays_the_same_game(players: int) -> None:
    spec = f"durak(preset=classic,players={players},deck=24)"
    found = _endgames(spec, 60, players)
    assert len(found) >= 20
    rng = np.random.default_rng(7)
    for state, (a, b) in found:
        seat = {a: 0, b: 1}
        for _ in range(3):  # random continuations of the same position
            S = state.S.copy()
            T = two_seat_state(S, (a, b))
            while S[K.PHASE] != K.PH_OVER:
                legal = _legal(S)
                assert _legal(T) == legal
                assert seat[int(S[K.TO_MOVE])] == T[K.TO_MOVE]
                act = legal[int(rng.integers(len(legal)))]
                K.apply_action(S, act)
                K.apply_action(T, act)
            assert T[K.PHASE] == K.PH_OVER
            loser = int(S[K.LOSER])
            assert (loser < 0 and T[K.LOSER] < 0) or seat[loser] == T[K.LOSER]


def _brute(S: np.ndarray, a: int) -> int:
    """Value for seat ``a`` (+1 the other is the durak, -1 ``a`` is, 0 draw) by full
    search of the original position: ``a`` maximizes, the other seat minimizes."""

    @functools.cache
    def value(key: bytes) -> int:
        X = np.frombuffer(key, np.int64).copy()
        if X[K.PHASE] == K.PH_OVER:
            loser = int(X[K.LOSER])
            return 0 if loser < 0 else (-1 if loser == a else 1)
        vals = []
        for act in _legal(X):
            Y = X.copy()
            K.apply_action(Y, act)
            Y[K.PLIES] = 0  # far below the ply cap here: positions differing only in it merge
            vals.append(value(Y.tobytes()))
        return max(vals) if X[K.TO_MOVE] == a else min(vals)

    X = S.copy()
    X[K.PLIES] = 0
    return value(X.tobytes())


def test_solver_value_matches_brute_force_of_the_original_position() -> None:
    checked = 0
    for players in (3, 4):
        for state, (a, b) in _endgames(f"durak(preset=classic,players={players},deck=24)",
                                       150, 10 + players):
            S = state.S
            if K.popcount(S[K.HANDS + a]) + K.popcount(S[K.HANDS + b]) > 6:
                continue
            mover = int(S[K.TO_MOVE])
            _, v = solve_best(two_seat_state(S, (a, b)), 10**7, 18)
            assert v == _brute(S, mover), (players, S.tolist())
            checked += 1
    assert checked >= 8


def test_search_agents_solve_multi_player_endgames() -> None:
    """The agents' endgame hook solves these positions (and only with two seats left)."""
    rng = np.random.default_rng(1)
    solved = 0
    for state, _ in _endgames("durak(preset=classic,players=3,deck=24)", 30, 21):
        info = state.info_state(state.current_player)
        assert isinstance(info, DurakInfoState)
        action, used = endgame_counted(info, rng, 200_000, 18)
        if action is not None:
            assert action in info.legal_actions()
            solved += 1
    assert solved >= 10
    game = load_game("durak(preset=classic,players=3,deck=24)")
    assert isinstance(game, DurakGame)
    s = game.new_dealt_state(np.random.default_rng(0))
    info = s.info_state(s.current_player)
    assert isinstance(info, DurakInfoState)
    assert endgame_counted(info, rng, 10**6, 18) == (None, 0)  # stock not empty
    agent = make_agent("ismcts:iters=50", game, seed=0)
    for state, _ in _endgames("durak(preset=classic,players=3,deck=24)", 5, 22):
        info = state.info_state(state.current_player)
        assert agent.act(info) in info.legal_actions()
