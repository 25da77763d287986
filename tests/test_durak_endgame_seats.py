"""Endgames of 3 and 4 players in which two seats are left (stock empty): the 2-player
state of endgame.two_seat_state plays the same game (lockstep against the original
rules), the solver's value matches a brute-force search of the original position, and
the search agents play those endgames exactly. With three or more seats in play, the
paranoid search matches a brute force too."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from spielwerk.core.agent import make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import sample_chance
from spielwerk.core.registry import load_game
from spielwerk.games.durak import agents, endgame
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.agents import endgame_counted
from spielwerk.games.durak.endgame import solve_best, two_seat_state
from spielwerk.games.durak.rules import DurakGame, DurakInfoState, DurakState
from spielwerk.search import tt


def _legal(S: np.ndarray) -> list[int]:
    buf = np.empty(K.MAX_ACTIONS, np.int64)
    return [int(a) for a in buf[:K.legal_actions(S, buf)]]


def _two_seats(S: np.ndarray) -> tuple[int, int] | None:
    if S[K.PHASE] in (K.PH_DEAL, K.PH_OVER) or K.stock_size(S) != 0:
        return None
    seats = sorted({q for q in range(int(S[K.NPLAYERS])) if S[K.HANDS + q] != 0}
                   | {int(S[K.ATTACKER]), int(S[K.DEFENDER])})
    return (seats[0], seats[1]) if len(seats) == 2 else None


def _first_positions(spec: str, games: int, seed: int,
                     pick: Callable[[DurakState], Any]) -> list[tuple[DurakState, Any]]:
    """Random games (random moves, so every phase shows up): per game the first decision
    for which ``pick`` returns something other than None, with what it returned."""
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
            tag = pick(s)
            if tag is not None:
                out.append((s.clone(), tag))
                break
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
    return out  # type: ignore[return-value]


def _endgames(spec: str, games: int, seed: int) -> list[tuple[DurakState, tuple[int, int]]]:
    """Positions with two seats left (games of 3+ players), one per game."""
    return _first_positions(spec, games, seed,
                            lambda s: _two_seats(s.S) if s.dgame.players > 2 else None)


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


def _open_endgames(spec: str, games: int, seed: int, cards: int) -> list[DurakState]:
    """Decisions with the stock empty, three or more seats still in play and at most
    ``cards`` cards in the hands (the first such decision of each game)."""

    def pick(s: DurakState) -> bool | None:
        S, seats = s.S, range(int(s.S[K.NPLAYERS]))
        in_play = sum(S[K.HANDS + q] != 0 for q in seats)
        held = sum(K.popcount(S[K.HANDS + q]) for q in seats)
        return True if K.stock_size(S) == 0 and in_play >= 3 and held <= cards else None

    return [state for state, _ in _first_positions(spec, games, seed, pick)]


class _Cycle(Exception):
    """The position can come back (takes around the table): no finite game tree; or the
    tree is too big for this brute force."""


def _paranoid_brute(S: np.ndarray, root: int) -> int:
    """Full search: ``root`` maximizes, every other seat minimizes (+1 someone else is the
    durak, -1 ``root`` is, 0 nobody); raises :class:`_Cycle` where a position recurs or
    past 20,000 positions."""
    done: dict[bytes, int] = {}
    open_: set[bytes] = set()

    def value(X: np.ndarray) -> int:
        Y = X.copy()
        Y[K.PLIES] = 0
        Y[K.BOUT] = min(int(Y[K.BOUT]), 1)  # bouts counted apart only for the first
        Y[K.KNOWN:K.KNOWN + K.MAX_PLAYERS] = 0  # what others know decides no move
        key = Y.tobytes()
        if key in done:
            return done[key]
        if key in open_ or len(done) > 20_000:
            raise _Cycle
        if X[K.PHASE] == K.PH_OVER:
            loser = int(X[K.LOSER])
            return 0 if loser < 0 else (-1 if loser == root else 1)
        open_.add(key)
        vals = []
        for act in _legal(X):
            Z = X.copy()
            K.apply_action(Z, act)
            vals.append(value(Z))
        open_.discard(key)
        done[key] = max(vals) if X[K.TO_MOVE] == root else min(vals)
        return done[key]

    return value(S)


def test_paranoid_values_match_brute_force() -> None:
    """Three or four seats in play: every action's paranoid value (the mover against all
    the others) equals a full search in which the mover maximizes and the rest minimize;
    paranoid_best on the true deal alone picks an action of the best value. (Positions
    that can recur are left out: there the brute force has no finite tree, and the
    solver gives up at its depth limit, so the agents search instead.)"""
    checked = 0
    for players in (3, 4):
        for state in _open_endgames(f"durak(preset=classic,players={players},deck=24)", 600,
                                    30 + players, 5):
            S = state.S
            mover = int(S[K.TO_MOVE])
            try:
                brute = {}
                for a in _legal(S):
                    X = S.copy()
                    K.apply_action(X, a)
                    brute[a] = _paranoid_brute(X, mover)
            except _Cycle:
                continue
            rows = endgame._root_values(S, tt.new_table(16), np.array([10**7], np.int64),
                                        mover, 1)
            assert {int(a): int(v) for a, v in rows} == brute, (players, S.tolist())
            action, used = endgame.paranoid_best([S], 10**7, 16)
            assert action is not None and brute[action] == max(brute.values())
            assert used > 0
            checked += 1
    assert checked >= 10


def test_paranoid_best_over_sampled_deals_and_limits() -> None:
    rng = np.random.default_rng(5)
    found = _open_endgames("durak(preset=classic,players=3,deck=24)", 80, 41, 12)
    assert len(found) >= 10
    solved = 0
    for state in found:
        info = state.info_state(state.current_player)
        assert isinstance(info, DurakInfoState)
        assert endgame_counted(info, rng, 10**6, 18) == (None, 0)  # paranoid off
        action, used = endgame_counted(info, rng, 10**6, 18, worlds=4)
        assert used > 0
        if action is not None:
            assert action in info.legal_actions()
            solved += 1
        worlds = [info.sample_world(rng).S for _ in range(3)]
        assert endgame.paranoid_best(worlds, 1, 12) == (None, 1)  # budget ran out
    assert solved >= 5
    S = found[0].S
    with pytest.raises(ValueError, match="at least one world"):
        endgame.paranoid_best([], 1000, 12)
    other = S.copy()
    other[K.TO_MOVE] = (int(S[K.TO_MOVE]) + 1) % int(S[K.NPLAYERS])
    with pytest.raises(ValueError, match="one position"):
        endgame.paranoid_best([S, other], 1000, 12)
    info = found[0].info_state(found[0].current_player)
    assert isinstance(info, DurakInfoState)
    with pytest.raises(SpielwerkError, match="must not be negative"):
        endgame_counted(info, rng, 1000, 12, worlds=-1)


def test_search_agents_play_paranoid_endgames(monkeypatch: pytest.MonkeyPatch) -> None:
    """``paranoid=N`` agents search 3-seat endgames with N sampled deals and move legally;
    without it they never call the paranoid search."""
    calls: list[int] = []

    def counted(worlds: list[np.ndarray], nodes: int, bits: int) -> tuple[int | None, int]:
        calls.append(len(worlds))
        return endgame.paranoid_best(worlds, nodes, bits)

    monkeypatch.setattr(agents, "paranoid_best", counted)
    game = load_game("durak(preset=classic,players=3,deck=24)")
    positions = _open_endgames("durak(preset=classic,players=3,deck=24)", 20, 51, 12)
    for spec, worlds in (("ismcts:iters=30:paranoid=4", 4), ("mcts:worlds=2:iters=10", 0),
                         ("mcts:worlds=2:iters=10:paranoid=2", 2),
                         ("minimax:worlds=2:depth=1:paranoid=2:time=0.05", 2)):
        calls.clear()
        agent = make_agent(spec, game, seed=3)
        for state in positions:
            info = state.info_state(state.current_player)
            assert agent.act(info) in info.legal_actions()
        if worlds:
            assert len(calls) >= 3 and set(calls) == {worlds}, spec
        else:
            assert calls == [], spec
