"""``spielwerk arena``: tables, --json, results files, --resume/--fresh, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spielwerk.arena import ResultsFileError, read_results
from spielwerk.arena.stats import wilson_interval
from spielwerk.cli.main import app
from spielwerk.core.errors import SpielwerkError

GAME = "kalah(pits=4,seeds=3)"
runner = CliRunner()


def _arena(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["arena", *args], env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


def test_tables_show_standings_and_pairings(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    code, stdout, _ = _arena(GAME, "random", "greedy", "--games", "10", "--seed", "3",
                             "-e", "serial", "-o", str(out), "--confidence", "0.98")
    assert code == 0, stdout
    assert "Standings" in stdout and "Pairings" in stdout
    assert "98% CI" in stdout and "Elo" in stdout and "W/D/L" in stdout
    assert "greedy" in stdout and "random" in stdout
    assert len(read_results(out).results) == 10


def test_json_output_is_machine_readable_and_consistent() -> None:
    code, stdout, _ = _arena(GAME, "random", "greedy", "random", "--games", "4", "--seed", "5",
                             "--executor", "serial", "--json")
    assert code == 0, stdout
    data = json.loads(stdout)
    assert data["games_played"] == data["games_scheduled"] == 12
    agents = {a["label"]: a for a in data["standings"]["agents"]}
    assert set(agents) == {"random", "greedy", "random#2"}
    for a in agents.values():
        n = a["wins"] + a["draws"] + a["losses"]
        lo, hi = wilson_interval(a["wins"] + a["draws"] / 2, n, 0.95)
        assert (a["ci_low"], a["ci_high"]) == pytest.approx((lo, hi))
    assert len(data["standings"]["pairs"]) == 3


def test_existing_output_needs_resume_or_fresh_and_resume_continues(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    args = [GAME, "random", "greedy", "--games", "6", "-e", "serial", "-o", str(out), "--json"]
    code, first, _ = _arena(*args)
    assert code == 0
    refused = runner.invoke(app, ["arena", *args])  # main() would print this as one line
    assert isinstance(refused.exception, ResultsFileError)
    assert "already exists: add --resume to continue it or --fresh to overwrite it" in str(
        refused.exception
    )
    # cut the file as if killed after three games and half a line
    lines = out.read_bytes().split(b"\n")
    out.write_bytes(b"\n".join(lines[:4]) + b"\n" + lines[4][:20])
    code, resumed, _ = _arena(*args, "--resume")
    assert code == 0
    drop = ("wall_s",)
    strip = [{k: v for k, v in json.loads(t).items() if k not in drop} for t in (first, resumed)]
    assert strip[0] == strip[1]
    code, _, _ = _arena(*args, "--fresh")
    assert code == 0 and len(read_results(out).results) == 6


@pytest.mark.parametrize(
    "args,message",
    [
        (["kalah", "random", "nosuch"], "unknown agent 'nosuch'"),
        (["nosuchgame", "random", "random"], "unknown game 'nosuchgame'"),
        (["kalah(pits=x)", "random", "random"], "pits"),
        (["kalah", "random", "greedy", "--games", "3"], "multiple of 2"),
        (["kalah", "random"], "at least 2 agents"),
        (["kalah", "random", "greedy", "--confidence", "95"], "confidence must be between"),
        (["kalah", "random", "greedy", "--executor", "cloud"], "unknown executor 'cloud'"),
        (["kalah", "random", "greedy", "--resume"], "--resume needs an output file"),
    ],
)
def test_user_errors_are_spielwerk_errors(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["arena", *args])  # main() prints these as one line
    assert isinstance(result.exception, SpielwerkError), result.exception
    assert message in str(result.exception)


@pytest.mark.parametrize(
    "args,message",
    [
        (["kalah", "random", "nosuch"], "unknown agent 'nosuch'"),
        (["kalah", "random", "greedy", "--resume", "-e", "serial"],
         "--resume needs an output file"),
    ],
)
def test_user_errors_print_one_line(args: list[str], message: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "spielwerk.cli.main", "arena", *args],
        capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "1000"},
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_help_reads_well() -> None:
    result = runner.invoke(app, ["arena", "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    for option in ("--games", "--seed", "--executor", "--workers", "--output", "--resume",
                   "--fresh", "--json", "--confidence"):
        assert option in result.stdout
