"""``experiments/skat_worlds_strength.py``: settings are parsed or refused in one line, the
percentile counts ties as half, and the script ranks the real declarer among each setting's
worlds, with the same worlds for the same seed."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from skat_helpers import experiment
from spielwerk.games.skat_ai.defence_runs import DefenceRun


def test_settings_are_parsed_or_refused() -> None:
    ws = experiment("skat_worlds_strength")
    name, s = ws.parse_setting("sharp=candidates=16,power=2")
    assert name == "sharp" and s.candidates == 16 and s.power == 2.0 and s.floor == 0.05
    name, s = ws.parse_setting("refit=bid_model=knn10,power=1")
    assert name == "refit" and s.bid_model == "knn10" and s.power == 1.0
    assert ws.parse_setting("plain=power=1")[1].bid_model == "knn2"
    for bad in ("sharp", "=candidates=4", "x=colour=2", "x=power=high", "x=play_model=net",
                "x=bid_model=knn3"):
        with pytest.raises(argparse.ArgumentTypeError):
            ws.parse_setting(bad)


def test_the_percentile_counts_ties_as_half() -> None:
    ws = experiment("skat_worlds_strength")
    assert ws.percentile(5.0, np.array([1.0, 5.0, 9.0, 9.0])) == 0.25 + 0.125
    assert ws.percentile(10.0, np.array([1.0, 2.0])) == 1.0


def test_the_script_ranks_every_game_and_summarizes(tmp_path: Path, capsys: Any) -> None:
    ws = experiment("skat_worlds_strength")
    gap = experiment("skat_defence_gap")
    results = tmp_path / "cmp.jsonl"
    gap.run_defences(results, DefenceRun("rule", ("rule",), seed=31), 9, "serial", 1, every=9)
    outs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    argv = sys.argv
    try:
        for out in outs:
            sys.argv = ["skat_worlds_strength.py", str(results), "--types", "suit,grand,null",
                        "--setting", "plain=power=0", "--setting", "sharp=candidates=8,power=2",
                        "--batches", "2", "--worlds", "8", "--out", str(out)]
            ws.main()
    finally:
        sys.argv = argv
    a, b = ([json.loads(x) for x in out.read_text().splitlines()] for out in outs)
    assert a[0]["settings"]["sharp"]["candidates"] == 8
    assert [r["deal"] for r in a[1:]] == [0, 2, 3, 4, 6, 7, 8]
    for ra, rb in zip(a[1:], b[1:], strict=True):  # seeded: the same worlds again
        for name in ("plain", "sharp"):
            assert 0.0 <= ra[name]["percentile"] <= 1.0
            assert ra[name]["percentile"] == rb[name]["percentile"]
    assert "7 games;" in capsys.readouterr().out
