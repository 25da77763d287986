"""``spielwerk skat match``: tables, --json, --summarize, --resume and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spielwerk.arena import read_results
from spielwerk.cli.main import app
from spielwerk.core.errors import SpielwerkError

runner = CliRunner()


def _match(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["skat", "match", *args], env={"COLUMNS": "200"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_json_output_counts_every_game(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    code, stdout, _ = _match("rule", "random", "--deals", "2", "--seed", "4", "-e", "serial",
                             "-o", str(out), "--json")
    assert code == 0
    data = json.loads(stdout)
    assert data["config"]["agents"] == ["rule", "random"]
    assert data["deals"] == 2 and data["games"] == 12
    assert [a["label"] for a in data["agents"]] == ["rule", "random"]
    assert sum(a["seat_games"] for a in data["agents"]) == 36
    declared = sum(a["declared"] for a in data["agents"])
    assert declared + data["passed_in_games"] == 12
    assert data["differences"][0]["deals"] == 2
    assert len(read_results(out).results) == 12
    # the summary of the file gives the same figures; --resume plays nothing more
    code, again, _ = _match("--summarize", str(out), "--json")
    assert code == 0 and json.loads(again)["agents"] == data["agents"]
    code, resumed, _ = _match("rule", "random", "--deals", "2", "--seed", "4", "-e", "serial",
                              "-o", str(out), "--resume", "--json")
    assert code == 0 and json.loads(resumed)["agents"] == data["agents"]
    assert len(read_results(out).results) == 12


def test_tables_name_the_seating_and_the_figures() -> None:
    code, stdout, _ = _match("rule", "random", "--deals", "1", "-e", "serial")
    assert code == 0
    for text in ("BAA ABA AAB ABB BAB BBA", "SF / 36 games", "win rate", "Paired difference",
                 "schneider announced", "ouvert"):
        assert text in stdout, text


@pytest.mark.parametrize(
    "args,message",
    [
        (["rule"], "2 or 3 agents"),
        (["rule", "random", "--deals", "0"], "at least 1"),
        (["rule", "nosuch"], "unknown agent 'nosuch'"),
        (["rule", "random", "--resume", "-e", "serial"], "--resume needs an output file"),
        (["rule", "random", "--seating", "rotations"], "pairs"),
        (["rule", "random", "--summarize", "x.jsonl"], "give no agents"),
        ([], "give 2 or 3 agent specs"),
    ],
)
def test_user_errors_are_spielwerk_errors(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["skat", "match", *args])
    assert isinstance(result.exception, SpielwerkError), result.exception
    assert message in str(result.exception)


def test_foreign_file_prints_one_line_and_is_kept(tmp_path: Path) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"a": 1}\n')
    proc = subprocess.run(
        [sys.executable, "-m", "spielwerk.cli.main", "skat", "match", "rule", "random",
         "--deals", "1", "-e", "serial", "-o", str(notes), "--resume"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "1000"},
    )
    assert proc.returncode == 2, proc.stderr
    assert "not a spielwerk arena results file" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert notes.read_text() == '{"a": 1}\n'


def test_the_declared_mix_per_type_beside_the_experts(tmp_path: Path) -> None:
    """Share of the declared games, win rate, mean value and SF per declared game, per
    type and announcement; the experts' grand and null shares beside them."""
    out = tmp_path / "m.jsonl"
    code, stdout, _ = _match("rule", "random", "--deals", "4", "--seed", "7", "-e", "serial",
                             "-o", str(out))
    assert code == 0
    assert "Declared mix" in stdout and "experts" in stdout and "28-30%" in stdout
    from spielwerk.games.skat.cli_match import read_match
    from spielwerk.games.skat_ai.match_stats import GAME_CATEGORIES, skat_match_stats

    config, games = read_match(out)
    stats = skat_match_stats(games, config.labels, len(config.arrangements))
    for a in stats.agents:
        kinds = [a.categories[c] for c in ("suit", "grand", "null")]
        assert sum(k.declared for k in kinds) == a.declared  # every game has one type
        for c in GAME_CATEGORIES:
            n = a.categories[c]
            assert n.of_declared == a.declared
            if n.declared:
                assert n.share == n.declared / a.declared
                assert n.seeger_per_game == n.seeger / n.declared
                assert 0 <= n.win_rate <= 1 and n.mean_value > 0
