"""Durak command-line errors: the heat-map path and matplotlib are checked before any game
is played, --time-per-move is validated, empty cells show no nan, bouts that end on
their own are announced."""

from __future__ import annotations

import builtins
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import spielwerk
from spielwerk.arena.stats import DecisiveRecord
from spielwerk.cli.arena_sequential import print_table
from spielwerk.cli.main import app
from spielwerk.cli.progress import GamesProgress
from spielwerk.games.durak import cli as durak_cli
from spielwerk.games.durak import kernel as K

runner = CliRunner()
BASE = ["durak", "tournament", "--agents", "random", "greedy", "--games", "2",
        "--deck", "24", "--preset", "classic", "--executor", "serial"]


def _run(*extra: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, [*BASE, *extra], env={"COLUMNS": "200"})


def test_heatmap_into_a_folder_is_refused_before_playing(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    result = _run("--heatmap", str(tmp_path), "-o", str(out))
    assert "is a folder" in str(result.exception)
    assert not out.exists()  # nothing was played


def test_heatmap_in_an_unwritable_place_is_refused_before_playing(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    result = _run("--heatmap", "/proc/x.png", "-o", str(out))
    assert "cannot write in /proc" in str(result.exception)
    assert not out.exists()
    result = _run("--heatmap", str(tmp_path / "no" / "such" / "x.png"), "-o", str(out))
    assert "does not exist" in str(result.exception) and not out.exists()


def test_heatmap_without_matplotlib_is_refused_before_playing(tmp_path: Path,
                                                              monkeypatch) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    out = tmp_path / "games.jsonl"
    result = _run("--heatmap", str(tmp_path / "h.png"), "-o", str(out))
    assert "needs matplotlib" in str(result.exception) and not out.exists()


def test_heatmap_without_suffix_is_written_where_it_says(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "heat"
    result = _run("--heatmap", str(target))
    assert result.exit_code == 0, result.exception
    assert (tmp_path / "heat.png").exists()
    assert f"written to {tmp_path / 'heat.png'}" in " ".join(result.stderr.split())


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_time_per_move_is_validated(value: str) -> None:
    result = _run("--time-per-move", value)
    assert "--time-per-move" in str(result.exception)


def test_cells_without_decisive_games_show_no_nan(capsys) -> None:
    pairs = {("a", "b"): DecisiveRecord("a", "b", draws=2)}
    print_table(pairs, ["a", "b"], "Durak", 0.95, 2, 0.1)
    out = capsys.readouterr().out
    assert "nan" not in out and "n=0" in out


def test_bout_end_is_announced() -> None:
    game = spielwerk.load_game("durak(deck=24)")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    texts: list[str] = []
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.chance_outcomes()[0][0]
        else:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        bout = int(state.S[K.BOUT]) if not state.is_chance_node() else None
        before = state.S.copy()
        state.apply(action)
        text = durak_cli._bout_end_text(before, state.S, action) if bout is not None else None
        if bout is not None:
            assert (text is not None) == (int(state.S[K.BOUT]) != bout)
            if text:
                texts.append(text)
    assert texts and all(t.startswith("bout over") for t in texts)
    assert any("takes the cards" in t for t in texts) or any("beat every" in t for t in texts)


def test_heatmap_never_overwrites_a_file_that_is_not_a_picture(tmp_path: Path) -> None:
    notes = tmp_path / "notes.png"
    notes.write_text("my notes")
    result = _run("--heatmap", str(notes))
    assert "not a PNG" in str(result.exception)
    assert notes.read_text() == "my notes"


def test_partial_of_a_file_that_is_not_ours_is_an_error_not_an_empty_table(
        tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("one line, no newline")
    result = _run("--partial", "-o", str(notes))
    assert "not a spielwerk results file" in str(result.exception)


def test_an_interrupted_tournament_without_output_prints_what_finished(monkeypatch) -> None:
    calls = []

    def interrupt_third(self, result) -> None:  # type: ignore[no-untyped-def]
        calls.append(result)
        if len(calls) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(GamesProgress, "result", interrupt_third)
    result = _run("--games", "4")  # the last --games counts
    assert result.exit_code == 130, result.exception
    assert "n=" in result.stdout and "3 games in" in result.stdout  # the table of 3 games
    text = " ".join(result.stderr.split())
    assert "interrupted: the table above has the 3 games finished" in text
    assert "add -o FILE" in text
