"""The Skat research scripts that write chunks run their library tasks on any executor:
``skat_kb_quality.py label`` and ``skat_play_model.py data`` write what the tasks return,
skip the chunks they have, and give the same chunks serially and in a process pool."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from skat_helpers import EXPERIMENTS, experiment
from spielwerk.games.skat_ai.inference import record_card_decisions
from spielwerk.games.skat_ai.knowledge.deals import label_wins


def _label(out: Path, deals: int, executor: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(EXPERIMENTS / "skat_kb_quality.py"), "label",
                           "--deals", str(deals), "--seed", "3", "--chunk", "2", "--out",
                           str(out), "--executor", executor, "--workers", "2"],
                          capture_output=True, text=True, timeout=600)


def test_label_writes_each_chunk_once_on_any_executor(tmp_path: Path) -> None:
    serial, pool = tmp_path / "serial", tmp_path / "pool"
    done = _label(serial, 4, "serial")
    assert done.returncode == 0, done.stderr
    assert "4/4 deals" in done.stdout
    done = _label(serial, 6, "serial")  # deals 0-3 are there: only the last chunk is new
    assert done.returncode == 0, done.stderr
    assert "labelled 2 deals" in done.stdout
    assert _label(pool, 6, "local").returncode == 0
    names = sorted(p.name for p in serial.iterdir())
    assert names == [f"heldout-3-{first:07d}.npz" for first in (0, 2, 4)]
    assert names == sorted(p.name for p in pool.iterdir())
    for name in names:
        a, b = np.load(serial / name), np.load(pool / name)
        assert set(a.files) == set(b.files)
        for key in a.files:
            assert np.array_equal(a[key], b[key])
    first = int(name[-11:-4])
    want, _ = label_wins((3, first, 2))
    got = np.load(serial / name)
    assert all(np.array_equal(got[k], want[k]) for k in want)


def test_a_threads_executor_is_refused_in_one_line(tmp_path: Path) -> None:
    done = _label(tmp_path / "t", 2, "threads")
    assert done.returncode != 0 and "use local, serial or dask://" in done.stderr
    assert not (tmp_path / "t").exists()


def test_play_model_data_writes_the_recorded_chunks(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    script = experiment("skat_play_model")
    monkeypatch.setattr(script, "CHUNK", 1)
    script.write_chunks(tmp_path, 2, 7101, 2, "serial", 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunk000.npz", "chunk001.npz"]
    for chunk in (0, 1):
        rows = np.load(tmp_path / f"chunk{chunk:03d}.npz")["rows"]
        assert np.array_equal(rows, record_card_decisions((7101, chunk, 1, 2))[1])
    before = (tmp_path / "chunk000.npz").stat().st_mtime_ns
    script.write_chunks(tmp_path, 3, 7101, 2, "serial", 1)  # only chunk 2 is new
    assert (tmp_path / "chunk000.npz").stat().st_mtime_ns == before
    assert (tmp_path / "chunk002.npz").exists()
