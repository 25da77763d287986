"""Durak search agents keep to their time budget (``time=``): the solver and the search
share one clock that starts when the move starts.

Wall time on a shared machine depends on its load, so the budget logic is checked on a
fake clock (each simulation costs a fixed amount of fake time), and the real solver on
CPU time with a generous bound.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pytest

import spielwerk.games  # noqa: F401
from spielwerk.core.agent import make_agent
from spielwerk.core.game import State
from spielwerk.core.registry import load_game
from spielwerk.games.durak import agents as DA
from spielwerk.games.durak import fast_ismcts as FI
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.policies import greedy_action
from spielwerk.games.durak.rules import DurakGame, DurakInfoState
from spielwerk.mc.determinize import determinized_mcts
from spielwerk.mc.mcts import Budget


class FakeClock:
    """``time.perf_counter`` stand-in: moves only when told to (plus a tiny tick per read,
    so a loop that never reads the clock would still be caught by its iteration count)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += 1e-7
        return self.now


def _positions(game: DurakGame, stock_empty: bool, n: int, seed: int) -> list[DurakInfoState]:
    rng = np.random.default_rng(seed)
    out: list[DurakInfoState] = []
    while len(out) < n:
        st = game.new_dealt_state(rng)
        while not st.is_terminal():
            info = st.info_state(st.current_player)
            # endgames: the first decision after the stock ran out (the most cards left)
            if (len(info.legal_actions()) > 1 and (info.stock == 0) == stock_empty
                    and (stock_empty or rng.random() < 0.3)):
                out.append(info)
                break
            st.apply(int(greedy_action(st.S, False)))
    return out


@pytest.fixture(scope="module")
def game() -> DurakGame:
    g = load_game("durak(preset=zarlykov2023)")
    assert isinstance(g, DurakGame)
    return g


def test_budget_reads_the_clock_after_every_iteration(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    b = Budget(time_limit=0.01)
    clock.now += 0.0099
    assert not b.done(1)
    clock.now += 0.0002
    assert b.done(2)  # not only every eighth iteration
    early = Budget(time_limit=0.01, start=clock.now - 0.02)  # set-up already spent it
    assert early.done(1) and not early.done(0)


@pytest.mark.parametrize("spec", ["mcts:time=0.02", "ismcts:time=0.02:engine=python",
                                  "mcts:time=0.1", "ismcts:time=0.1:engine=python"])
def test_search_stops_within_one_simulation_of_the_budget(
        spec: str, game: DurakGame, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each simulation costs 0.1 ms of fake time and sampling a world 0.03 ms (a few
    times their real cost): the move (sampling included) ends within 1.1 x the budget."""
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    agent = make_agent(spec, game, seed=1)
    assert isinstance(agent, DA.DurakMCTSAgent | DA.DurakISMCTSAgent)
    inner = agent._rollout

    def slow_rollout(state: State, rng: np.random.Generator) -> Sequence[float]:
        clock.now += 0.0001
        return inner(state, rng)

    def slow_sampler(info: object) -> object:
        def sample(info_state: DurakInfoState, rng: np.random.Generator) -> State:
            clock.now += 0.00003
            return info_state.sample_world(rng)
        return sample

    agent._rollout = slow_rollout
    monkeypatch.setattr(agent, "sampler", slow_sampler)
    budget = float(spec.split("=")[1].split(":")[0])
    for info in _positions(game, False, 4, 7):
        t0 = clock.now
        agent.act(info)
        assert clock.now - t0 <= 1.1 * budget, (spec, clock.now - t0)
        assert clock.now - t0 >= 0.9 * budget  # and it used its time


@pytest.mark.parametrize("spec", ["ismcts:time=0.02", "ismcts:time=0.1",
                                  "ismcts:time=0.1:threads=2"])
def test_compiled_search_stops_within_a_batch_of_the_budget(
        spec: str, game: DurakGame, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled ISMCTS reads the clock between batches of iterations: with each
    iteration costing 20 us of fake time, every move ends within 1.1 x the budget and
    uses at least 0.9 x of it."""
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    real = FI.ismcts_iterations

    def costly(*args: object) -> int:
        done = int(real(*args))  # type: ignore[arg-type]
        clock.now += 2e-5 * done
        return done

    monkeypatch.setattr(FI, "ismcts_iterations", costly)
    agent = make_agent(spec, game, seed=1)
    budget = float(spec.split("=")[1].split(":")[0])
    for info in _positions(game, False, 4, 7):
        t0 = clock.now
        agent.act(info)
        assert 0.9 * budget <= clock.now - t0 <= 1.1 * budget, (spec, clock.now - t0)


def test_a_stalled_clock_cannot_grow_the_tree_without_end(
        game: DurakGame, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the clock stood still the search would never see its time run out: the tree's
    node cap ends it."""
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    monkeypatch.setattr(FI, "MAX_NODES", 5000)
    info = _positions(game, False, 1, 5)[0]
    res = FI.ismcts_durak(info, time_limit=0.1, rng=np.random.default_rng(0))
    assert 4000 <= res.iterations <= 5000


def test_slow_setup_counts_against_the_budget(game: DurakGame,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Time spent before the search (here 15 ms of a 20 ms budget) leaves the worlds the
    rest: determinized MCTS ends by its deadline, not 20 ms after the search began."""
    clock = FakeClock()
    monkeypatch.setattr(time, "perf_counter", clock)
    info = _positions(game, False, 1, 3)[0]
    roll = DA.make_rollout("greedy")

    def slow(state: State, rng: np.random.Generator) -> Sequence[float]:
        clock.now += 0.0005
        return roll(state, rng)

    start = clock.now
    clock.now += 0.015
    res = determinized_mcts(info, worlds=30, iterations=None, time_limit=0.02, rollout=slow,
                            rng=np.random.default_rng(0), start=start)
    # the worlds share the 5 ms left; no world is drawn after the deadline
    assert clock.now - start <= 0.02 + 0.0005 + 1e-4
    assert 1 <= res.iterations < 30 * 10


def test_solver_share_under_a_time_budget(game: DurakGame) -> None:
    """In known endgames the exact solver gets a node budget worth at most 40% of the move
    (by its measured speed), so no move waits for a 300,000-node solve; CPU time is
    bounded generously (the load of a shared machine does not add CPU time)."""
    infos = _positions(game, True, 12, 11)
    agent = make_agent("mcts:time=0.02", game, seed=0)
    agent.act(infos[0])  # warm-up: load the compiled kernels
    worst = 0.0
    for info in infos:
        c = time.thread_time()
        agent.act(info)
        worst = max(worst, time.thread_time() - c)
    assert worst < 0.06, worst
    assert isinstance(agent, DA.DurakMCTSAgent)
    assert 1e5 < agent.solver_rate < 1e9


def test_iteration_budgets_keep_the_fixed_solver_budget(game: DurakGame) -> None:
    """Without ``time`` the solver keeps its node budget: same seed, same move."""
    info = _positions(game, True, 1, 5)[0]
    assert info.stock == 0 and info.public[K.PHASE] != K.PH_DEAL
    moves = {make_agent("ismcts:iters=50", game, seed=s).act(info) for s in range(3)}
    assert len(moves) == 1
