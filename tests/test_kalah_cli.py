"""Kalah commands and their errors: analyze within a time budget, clear notation errors,
tables sized to the instance, databases: limits, no leftover temporary files, progress
per level."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app
from spielwerk.core.errors import SpielwerkError
from spielwerk.games.kalah import egdb
from spielwerk.games.kalah.notation import NotationError, parse_position
from spielwerk.games.kalah.perfect import analyze_within
from spielwerk.games.kalah.solver import Solver, table_log2

runner = CliRunner()


def _run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def test_analyze_of_the_start_finishes_within_its_time_budget() -> None:
    result = _run("kalah", "analyze", "4,4,4,4,4,4|4,4,4,4,4,4|0-0 S", "--time", "2", "-q")
    assert result.exit_code == 0, result.stdout
    assert "not exact" in result.stdout and "estimate" in result.stdout
    assert "best" in result.stdout


def test_analyze_within_gives_exact_values_when_there_is_time() -> None:
    solver = Solver(3, max_seeds=12, tt_log2=16)
    board, mover = parse_position("2,2,2|2,2,2")
    rel = solver.relative(board, mover)
    timed = analyze_within(solver, rel, 60.0)
    assert timed.depth == -1
    assert timed.move_values == solver.move_values(rel)


def test_notation_blames_the_mover_letter_and_says_what_has_how_many_pits() -> None:
    with pytest.raises(NotationError, match="side to move is S .* or N .*, not 'X'"):
        parse_position("4,4,4|4,4,4|0-0 X")
    with pytest.raises(NotationError, match="6 pits per side, but the position has 3"):
        parse_position("4,4,4|4,4,4", pits=6)
    result = _run("kalah", "analyze", ",".join(["1"] * 16) + "|" + ",".join(["1"] * 16))
    assert "--pits" not in str(result.exception) and "16" in str(result.exception)


def test_table_is_sized_to_the_instance_and_says_so() -> None:
    use, note = table_log2(30, 2, 4)
    assert use == 20 and "instead of 2^30" in note and "positions" in note
    assert table_log2(18, 6, 48) == (18, "")  # small tables are used as asked
    lines: list[str] = []
    solver = Solver(2, max_seeds=4, tt_log2=30, progress=lines.append)
    assert solver.table.nbytes == 16 << 20
    assert any("transposition table" in x for x in lines)


def test_solver_and_agent_share_the_database_limit() -> None:
    with pytest.raises(SpielwerkError, match="0..40"):
        Solver(6, egdb_seeds=99)
    result = _run("kalah", "solve", "--egdb", "41")
    assert "0..40" in str(result.exception)


def test_failed_database_save_leaves_no_temporary_file(tmp_path: Path, monkeypatch) -> None:
    class FailingRename:  # egdb's own view of os (numba's cache must keep the real one)
        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            return getattr(os, name)

        @staticmethod
        def replace(src, dst):  # type: ignore[no-untyped-def]
            assert Path(src).exists()  # the temporary file was written
            raise OSError(errno.EXDEV, "rename failed")

    monkeypatch.setattr(egdb, "os", FailingRename())
    lines: list[str] = []
    db = egdb.open_egdb(2, 3, False, path=tmp_path, progress=lines.append)
    assert db.file is None
    assert any("not saved" in x for x in lines)
    assert list(tmp_path.iterdir()) == []  # neither the file nor a .tmp<pid>


def test_database_progress_shows_each_levels_own_time(tmp_path: Path) -> None:
    lines: list[str] = []
    egdb.open_egdb(2, 4, False, path=tmp_path, progress=lines.append)
    levels = [x for x in lines if "seeds done" in x]
    assert len(levels) == 4
    assert all("this level" in x and "total" in x for x in levels)
    assert "building" in lines[0]


def test_perfect_agent_reports_a_database_build_and_loads_quietly(tmp_path: Path, monkeypatch,
                                                                   capsys) -> None:
    import spielwerk

    monkeypatch.setenv("SPIELWERK_CACHE_DIR", str(tmp_path))
    game = spielwerk.load_game("kalah(pits=3,seeds=2)")
    spielwerk.make_agent("perfect:egdb=6:time=0.1", game)
    err = capsys.readouterr().err
    assert "building" in err and "6/6 seeds done" in err
    agent = spielwerk.make_agent("perfect:egdb=6:time=0.1", game)
    assert capsys.readouterr().err == ""
    assert agent.solver.db_n == 6  # type: ignore[attr-defined]


def test_huge_counts_in_a_position_are_an_error_not_an_overflow() -> None:
    with pytest.raises(NotationError, match="at most 1,000,000 seeds"):
        parse_position("99999999999999999999,1|1,1")
    with pytest.raises(NotationError, match="stores: at most"):
        parse_position("1,1|1,1|99999999999-0")


# ------------------------------------------------- database folders checked before any work
def _no_build(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from spielwerk.games.kalah import egdb_build

    def build(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the database was built")

    monkeypatch.setattr(egdb_build, "build", build)


def test_egdb_into_a_place_that_takes_no_file_is_refused_before_building(tmp_path: Path,
                                                                         monkeypatch) -> None:
    _no_build(monkeypatch)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for target, text in [("/proc/egdb", "cannot write endgame databases in --egdb-dir "
                                        "/proc/egdb"),
                         (str(a_file), f"--egdb-dir {a_file} is a file, not a folder")]:
        result = _run("kalah", "egdb", "--pits", "4", "--max-seeds", "3", "--egdb-dir", target)
        assert isinstance(result.exception, SpielwerkError), result.exception
        assert text in str(result.exception)
        assert "\n" not in str(result.exception)


def test_egdb_whose_save_fails_after_building_is_an_error(tmp_path: Path, monkeypatch) -> None:
    def full_disk(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(egdb, "save", full_disk)
    result = _run("kalah", "egdb", "--pits", "2", "--max-seeds", "3", "--egdb-dir",
                  str(tmp_path), "-q")
    assert result.exit_code != 0
    assert isinstance(result.exception, SpielwerkError)
    assert "not saved" in str(result.exception) and "No space left" in str(result.exception)
    assert "file None" not in result.stdout


@pytest.mark.parametrize("command", [["solve", "--pits", "2", "--seeds", "1"],
                                     ["analyze", "1,1|1,1"],
                                     ["split", "--pits", "2", "--seeds", "1"]])
def test_solving_with_a_file_or_missing_folder_as_egdb_dir_is_refused(
        tmp_path: Path, command: list[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    result = _run("kalah", *command, "--egdb-dir", str(a_file))
    assert f"--egdb-dir {a_file} is a file, not a folder" in str(result.exception)
    missing = tmp_path / "no-such-folder"
    result = _run("kalah", *command, "--egdb-dir", str(missing))
    assert f"--egdb-dir {missing} does not exist" in str(result.exception)
    assert not missing.exists()


def test_solve_builds_an_asked_database_into_a_new_egdb_dir(tmp_path: Path) -> None:
    folder = tmp_path / "new"
    result = _run("kalah", "solve", "--pits", "2", "--seeds", "1", "--egdb", "3",
                  "--egdb-dir", str(folder), "-q")
    assert result.exit_code == 0, result.exception
    assert egdb.cached(2, False, path=folder)


def test_split_checkpoint_in_an_unwritable_place_is_refused_before_solving(tmp_path: Path) -> None:
    result = _run("kalah", "split", "--pits", "2", "--seeds", "1", "--checkpoint",
                  "/proc/k.json")
    assert "--checkpoint /proc/k.json: cannot write in /proc" in str(result.exception)
    result = _run("kalah", "split", "--pits", "2", "--seeds", "1", "--checkpoint",
                  str(tmp_path))
    assert "is a folder" in str(result.exception)


# ------------------------------------------------------------- the cost of a solve, up front
def test_solve_without_a_large_database_says_its_cost_and_the_build_command_up_front(
        tmp_path: Path, monkeypatch) -> None:
    from spielwerk.cli import kalah as kalah_cli

    class Stop(Exception):
        pass

    def no_search(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise Stop  # the warning must come before the search starts

    monkeypatch.setattr(kalah_cli, "ParallelSolver", no_search)
    for quiet in ([], ["-q"]):
        result = _run("kalah", "solve", "--pits", "6", "--seeds", "4", "--egdb-dir",
                      str(tmp_path), "--tt", "16", "--threads", "2", *quiet)
        assert isinstance(result.exception, Stop)
        text = " ".join(result.stderr.split())
        assert "warning: Kalah(6,4) with no endgame database" in text
        assert "`spielwerk kalah egdb --pits 6 --max-seeds 24`" in text
        assert " h " in text or "days" in text  # hours at least, not seconds


def test_cost_warning_only_for_slow_solves() -> None:
    from spielwerk.games.kalah.defaults import cost_warning

    text = cost_warning(6, 4, False, 19, threads=2)
    assert text is not None and "<= 19 seeds" in text and "--max-seeds 24" in text
    assert "70 M nodes" in text
    assert cost_warning(6, 4, False, 24, threads=2) is None  # the README's 3 s solve
    assert cost_warning(6, 3, False, 0, threads=2) is None  # 6 M nodes, seconds
    assert cost_warning(4, 4, False, 0) is None
    empty = cost_warning(6, 4, True, 0, threads=1)
    assert empty is not None and "--empty-capture" in empty
