"""The compiled Durak SO-ISMCTS (games/durak/fast_ismcts.py) against the generic search
(mc/ismcts.py) it compiles: same root statistics up to sampling noise, budgets kept,
deterministic for a seed, the tree grows past its first size, threads add up."""

from __future__ import annotations

import time

import numpy as np
import pytest

from spielwerk.core.agent import make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import sample_chance
from spielwerk.core.registry import load_game
from spielwerk.games.durak import policies
from spielwerk.games.durak.agents import make_rollout
from spielwerk.games.durak.fast_ismcts import _inputs, _Tree, ismcts_durak
from spielwerk.games.durak.rules import DurakInfoState
from spielwerk.mc.ismcts import ismcts_search
from spielwerk.mc.mcts import SearchError

GAME = load_game("durak(preset=zarlykov2023)")


def _positions(deals: int, seed: int, players: int = 2) -> list[DurakInfoState]:
    """Decisions with hidden cards (stock not empty, two or more moves) from greedy games."""
    game = GAME if players == 2 else load_game(f"durak(preset=classic,players={players})")
    rng = np.random.default_rng(seed)
    greedy = make_agent("greedy", game, 0)
    out: list[DurakInfoState] = []
    for _ in range(deals):
        s = game.new_initial_state()
        while not s.is_terminal():
            p = s.current_player
            if p < 0:
                s.apply(sample_chance(s, rng))
                continue
            info = s.info_state(p)
            assert isinstance(info, DurakInfoState)
            if len(info.legal_actions()) > 1 and info.stock > 0:
                out.append(info)
            s.apply(greedy.act(info))
    return out


POSITIONS = _positions(2, 5)[::4][:6]


def test_root_statistics_match_the_generic_search() -> None:
    """Mean values of well-visited root moves agree with mc/ismcts.py (greedy rollouts)
    within sampling noise; every iteration passes through exactly one root move."""
    rollout = make_rollout("greedy")
    compared = 0
    for k, info in enumerate(POSITIONS):
        fast = ismcts_durak(info, iterations=8000, rng=np.random.default_rng(k))
        slow = ismcts_search(info, iterations=8000, rng=np.random.default_rng(k),
                             rollout=rollout)
        assert set(fast.visits) == set(info.legal_actions())
        assert sum(fast.visits.values()) == fast.iterations == 8000
        for a, n in fast.visits.items():
            if n >= 1500 and slow.visits.get(a, 0) >= 1500:
                assert abs(fast.values[a] - slow.values[a]) < 0.05, (k, a)
                compared += 1
    assert compared >= 4


def test_same_seed_same_search_and_threads_share_iterations() -> None:
    info = POSITIONS[0]
    a = ismcts_durak(info, iterations=3000, rng=np.random.default_rng(3))
    b = ismcts_durak(info, iterations=3000, rng=np.random.default_rng(3))
    assert a.visits == b.visits and a.values == b.values
    two = ismcts_durak(info, iterations=3001, rng=np.random.default_rng(3), threads=2)
    assert two.iterations == 3001 == sum(two.visits.values())


def test_a_time_budget_alone_ends_the_search() -> None:
    """With only ``time_limit`` the real clock ends the search, alone and on two threads,
    with every iteration in the visits. How close to the budget it ends is checked on a
    stand-in clock in test_durak_time_budget.py, so no figure here depends on this
    machine's speed."""
    info = POSITIONS[1]
    ismcts_durak(info, iterations=10, rng=np.random.default_rng(0))  # compiled already
    for threads in (1, 2):
        res = ismcts_durak(info, time_limit=0.05, rng=np.random.default_rng(1),
                           threads=threads, start=time.perf_counter())
        assert res.iterations >= threads  # each thread runs at least one batch
        assert sum(res.visits.values()) == res.iterations


def test_tree_grows_past_its_first_size() -> None:
    info = POSITIONS[2]
    gt = GAME.game_type
    args = (*_inputs(info, None), 0.7, policies.POLICY_GREEDY, 0.0, float(gt.min_utility),
            float(gt.max_utility - gt.min_utility), 0.0, 0.0)
    tree = _Tree(args, 3)
    tree.run(500, 11)
    visits, values = tree.root()
    assert tree.iterations == 500 == sum(visits.values())
    assert len(tree.T) >= int(tree.used[0]) > 3
    assert all(0.0 <= v <= 1.0 for v in values.values())


def test_weighted_worlds_and_more_players() -> None:
    """Weights (as inference makes them) deal the hidden cards; 3 players search too."""
    info = POSITIONS[3]
    W = np.ones((2, 52))
    res = ismcts_durak(info, iterations=500, rng=np.random.default_rng(2), weights=W)
    assert sum(res.visits.values()) == 500
    for info3 in _positions(1, 8, players=3)[:3]:
        res = ismcts_durak(info3, iterations=400, rng=np.random.default_rng(4))
        assert set(res.visits) == set(info3.legal_actions())


def test_bad_requests_are_refused() -> None:
    info = POSITIONS[0]
    with pytest.raises(SearchError):
        ismcts_durak(info, rng=np.random.default_rng(0))
    with pytest.raises(SearchError):
        ismcts_durak(info, iterations=0, rng=np.random.default_rng(0))
    with pytest.raises(SearchError):
        ismcts_durak(info, iterations=5, threads=0, rng=np.random.default_rng(0))
    open_game = load_game("durak(preset=zarlykov2023,open=true)")
    s = open_game.new_initial_state()
    rng = np.random.default_rng(0)
    while s.current_player < 0:
        s.apply(sample_chance(s, rng))
    open_info = s.info_state(s.current_player)
    assert isinstance(open_info, DurakInfoState)
    with pytest.raises(SpielwerkError):
        ismcts_durak(open_info, iterations=5, rng=rng)


def test_agent_engines_both_play() -> None:
    """``ismcts`` (compiled by default) and ``ismcts:engine=python`` give legal moves and
    the compiled agent is reproducible for a seed."""
    for spec in ("ismcts:iters=300", "ismcts:iters=300:engine=python",
                 "ismcts:iters=300:threads=2", "ismcts:iters=300:infer=0.8"):
        moves = []
        for _ in range(2):
            agent = make_agent(spec, GAME, seed=5)
            moves.append([agent.act(info) for info in POSITIONS])
        assert moves[0] == moves[1], spec
        assert all(m in info.legal_actions() for m, info in zip(moves[0], POSITIONS,
                                                                  strict=True))


def test_progressive_bias_leads_to_the_heuristic_move() -> None:
    """A strong bias at the player's own nodes makes greedy's move (from the player's
    hand and the public facts) the most visited at the root; bias 0 is the plain search;
    a bias at the other seats' nodes changes the statistics, not the rules; negative
    biases are refused."""
    for k, info in enumerate(POSITIONS):
        rng = np.random.default_rng
        plain = ismcts_durak(info, iterations=600, rng=rng(k))
        assert ismcts_durak(info, iterations=600, rng=rng(k), bias=0.0).visits == plain.visits
        h = int(policies.greedy_action(info._partial_state(), False))
        assert h in info.legal_actions()
        biased = ismcts_durak(info, iterations=600, rng=rng(k), bias=100.0)
        assert biased.visits[h] == max(biased.visits.values()), (k, h, biased.visits)
        other = ismcts_durak(info, iterations=600, rng=rng(k), bias_other=100.0)
        assert set(other.visits) == set(info.legal_actions())
    changed = [ismcts_durak(info, iterations=600, rng=np.random.default_rng(1),
                            bias_other=100.0).visits
               != ismcts_durak(info, iterations=600, rng=np.random.default_rng(1)).visits
               for info in POSITIONS]
    assert any(changed)
    with pytest.raises(SearchError):
        ismcts_durak(POSITIONS[0], iterations=5, bias=-1.0, rng=np.random.default_rng(0))
    with pytest.raises(SearchError):
        ismcts_durak(POSITIONS[0], iterations=5, bias_other=-0.5, rng=np.random.default_rng(0))
