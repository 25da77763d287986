"""``experiments/skat_refit.py``: one command plays the calibration runs, fits the map and
writes the calibration file; complete runs are reused, a stopped one is played again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from spielwerk.games.skat_ai.calibration import GAME_TYPES
from spielwerk.games.skat_ai.params import CALIBRATION_DIR

SCRIPT = Path(__file__).resolve().parents[1] / "experiments" / "skat_refit.py"
BOT = "knn:worlds=1"


def refit(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--agent", BOT, "--defence", BOT, "--run", "5:2",
         "--run", "6:2", "--own", "tiny", "--folder", str(tmp_path / "runs"),
         "--write", str(tmp_path / "tiny.json"), *extra],
        capture_output=True, text=True, timeout=600)


def test_one_command_plays_fits_and_writes(tmp_path: Path) -> None:
    first = refit(tmp_path)
    assert first.returncode == 0, first.stderr
    runs = sorted((tmp_path / "runs").glob("*.jsonl"))
    assert [p.name for p in runs] == ["calib-knn_worlds=1-5.jsonl", "calib-knn_worlds=1-6.jsonl"]
    for path, seed in zip(runs, (5, 6), strict=True):
        lines = path.read_text().splitlines()
        head = json.loads(lines[0])
        assert head.pop("settings")["agent"]["worlds"] == 1
        assert head == {"agent": BOT, "defence": BOT, "deals": 2, "seed": seed}
        assert len(lines) == 1 + 3 * 2
    made = json.loads((tmp_path / "tiny.json").read_text())
    assert made["name"] == "tiny" and set(made["map"]) == set(GAME_TYPES)
    assert made["map_made"]["records"] == {p.name: 7 for p in runs}
    declared = sum(1 for p in runs for line in p.read_text().splitlines()[1:]
                   if json.loads(line)["declared"])
    assert sum(t["games"] for t in made["map_made"]["types"].values()) == declared
    for kind in GAME_TYPES:  # the calibration table, one row per type
        assert any(line.split()[:1] == [kind] for line in first.stdout.splitlines()), kind
    assert first.stdout.count("playing ") == 2

    # the runs are complete: a second refit reuses them and writes the same file
    again = refit(tmp_path)
    assert again.returncode == 0 and again.stdout.count("reused ") == 2
    assert json.loads((tmp_path / "tiny.json").read_text()) == made

    # a run cut short (killed while writing a line) is continued from its two finished
    # seat-games, and gives the same file
    whole = runs[1].read_text()
    cut = whole.splitlines()
    runs[1].write_text("\n".join(cut[:3]) + "\n" + cut[3][:12])
    third = refit(tmp_path)
    assert third.returncode == 0 and third.stdout.count("reused ") == 1, third.stderr
    assert third.stdout.count("continuing ") == 1
    assert runs[1].read_text() == whole

    # --after-pickup: the suit map applies after the skat is seen only (the bidding keeps
    # the kept calibration's suit map as suit_pickup); a hand type beside it is refitted
    # as without the flag; the flag needs a type played with the skat
    kept = json.loads((CALIBRATION_DIR / "played_suit_knn7.json").read_text())["map"]
    keep = ("--told-by", "played_suit_knn7", "--keep", "played_suit_knn7", "--after-pickup")
    pickup = refit(tmp_path, *keep, "--types", "suit,suit_hand")
    assert pickup.returncode == 0 and pickup.stdout.count("reused ") == 2, pickup.stderr
    made = json.loads((tmp_path / "tiny.json").read_text())
    assert set(made["map"]) == {*GAME_TYPES, "suit_pickup"}
    assert made["map"]["suit_pickup"] == kept["suit"]
    assert all(made["map"][k] == kept[k] for k in GAME_TYPES if k not in ("suit", "suit_hand"))
    assert made["map_made"]["by"].endswith("--keep played_suit_knn7 --after-pickup")
    refused = refit(tmp_path, *keep, "--types", "suit_hand")
    assert refused.returncode != 0 and "--after-pickup needs" in refused.stderr
    assert json.loads((tmp_path / "tiny.json").read_text()) == made


def test_a_malformed_run_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--agent", BOT, "--defence", BOT,
                           "--run", "7135", "--own", "tiny"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "SEED:DEALS" in done.stderr
    assert not (tmp_path / "tiny.json").exists()


def test_a_run_is_whole_only_with_every_seat_game_once(tmp_path: Path) -> None:
    import importlib.util
    spec = importlib.util.spec_from_file_location("skat_refit", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    header = {"agent": BOT, "defence": BOT, "deals": 1, "seed": 5}
    path = tmp_path / "run.jsonl"
    seats = [{"deal": 0, "seat": s, "declared": False} for s in range(3)]

    def write(records: list[dict[str, object]], tail: str = "") -> None:
        path.write_text("".join(json.dumps(r) + "\n" for r in [header, *records]) + tail)

    assert not module.complete(path, header)  # no file
    write(seats)
    assert module.complete(path, header)
    assert not module.complete(path, {**header, "seed": 6})  # another run
    write(seats[:2], tail='{"deal": 0, "se')  # killed mid-line: three lines, two games
    assert not module.complete(path, header)
    write([seats[0], seats[1], seats[1]])  # as many lines, one seat-game twice
    assert not module.complete(path, header)
