"""Kalah commands and their errors: analyze within a time budget, clear notation errors,
tables sized to the instance (the seeds in play, the time limit), the size limit of a
position, finished positions, databases: limits, no leftover temporary files, progress
per level."""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import spielwerk
from spielwerk.cli.main import app
from spielwerk.core.errors import GameParameterError, SpielwerkError
from spielwerk.games.kalah import egdb
from spielwerk.games.kalah.notation import NotationError, parse_position
from spielwerk.games.kalah.perfect import analyze_within
from spielwerk.games.kalah.plan import KalahPlan
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
    from spielwerk.games.kalah import perfect

    monkeypatch.setenv("SPIELWERK_CACHE_DIR", str(tmp_path))
    game = spielwerk.load_game("kalah(pits=3,seeds=2)")
    first = spielwerk.make_agent("perfect:egdb=6:time=0.1", game)
    assert capsys.readouterr().err == ""  # the database is made at the first move
    start = game.new_initial_state().info_state(0)
    first.act(start)
    err = capsys.readouterr().err
    assert "building" in err and "6/6 seeds done" in err
    monkeypatch.setattr(perfect, "_LAST_SOLVER", None)  # a new solver: loaded, not built
    agent = spielwerk.make_agent("perfect:egdb=6:time=0.1", game)
    agent.act(start)
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
    from spielwerk.games.kalah import cli as kalah_cli

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


# ------------------------------------------- analyze: seeds in play, time limit, size, the end
def _analyze_in_a_process(*args: str, address_space: int = 0) -> subprocess.CompletedProcess[str]:
    """``spielwerk kalah analyze ARGS`` in a fresh process (under an address-space limit of
    ``address_space`` bytes, if given), as a user runs it."""

    def limit() -> None:
        if address_space:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return subprocess.run([sys.executable, "-m", "spielwerk.cli.main", "kalah", "analyze", *args],
                          capture_output=True, text=True, timeout=300, preexec_fn=limit)


def test_analyze_sizes_its_table_from_the_seeds_in_play_not_the_stores(tmp_path: Path) -> None:
    """Six seeds in the pits and 500 in a store: the stores never come back into play, so the
    table is the smallest one and the command runs in 1.5 GB of address space (a table for
    506 seeds was 2^28 slots, 4 GiB); the value counts the store all the same."""
    proc = _analyze_in_a_process("1,1,1|1,1,1|500-0 S", "--egdb-dir", str(tmp_path),
                                 address_space=1536 << 20)
    assert proc.returncode == 0, proc.stderr
    assert "value +500 for South" in proc.stdout
    said = " ".join(proc.stderr.split())  # the note, unwrapped
    assert "2^10 slots" in said and "the 6 seeds in play" in said
    # the same under the time limit, with 10,000 seeds in play: a table the 2 s can fill
    proc = _analyze_in_a_process("9997,1|1,1|0-0 S", "--time", "2", "--egdb-dir",
                                 str(tmp_path), address_space=1536 << 20)
    assert proc.returncode == 0, proc.stderr
    assert "best" in proc.stdout and "the time limit of 2 s" in " ".join(proc.stderr.split())


class _ChargedClock:
    """``time`` stand-in for the Kalah search: the real clock plus the seconds charged to
    clearing transposition tables, so what a table costs does not depend on how fast this
    machine clears memory."""

    def __init__(self) -> None:
        self.charged = 0.0

    def perf_counter(self) -> float:
        return time.perf_counter() + self.charged


def _charge_tables(monkeypatch: pytest.MonkeyPatch, seconds: Callable[[int], float]
                   ) -> _ChargedClock:
    """Every table made costs ``seconds(log2 slots)`` on the clock the command keeps."""
    from spielwerk.games.kalah import cli as cli_kalah
    from spielwerk.games.kalah import perfect, solver
    from spielwerk.search import tt

    clock = _ChargedClock()
    for module in (cli_kalah, perfect, solver):
        monkeypatch.setattr(module, "time", clock)
    new_table = tt.new_table

    def charged(log2_entries: int) -> np.ndarray:
        clock.charged += seconds(log2_entries)
        return new_table(log2_entries)

    monkeypatch.setattr(tt, "new_table", charged)
    _run("kalah", "analyze", "1,1|1,1", "-q")  # the kernels loaded (compiled) outside the clock
    clock.charged = 0.0
    return clock


def test_analyze_keeps_its_time_limit_with_the_table_counted(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """10,000 seeds in play, --time 2, a table clearing at 1 GiB/s (a slow machine's rate):
    the command stops within the limit plus a generous margin and shows the best found so
    far. Without a time-sized table (4 GiB: 4 s) and with the setup outside the limit it
    took at least 6 s on that clock."""
    clock = _charge_tables(monkeypatch, lambda log2: (16 << log2) / 2**30)
    start = clock.perf_counter()
    result = _run("kalah", "analyze", "9997,1|1,1|0-0 S", "--time", "2", "-q",
                  "--egdb-dir", str(tmp_path))
    took = clock.perf_counter() - start
    assert result.exit_code == 0, result.output
    assert "best" in result.stdout and "not exact" in result.stdout
    assert took < 2 + 1.5, took


def test_analyze_counts_its_setup_in_the_time_limit(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A setup that takes the whole --time (here: a table that costs 2.5 s) leaves no time to
    search: the immediate gains are shown at once, no search of 2 s more after it."""
    _charge_tables(monkeypatch, lambda log2: 2.5)
    result = _run("kalah", "analyze", "4,4,4|4,4,4|0-0 S", "--time", "2", "-q",
                  "--egdb-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "no search finished in 2 s" in result.stdout
    assert "nodes: 0 in" in result.stdout


def test_a_position_has_the_seed_limit_of_a_game_spec() -> None:
    """At most 10,000 seeds in all (pits and stores), checked by the game spec's check; the
    command refuses more with one line and exit code 2."""
    with pytest.raises(GameParameterError) as game_spec:
        spielwerk.load_game("kalah(pits=1,seeds=5001)")
    with pytest.raises(GameParameterError) as position:
        parse_position("9999,1|1,1|0-0 S")
    assert str(game_spec.value) == str(position.value) == (
        "kalah: at most 16 pits and 10,000 seeds in all, not 10,002 seeds")
    with pytest.raises(GameParameterError, match="not 10,001 seeds"):
        parse_position("1,1|1,1|9997-0 N")  # seeds in the stores count
    with pytest.raises(GameParameterError, match="not 10,020 seeds"):
        parse_position("start", 15, 334)
    assert int(parse_position("9997,1|1,1|0-0 S")[0].sum()) == 10_000  # the limit itself
    proc = _analyze_in_a_process("9999,1|1,1|0-0 S", "--time", "2")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "error: kalah: at most 16 pits and 10,000 seeds in all, not 10,002 seeds"]


@pytest.mark.parametrize("position", ["0,0,0|10,20,30|5-0 N", "7,8,9|0,0,0|1-2 S"])
def test_a_finished_position_is_said_to_be_over_before_anything_is_loaded(
        position: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No database or table is chosen (so no lines about them), no position line: the one
    line that the game is over."""

    def choose(self: KalahPlan) -> None:
        raise AssertionError("a database and table were chosen for a finished position")

    monkeypatch.setattr(KalahPlan, "choose", choose)
    result = _run("kalah", "analyze", position, "--egdb-dir", str(tmp_path))
    assert isinstance(result.exception, SpielwerkError), result.exception
    assert str(result.exception) == f"the game is over in {position}: no moves to analyse"
    assert result.output == ""


@pytest.mark.parametrize("command", ["solve", "split"])
def test_a_size_too_large_to_index_is_one_line_before_anything_else(command: str) -> None:
    """12 billion seeds: the one error line, before any table or database is chosen and
    announced (it came after two lines about the table)."""
    args = ["kalah", command,
            "--pits", "6", "--seeds", "1000000000"]
    proc = subprocess.run([str(Path(sys.executable).with_name("spielwerk")), *args],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "error: Kalah with 6 pits and 12000000000 seeds in play is too large to index in 64 bits"]


@pytest.mark.parametrize(("setup", "said"), [
    ({"c.json": b"some notes\n"}, "not a readable checkpoint"),
    ({"c.json": bytes(range(256))}, "not a readable checkpoint"),
    ({"c.json": b'{"a": 1}'}, "a checkpoint of another run"),
    ({}, "unknown executor"),
])
def test_split_refuses_a_bad_checkpoint_or_executor_in_one_line_first(
        tmp_path: Path, setup: dict[str, bytes], said: str) -> None:
    """The one error line comes before the table and database are chosen and announced (the
    sweep saw the table's two lines first)."""
    for name, data in setup.items():
        (tmp_path / name).write_bytes(data)
    executor = "serial" if setup else "bogus"
    proc = subprocess.run([str(Path(sys.executable).with_name("spielwerk")), "kalah", "split",
                           "--pits", "3", "--seeds", "2", "-e", executor, "--checkpoint",
                           str(tmp_path / "c.json")], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "80"}, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and said in lines[0], proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(setup)  # nothing written


def test_egdb_refused_for_its_size_makes_no_folder(tmp_path: Path) -> None:
    proc = subprocess.run([str(Path(sys.executable).with_name("spielwerk")), "kalah", "egdb",
                           "--pits", "15", "--max-seeds", "40", "--egdb-dir", "edb"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 2 and "seeds fit" in proc.stderr, proc.stderr
    assert not (tmp_path / "edb").exists()


def test_split_checkpoint_in_a_new_folder_is_written(tmp_path: Path) -> None:
    """The folder is made on the way, as for --output (the run used to fail at its first
    save, exit 1, after the work)."""
    result = runner.invoke(app, ["kalah", "split", "--pits", "3", "--seeds", "2", "-e",
                                 "serial", "--checkpoint", str(tmp_path / "new" / "k.json")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "new" / "k.json").read_text())["meta"]["m"] == 3
