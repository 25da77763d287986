"""``experiments/skat_bid_stage.py``: the bidding's chances of a calibration run's declared
games, replayed from the run's seeds (run as a script: tests do not import experiments).

The replay must reach every recorded declaration again - the same auction from the same
seeds - or its chances belong to other games; and a calibration made from replays says how
it was made."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from spielwerk.games.skat_ai.calibration import CalibrationConfig, play_seat
from spielwerk.games.skat_ai.params import CALIBRATION_DIR

ROOT = Path(__file__).resolve().parents[1]


def calibration_file(tmp_path: Path, deals: int) -> tuple[Path, list[dict[str, Any]]]:
    """A ``skat calibration --out`` file of ``deals`` deals (1 world) and its records."""
    config = CalibrationConfig(agent="knn:worlds=1", defence="knn:worlds=1", deals=deals,
                               seed=3)
    records = [play_seat(task) for task in config.tasks()]
    cal = tmp_path / "cal.jsonl"
    cal.write_text("\n".join(json.dumps(r) for r in [
        {"agent": config.agent, "defence": config.defence, "deals": config.deals,
         "seed": config.seed}, *records]) + "\n")
    return cal, records


def test_a_replay_reaches_every_recorded_declaration(tmp_path: Path) -> None:
    cal, records = calibration_file(tmp_path, 6)
    declared = [r for r in records if r["declared"]]
    assert declared  # six deals, three seats each: the agent declares some
    out = tmp_path / "bid.jsonl"
    done = subprocess.run([sys.executable, str(ROOT / "experiments" / "skat_bid_stage.py"),
                           "replay", str(cal), "-o", str(out)], capture_output=True, text=True,
                          timeout=300, check=True)
    assert f"{len(declared)} games (0 whose declaration came out otherwise" in done.stdout
    head, *rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert head["seed"] == 3 and len(rows) == len(declared)
    for row, rec in zip(rows, declared, strict=True):
        assert (row["deal"], row["seat"], row["type"], row["won"]) == (
            rec["deal"], rec["seat"], rec["type"], rec["won"])
        assert row["plan"].split("_")[0] in ("suit", "grand", "null")
        assert 0.0 < row["predicted"] < 1.0


def test_the_shipped_pickup_calibration_says_how_it_was_made() -> None:
    made = json.loads((CALIBRATION_DIR / "played_pickup.json").read_text())["pickup_map_made"]
    assert made["by"].startswith("python experiments/skat_bid_stage.py fit ")
    assert "--keep played_grand_hand" in made["by"] and sum(made["records"].values()) > 1000


def test_compare_lists_the_declarations_two_specs_make(tmp_path: Path) -> None:
    """``compare``: the same spec twice changes nothing; a spec that never picks a grand
    after picking up (``put_grand_shift=3``) changes only grands picked up into other games."""
    cal, records = calibration_file(tmp_path, 20)
    script = [sys.executable, str(ROOT / "experiments" / "skat_bid_stage.py"), "compare",
              str(cal)]
    spec = "knn:worlds=1:put_grand_shift=0"
    same = subprocess.run([*script, spec, spec], capture_output=True, text=True, timeout=300,
                          check=True).stdout
    assert f"{len(records)} seat-games" in same and "changed" not in same
    moved = subprocess.run([*script, spec, "knn:worlds=1:put_grand_shift=3"],
                           capture_output=True, text=True, timeout=300, check=True).stdout
    changes = [line.split() for line in moved.splitlines() if line.endswith("changed")]
    assert changes, moved  # 60 seat-games hold some grand picked up
    for before, _, after, *_ in changes:
        assert before == "grand" and after != "grand"
