"""A calibration record file says what its specs meant: ``knn`` names another bot once the
default moves, so ``--resume`` and ``--summarize`` go by the settings recorded in the header
(the ``knn`` family's :meth:`provenance`), not by the names; files written before the
settings were recorded are taken at their specs' word, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app
from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat_ai.calibration_runs import pool, read_run, spec_settings
from spielwerk.games.skat_ai.knowledge.store import default_base_dir

runner = CliRunner()
FAST = "knn:play=rule"


def _play(out: Path, *extra: str) -> tuple[int, BaseException | None]:
    result = runner.invoke(app, ["skat", "calibration", "--agent", FAST, "--defence", "rule",
                                 "--deals", "1", "--seed", "3", "--workers", "1", "--out",
                                 str(out), *extra], env={"COLUMNS": "200"})
    return result.exit_code, result.exception


def test_a_spec_means_its_settings_not_its_name() -> None:
    knn = spec_settings("knn")
    assert knn is not None and knn["worlds"] == 32 and "base" not in knn
    assert len(knn["base_manifest"]) == 64 and knn["calibration"] != "auto"
    assert spec_settings("knn10") == knn  # the frozen default is the default today
    assert spec_settings("knn10:worlds=4") == spec_settings("knn:worlds=4") != knn
    assert spec_settings(f"knn:base={default_base_dir()}") == knn  # the same base, by path
    knn2 = spec_settings("knn2")
    assert knn2 is not None and knn2 != knn and knn2["calibration"] == "strong"
    assert spec_settings("rule") is None and spec_settings("open") is None


def _edit_header(path: Path, change: dict | None) -> None:
    lines = path.read_text().splitlines(keepends=True)
    head = json.loads(lines[0])
    if change is None:
        del head["settings"]
    else:
        head["settings"]["agent"].update(change)
    path.write_text(json.dumps(head) + "\n" + "".join(lines[1:]))


def test_resume_refuses_a_run_whose_spec_meant_other_settings(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert _play(out)[0] == 0
    _edit_header(out, {"worlds": 7, "suit_margin": 0})
    before = out.read_text()
    code, exc = _play(out, "--resume")
    assert code != 0 and isinstance(exc, SpielwerkError)
    assert "agent 'knn:play=rule' meant other settings" in str(exc)
    assert "suit_margin 0 / 10" in str(exc) and "worlds 7 / 32" in str(exc)
    assert out.read_text() == before  # left as it was


def test_resume_takes_an_older_file_at_its_specs_word(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert _play(out)[0] == 0
    whole = out.read_text()
    lines = whole.splitlines(keepends=True)
    out.write_text("".join(lines[:-1]))  # the last seat-game still to play
    _edit_header(out, None)
    code, exc = _play(out, "--resume")
    assert code == 0, exc
    assert "settings" not in json.loads(out.read_text().splitlines()[0])
    assert out.read_text().splitlines()[1:] == whole.splitlines()[1:]


def _run_file(path: Path, agent: str, seed: int, settings: dict | None = None,
              won: bool = True) -> Path:
    head = {"agent": agent, "defence": "rule", "deals": 1, "seed": seed}
    if settings is not None:
        head["settings"] = {"agent": settings, "defence": None}
    rows = [head, {"deal": 0, "seat": 0, "declared": True, "type": "suit", "predicted": 0.8,
                   "won": won, "sf": 60 if won else -100}]
    rows += [{"deal": 0, "seat": s, "declared": False} for s in (1, 2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_runs_pool_by_what_their_specs_meant(tmp_path: Path) -> None:
    now = spec_settings("knn")
    assert now is not None
    a = _run_file(tmp_path / "a.jsonl", "knn10", 1, now)
    b = _run_file(tmp_path / "b.jsonl", "knn", 2, now, won=False)
    summary = pool([read_run(a), read_run(b)])
    assert summary["agent"] == "knn10 = knn" and summary["defence"] == "rule"
    assert summary["types"]["suit"]["declared"] == 2
    assert summary["types"]["suit"]["observed"] == 0.5
    moved = _run_file(tmp_path / "c.jsonl", "knn", 3, {**now, "suit_margin": 0})
    with pytest.raises(SpielwerkError, match="the same spec, meaning other settings"):
        pool([read_run(b), read_run(moved)])
    # older files, no settings recorded: by the spec, as before
    old_a = _run_file(tmp_path / "d.jsonl", "knn10", 4)
    old_b = _run_file(tmp_path / "e.jsonl", "knn", 5)
    with pytest.raises(SpielwerkError, match="agent 'knn'"):
        pool([read_run(old_a), read_run(old_b)])
    assert pool([read_run(old_b), read_run(b)])["agent"] == "knn"
