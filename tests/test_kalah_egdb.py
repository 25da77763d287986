"""Endgame databases: index bijection, exact values against brute force, file integrity."""

from __future__ import annotations

import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spielwerk.games.kalah import egdb, egdb_index, kernel

sys.path.insert(0, str(Path(__file__).parent))
from test_kalah_solver_oracle import Oracle  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=8, max_size=8))
def test_rank_is_a_bijection_ordered_by_seed_count(pits: list[int]) -> None:
    m = 4
    binom = egdb_index.binomials(80, m)
    board = np.zeros(2 * m + 2, np.int32)
    board[:m] = pits[:m]
    board[m + 1 : 2 * m + 1] = pits[m:]
    board[m] = 7  # stores do not matter
    r = egdb_index.rank(board, m, binom)
    s = sum(pits)
    assert comb(s - 1 + 2 * m, 2 * m) <= r < comb(s + 2 * m, 2 * m)
    back = np.zeros_like(board)
    egdb_index.unrank(r, m, binom, back)
    board[m] = 0
    assert back.tolist() == board.tolist()


@pytest.mark.parametrize("pits,max_seeds", [(2, 8), (3, 7), (4, 6)])
@pytest.mark.parametrize("empty_capture", [False, True])
@pytest.mark.parametrize("end_rule", [kernel.END_EITHER_EMPTY, kernel.END_MOVER_EMPTY])
def test_every_entry_matches_brute_force(pits: int, max_seeds: int, empty_capture: bool,
                                         end_rule: int) -> None:
    db = egdb.build(pits, max_seeds, empty_capture, end_rule)
    assert db.size == comb(max_seeds + 2 * pits, 2 * pits)
    oracle = Oracle(pits, empty_capture, end_rule)
    binom = egdb_index.binomials(max_seeds, pits)
    board = np.zeros(2 * pits + 2, np.int32)
    for r in range(db.size):
        egdb_index.unrank(r, pits, binom, board)
        side0 = int(board[:pits].sum())
        side1 = int(board[pits + 1 : 2 * pits + 1].sum())
        over = side0 == 0 or (end_rule == kernel.END_EITHER_EMPTY and side1 == 0)
        expected = side0 - side1 if over else oracle.value(board)
        assert db[r] == expected, (board.tolist(), int(db[r]), expected)


def test_values_have_the_parity_of_the_seeds_and_stay_in_range() -> None:
    db = egdb.build(3, 9, False)
    binom = egdb_index.binomials(9, 3)
    board = np.zeros(8, np.int32)
    for r in range(0, db.size, 7):
        egdb_index.unrank(r, 3, binom, board)
        s = int(board.sum())
        assert -s <= db[r] <= s
        assert (int(db[r]) - s) % 2 == 0


def test_saved_file_round_trips_and_is_reused(tmp_path: Path) -> None:
    first = egdb.open_egdb(3, 8, False, path=tmp_path)
    assert first.build_seconds is not None and first.file is not None and first.file.exists()
    second = egdb.open_egdb(3, 8, False, path=tmp_path)
    assert second.build_seconds is None  # loaded, not rebuilt
    assert np.array_equal(first.values, second.values)


def _corrupt(file: Path, offset: int) -> None:
    raw = bytearray(file.read_bytes())
    raw[offset] ^= 0x01
    file.write_bytes(bytes(raw))


def test_corrupt_payload_is_detected_and_rebuilt(tmp_path: Path) -> None:
    good = egdb.open_egdb(3, 8, True, path=tmp_path)
    assert good.file is not None
    _corrupt(good.file, egdb.HEADER_SIZE + 100)
    with pytest.raises(egdb_index.EgdbError, match="checksum"):
        egdb.load(good.file, 3, 8, True, kernel.END_EITHER_EMPTY)
    messages: list[str] = []
    again = egdb.open_egdb(3, 8, True, path=tmp_path, progress=messages.append)
    assert again.build_seconds is not None
    assert any("not trusted" in m for m in messages)
    assert np.array_equal(again.values, good.values)
    egdb.load(good.file, 3, 8, True, kernel.END_EITHER_EMPTY)  # the rebuilt file is sound


def test_mismatched_or_truncated_files_are_rejected(tmp_path: Path) -> None:
    db = egdb.open_egdb(2, 6, False, path=tmp_path)
    assert db.file is not None
    with pytest.raises(egdb_index.EgdbError, match="header"):
        egdb.load(db.file, 2, 6, True, kernel.END_EITHER_EMPTY)  # other capture rule
    _corrupt(db.file, 8)  # the format version
    with pytest.raises(egdb_index.EgdbError, match="header"):
        egdb.load(db.file, 2, 6, False, kernel.END_EITHER_EMPTY)
    db = egdb.open_egdb(2, 6, False, path=tmp_path)
    assert db.build_seconds is not None
    assert db.file is not None
    db.file.write_bytes(db.file.read_bytes()[:-5])
    with pytest.raises(egdb_index.EgdbError):
        egdb.load(db.file, 2, 6, False, kernel.END_EITHER_EMPTY)
    db.file.write_bytes(b"short")
    with pytest.raises(egdb_index.EgdbError, match="truncated"):
        egdb.load(db.file, 2, 6, False, kernel.END_EITHER_EMPTY)


def test_cache_folder_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    monkeypatch.setenv("SPIELWERK_CACHE_DIR", str(tmp_path))
    assert egdb.cache_dir() == tmp_path / "kalah"
    db = egdb.open_egdb(2, 4, False)
    assert db.file is not None and db.file.parent == tmp_path / "kalah"
    assert egdb.cache_dir(tmp_path / "x") == tmp_path / "x"


def test_bad_sizes_raise_clear_errors() -> None:
    with pytest.raises(egdb_index.EgdbError):
        egdb.build(0, 5, False)
    with pytest.raises(egdb_index.EgdbError, match="64 bits"):
        egdb_index.binomials(10_000, 15)


def test_the_suite_keeps_out_of_the_users_database_folder() -> None:
    # conftest gives the tests a folder of their own: a database the user built in
    # ~/.cache/spielwerk/kalah (many GB) is neither loaded by a solve nor overwritten
    import tempfile

    folder = egdb.cache_dir()
    assert folder != Path.home() / ".cache" / "spielwerk" / "kalah"
    assert folder.parent.parent == Path(tempfile.gettempdir())
    assert folder.parent.name.startswith("spielwerk-tests-")


def test_a_file_is_checked_once_per_process_and_again_when_rewritten(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    db = egdb.open_egdb(2, 12, False, path=tmp_path)
    assert db.file is not None
    old = db.file.stat().st_mtime - 10  # settled: written well before it is checked
    os.utime(db.file, (old, old))
    checked: list[int] = []
    real = egdb._checksum_blocks

    def counting(payload: np.ndarray, used: int, out: np.ndarray) -> None:
        checked.append(used)
        real(payload, used, out)

    monkeypatch.setattr(egdb, "_checksum_blocks", counting)
    first = egdb.load(db.file, 2, 12, False, kernel.END_EITHER_EMPTY)
    again = egdb.load(db.file, 2, 9, False, kernel.END_EITHER_EMPTY, file_seeds=12)
    assert len(checked) == 1  # the prefix needed no second check
    assert np.array_equal(again, first[: again.size])
    raw = bytearray(db.file.read_bytes())  # rewritten: another modification time
    raw[egdb.HEADER_SIZE] ^= 1
    db.file.write_bytes(bytes(raw))
    with pytest.raises(egdb_index.EgdbError, match="checksum"):
        egdb.load(db.file, 2, 12, False, kernel.END_EITHER_EMPTY)
    assert len(checked) == 2
    # a mapping kept for a settled file is let go once the file is removed
    kept = egdb.open_egdb(2, 10, True, path=tmp_path)
    assert kept.file is not None
    os.utime(kept.file, (old, old))
    egdb.load(kept.file, 2, 10, True, kernel.END_EITHER_EMPTY)
    name = str(kept.file.resolve())
    assert any(k[0] == name for k in egdb._CHECKED)
    kept.file.unlink()
    with pytest.raises(egdb_index.EgdbError):
        egdb.load(db.file, 2, 12, False, kernel.END_EITHER_EMPTY)  # any later load
    assert not any(k[0] == name for k in egdb._CHECKED)


class _NoAdvice:
    def madvise(self, advice: int) -> None:
        raise OSError(22, "Invalid argument")


def test_huge_page_advice_is_optional(tmp_path: Path) -> None:
    """A kernel that refuses MADV_HUGEPAGE (no transparent huge pages) changes nothing:
    the advice reports False and a database still loads."""
    assert egdb.advise_huge_pages(_NoAdvice()) is False  # type: ignore[arg-type]
    db = egdb.open_egdb(3, 8, False, path=tmp_path)
    assert db.file is not None
    again = egdb.load(db.file, 3, 8, False, kernel.END_EITHER_EMPTY)
    assert np.array_equal(again, db.values) and not again.flags.writeable
