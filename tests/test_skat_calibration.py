"""``spielwerk skat calibration``: the JSON figures, the predicted mean against the per-game
records, the Wilson interval, one-line errors and reproducibility."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from spielwerk.arena.match import derive_seed
from spielwerk.cli.main import app
from spielwerk.core.agent import make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat_ai.calibration import (
    GAME_TYPES,
    CalibrationConfig,
    play_to_declaration,
    summarize,
    type_figures,
    wilson,
)

runner = CliRunner()
FAST = "knn:play=rule"  # the knn decisions before the first card, the rule agent's cards
FIELDS = {"declared", "predicted", "observed", "low", "high", "sf_per_game"}


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["skat", "calibration", *args], env={"COLUMNS": "200"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, list[dict]]:
    """A forced tiny run (2 deals) with its per-game records."""
    out = tmp_path_factory.mktemp("calibration") / "games.jsonl"
    code, stdout, _ = _run("--agent", FAST, "--defence", "rule", "--deals", "2", "--seed",
                           "11", "--workers", "1", "--json", "--out", str(out))
    assert code == 0
    lines = out.read_text().splitlines()
    head = json.loads(lines[0])
    settings = head.pop("settings")
    assert head == {"agent": FAST, "defence": "rule", "deals": 2, "seed": 11}
    assert settings == {"agent": make_agent(FAST, load_game("skat"), 0).provenance(),  # type: ignore[attr-defined]
                        "defence": None}  # rule tells no settings: known by its spec
    assert settings["agent"]["play"] == "rule" and "base" not in settings["agent"]
    return json.loads(stdout), [json.loads(x) for x in lines[1:]]


def test_json_schema_and_types(tiny: tuple[dict, list[dict]]) -> None:
    summary, records = tiny
    assert (summary["deals"], summary["seed"], summary["agent"]) == (2, 11, FAST)
    assert summary["seat_games"] == 6 and summary["complete"] is True
    assert list(summary["types"]) == list(GAME_TYPES)
    for figures in [*summary["types"].values(), summary["all"]]:
        assert set(figures) == FIELDS
        assert isinstance(figures["declared"], int)
        for key in FIELDS - {"declared"}:
            value = figures[key]
            assert (value is None) if not figures["declared"] else isinstance(value, float)
        if figures["declared"]:
            assert 0 <= figures["low"] <= figures["observed"] <= figures["high"] <= 1
            assert 0 < figures["predicted"] < 1
    assert len(records) == 6
    assert sorted((r["deal"], r["seat"]) for r in records) == [(d, s) for d in range(2)
                                                              for s in range(3)]
    declared = [r for r in records if r["declared"]]
    assert declared, "two deals, three rotations each: the knn agent declares some game"
    assert summary["all"]["declared"] == len(declared)
    assert sum(f["declared"] for f in summary["types"].values()) == len(declared)


def test_predicted_mean_is_the_mean_of_the_recorded_chances(
        tiny: tuple[dict, list[dict]]) -> None:
    summary, records = tiny
    declared = [r for r in records if r["declared"]]
    for name in [*GAME_TYPES, "all"]:
        games = [r for r in declared if name == "all" or r["type"] == name]
        figures = summary["all"] if name == "all" else summary["types"][name]
        assert figures["declared"] == len(games)
        if not games:
            continue
        chances = [r["predicted"] for r in games]
        assert all(isinstance(c, float) and 0 < c < 1 for c in chances)
        assert figures["predicted"] == pytest.approx(sum(chances) / len(chances), abs=1e-4)
        won = sum(r["won"] for r in games)
        assert figures["observed"] == pytest.approx(won / len(games), abs=1e-4)
        assert figures["sf_per_game"] == pytest.approx(
            sum(r["sf"] for r in games) / len(games), abs=0.01)
        for r in games:  # the declarer's Seeger-Fabian points
            assert r["sf"] == (r["value"] + 50 if r["won"] else -2 * r["value"] - 50)


def test_the_chance_is_the_agents_own_and_changes_no_decision() -> None:
    game = load_game("skat")
    for deal in range(3):
        histories = []
        for ask in (False, True):
            agents = [make_agent(FAST, game, 0) for _ in range(3)]
            for s, a in enumerate(agents):
                a.reset(derive_seed(5, 2, deal, s))
            state = play_to_declaration(game.new_initial_state(), agents,
                                        np.random.default_rng(derive_seed(5, 1, deal)))
            if state is None:
                break
            if ask:
                me = state.declarer
                chance = agents[me].declaration_chance(state.info_state(me))
                assert 0 < chance < 1
                other = (me + 1) % 3  # not its game: no chance
                assert agents[other].declaration_chance(state.info_state(other)) is None
            histories.append(list(play(state, agents, np.random.default_rng(0)).state.history))
        if len(histories) == 2:
            assert histories[0] == histories[1]


def test_wilson_against_a_hand_computation() -> None:
    z = 1.959963984540054
    for won, n in ((7, 10), (0, 4), (4, 4), (13, 40)):
        p = won / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        low, high = wilson(won, n)
        assert low == pytest.approx(max(0.0, centre - half), abs=1e-9)
        assert high == pytest.approx(min(1.0, centre + half), abs=1e-9)
    low, high = wilson(7, 10)  # the textbook figures of 7 of 10
    assert (round(low, 4), round(high, 4)) == (0.3968, 0.8922)


def test_type_figures_by_hand() -> None:
    games = [{"predicted": 0.9, "won": True, "sf": 86}, {"predicted": 0.6, "won": False,
                                                         "sf": -122},
             {"predicted": 0.75, "won": True, "sf": 74}]
    f = type_figures(games)
    assert f["declared"] == 3 and f["predicted"] == 0.75
    assert f["observed"] == round(2 / 3, 4) and f["sf_per_game"] == round(38 / 3, 2)
    assert (f["low"], f["high"]) == tuple(round(x, 4) for x in wilson(2, 3))
    empty = type_figures([])
    assert empty == {"declared": 0, "predicted": None, "observed": None, "low": None,
                     "high": None, "sf_per_game": None}
    untold = type_figures([{"predicted": None, "won": True, "sf": 70}])
    assert untold["predicted"] is None and untold["observed"] == 1.0
    config = CalibrationConfig("rule", "rule", 1, 0)
    s = summarize(config, [{"deal": 0, "seat": 1, "declared": False}])
    assert s["complete"] is False and s["all"]["declared"] == 0


def test_same_seed_same_output(tiny: tuple[dict, list[dict]]) -> None:
    code, stdout, _ = _run("--agent", FAST, "--defence", "rule", "--deals", "2", "--seed",
                           "11", "--workers", "1", "--json")
    assert code == 0 and json.loads(stdout) == tiny[0]


def test_text_table_lists_every_type() -> None:
    code, stdout, _ = _run("--agent", "rule", "--defence", "rule", "--deals", "2", "--seed",
                           "3", "--workers", "1")
    assert code == 0
    lines = stdout.splitlines()
    assert lines[0].startswith("agent rule against rule: 6 of 6 seat-games")
    assert [x.split()[0] for x in lines[2:]] == [*GAME_TYPES, "all"]
    assert " - " in stdout  # rule tells no chance: its predicted column is empty


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "nobody", "--defence", "rule"], "--agent 'nobody': unknown agent"),
        (["--agent", "knn:foo=1", "--defence", "rule"], "unknown parameter 'foo'"),
        (["--agent", "rule", "--defence", "nobody"], "--defence 'nobody'"),
        (["--agent", "rule", "--defence", "rule", "--deals", "0"], "at least 1"),
        (["--agent", "rule", "--defence", "rule", "--deals", "-3"], "at least 1"),
    ],
)
def test_bad_input_is_a_spielwerk_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["skat", "calibration", *args])
    assert isinstance(result.exception, SpielwerkError), result.exception
    assert message in str(result.exception)


def test_bad_input_prints_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "spielwerk.cli.main", "skat", "calibration", "--agent",
         "nobody", "--defence", "open", "--deals", "2"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "1000"},
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("error: --agent 'nobody'")
