"""``experiments/skat_declared_mix.py``: a spec's declarations from its auctions alone are
the calibration's, seat-game for seat-game, and the mix is counted from them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from skat_helpers import EXPERIMENTS, experiment
from spielwerk.games.skat_ai.calibration import CalibrationConfig, declare_seat, play_seat

FAST = "knn:play=rule"


def test_the_declarations_are_the_calibrations() -> None:
    config = CalibrationConfig(FAST, FAST, 6, 17)
    declared = 0
    for task in config.tasks():
        mine, played = declare_seat(task), play_seat(task)
        assert {k: mine[k] for k in ("deal", "seat")} == {k: played[k] for k in ("deal", "seat")}
        assert ("type" in mine) == played["declared"]
        if played["declared"]:
            declared += 1
            for key in ("type", "predicted", "decided"):
                assert mine[key] == played[key]
            assert 18 <= mine["bid"] <= 264
    assert declared >= 4  # about one declarer a deal


def test_the_mix_by_hand() -> None:
    script = experiment("skat_declared_mix")
    records = ([{"deal": 0, "seat": s, "declared": False} for s in range(3)]
               + [{"type": "suit", "predicted": 0.8}, {"type": "suit", "predicted": 0.6},
                  {"type": "grand_hand", "predicted": 0.9}, {"type": "null", "predicted": 0.65},
                  {"type": "null", "predicted": 0.95}, {"type": "null_ouvert",
                                                         "predicted": None}])
    m = script.mix(records)
    assert (m["seat_games"], m["declared"]) == (9, 6)
    assert m["types"] == {"suit": 2, "grand_hand": 1, "null": 2, "null_ouvert": 1}
    assert m["grand"] == pytest.approx(1 / 6) and m["null"] == pytest.approx(3 / 6)
    assert m["told"]["suit"] == pytest.approx(0.7) and "null_ouvert" not in m["told"]
    assert m["null_slices"] == [0, 1, 0, 0, 1]


def test_the_command_prints_the_mix() -> None:
    done = subprocess.run([sys.executable, str(EXPERIMENTS / "skat_declared_mix.py"), "--spec",
                           FAST, "--deals", "4", "--seed", "5"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"{FAST}: ") and "of 12 seat-games declared" in first
    assert "plain nulls by chance told" in done.stdout
