"""Playing single games: seeding, what agents see, chance sampling, agent failures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from spielwerk.arena.match import (
    AgentFailedError,
    ArenaError,
    GameTask,
    agent_seed,
    build_agents,
    derive_seed,
    play_game,
    play_one,
    run_task,
)
from spielwerk.core import agent as agent_module
from spielwerk.core.agent import Agent, register_agent
from spielwerk.core.game import Game, InfoState, State
from spielwerk.core.registry import load_game


class SpyAgent(Agent):
    """Plays the highest legal action and records everything it is given."""

    log: list[tuple[str, Any]] = []

    def act(self, info_state: InfoState) -> int:
        SpyAgent.log.append(("act", (id(self), type(info_state), info_state.player,
                                     isinstance(info_state, State))))
        return max(info_state.legal_actions())

    def inform(self, action: int) -> None:
        SpyAgent.log.append(("inform", (id(self), action)))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        SpyAgent.log.append(("reset", (id(self), seed)))


class IllegalAgent(Agent):
    def act(self, info_state: InfoState) -> int:
        return 99


@pytest.fixture
def test_agents() -> Iterator[None]:
    register_agent("arena_spy", SpyAgent, {}, "test only")
    register_agent("arena_illegal", IllegalAgent, {}, "test only")
    SpyAgent.log = []
    yield
    agent_module._AGENTS.pop((None, "arena_spy"), None)
    agent_module._AGENTS.pop((None, "arena_illegal"), None)


def test_same_seed_same_game_and_seeds_matter() -> None:
    a = play_one("kalah(pits=4,seeds=3)", ["random", "random"], seed=5)
    b = play_one("kalah(pits=4,seeds=3)", ["random", "random"], seed=5)
    assert a.outcome() == b.outcome()
    outcomes = {play_one("kalah(pits=4,seeds=3)", ["random", "random"], seed=s).returns
                for s in range(8)}
    assert len(outcomes) > 1


def test_derived_seeds_are_stable_and_distinct() -> None:
    assert derive_seed(1, 2, 3) == derive_seed(1, 2, 3)
    assert len({derive_seed(1, i) for i in range(100)}) == 100
    assert agent_seed(7, 0) != agent_seed(7, 1)
    assert 0 <= derive_seed(2**40, 5) < 2**63
    with pytest.raises(ArenaError):
        derive_seed(-1)


def test_agents_see_only_info_states_and_hear_every_action(
    toy_game: Callable[..., Game], test_agents: None
) -> None:
    game = toy_game()
    task = GameTask("t", game.spec(), ("arena_spy", "arena_spy"), ("a", "b"), seed=11,
                    chance_seed=12)
    agents = build_agents(task, game)
    resets = [entry for kind, entry in SpyAgent.log if kind == "reset"]
    assert resets == [(id(agents[0]), agent_seed(11, 0)), (id(agents[1]), agent_seed(11, 1))]
    returns, moves, history = play_game(game, agents, np.random.default_rng(12))
    acts = [entry for kind, entry in SpyAgent.log if kind == "act"]
    assert acts, "the spies never acted"
    seat_of = {id(agents[0]): 0, id(agents[1]): 1}
    for agent_id, info_type, player, is_state in acts:
        assert issubclass(info_type, InfoState) and not is_state
        assert player == seat_of[agent_id]
    assert moves == len(acts) == len(history) - 2  # two chance cards dealt first
    for agent in agents:  # every action, chance included, in order
        heard = [a for kind, (aid, a) in
                 ((k, e) for k, e in SpyAgent.log if k == "inform") if aid == id(agent)]
        assert heard == history
    assert returns == [2.0, -2.0] or returns == [-2.0, 2.0]  # bet and call: stake 2


def test_chance_nodes_follow_their_probabilities(toy_game: Callable[..., Game],
                                                 test_agents: None) -> None:
    game = toy_game()
    rng = np.random.default_rng(0)
    first_cards: Counter[int] = Counter()
    n = 3000
    for _ in range(n):
        agents = [SpyAgent(game, 0), SpyAgent(game, 1)]
        _, _, history = play_game(game, agents, rng)
        first_cards[history[0]] += 1
    # first card c has weight c + 1 of 6
    for card, weight in ((0, 1), (1, 2), (2, 3)):
        expected = n * weight / 6
        assert abs(first_cards[card] - expected) < 4 * np.sqrt(expected)


def test_same_chance_seed_same_deal(toy_game: Callable[..., Game], test_agents: None) -> None:
    game = toy_game(cards=6)
    deals = set()
    for agent_seed_base in range(4):
        agents = [SpyAgent(game, agent_seed_base), SpyAgent(game, agent_seed_base + 1)]
        _, _, history = play_game(game, agents, np.random.default_rng(42))
        deals.add(tuple(history[:2]))
    assert len(deals) == 1
    other = {tuple(play_game(game, [SpyAgent(game), SpyAgent(game)],
                             np.random.default_rng(s))[2][:2]) for s in range(10)}
    assert len(other) > 1


def test_illegal_agent_action_names_the_agent(test_agents: None) -> None:
    task = GameTask("t", load_game("kalah").spec(), ("random", "arena_illegal"),
                    ("rnd", "cheater"), seed=1, chance_seed=2)
    with pytest.raises(AgentFailedError, match="agent cheater \\(seat 1\\).*illegal action 99"):
        run_task(task)


def test_wrong_number_of_agents() -> None:
    with pytest.raises(ArenaError, match="needs 2 agents"):
        play_one("kalah", ["random"])


def test_result_records_the_task() -> None:
    r = play_one("kalah(pits=3,seeds=2)", ["greedy", "random"], seed=3)
    assert r.agents == ("greedy", "random")
    assert r.moves > 0 and r.duration_s > 0
    assert r.returns[0] == -r.returns[1]
    assert r.game == load_game("kalah(pits=3,seeds=2)").spec()


def test_bulk_seeds_equal_derive_seed_one_by_one() -> None:
    import random

    from spielwerk.arena.match import derive_seed
    from spielwerk.arena.seeds import derive_seeds

    r = random.Random(5)
    rows = [tuple(r.choice([0, 1, 1_000_003, r.randrange(2**32), r.randrange(2**63)])
                  for _ in range(r.randint(1, 7))) for _ in range(500)]
    assert derive_seeds(rows) == [derive_seed(*row) for row in rows]


def test_result_record_has_every_field() -> None:
    import dataclasses

    from spielwerk.arena.match import GameResult

    result = play_one("kalah(pits=3,seeds=2)", ["random", "random"], seed=4)
    record = result.to_record()
    assert list(record) == [f.name for f in dataclasses.fields(GameResult)][:-1]
    assert GameResult.from_record(record) == result
    detailed = dataclasses.replace(result, details={"a": [1]})
    assert GameResult.from_record(detailed.to_record()) == detailed
