"""The Durak kernel split: rules (kernel), policies, endgame solver; seeded rollouts."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import spielwerk.games  # noqa: F401
from spielwerk.core.registry import load_game
from spielwerk.games.durak import endgame, policies
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.agents import make_rollout
from spielwerk.games.durak.rules import DurakGame, DurakState

sys.path.insert(0, str(Path(__file__).parent))
from test_durak_agents import endgames  # noqa: E402


def _game(spec: str = "durak") -> DurakGame:
    game = load_game(spec)
    assert isinstance(game, DurakGame)
    return game


def test_old_kernel_names_still_resolve() -> None:
    # moved names are the very same functions, reached through the old module
    assert K.greedy_action is policies.greedy_action
    assert K.playout is policies.playout
    assert K.random_playouts is policies.random_playouts
    assert K.solve_best is endgame.solve_best
    assert K.solve_root is endgame.solve_root
    with pytest.raises(AttributeError, match="no attribute 'is_legal'"):
        K.is_legal  # noqa: B018 - dead code removed
    for name in ("greedy_action", "playout", "solve_best", "_solve"):
        assert name not in vars(K)  # kernel.py holds the rules only


def test_trump_value_is_rank_plus_13_above_every_plain_card() -> None:
    trump = 2  # hearts
    assert policies.card_value(0 * 4 + trump, trump) == 13  # the trump deuce
    assert policies.card_value(12 * 4 + 0, trump) == 12  # a plain ace
    plain = max(policies.card_value(c, trump) for c in range(52) if c & 3 != trump)
    trumps = [policies.card_value(c, trump) for c in range(52) if c & 3 == trump]
    assert plain < min(trumps)


def _dealt(spec: str, seed: int) -> np.ndarray:
    return _game(spec).new_dealt_state(seed).S


@pytest.mark.parametrize("spec", ["durak", "durak(preset=perevodnoy,players=3)"])
def test_random_playout_same_seed_same_game(spec: str) -> None:
    S0 = _dealt(spec, 5)
    finals = []
    for seed in (11, 11, 12, 13, 14):
        S = S0.copy()
        policies.playout(S, policies.POLICY_RANDOM, 0.2, seed)
        assert S[K.PHASE] == K.PH_OVER
        finals.append(S)
    assert (finals[0] == finals[1]).all()
    assert any((finals[0] != f).any() for f in finals[2:])


def test_random_rollout_follows_the_callers_generator() -> None:
    game = _game()
    state = game.new_dealt_state(3)
    rollout = make_rollout("random")

    def run(seed: int) -> tuple[list[float], list[int]]:
        st = state.clone()
        assert isinstance(st, DurakState)
        returns = rollout(st, np.random.default_rng(seed))
        return list(returns), st.S.tolist()

    first = run(7)
    policies.random_playouts(state.S, 3, 999)  # disturbs numba's generator in between
    assert run(7) == first
    assert any(run(s)[1] != first[1] for s in (8, 9, 10))


def test_greedy_playout_ignores_the_seed() -> None:
    S0 = _dealt("durak", 1)
    a, b = S0.copy(), S0.copy()
    policies.playout(a, policies.POLICY_GREEDY, 0.2, 1)
    policies.playout(b, policies.POLICY_GREEDY, 0.2, 2)
    assert (a == b).all()


def test_noisy_playout_mixes_greedy_and_random_moves_under_its_seed() -> None:
    S0 = _dealt("durak", 2)
    greedy = S0.copy()
    policies.playout(greedy, policies.POLICY_GREEDY, 0.2, 0)
    zero = S0.copy()
    policies.noisy_playout(zero, policies.POLICY_GREEDY, 0.0, 5)
    assert (zero == greedy).all()  # eps 0: greedy itself
    finals = []
    for seed in (3, 3, 4, 5, 6):
        S = S0.copy()
        policies.noisy_playout(S, policies.POLICY_GREEDY, 0.3, seed)
        assert S[K.PHASE] == K.PH_OVER
        finals.append(S)
    assert (finals[0] == finals[1]).all()
    assert any((finals[0] != f).any() for f in finals[2:])
    rollout = make_rollout("smart", 0.25)
    st = _game().new_dealt_state(3)
    a, b = st.clone(), st.clone()
    assert rollout(a, np.random.default_rng(1)) == rollout(b, np.random.default_rng(1))
    assert (a.S == b.S).all()  # type: ignore[attr-defined]


def test_solver_values_do_not_depend_on_the_table_size() -> None:
    """A 2-slot table (constant replacement) and a large one give the same exact values,
    and the budget-exhausted marker comes back when the budget is too small."""
    game = _game("durak(preset=zarlykov2023)")
    positions = endgames(game, 8, 10, 4)
    assert len(positions) >= 6
    for st in positions:
        big = endgame.solve_root(st.S, 5_000_000, 18)
        tiny = endgame.solve_root(st.S, 50_000_000, 1)
        assert (big == tiny).all()
        best = endgame.solve_best(st.S, 5_000_000, 18)
        assert best[1] == big[:, 1].max()
    rows = endgame.solve_root(endgames(game, 1, 12, 9)[0].S, 2, 10)
    assert (rows[:, 1] == endgame.BUDGET_EXHAUSTED).all()


def test_mcts_with_random_rollouts_repeats_under_its_seed() -> None:
    from spielwerk.core.agent import make_agent

    game = _game()
    state = game.new_dealt_state(8)
    while len(state.legal_actions()) < 3:  # a real choice
        state.apply(state.legal_actions()[0])
    info = state.info_state(state.current_player)
    spec = "mcts:worlds=2:iters=40:rollout=random:solver=false"
    first = make_agent(spec, game, seed=4).act(info)
    policies.random_playouts(state.S, 2, 123)  # numba's generator moves in between
    assert make_agent(spec, game, seed=4).act(info) == first
