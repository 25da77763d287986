"""Durak agents: legal play, heuristics, the exact endgame solver, won endgames stay won."""

from __future__ import annotations

import numpy as np
import pytest

import spielwerk.games  # noqa: F401
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.cards import parse_card
from spielwerk.games.durak.rules import DurakGame, DurakState
from spielwerk.games.durak.rules import make_position as position


def play(st: DurakState, *moves: str) -> None:
    for m in moves:
        st.apply(st.string_to_action(m))

FAST = {
    "random": "random",
    "greedy": "greedy",
    "smart": "smart",
    "mcts": "mcts:worlds=3:iters=10:solver_nodes=20000",
    "ismcts": "ismcts:iters=30:solver_nodes=20000",
    "minimax": "minimax:worlds=2:depth=2:solver_nodes=20000",
}


@pytest.mark.parametrize("spec", ["durak(preset=zarlykov2023)", "durak(preset=perevodnoy)"])
def test_every_agent_plays_legal_games(spec: str) -> None:
    game = load_game(spec)
    names = list(FAST)
    for i, name in enumerate(names):
        other = names[(i + 1) % len(names)]
        agents = [make_agent(FAST[name], game, seed=i), make_agent(FAST[other], game, seed=i + 9)]
        state = game.new_dealt_state(i)  # type: ignore[attr-defined]
        while not state.is_terminal():
            p = state.current_player
            action = agents[p].act(state.info_state(p))
            assert action in state.legal_actions()
            state.apply(action)


def test_bad_agent_parameters() -> None:
    game = load_game("durak")
    with pytest.raises(AgentSpecError):
        make_agent("mcts:rollout=clever", game)
    with pytest.raises(AgentSpecError):
        make_agent("random:voluntary=2", game)
    with pytest.raises(AgentSpecError):
        make_agent("greedy", load_game("kalah"))  # kalah's greedy is another agent
        make_agent("smart", load_game("kalah"))


def test_greedy_heuristics() -> None:
    game = load_game("durak(preset=zarlykov2023)")
    greedy = make_agent("greedy", game)
    st = position(game, ["S6 HA C9 DT S7 H6", "CJ CQ DA SA D7 C8"], "H7", ["H7"])
    assert st.action_to_string(greedy.act(st.info_state(0))) == "S6"  # lowest plain card
    play(st, "S6")
    assert st.action_to_string(greedy.act(st.info_state(1))) == "SA"  # only spade that beats
    st = position(game, ["S6 HA C9 DT S7 H6", "CJ CQ DA D7 C8 D9"], "H7", ["H7"])
    play(st, "S6")
    assert greedy.act(st.info_state(1)) == K.TAKE  # cannot beat


def test_smart_prefers_cards_the_defender_cannot_beat() -> None:
    game = load_game("durak(preset=zarlykov2023)")
    st = position(game, ["S6 D7 CA CK DA DK", "SA SK C6 C7 D6 DQ"], "HQ", ["HQ"])
    st.S[K.KNOWN + 1] = (1 << parse_card("SA")) | (1 << parse_card("SK"))  # seen when taken
    greedy, smart = make_agent("greedy", game), make_agent("smart", game)
    assert st.action_to_string(greedy.act(st.info_state(0))) == "S6"
    assert st.action_to_string(smart.act(st.info_state(0))) == "D7"


def test_random_voluntary_take() -> None:
    game = load_game("durak")
    agent = make_agent("random:voluntary=1.0", game, seed=0)
    st = position(game, ["S6 HA", "S7 S8 C9"], "H7", [])
    play(st, "S6")
    assert agent.act(st.info_state(1)) == K.TAKE


# ----------------------------------------------------------------------------- endgames
def brute_force(S: np.ndarray, memo: dict[bytes, int] | None = None) -> int:
    """Value for seat 0 by full minimax without pruning (memoized): the oracle."""
    if S[K.PHASE] == K.PH_OVER:
        loser = S[K.LOSER]
        return 0 if loser < 0 else (1 if loser == 1 else -1)
    memo = {} if memo is None else memo
    T = S.copy()
    T[K.PLIES] = 0
    key = T.tobytes()
    if key in memo:
        return memo[key]
    buf = np.empty(K.MAX_ACTIONS, np.int64)
    n = K.legal_actions(S, buf)
    vals = []
    for a in buf[:n]:
        child = S.copy()
        K.apply_action(child, int(a))
        vals.append(brute_force(child, memo))
    value = max(vals) if S[K.TO_MOVE] == 0 else min(vals)
    memo[key] = value
    return value


def endgames(game: DurakGame, count: int, max_cards: int, seed: int) -> list[DurakState]:
    """Positions with an empty stock and at most ``max_cards`` cards in the two hands."""
    rng = np.random.default_rng(seed)
    out: list[DurakState] = []
    tries = 0
    while len(out) < count and tries < 400:
        tries += 1
        st = game.new_dealt_state(rng)
        while not st.is_terminal():
            S = st.S
            total = K.popcount(int(S[K.HANDS])) + K.popcount(int(S[K.HANDS + 1]))
            if K.stock_size(S) == 0 and total <= max_cards and rng.random() < 0.5:
                out.append(st.clone())
                break
            legal = st.legal_actions()
            st.apply(legal[int(rng.integers(len(legal)))])
    return out


@pytest.mark.parametrize("spec", ["durak(preset=zarlykov2023)", "durak"])
def test_solver_matches_brute_force(spec: str) -> None:
    game = load_game(spec)
    assert isinstance(game, DurakGame)
    positions = endgames(game, 10, 6, 1)
    assert len(positions) >= 8
    for st in positions:
        rows = K.solve_root(st.S, 2_000_000, 16)
        sign = 1 if st.current_player == 0 else -1
        for action, value in rows:
            child = st.S.copy()
            K.apply_action(child, int(action))
            assert value == sign * brute_force(child)
        best = K.solve_best(st.S, 2_000_000, 16)
        assert best[1] == rows[:, 1].max()
        assert best[1] == dict(map(tuple, rows.tolist()))[int(best[0])]


def _play_out(st: DurakState, seat: int, bot_spec: str, opp_spec: str, seed: int) -> list[float]:
    game = st.dgame
    bot = make_agent(bot_spec, game, seed=seed)
    opp = make_agent(opp_spec, game, seed=seed + 1)
    st = st.clone()  # type: ignore[assignment]
    while not st.is_terminal():
        p = st.current_player
        agent = bot if p == seat else opp
        st.apply(agent.act(st.info_state(p)))
    return st.returns()


ENDGAME_BOTS = {
    "mcts": "mcts:worlds=3:iters=10:solver_nodes=1000000",
    "ismcts": "ismcts:iters=30:solver_nodes=1000000",
    "minimax": "minimax:worlds=2:depth=2:solver_nodes=1000000",
}


def test_no_bot_loses_a_won_endgame() -> None:
    """Stock empty, 2 players, all cards known: a position the mover can win is won by every
    search bot (their exact solver finishes within its node budget here) against greedy and
    random opponents."""
    game = load_game("durak(preset=zarlykov2023)")
    assert isinstance(game, DurakGame)
    won = []
    for st in endgames(game, 30, 10, 2):
        best = K.solve_best(st.S, 1_000_000, 20)
        if best[1] == 1:
            won.append(st)
    assert len(won) >= 6
    greedy_failed = 0
    for i, st in enumerate(won[:8]):
        seat = st.current_player
        for bot, spec in ENDGAME_BOTS.items():
            for opp in ("greedy", "random"):
                ret = _play_out(st, seat, spec, opp, i)
                assert ret[seat] == 1.0, (bot, opp, str(st))
        greedy_failed += _play_out(st, seat, "greedy", "smart", i)[seat] < 1.0
    print(f"greedy failed to win {greedy_failed} of {min(8, len(won))} won endgames")
