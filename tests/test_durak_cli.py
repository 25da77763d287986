"""``spielwerk durak tournament`` and ``spielwerk durak play`` / ``spielwerk play durak``."""

from __future__ import annotations

import builtins
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spielwerk.arena.match import ArenaError
from spielwerk.cli.main import app
from spielwerk.games.durak.cli import DurakCliError, with_time

runner = CliRunner()


def test_with_time_only_for_search_agents_without_budget() -> None:
    assert with_time("mcts", 0.1) == "mcts:time=0.1"
    assert with_time("ismcts:c=0.5", 0.1) == "ismcts:c=0.5:time=0.1"
    assert with_time("mcts:iters=50", 0.1) == "mcts:iters=50"
    assert with_time("greedy", 0.1) == "greedy"


def test_tournament_json_lines(tmp_path: Path) -> None:
    result = runner.invoke(app, [
        "durak", "tournament", "--agents", "random", "greedy", "mcts:worlds=2:iters=5",
        "--games", "4", "--executor", "serial", "--json", "--seed", "3",
    ])
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    assert len(lines) == 3
    for d in lines:
        assert d["wins"] + d["losses"] + d["draws"] == 4
        assert set(d) == {"agent", "opponent", "wins", "losses", "draws", "win_rate", "ci_low",
                          "ci_high"}
    again = runner.invoke(app, [
        "durak", "tournament", "--agents", "random", "greedy", "mcts:worlds=2:iters=5",
        "--games", "4", "--executor", "serial", "--json", "--seed", "3",
    ])
    assert again.stdout == result.stdout  # same seed, same games


def test_tournament_table_extension_and_heatmap(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "fig.png"
    result = runner.invoke(app, [
        "durak", "tournament", "--agents", "greedy", "smart", "--games", "4", "--extend", "4",
        "--max-games", "8", "--executor", "serial", "--heatmap", str(png), "--open-world",
    ], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "36 cards, open" in result.output and "8 games" in result.output
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_tournament_output_resume_and_partial(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    base = ["durak", "tournament", "--agents", "random", "greedy", "smart", "--games", "6",
            "--executor", "serial", "--json", "--seed", "4", "-o", str(out)]
    whole = runner.invoke(app, base)
    assert whole.exit_code == 0, whole.output
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 18  # header + one line per game
    # an interrupted run: keep the header and the first 7 games, then resume
    out.write_text("\n".join(lines[:8]) + "\n")
    part = runner.invoke(app, base + ["--partial"])
    assert part.exit_code == 0, part.output
    counts = [json.loads(x) for x in part.stdout.splitlines() if x.startswith("{")]
    assert sum(d["wins"] + d["losses"] + d["draws"] for d in counts) == 7
    resumed = runner.invoke(app, base + ["--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert resumed.stdout == whole.stdout  # same games, same table
    assert len(out.read_text().splitlines()) == 19
    refused = runner.invoke(app, base)  # existing file without --resume/--fresh
    assert refused.exit_code != 0
    other = runner.invoke(app, base[:-5] + ["--seed", "5", "-o", str(out), "--partial"])
    assert other.exit_code != 0 and "another configuration" in str(other.exception)
    missing = runner.invoke(app, base[:-2] + ["--partial"])
    assert isinstance(missing.exception, ArenaError)


def test_tournament_errors() -> None:
    result = runner.invoke(app, ["durak", "tournament", "--agents", "greedy"])
    assert isinstance(result.exception, DurakCliError)
    result = runner.invoke(app, ["durak", "tournament", "--agents", "greedy", "nosuch"])
    assert result.exit_code != 0 and "nosuch" in str(result.exception)


def _first_legal(prompt: str = "") -> str:
    return prompt.split("(", 1)[1].split(";")[0].split(", ")[0]


def test_play_a_whole_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builtins, "input", _first_legal)
    result = runner.invoke(app, ["durak", "play", "--vs", "greedy", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "game over" in result.output
    assert "durak" in result.output or "draw" in result.output.lower()
    # the person never sees the opponent's hand, only its size and known cards
    assert "player 1 (defender): 6 cards" in result.output or "player 1 (attacker): 6 cards" \
        in result.output


def test_play_durak_via_generic_play_and_quit() -> None:
    result = runner.invoke(app, ["play", "durak(preset=perevodnoy)", "--vs", "random"],
                           input="x\nq\n")
    assert result.exit_code == 0, result.output
    assert "'x' is not a legal move here" in result.output or "You left the game." \
        in result.output
    assert "You left the game." in result.output


def test_extend_without_cap_stops_at_ten_times_games(tmp_path: Path) -> None:
    # two identical agents stay undecided for ever: the default cap must end the run
    result = runner.invoke(app, [
        "durak", "tournament", "--agents", "random", "random", "--games", "2", "--extend", "2",
        "--executor", "serial", "--json",
    ])
    assert result.exit_code == 0, result.output
    counts = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    assert counts and all(d["wins"] + d["losses"] + d["draws"] <= 20 for d in counts)
    assert any(d["wins"] + d["losses"] + d["draws"] > 2 for d in counts)


def test_tournament_shows_live_progress_with_rate_and_time_left() -> None:
    """On a terminal: the bar of arena and skat match (games done of all, games/s, time
    so far and left), redrawn as games finish, not a line every 20 games."""
    result = runner.invoke(app, [
        "durak", "tournament", "--agents", "random", "random", "--games", "6",
        "--executor", "serial",
    ], env={"TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1", "COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    err = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", result.stderr)
    assert "━" in err, err  # the bar
    assert re.search(r"6/6 +[\d.]+ games/s +\d:\d\d:\d\d +\d:\d\d:\d\d", err), err
    assert "6 games in" in result.stdout  # the table, as before


def test_tournament_progress_in_a_log_is_a_plain_line() -> None:
    result = runner.invoke(app, [
        "durak", "tournament", "--agents", "random", "random", "--games", "4",
        "--executor", "serial",
    ])
    assert result.exit_code == 0, result.output
    assert re.search(r"^4/4 games, [\d.]+ games/s, \d+ s$", result.stderr, re.M), result.stderr
