"""Executors: serial, process pool and Dask give identical results for the same seed."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from spielwerk.arena import (
    DaskExecutor,
    ExecutorError,
    LocalProcessExecutor,
    SerialExecutor,
    TournamentConfig,
    make_executor,
    run_tournament,
)
from spielwerk.cli.main import app
from spielwerk.core.parallel import ThreadExecutor

GAME = "kalah(pits=4,seeds=3)"
AGENTS = ["random", "greedy", "random"]


def _outcomes(executor: Any) -> list[tuple[Any, ...]]:
    config = TournamentConfig.create(GAME, AGENTS, 6, seed=21)
    result = run_tournament(config, executor)
    assert result.complete
    return [r.outcome() for r in result.results]


@pytest.fixture(scope="module")
def serial_outcomes() -> list[tuple[Any, ...]]:
    return _outcomes(SerialExecutor())


@pytest.fixture(scope="module")
def dask_address() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
        dashboard_address=None,
    ) as cluster:
        yield cluster.scheduler_address


def test_process_pool_matches_serial(serial_outcomes: list[tuple[Any, ...]]) -> None:
    with LocalProcessExecutor(workers=2, batch_size=4) as pool:
        assert _outcomes(pool) == serial_outcomes
        assert "2 workers" in pool.describe()


def test_dask_matches_serial(dask_address: str, serial_outcomes: list[tuple[Any, ...]]) -> None:
    with DaskExecutor(dask_address, batch_size=5) as ex:
        assert _outcomes(ex) == serial_outcomes
        assert "dask cluster" in ex.describe()


def test_cli_dask_executor_matches_serial(dask_address: str) -> None:
    runner = CliRunner()
    host_port = dask_address.removeprefix("tcp://")
    base = ["arena", GAME, *AGENTS, "--games", "6", "--seed", "21", "--json"]
    via_dask = runner.invoke(app, [*base, "--executor", f"dask://{host_port}"])
    via_serial = runner.invoke(app, [*base, "--executor", "serial"])
    assert via_dask.exit_code == 0, via_dask.output
    assert via_serial.exit_code == 0, via_serial.output

    def strip(text: str) -> str:
        return "\n".join(line for line in text.splitlines() if "wall_s" not in line)

    assert strip(via_dask.stdout) == strip(via_serial.stdout)


def test_threads_match_serial(serial_outcomes: list[tuple[Any, ...]]) -> None:
    with make_executor("threads", workers=2) as ex:
        assert isinstance(ex, ThreadExecutor) and ex.slots() == 2
        assert _outcomes(ex) == serial_outcomes


def _square_or_fail(x: int) -> int:
    if x < 0:
        raise ValueError(f"negative {x}")
    return x * x


@pytest.mark.parametrize("spec", ["serial", "threads", "local"])
def test_submit_and_first_done_on_every_local_back_end(spec: str) -> None:
    with make_executor(spec, workers=2) as ex:
        pending = [ex.submit(_square_or_fail, x) for x in (3, -1, 5)]
        seen: list[Any] = []
        while pending:
            done = ex.first_done(pending)
            assert done and all(f in pending for f in done)
            pending = [f for f in pending if f not in done]
            seen.extend(done)
        failed = [f for f in seen if _fails(f)]
        assert len(failed) == 1  # the error comes back with its future
        assert sorted(f.result() for f in seen if f not in failed) == [9, 25]


def _fails(future: Any) -> bool:
    try:
        future.result()
    except ValueError as exc:
        return "negative -1" in str(exc)
    return False


def test_make_executor() -> None:
    assert isinstance(make_executor("serial"), SerialExecutor)
    pool = make_executor("local", workers=3)
    assert isinstance(pool, LocalProcessExecutor) and pool.workers == 3
    with pytest.raises(ExecutorError, match="unknown executor 'gpu'"):
        make_executor("gpu")
    with pytest.raises(ExecutorError, match="needs an address"):
        make_executor("dask://")
    with pytest.raises(ExecutorError, match="at least 1"):
        make_executor("local", workers=0)


def test_dask_missing_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ExecutorError, match="pip install 'spielwerk\\[dask\\]'"):
        make_executor("dask://localhost:8786")


def test_unreachable_scheduler_is_a_clear_error() -> None:
    pytest.importorskip("distributed")
    with pytest.raises(ExecutorError, match="cannot reach the Dask scheduler"):
        DaskExecutor("dask://127.0.0.1:1", timeout_s=0.5)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Port .* is already in use")
def test_dask_worker_processes_match_serial(serial_outcomes: list[tuple[Any, ...]]) -> None:
    """Worker in its own process: tasks and results really cross a process boundary."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, DaskExecutor(cluster.scheduler_address) as ex:
        assert _outcomes(ex) == serial_outcomes


def _die(task: int) -> int:
    if task == 3:
        os._exit(1)  # a worker that vanishes, as after a segfault
    return task


def test_dead_worker_is_a_clear_error() -> None:
    with LocalProcessExecutor(workers=1, batch_size=1) as pool:
        with pytest.raises(ExecutorError, match="worker process died"):
            list(pool.map_unordered(_die, list(range(6))))
        assert sorted(pool.map_unordered(_die, [0, 1, 2])) == [0, 1, 2]  # a new pool
