"""Game registry and agent specs: loading, errors with helpful messages, seeded agents."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from spielwerk import list_games, load_game, make_agent
from spielwerk.core import agent as agent_module
from spielwerk.core import registry
from spielwerk.core.agent import (
    Agent,
    AgentSpecError,
    list_agents,
    parse_agent_spec,
    register_agent,
)
from spielwerk.core.errors import GameParameterError, SpielwerkError, UnknownGameError
from spielwerk.core.game import InfoState
from spielwerk.games.kalah.rules import KalahGame


# ----------------------------------------------------------------------------- games
def test_load_game_with_defaults_and_parameters() -> None:
    game = load_game("kalah")
    assert isinstance(game, KalahGame) and (game.pits, game.seeds) == (6, 4)
    game = load_game(" kalah ( pits = 3 , seeds=5, empty_capture=yes, end_rule=mover_empty ) ")
    assert isinstance(game, KalahGame)
    assert (game.pits, game.seeds, game.empty_capture, game.end_rule) == (3, 5, True, 1)


@pytest.mark.parametrize("text, value", [("true", True), ("ON", True), ("1", True),
                                         ("false", False), ("no", False), ("off", False)])
def test_bool_parameters(text: str, value: bool) -> None:
    game = load_game(f"kalah(empty_capture={text})")
    assert isinstance(game, KalahGame) and game.empty_capture is value


def test_keyword_overrides_win_over_the_spec() -> None:
    game = load_game("kalah(pits=5,seeds=2)", pits=3, empty_capture=True)
    assert isinstance(game, KalahGame)
    assert (game.pits, game.seeds, game.empty_capture) == (3, 2, True)
    with pytest.raises(GameParameterError, match="unknown parameter 'holes'"):
        load_game("kalah", holes=3)


def test_unknown_game_lists_the_known_games() -> None:
    with pytest.raises(UnknownGameError) as info:
        load_game("chess")
    message = str(info.value)
    assert message.startswith("unknown game 'chess'; known games: ")
    assert "kalah" in message
    assert isinstance(info.value, SpielwerkError) and isinstance(info.value, KeyError)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("kalah(holes=3)", "kalah: unknown parameter 'holes'; parameters: "
                           "empty_capture, end_rule, pits, seeds"),
        ("kalah(pits=three)", "kalah: parameter 'pits' must be an integer, not 'three'"),
        ("kalah(pits=4.5)", "must be an integer, not '4.5'"),
        ("kalah(empty_capture=maybe)", "'empty_capture' must be true or false, not 'maybe'"),
        ("kalah(pits)", "parameter 'pits' needs a value"),
        ("kalah(pits=3,pits=4)", "parameter 'pits' given twice"),
        ("kalah(pits=3", "cannot read game spec"),
        ("", "cannot read game spec"),
        ("9kalah", "cannot read game spec"),
    ],
)
def test_bad_game_specs(spec: str, message: str) -> None:
    with pytest.raises(GameParameterError) as info:
        load_game(spec)
    assert message in str(info.value)


def test_list_games_is_sorted_and_describes_parameters() -> None:
    entries = list_games()
    names = [e.name for e in entries]
    assert names == sorted(names) and "kalah" in names
    kalah = next(e for e in entries if e.name == "kalah")
    assert kalah.defaults == {"pits": 6, "seeds": 4, "empty_capture": False,
                              "end_rule": "either_empty"}
    assert set(kalah.parameter_help) == set(kalah.defaults) and kalah.description


def test_registering_a_name_twice(register_temporary_game) -> None:  # type: ignore[no-untyped-def]
    def factory(params: dict[str, Any]) -> KalahGame:
        return KalahGame({"pits": 2, "seeds": 2, "empty_capture": False,
                          "end_rule": "either_empty"})

    register_temporary_game("twice", factory, {})
    registry.register_game("twice", factory, {}, "same factory: allowed")
    with pytest.raises(ValueError, match="already registered"):
        registry.register_game("twice", lambda p: factory(p), {}, "another factory")
    assert "twice" in [e.name for e in list_games()]


def test_temporary_games_are_gone_afterwards() -> None:
    assert "twice" not in [e.name for e in list_games()]
    assert "toy_highcard" not in [e.name for e in list_games()]


# ----------------------------------------------------------------------------- agents
def test_parse_agent_spec() -> None:
    assert parse_agent_spec("mcts:iters=800:c=1.4") == ("mcts", {"iters": "800", "c": "1.4"})
    assert parse_agent_spec(" greedy ") == ("greedy", {})
    assert parse_agent_spec("x:expr=a=b") == ("x", {"expr": "a=b"})
    with pytest.raises(AgentSpecError, match="empty agent spec"):
        parse_agent_spec("  ")
    with pytest.raises(AgentSpecError, match="'depth' should be key=value"):
        parse_agent_spec("alphabeta:depth")


def test_unknown_agent_lists_the_known_agents_with_parameters() -> None:
    with pytest.raises(AgentSpecError) as info:
        make_agent("nosuchagent:iters=10", load_game("kalah"))
    message = str(info.value)
    assert message.startswith("unknown agent 'nosuchagent' for kalah; known agents: ")
    for usage in ("random", "greedy", "alphabeta:depth=6"):
        assert usage in message


def test_agent_parameter_errors() -> None:
    game = load_game("kalah")
    with pytest.raises(AgentSpecError, match="unknown parameter 'width'; parameters: depth"):
        make_agent("alphabeta:width=3", game)
    with pytest.raises(AgentSpecError, match="unknown parameter 'depth'; parameters: none"):
        make_agent("random:depth=3", game)
    with pytest.raises(AgentSpecError, match="parameter 'depth' must be int, not '2.5'"):
        make_agent("alphabeta:depth=2.5", game)


def test_list_agents_per_game() -> None:
    kalah_agents = {e.name for e in list_agents("kalah")}
    assert {"random", "greedy", "alphabeta"} <= kalah_agents
    assert "greedy" not in {e.name for e in list_agents("no_such_game")}
    assert "random" in {e.name for e in list_agents("no_such_game")}
    assert {e.name for e in list_agents(load_game("kalah"))} == kalah_agents


def test_agents_are_listed_in_natural_order_of_their_names() -> None:
    """The lobby and ``spielwerk games`` list knn2 before knn10, not after knn1."""
    names = [e.name for e in list_agents("skat")]
    assert names.index("knn1") < names.index("knn2") < names.index("knn9") < names.index(
        "knn10") < names.index("mcts")
    assert sorted(["b10", "a", "b2", "b", "b1x"], key=agent_module.natural_key) == [
        "a", "b", "b1x", "b2", "b10"]


class _Fixed(Agent):
    def __init__(self, game: Any, seed: int | None = None, move: int = 0,
                 loud: bool = False, temperature: float = 1.0, tag: str = "") -> None:
        super().__init__(game, seed)
        self.move, self.loud, self.temperature, self.tag = move, loud, temperature, tag

    def act(self, info_state: InfoState) -> int:
        return self.move


def test_game_specific_agent_shadows_the_generic_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_module, "_AGENTS", dict(agent_module._AGENTS))
    register_agent("fixed", _Fixed, {"move": 0}, "generic")
    register_agent("fixed", _Fixed, {"move": 5}, "kalah only", ("kalah",))
    kalah, small = load_game("kalah"), load_game("kalah(pits=2)")
    assert [e.description for e in list_agents("kalah") if e.name == "fixed"] == ["kalah only"]
    fixed = make_agent("fixed", kalah)
    assert isinstance(fixed, _Fixed) and fixed.move == 5
    assert make_agent("fixed:move=1", small).move == 1  # type: ignore[attr-defined]
    assert {e.description for e in list_agents() if e.name == "fixed"} == {"generic", "kalah only"}


def test_agent_parameter_types(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_module, "_AGENTS", dict(agent_module._AGENTS))
    register_agent("typed", _Fixed, {"loud": False, "temperature": 1.0, "tag": "x"})
    game = load_game("kalah")
    agent = make_agent("typed:loud=yes:temperature=0.25:tag=abc", game)
    assert isinstance(agent, _Fixed)
    assert (agent.loud, agent.temperature, agent.tag) == (True, 0.25, "abc")
    with pytest.raises(AgentSpecError, match="'loud' must be bool"):
        make_agent("typed:loud=perhaps", game)
    with pytest.raises(AgentSpecError, match="'temperature' must be float"):
        make_agent("typed:temperature=hot", game)


def test_random_agent_is_seeded_and_resettable() -> None:
    game = load_game("kalah")
    state = game.new_initial_state()
    info = state.info_state(0)

    def moves(agent: Agent) -> list[int]:
        return [agent.act(info) for _ in range(30)]

    a, b = make_agent("random", game, seed=4), make_agent("random", game, seed=4)
    first = moves(a)
    assert first == moves(b) and set(first) == set(range(6))
    a.reset(4)
    assert moves(a) == first
    a.reset(5)
    assert moves(a) != first
    with pytest.raises(SpielwerkError, match="no legal actions"):
        a.act(state.info_state(1))  # not North's turn: no legal actions


def test_agents_get_a_private_generator() -> None:
    game = load_game("kalah")
    agent = make_agent("random", game, seed=1)
    assert isinstance(agent.rng, np.random.Generator)
    assert agent.rng is not make_agent("random", game, seed=1).rng
