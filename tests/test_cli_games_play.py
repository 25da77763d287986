"""The ``games`` and ``play`` commands, and one-line errors from ``main``."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app

runner = CliRunner()


def test_games_lists_kalah_with_parameters_and_agents() -> None:
    result = runner.invoke(app, ["games"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "kalah" in result.output
    assert "empty_capture=false" in result.output
    assert "alphabeta:depth=6" in result.output


def test_play_kalah_human_against_agent_to_the_end() -> None:
    # Kalah(1,1): South's only pit sows into its store, then South must move again?
    # No: pit 1 -> store (extra turn), but South's side is now empty, so the game ends.
    result = runner.invoke(app, ["play", "kalah(pits=1,seeds=1)", "--vs", "random"], input="1\n")
    assert result.exit_code == 0, result.output
    assert "game over" in result.output
    assert "returns: +0, +0" in result.output  # 1 seed each: a draw


def test_play_rejects_bad_input_and_quits_cleanly() -> None:
    result = runner.invoke(app, ["play", "kalah", "--vs", "greedy"], input="x\n9\nq\n")
    assert result.exit_code == 0, result.output
    assert "'x' is not a legal move here" in result.output
    assert "'9' is not a legal move here" in result.output
    assert "You left the game." in result.output


def test_play_human_as_north_sees_agent_move_first() -> None:
    result = runner.invoke(
        app, ["play", "kalah(pits=3,seeds=1)", "--vs", "random", "--seat", "1"], input="q\n"
    )
    assert result.exit_code == 0, result.output
    assert "seat 0 plays" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "kalah(pits=0)"], "pits must be at least 1"),
        (["play", "kalah", "--vs", "nosuchagent"], "unknown agent 'nosuchagent'"),
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "kalah(colour=red)"], "unknown parameter 'colour'"),
        (["play", "kalah", "--seat", "5"], "seat must be between 0 and 1"),
    ],
)
def test_user_errors_are_one_line_without_traceback(args: list[str], message: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "spielwerk.cli.main", *args],
        capture_output=True, text=True, timeout=120, input="",
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_every_listed_command_module_exists_and_registers() -> None:
    import importlib

    from spielwerk.cli import main as cli_main

    modules = cli_main.command_modules()
    for name in cli_main.COMMAND_MODULES:
        assert modules[name] == f"spielwerk.cli.{name}"
    assert set(modules) == set(cli_main.command_help())  # a game's group comes from its record
    for name, module_name in modules.items():
        module = importlib.import_module(module_name)
        assert callable(getattr(module, "register", None)), name
    for module_name in cli_main.COMMAND_MODULE.values():
        assert module_name in cli_main.COMMAND_MODULES


def test_a_missing_command_module_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    from spielwerk.cli import main as cli_main

    monkeypatch.setattr(cli_main, "COMMAND_MODULES", [*cli_main.COMMAND_MODULES, "no_such_cmd"])
    with pytest.raises(cli_main.CommandModuleError, match="no_such_cmd.*missing"):
        cli_main._build_app()


def test_play_loop_names_the_agent_behind_an_illegal_action() -> None:
    import numpy as np

    from spielwerk.arena.match import AgentFailedError, play_game
    from spielwerk.core.agent import Agent
    from spielwerk.core.game import InfoState
    from spielwerk.core.registry import load_game

    class Cheat(Agent):
        def act(self, info_state: InfoState) -> int:
            return 99

    game = load_game("kalah(pits=3,seeds=2)")
    with pytest.raises(AgentFailedError, match=r"agent cheat \(seat 0\) .* 99"):
        play_game(game, [Cheat(game), Cheat(game)], np.random.default_rng(0), ["cheat", "b"])
