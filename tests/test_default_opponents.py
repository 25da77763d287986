"""Every game's default opponent is its strongest measured agent, the same in the terminal
(``spielwerk play``, ``skat play``, ``durak play``) and at the web table."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

import spielwerk.cli.play as play_cli
import spielwerk.games.durak.cli as durak_cli
import spielwerk.games.skat.cli as skat_cli
from spielwerk.cli.main import app
from spielwerk.core.agent import default_opponent, make_agent
from spielwerk.core.registry import load_game
from spielwerk.web.server import default_opponent as web_default_opponent

runner = CliRunner()

STRONGEST = {"kalah": "perfect", "skat": "knn", "durak": "ismcts"}


@pytest.mark.parametrize("name", sorted(STRONGEST))
def test_the_terminal_and_the_table_share_the_strongest_default(name: str) -> None:
    game = load_game(name)
    assert default_opponent(game) == web_default_opponent(name) == STRONGEST[name]


def test_durak_ismcts_defaults_to_the_strongest_measured_opponent_model() -> None:
    """``bias_other=10`` won 88.7% against greedy and 62.6% against the previous best on
    the declared seed-2049 tables; plain ``ismcts`` now means that setting."""
    agent = make_agent("ismcts", load_game("durak"), seed=0)
    assert agent.params.bias_other == 10.0  # type: ignore[attr-defined]
    assert make_agent("ismcts:bias_other=0", load_game("durak"),
                      seed=0).params.bias_other == 0.0  # type: ignore[attr-defined]


def _capture(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[list[str]]:
    seen: list[list[str]] = []

    def fake(*args: Any, **kwargs: Any) -> None:
        seen.append(list(kwargs["vs"] if "vs" in kwargs else args[1]))

    monkeypatch.setattr(module, name, fake)
    return seen


@pytest.mark.parametrize("command, module, name, expected", [
    (["play", "kalah(pits=3,seeds=2)"], play_cli, "play_in_terminal", None),
    (["durak", "play"], durak_cli, "play_durak", ["ismcts"]),
    (["play", "durak"], durak_cli, "play_durak", ["ismcts"]),
    (["skat", "play"], skat_cli, "front_end", ["knn"]),
])
def test_play_without_vs_takes_the_default_opponent(
        monkeypatch: pytest.MonkeyPatch, command: list[str], module: Any, name: str,
        expected: list[str] | None) -> None:
    if expected is None:  # the generic loop: the agents it was handed
        seen_agents: list[dict[int, Any]] = []
        monkeypatch.setattr(module, name,
                            lambda game, agents, *a, **k: seen_agents.append(agents))
        result = runner.invoke(app, command)
        assert result.exit_code == 0, result.output
        assert [type(a).__name__ for a in seen_agents[0].values()] == ["PerfectAgent"]
        return
    seen = _capture(monkeypatch, module, name)  # `play durak` goes through its front end
    result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    assert seen == [expected]
