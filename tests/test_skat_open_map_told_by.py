"""``experiments/skat_open_map.py --told-by``: chances told through a calibration's map are
taken back to its base's, and the declarer comparison's own-null records are read as games."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "experiments" / "skat_open_map.py"
spec = importlib.util.spec_from_file_location("skat_open_map", SCRIPT)
assert spec is not None and spec.loader is not None
open_map = importlib.util.module_from_spec(spec)
spec.loader.exec_module(open_map)


def told(p: float, ab: list[float]) -> float:
    z = math.log(p / (1 - p))
    t = min(z, ab[0] + ab[1] * z)
    return 1 / (1 + math.exp(-t))


@pytest.mark.parametrize("ab", [[-0.7121, 1.4608], [-0.4463, 0.9048], [0.0, 1.0]])
@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.7, 0.83, 0.95])
def test_untold_inverts_the_map(ab: list[float], p: float) -> None:
    assert open_map.untold(told(p, ab), ab) == pytest.approx(p, abs=1e-9)


def test_own_null_records_are_read_as_games(tmp_path: Path) -> None:
    path = tmp_path / "own.jsonl"
    lines = [{"agent": "knn", "declarers": ["knn", "open"], "force": "own-nulls"},
             {"deal": 0, "passed": True},  # passed in
             {"deal": 1, "passed": True, "type": "suit"},  # another game: not played
             {"deal": 2, "passed": False, "type": "null", "predicted": 0.4, "decided": 0.5,
              "knn": {"ours": {"won": True}, "open": {"won": False}},
              "open": {"ours": {"won": False}, "open": {"won": False}}}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    ab = [-0.7121, 1.4608]
    rows = open_map.read_records(path, {"map": {"null": ab}})
    assert len(rows) == 1 and rows[0]["won"] is True and rows[0]["type"] == "null"
    assert told(rows[0]["predicted"], ab) == pytest.approx(0.4)
    assert rows[0]["predicted"] > 0.4  # the map had lowered it
    assert open_map.read_records(path, None) == []  # without --told-by: calibration lines only
