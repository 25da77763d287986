"""The shared mechanics of append-only JSON Lines files (core/append_file.py), and that the
arena's results files and the Skat calibration's record files both go through them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spielwerk.arena.results import ResultsFileError, read_results
from spielwerk.core.append_file import differences, lock_exclusive, opening_checks, read_lines
from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat_ai.calibration import CalibrationError
from spielwerk.games.skat_ai.calibration_runs import read_run


class OwnError(SpielwerkError):
    pass


def test_opening_checks(tmp_path: Path) -> None:
    new = tmp_path / "new.jsonl"
    assert opening_checks(new, False, False, OwnError, "a file") is False
    assert opening_checks(new, True, False, OwnError, "a file") is False  # the caller decides
    with pytest.raises(OwnError, match="either --resume or --fresh, not both"):
        opening_checks(new, True, True, OwnError, "a file")
    old = tmp_path / "old.jsonl"
    old.write_text("{}\n")
    with pytest.raises(OwnError, match="already exists: add --resume .* --fresh"):
        opening_checks(old, False, False, OwnError, "a file")
    assert opening_checks(old, True, False, OwnError, "a file") is True
    assert opening_checks(old, False, True, OwnError, "a file") is True
    with pytest.raises(OwnError, match="is a directory, not a record file"):
        opening_checks(tmp_path, True, False, OwnError, "a record file")
    assert old.read_text() == "{}\n"  # checks only: nothing was written


def test_read_lines_splits_off_an_unfinished_line(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c"')
    read = read_lines(path, OwnError, "a file")
    assert read.lines == [b'{"a": 1}', b'{"b": 2}']
    assert read.good_bytes == len(b'{"a": 1}\n{"b": 2}\n') and read.tail == b'{"c"'
    path.write_bytes(b"")
    assert read_lines(path, OwnError, "a file") == type(read)([], 0, b"")
    path.write_bytes(b"no newline at all")
    empty = read_lines(path, OwnError, "a file")
    assert empty.lines == [] and empty.good_bytes == 0 and empty.tail == b"no newline at all"
    with pytest.raises(OwnError, match="cannot read a file .*missing"):
        read_lines(tmp_path / "missing", OwnError, "a file")


def test_lock_is_exclusive_between_open_files(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text("")
    first = os.open(path, os.O_RDWR)
    second = os.open(path, os.O_RDWR)
    try:
        lock_exclusive(first, path, OwnError)
        with pytest.raises(OwnError, match="being written by another run"):
            lock_exclusive(second, path, OwnError)
        os.close(first)  # closing releases the lock
        first = -1
        lock_exclusive(second, path, OwnError)
    finally:
        for fd in (first, second):
            if fd >= 0:
                os.close(fd)


def test_both_file_kinds_raise_their_own_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(ResultsFileError, match="cannot read results file"):
        read_results(missing)
    with pytest.raises(CalibrationError, match="cannot read the record file"):
        read_run(missing)
    torn = tmp_path / "torn.jsonl"
    torn.write_text('{"agent": "rule", "defence": "rule", "deals": 1, "seed": 3}\n'
                    '{"deal": 0, "seat": 0, "declared": false}\n{"deal": 0, "se')
    run = read_run(torn)
    assert len(run.records) == 1 and run.tail == b'{"deal": 0, "se'
    assert run.good_bytes == torn.stat().st_size - len(run.tail)


def test_differences_name_nested_settings_by_path_in_key_order() -> None:
    old = {"seed": 1, "settings": {"knn": {"null_floor": 0.55, "worlds": 32}}, "gone": 1}
    new = {"seed": 1, "settings": {"knn": {"null_floor": 0.0, "worlds": 32}}, "added": [2]}
    assert differences(old, new) == [("added", None, [2]), ("gone", 1, None),
                                     ("settings.knn.null_floor", 0.55, 0.0)]
    assert differences(old, old) == []
    # a table against a plain value is one difference, not walked into
    assert differences({"a": {"b": 1}}, {"a": 3}) == [("a", {"b": 1}, 3)]
