"""``spielwerk skat calibration --bins N``: the declared games by the chance told, per type,
against figures worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app
from spielwerk.games.skat_ai.calibration import (
    GAME_TYPES,
    CalibrationError,
    reliability,
    reliability_lines,
)

runner = CliRunner()


def _game(kind: str, told: float | None, won: bool, sf: int, deal: int, seat: int = 0
          ) -> dict[str, object]:
    return {"deal": deal, "seat": seat, "declared": True, "type": kind, "contract": "x",
            "predicted": told, "decided": told, "won": won, "value": 20,
            "declarer_points": 70 if won else 40, "sf": sf}


GAMES = [
    _game("suit", 0.05, False, -90, 0),
    _game("suit", 0.55, True, 70, 1),
    _game("suit", 0.58, False, -80, 2),
    _game("suit", 0.5, True, 72, 3),  # an edge belongs to the slice above it
    _game("null", 1.0, True, 73, 4),  # a chance of 1 to the last slice
    _game("grand", None, True, 98, 5),  # no chance told: in no slice
]


def test_slices_by_hand() -> None:
    table = reliability(GAMES, 10)
    assert set(table) == set(GAME_TYPES)
    low, mid = table["suit"]
    assert (low["from"], low["to"], low["declared"], low["observed"]) == (0.0, 0.1, 1, 0.0)
    assert low["predicted"] == 0.05 and low["sf_per_game"] == -90.0
    assert (mid["from"], mid["to"], mid["declared"]) == (0.5, 0.6, 3)
    assert mid["predicted"] == round((0.55 + 0.58 + 0.5) / 3, 4)
    assert mid["observed"] == round(2 / 3, 4) and mid["sf_per_game"] == round(62 / 3, 2)
    assert mid["low"] < mid["observed"] < mid["high"]
    assert [(f["from"], f["to"], f["declared"]) for f in table["null"]] == [(0.9, 1.0, 1)]
    assert table["grand"] == [] and table["null_hand"] == []
    # two slices: everything below 0.5 in one, from 0.5 in the other
    assert [f["declared"] for f in reliability(GAMES, 2)["suit"]] == [1, 3]
    lines = reliability_lines(table)
    assert lines[0].split()[:3] == ["type", "told", "declared"]
    assert any(line.split()[:3] == ["suit", "0.50-0.60", "3"] for line in lines)
    assert len(lines) == 1 + 3  # two suit slices and one null slice


def test_no_slices_is_an_error() -> None:
    with pytest.raises(CalibrationError, match="--bins must be at least 1"):
        reliability(GAMES, 0)


def test_bins_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    header = {"agent": "a", "defence": "d", "deals": 6, "seed": 1}
    rows = [header, *GAMES, *[{"deal": d, "seat": s, "declared": False}
                              for d in range(6) for s in (1, 2)]]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    base = ["skat", "calibration", "--summarize", str(path)]
    plain = runner.invoke(app, base, env={"COLUMNS": "200"})
    assert plain.exit_code == 0, plain.exception
    assert "by the chance told" not in plain.stdout
    text = runner.invoke(app, [*base, "--bins", "10"], env={"COLUMNS": "200"})
    assert text.exit_code == 0, text.exception
    assert "by the chance told" in text.stdout
    assert any(line.split()[:3] == ["suit", "0.50-0.60", "3"]
               for line in text.stdout.splitlines())
    data = json.loads(runner.invoke(app, [*base, "--bins", "10", "--json"]).stdout)
    assert data["bins"] == json.loads(json.dumps(reliability(GAMES, 10)))
    assert "bins" not in json.loads(runner.invoke(app, [*base, "--json"]).stdout)
    bad = runner.invoke(app, [*base, "--bins", "-1"])
    assert bad.exit_code != 0 and "--bins must be in 0..100" in str(bad.exception)


def test_bins_while_playing(tmp_path: Path) -> None:
    result = runner.invoke(app, ["skat", "calibration", "--agent", "knn:play=rule",
                                 "--defence", "rule", "--deals", "2", "--seed", "11",
                                 "--workers", "1", "--json", "--bins", "4"])
    assert result.exit_code == 0, result.exception
    data = json.loads(result.stdout)
    counted = {t: sum(f["declared"] for f in data["bins"][t]) for t in GAME_TYPES}
    assert counted == {t: data["types"][t]["declared"] for t in GAME_TYPES}
    assert all(f["from"] in (0.0, 0.25, 0.5, 0.75) for fs in data["bins"].values() for f in fs)
