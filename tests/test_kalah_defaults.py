"""Issue 17 (Kalah): database prefixes and resumed builds, default choices, progress bounds,
Ctrl-C, MTD(f) guesses, and the root-split (Dask) solve with checkpoints."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app
from spielwerk.core.agent import make_agent
from spielwerk.core.parallel import (
    DaskExecutor,
    LocalProcessExecutor,
    Pending,
    SerialExecutor,
    ThreadExecutor,
)
from spielwerk.core.registry import load_game
from spielwerk.games.kalah import defaults, distributed, egdb, egdb_build, egdb_index, kernel
from spielwerk.games.kalah.plan import AUTO, TT_LOG2_SHARED_CAP, KalahPlan, PlanError
from spielwerk.games.kalah.solver import Solver, SolverError

runner = CliRunner()


def _start_value(m: int, n: int, ec: bool) -> int:
    solver = Solver(m, ec, max_seeds=2 * m * n, tt_log2=16, depth_step=0)
    return solver.value(solver.relative(kernel.initial_board(m, n), 0))


def test_a_larger_database_serves_a_smaller_one_as_its_prefix(tmp_path: Path) -> None:
    big = egdb.open_egdb(3, 10, False, path=tmp_path)
    small = egdb.open_egdb(3, 7, False, path=tmp_path)
    assert small.build_seconds is None  # loaded from the N = 10 file, not built
    assert small.values.size == egdb_index.entries(7, 3)
    assert np.array_equal(small.values, big.values[: small.values.size])
    assert np.array_equal(small.values, egdb.build(3, 7, False))


def test_a_build_continues_from_a_smaller_file_and_replaces_it(tmp_path: Path) -> None:
    egdb.open_egdb(3, 6, True, path=tmp_path)
    lines: list[str] = []
    db = egdb.open_egdb(3, 11, True, path=tmp_path, progress=lines.append)
    assert any("continuing from" in x for x in lines)
    assert np.array_equal(db.values, egdb.build(3, 11, True))
    assert [n for n, _f in egdb.cached(3, True, kernel.END_EITHER_EMPTY, tmp_path)] == [11]


@pytest.mark.parametrize("empty_capture", [False, True])
def test_threaded_build_equals_the_serial_one(empty_capture: bool) -> None:
    serial = egdb_build.build(3, 12, empty_capture)
    assert np.array_equal(egdb_build.build(3, 12, empty_capture, threads=2), serial)


def test_a_corrupt_block_beyond_the_prefix_does_not_block_the_prefix(tmp_path: Path) -> None:
    big = egdb.open_egdb(2, 20, False, path=tmp_path)
    assert big.file is not None
    raw = bytearray(big.file.read_bytes())
    raw[egdb.HEADER_SIZE + big.values.size - 1] ^= 1  # last entry, in the last block
    big.file.write_bytes(bytes(raw))
    with pytest.raises(egdb_index.EgdbError, match="checksum"):
        egdb.load(big.file, 2, 20, False, kernel.END_EITHER_EMPTY)


def _plan(pits: int, total: int, ec: bool, folder: Path, **asked: int) -> KalahPlan:
    return KalahPlan(pits, total, ec, egdb_dir=str(folder), **asked)


def test_the_plan_chooses_the_largest_cached_database_and_says_so(tmp_path: Path) -> None:
    egdb.open_egdb(3, 9, False, path=tmp_path)
    choice = _plan(3, 24, False, tmp_path).choose()
    assert choice.egdb_seeds == 9
    assert any("<= 9 seeds" in x and "largest cached" in x for x in choice.notes)
    assert any("transposition table: 2^" in x for x in choice.notes)
    assert 10 <= choice.tt_log2 <= defaults.TT_LOG2_CAP
    other_rule = _plan(3, 24, True, tmp_path).choose()
    assert other_rule.egdb_seeds == 0  # a database of the other capture rule is no use
    kept = _plan(3, 24, False, tmp_path, egdb=4, tt=12).choose()
    assert (kept.egdb_seeds, kept.tt_log2) == (4, 12)
    assert _plan(3, 5, False, tmp_path, egdb=9).choose().egdb_seeds == 5  # at most the seeds


def test_the_plan_reads_the_cache_folder_once(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    egdb.open_egdb(3, 6, False, path=tmp_path)
    calls = []
    real = egdb.cached
    monkeypatch.setattr(egdb, "cached", lambda *a: calls.append(a) or real(*a))
    assert _plan(3, 24, False, tmp_path).choose().egdb_seeds == 6
    assert _plan(3, 24, False, tmp_path, egdb=8).choose().egdb_seeds == 8
    assert len(calls) == 2


@pytest.mark.parametrize(("asked", "words"), [
    ({"egdb": -2}, "egdb (the endgame database size) must be -1 (auto) or 0..40"),
    ({"egdb": 41}, "or 0..40 seeds, not 41"),
    ({"tt": 0}, "tt (log2 of the table slots) must be -1 (auto) or 10..30, not 0"),
    ({"tt": 31}, "10..30, not 31"),
    ({"threads": 0}, "threads must be at least 1"),
])
def test_the_plan_refuses_sizes_no_search_can_use(asked: dict[str, int], words: str) -> None:
    with pytest.raises(PlanError, match=re.escape(words)):
        KalahPlan(3, 18, **asked)


def test_cli_and_agent_share_one_auto_value(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPIELWERK_CACHE_DIR", str(tmp_path))
    egdb.open_egdb(3, 5, False)
    agent = make_agent(f"perfect:egdb={AUTO}:tt={AUTO}", load_game("kalah(pits=3,seeds=3)"))
    assert agent.plan == KalahPlan(3, 18, tt_cap=TT_LOG2_SHARED_CAP)  # type: ignore[attr-defined]
    assert agent.choice.egdb_seeds == 5  # type: ignore[attr-defined]
    out = runner.invoke(app, ["kalah", "solve", "-m", "3", "-n", "3", "--egdb", str(AUTO),
                              "--tt", str(AUTO)], env={"COLUMNS": "250"})
    assert out.exit_code == 0 and "<= 5 seeds" in out.output
    bad = runner.invoke(app, ["kalah", "solve", "-m", "3", "-n", "3", "--tt", "5"])
    assert bad.exit_code != 0 and "10..30, not 5" in str(bad.exception)


def test_without_a_database_a_large_instance_is_told_what_building_one_costs(
        tmp_path: Path) -> None:
    choice = _plan(6, 48, False, tmp_path).choose()
    assert choice.egdb_seeds == 0
    note = " ".join(choice.notes)
    assert "no endgame database cached" in note and "--max-seeds 20" in note
    assert "min" in note and "faster" in note
    small = _plan(3, 12, False, tmp_path).choose()
    assert not any("no endgame database" in x for x in small.notes)  # small: no nagging


def test_cli_solve_uses_and_names_the_cached_database(tmp_path: Path) -> None:
    egdb.open_egdb(3, 8, False, path=tmp_path)
    out = runner.invoke(app, ["kalah", "solve", "-m", "3", "-n", "3", "--egdb-dir",
                              str(tmp_path)], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    assert "<= 8 seeds" in out.output and "largest cached" in out.output
    assert f"value {_start_value(3, 3, False):+d} for South" in out.output


def test_progress_lines_carry_the_proven_bounds() -> None:
    lines: list[str] = []
    solver = Solver(4, False, max_seeds=24, tt_log2=14, progress=lines.append,
                    progress_nodes=2000)
    solver.value(solver.relative(kernel.initial_board(4, 3), 0))
    exact = [x for x in lines if x.startswith("exact: value in [")]
    assert exact and all("M nodes/s" in x and "testing >=" in x for x in exact)


def test_ctrl_c_prints_the_bounds_proven_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"exact": 0}
    real = Solver.test

    def interrupting(self, rel, beta, depth=0xFFFF):  # type: ignore[no-untyped-def]
        if depth == 0xFFFF:
            calls["exact"] += 1
            if calls["exact"] == 3:
                raise KeyboardInterrupt
        return real(self, rel, beta, depth)

    monkeypatch.setattr(Solver, "test", interrupting)
    # the serial solver (the split search's own Ctrl-C test follows)
    out = runner.invoke(app, ["kalah", "solve", "-m", "4", "-n", "3", "-q", "--threads", "1"],
                        env={"COLUMNS": "200"})
    _assert_interrupted_with_bounds(out.exit_code, out.output)


def _assert_interrupted_with_bounds(code: int, output: str) -> None:
    assert code == 130, output
    assert "interrupted: value for South in [" in output
    assert "deepest depth-limited estimate" in output
    lo, hi = (int(x) for x in output.split("in [", 1)[1].split("]", 1)[0].split(", "))
    assert lo <= _start_value(4, 3, False) <= hi and (lo, hi) != (-24, 24)


def test_ctrl_c_in_the_split_search_prints_the_bounds_proven_so_far(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from spielwerk.games.kalah.parallel import ParallelSolver
    calls = {"root": 0}
    real = ParallelSolver._test

    def interrupting(self, beta):  # type: ignore[no-untyped-def]
        calls["root"] += 1
        if calls["root"] == 2:  # after one whole root test has narrowed the bounds
            raise KeyboardInterrupt
        return real(self, beta)

    monkeypatch.setattr(ParallelSolver, "_test", interrupting)
    out = runner.invoke(app, ["kalah", "solve", "-m", "4", "-n", "3", "-q", "--threads", "2",
                              "--egdb", "0"], env={"COLUMNS": "200"})
    assert calls["root"] == 2, out.output  # the split path ran
    _assert_interrupted_with_bounds(out.exit_code, out.output)


@pytest.mark.parametrize("guess", [-8, 6, 20])
def test_a_first_guess_changes_the_work_not_the_value(guess: int) -> None:
    solver = Solver(4, False, max_seeds=24, tt_log2=16)
    rel = solver.relative(kernel.initial_board(4, 3), 0)
    assert solver.value(rel, guess=guess) == _start_value(4, 3, False)


def test_pv_notation_is_re_sown_by_the_solver() -> None:
    solver = Solver(3, False, max_seeds=12, tt_log2=12)
    board = kernel.initial_board(3, 2)
    rel = solver.relative(board, 0)
    value = solver.value(rel)
    text = solver.pv_notation(board, 0, solver.principal_variation(rel, value))
    assert text.startswith("S") and all(t[0] in "SN" and t[1:].isdigit() for t in text.split())


def test_perfect_agent_makes_the_same_choice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                             ) -> None:
    monkeypatch.setenv("SPIELWERK_CACHE_DIR", str(tmp_path))
    egdb.open_egdb(3, 7, False)
    agent = make_agent("perfect:time=2", load_game("kalah(pits=3,seeds=3)"), seed=1)
    assert agent.choice.egdb_seeds == 7  # type: ignore[attr-defined]
    assert agent.solver.db_n == 7  # type: ignore[attr-defined]
    assert agent.choice.tt_log2 <= 24  # type: ignore[attr-defined]


@pytest.mark.parametrize("m,n,ec", [(4, 3, False), (4, 3, True), (3, 4, False)])
def test_root_split_with_tiny_budgets_gives_the_exact_value(m: int, n: int, ec: bool) -> None:
    with ThreadExecutor(2) as pool:
        split, state = distributed.solve_split(m, n, ec, pool, tt_log2=14,
                                               node_budget=3000)
    assert distributed.root_bounds(split, state.bounds) == (_start_value(m, n, ec),) * 2
    assert len({t.task for t in split.turns if t.task >= 0}) == len(split.tasks)


def test_root_split_checkpoint_resumes_and_refuses_another_run(tmp_path: Path) -> None:
    ck = tmp_path / "ck.json"
    with ThreadExecutor(1) as pool:
        split, first = distributed.solve_split(4, 4, False, pool, tt_log2=14,
                                               node_budget=1000, checkpoint=ck, stop_after=0)
        lo, hi = distributed.root_bounds(split, first.bounds)
        assert lo < hi and ck.exists()  # stopped early: bounds only
        split, state = distributed.solve_split(4, 4, False, pool, tt_log2=16,
                                               node_budget=10**9, checkpoint=ck)
        assert distributed.root_bounds(split, state.bounds) == (_start_value(4, 4, False),) * 2
        assert sum(state.nodes) > sum(first.nodes)  # the first run's work is counted
        with pytest.raises(SolverError, match="another run"):
            distributed.solve_split(4, 3, True, pool, checkpoint=ck)


def test_root_split_on_a_dask_local_cluster() -> None:
    distributed_mod = pytest.importorskip("distributed")
    with distributed_mod.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                      dashboard_address=":0") as cluster, \
            DaskExecutor(cluster.scheduler_address) as ex:
        assert ex.slots() == 2
        split, state = distributed.solve_split(3, 3, True, ex, tt_log2=12, node_budget=1000)
    assert distributed.root_bounds(split, state.bounds) == (_start_value(3, 3, True),) * 2


def test_root_split_on_the_serial_and_process_pool_executors() -> None:
    for ex in (SerialExecutor(), LocalProcessExecutor(2)):
        with ex:
            split, state = distributed.solve_split(3, 3, False, ex, tt_log2=12,
                                                   node_budget=2000)
        assert distributed.root_bounds(split, state.bounds) == (_start_value(3, 3, False),) * 2


class _Memoising(ThreadExecutor):
    """Returns the earlier future for the same arguments, as Dask does for pure tasks."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.memo: dict[str, Pending[Any]] = {}

    def submit(self, fn: Callable[..., Any], *args: Any) -> Pending[Any]:
        key = repr(args)
        if key not in self.memo:
            self.memo[key] = super().submit(fn, *args)
        return self.memo[key]


def test_resubmissions_are_distinct_for_a_memoising_executor() -> None:
    """Dask returns the earlier result for the same arguments (pure tasks): a task that
    spent its budget without new bounds must still be searched again."""
    with _Memoising(2) as pool:
        split, state = distributed.solve_split(4, 4, True, pool, tt_log2=14,
                                               node_budget=20000, stop_after=120)
    assert distributed.root_bounds(split, state.bounds) == (_start_value(4, 4, True),) * 2


def test_large_instances_iterate_deeper_before_the_exact_search(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from spielwerk.games.kalah import solver as solver_mod

    auto = Solver(6, False, max_seeds=48, tt_log2=12)
    assert auto.exact_depth_max(48) == solver_mod.DEPTH_MAX_LARGE == 18
    assert auto.exact_depth_max(40) == solver_mod.DEPTH_MAX == 12
    assert Solver(6, False, max_seeds=48, tt_log2=12, depth_max=9).exact_depth_max(48) == 9
    # the exact solve really runs the deeper iterations (threshold lowered to a small game)
    monkeypatch.setattr(solver_mod, "DEPTH_MAX_LARGE_FROM", 8)
    small = Solver(2, False, max_seeds=8, tt_log2=12)
    value = small.value(kernel.initial_board(2, 2))
    assert [d for d, _v, _n in small.stats.iterations] == [3, 6, 9, 12, 15, 18, -1]
    assert value == _start_value(2, 2, False)


@pytest.mark.parametrize("empty_capture", [False, True])
def test_database_children_first_keeps_every_value(empty_capture: bool) -> None:
    db = egdb.build(4, 8, empty_capture)
    positions = [kernel.initial_board(4, 3), np.array([0, 2, 5, 1, 0, 3, 0, 2, 4, 0], np.int32)]
    for board in positions:
        plain = Solver(4, empty_capture, max_seeds=24, egdb_seeds=8, egdb_values=db,
                       tt_log2=14)
        first = Solver(4, empty_capture, max_seeds=24, egdb_seeds=8, egdb_values=db,
                       tt_log2=14, db_margin=3)
        rel = plain.relative(board, 0)
        assert first.move_values(rel) == plain.move_values(rel)
        assert first.stats.egdb_probes > 0


def test_a_fresh_process_knows_the_perfect_agent_from_the_kalah_package() -> None:
    """Loading the game registers its agents: ``perfect`` too, without any CLI import."""
    import subprocess
    import sys

    code = ("import spielwerk; g = spielwerk.load_game('kalah(pits=3,seeds=2)'); "
            "print(type(spielwerk.make_agent('perfect:time=1:egdb=0', g)).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "PerfectAgent"


def test_a_small_instance_takes_a_prefix_of_a_large_cached_database(tmp_path: Path) -> None:
    # loading and checking a large file costs more than it saves on a small instance:
    # at most half the seeds in play and DB_SEEDS_OVER_HALF more
    egdb.open_egdb(2, 12, False, path=tmp_path)
    assert defaults.DB_SEEDS_OVER_HALF == 3
    small = _plan(2, 12, False, tmp_path).choose()  # Kalah(2,3): 12 seeds -> <= 9
    assert small.egdb_seeds == 9
    assert any("<= 9 seeds" in x and "half the 12 seeds in play" in x for x in small.notes)
    assert _plan(2, 20, False, tmp_path).choose().egdb_seeds == 12  # 13 allowed: the file
    assert _plan(2, 12, False, tmp_path, egdb=12).choose().egdb_seeds == 12  # asked: kept
