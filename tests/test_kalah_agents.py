"""Kalah agents against oracles written here: brute-force minimax and a greedy scan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from spielwerk import load_game, make_agent
from spielwerk.core.agent import AgentSpecError
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.testing import random_playout
from spielwerk.games.kalah.agents import AlphaBetaAgent, GreedyAgent, alphabeta_root_values
from spielwerk.games.kalah.rules import KalahGame, KalahState


def minimax(state: KalahState, depth: int, me: int) -> int:
    """Plain minimax over the State API: store difference for ``me`` at the horizon."""
    if state.is_terminal() or depth == 0:
        return state.store(me) - state.store(1 - me)
    values = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        values.append(minimax(child, depth - 1, me))
    return max(values) if state.current_player == me else min(values)


def brute_root_values(state: KalahState, depth: int) -> dict[int, int]:
    me = state.current_player
    out = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        out[action] = minimax(child, depth - 1, me)
    return out


def positions(spec: str, count: int, seed: int) -> list[KalahState]:
    """Non-terminal positions from random games (a random prefix of each)."""
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    found: list[KalahState] = []
    while len(found) < count:
        final = random_playout(game, int(rng.integers(2**31)))
        cut = int(rng.integers(len(final.history)))
        state = game.new_initial_state()
        for action in final.history[:cut]:
            state.apply(action)
        found.append(state)
    return found


@pytest.mark.parametrize(
    "spec",
    [
        "kalah(pits=3,seeds=3)",
        "kalah(pits=4,seeds=2,empty_capture=true)",
        "kalah(pits=2,seeds=4,end_rule=mover_empty)",
    ],
)
@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_alphabeta_values_equal_brute_force_minimax(spec: str, depth: int) -> None:
    for state in positions(spec, 12, seed=depth):
        values = alphabeta_root_values(state, depth)
        brute = brute_root_values(state, depth)
        for pit in range(state.kgame.pits):
            if pit in brute:
                assert values[pit] == brute[pit], (state.board, depth, pit)
            else:
                assert values[pit] == -1_000_000_000
        agent = AlphaBetaAgent(state.game, seed=7, depth=depth)
        best = max(brute.values())
        assert brute[agent.act(state.info_state(state.current_player))] == best


def test_alphabeta_agent_is_seeded_and_plays_legal_moves() -> None:
    game = load_game("kalah(pits=4,seeds=3)")
    for seed in range(3):
        a = make_agent("alphabeta:depth=3", game, seed=seed)
        b = make_agent("alphabeta:depth=3", game, seed=seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            info = state.info_state(state.current_player)
            move = a.act(info)
            assert move == b.act(info) and move in state.legal_actions()
            state.apply(move)


def test_alphabeta_depth_must_be_positive() -> None:
    game = load_game("kalah")
    with pytest.raises(SpielwerkError, match="parameter .depth. must be in 1..30"):
        make_agent("alphabeta:depth=0", game)
    with pytest.raises(AgentSpecError, match="'depth' must be int"):
        make_agent("alphabeta:depth=deep", game)


def greedy_best(state: KalahState) -> set[int]:
    """Moves with the best (extra turn, store gain) key, computed with the State API."""
    me = state.current_player
    keys = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        keys[action] = (child.current_player == me, child.store(me) - state.store(me))
    best = max(keys.values())
    return {a for a, k in keys.items() if k == best}


def test_greedy_picks_a_max_gain_move_in_random_positions() -> None:
    for spec in ("kalah(pits=6,seeds=4)", "kalah(pits=3,seeds=5,empty_capture=true)"):
        for i, state in enumerate(positions(spec, 60, seed=3)):
            agent = make_agent("greedy", state.game, seed=i)
            assert agent.act(state.info_state(state.current_player)) in greedy_best(state)


def test_greedy_takes_the_big_capture() -> None:
    game = load_game("kalah(pits=3,seeds=5)")
    assert isinstance(game, KalahGame)
    # pit 1 lands in the empty pit 2 and captures North's 9 (+1); pit 3 gains 1
    state = game.state_from_board([1, 0, 5, 0, 2, 9, 1, 0], 0)
    assert GreedyAgent(game, seed=0).act(state.info_state(0)) == 0


def test_greedy_prefers_an_extra_turn_to_any_gain() -> None:
    game = load_game("kalah(pits=3,seeds=5)")
    assert isinstance(game, KalahGame)
    # pit 1 would capture 10; pit 3 sows its single seed into the store: another move
    state = game.state_from_board([1, 0, 1, 0, 2, 9, 1, 0], 0)
    assert GreedyAgent(game, seed=0).act(state.info_state(0)) == 2


def test_greedy_breaks_ties_by_its_seed() -> None:
    game = load_game("kalah(pits=6,seeds=4)")
    state = game.new_initial_state()
    state.apply(2)  # South moves again; every move but pit 6 (extra turn) gains the same
    choices = {make_agent("greedy", game, seed=s).act(state.info_state(0)) for s in range(40)}
    assert choices == greedy_best(state)


def test_random_agent_plays_kalah_to_the_end() -> None:
    game = load_game("kalah(pits=5,seeds=3)")
    agents = [make_agent("random", game, seed=1), make_agent("random", game, seed=2)]
    state = game.new_initial_state()
    while not state.is_terminal():
        move = agents[state.current_player].act(state.info_state(state.current_player))
        assert move in state.legal_actions()
        state.apply(move)
    assert sum(state.returns()) == 0


def test_kalah_agents_refuse_other_games(toy_game) -> None:  # type: ignore[no-untyped-def]
    toy = toy_game()
    with pytest.raises(AgentSpecError, match="unknown agent 'greedy' for toy_highcard"):
        make_agent("greedy", toy)
    kalah_agent = make_agent("alphabeta", load_game("kalah"))
    state = toy.new_initial_state()
    with pytest.raises(SpielwerkError, match="plays Kalah only"):
        kalah_agent.act(state.info_state(0))


def test_a_timed_search_looks_at_the_clock_every_few_thousand_nodes() -> None:
    """A deadline is checked between chunks of DEADLINE_CHUNK nodes (it was 1 M nodes, and a
    0.5 s move ran 0.7-0.9 s): a deadline already past stops the search within one chunk."""
    import time

    from spielwerk.games.kalah.perfect import solver_for
    from spielwerk.games.kalah.solver import C_NODES, DEADLINE_CHUNK, SearchTimeout

    game = load_game("kalah")
    solver = solver_for(game, egdb_seeds=0, tt_log2=16)
    state = game.new_initial_state()
    rel = solver.relative(state.board, state.current_player)
    solver.deadline = time.perf_counter() - 1.0
    with pytest.raises(SearchTimeout):
        solver.test(rel, 1)
    assert 0 < solver._counters[C_NODES] <= DEADLINE_CHUNK


def test_fresh_perfect_agents_of_one_game_share_their_solver() -> None:
    """The web table makes a new agent per move: the next one of the same game and choice
    takes the last one's solver (table and database) instead of allocating its own."""
    kalah = load_game("kalah(pits=4,seeds=3)")
    first = make_agent("perfect:time=0.2:egdb=0:tt=16", kalah, seed=1)
    second = make_agent("perfect:time=0.2:egdb=0:tt=16", kalah, seed=2)
    assert second.solver is first.solver  # type: ignore[attr-defined]
    other = make_agent("perfect:time=0.2:egdb=0:tt=17", kalah, seed=3)
    assert other.solver is not first.solver  # type: ignore[attr-defined]
    state = kalah.new_initial_state()
    assert second.act(state.info_state(0)) in state.legal_actions()


def test_a_perfect_agent_loads_its_database_at_its_first_move_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Making the agent maps and checks no database (the lobby's limits probe makes one
    for about twenty sizes and plays none); its first move loads it, once."""
    from spielwerk.games.kalah import egdb, perfect

    monkeypatch.setenv("SPIELWERK_CACHE_DIR", str(tmp_path))
    egdb.open_egdb(3, 8, False, path=tmp_path / "kalah")  # cached, as the user's would be
    loads: list[int] = []
    real = egdb.load

    def counting(*args: Any, **kwargs: Any) -> Any:
        loads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(egdb, "load", counting)
    monkeypatch.setattr(perfect, "_LAST_SOLVER", None)
    game = load_game("kalah(pits=3,seeds=2)")
    agent = make_agent("perfect:time=0.5", game, seed=1)
    assert loads == [] and agent.choice.egdb_seeds > 0  # type: ignore[attr-defined]
    state = game.new_initial_state()
    assert agent.act(state.info_state(0)) in state.legal_actions()
    assert agent.act(state.info_state(0)) in state.legal_actions()
    assert loads == [1] and agent.solver.db_n == agent.choice.egdb_seeds  # type: ignore[attr-defined]
