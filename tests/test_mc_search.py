"""Generic MCTS, determinized MCTS and SO-ISMCTS: budgets, strength on Kalah, Durak."""

from __future__ import annotations

import time

import numpy as np
import pytest

import spielwerk.games  # noqa: F401
from spielwerk.core.agent import make_agent
from spielwerk.core.game import Game
from spielwerk.core.registry import load_game
from spielwerk.mc.determinize import determinized_mcts
from spielwerk.mc.ismcts import ismcts_search
from spielwerk.mc.mcts import SearchError, uct_search


def play_match(game: Game, spec_a: str, spec_b: str, games: int, seed: int) -> list[float]:
    """Returns of agent A over ``games`` games, seats alternated."""
    out = []
    for g in range(games):
        seat_a = g % 2
        specs = [spec_a, spec_b] if seat_a == 0 else [spec_b, spec_a]
        agents = [make_agent(sp, game, seed=seed * 1000 + g * 2 + i) for i, sp in enumerate(specs)]
        if game.name == "durak":
            state = game.new_dealt_state(seed * 1000 + g // 2)  # type: ignore[attr-defined]
        else:
            state = game.new_initial_state()
        while not state.is_terminal():
            p = state.current_player
            a = agents[p].act(state.info_state(p))
            state.apply(a)
        out.append(state.returns()[seat_a])
    return out


def test_mcts_beats_random_on_kalah() -> None:
    game = load_game("kalah(pits=4,seeds=3)")
    res = play_match(game, "mcts:iters=300", "random", 10, 1)
    assert sum(r > 0 for r in res) >= 9


def test_ismcts_beats_random_on_kalah() -> None:
    game = load_game("kalah(pits=4,seeds=3)")
    res = play_match(game, "ismcts:iters=300", "random", 10, 2)
    assert sum(r > 0 for r in res) >= 9


def test_uct_finds_the_winning_kalah_move() -> None:
    # South to move: pit 4 (index 3) ends in the store... compare with exact alpha-beta
    from spielwerk.search.alphabeta import root_values

    game = load_game("kalah(pits=3,seeds=2)")
    state = game.new_initial_state()
    exact = root_values(state, 30)
    best_value = max(exact.values())
    res = uct_search(state, iterations=3000, rng=np.random.default_rng(0))
    assert exact[res.best()] == best_value


def test_budgets() -> None:
    game = load_game("kalah")
    state = game.new_initial_state()
    res = uct_search(state, iterations=50, rng=np.random.default_rng(0))
    assert res.iterations == 50 and sum(res.visits.values()) == 50
    t = time.perf_counter()
    res = uct_search(state, time_limit=0.05, rng=np.random.default_rng(0))
    assert time.perf_counter() - t < 0.5 and res.iterations > 1
    with pytest.raises(SearchError):
        uct_search(state)
    with pytest.raises(SearchError):
        uct_search(state, iterations=0)
    info = state.info_state(0)
    vote = determinized_mcts(info, worlds=3, iterations=20, rng=np.random.default_rng(1))
    assert sum(vote.votes.values()) == 3 and vote.iterations == 60
    res = ismcts_search(info, iterations=40, rng=np.random.default_rng(2))
    assert res.iterations == 40 and sum(res.visits.values()) == 40


def test_same_seed_same_search() -> None:
    game = load_game("durak(preset=zarlykov2023)")
    state = game.new_dealt_state(5)  # type: ignore[attr-defined]
    info = state.info_state(state.current_player)
    a = determinized_mcts(info, worlds=4, iterations=30, rng=np.random.default_rng(9))
    b = determinized_mcts(info, worlds=4, iterations=30, rng=np.random.default_rng(9))
    assert a == b
    c = ismcts_search(info, iterations=100, rng=np.random.default_rng(9))
    d = ismcts_search(info, iterations=100, rng=np.random.default_rng(9))
    assert c.visits == d.visits


def test_determinized_mcts_beats_random_on_durak() -> None:
    game = load_game("durak(preset=zarlykov2023)")
    res = play_match(game, "mcts:worlds=5:iters=20:solver=false", "random", 10, 3)
    assert sum(r > 0 for r in res) >= 8


def test_generic_agents_on_multiplayer_durak() -> None:
    game = load_game("durak(players=3,deck=24,preset=perevodnoy)")
    agents = [make_agent(s, game, seed=i) for i, s in
              enumerate(["mcts:worlds=2:iters=10", "ismcts:iters=30", "minimax:worlds=2:depth=1"])]
    state = game.new_dealt_state(0)  # type: ignore[attr-defined]
    while not state.is_terminal():
        p = state.current_player
        state.apply(agents[p].act(state.info_state(p)))
    assert sum(state.returns()) == pytest.approx(0.0)
