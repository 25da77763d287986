"""The root-split parallel exact search gives the serial solver's values and best moves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from spielwerk.games.kalah import kernel, parallel
from spielwerk.games.kalah.parallel import ParallelSolver
from spielwerk.games.kalah.solver import Solver, SolverError


@pytest.mark.parametrize("empty_capture", [False, True])
@pytest.mark.parametrize(("pits", "seeds", "egdb"), [(4, 3, 0), (5, 3, 8), (6, 2, 6)])
@pytest.mark.parametrize("threads", [2, 3])
def test_start_value_and_move_match_serial(pits: int, seeds: int, egdb: int,
                                           empty_capture: bool, threads: int) -> None:
    serial = Solver(pits, empty_capture, egdb_seeds=egdb, tt_log2=16)
    rel = serial.relative(kernel.initial_board(pits, seeds), 0)
    values = serial.move_values(rel)
    want = max(values.values())
    par = ParallelSolver(Solver(pits, empty_capture, egdb_seeds=egdb, tt_log2=16), threads)
    got = par.value(rel)
    assert got == want
    assert values[par.best_move(rel, got)] == want
    assert len(par.workers) == threads
    assert par.nodes > 0


def test_mid_game_positions_and_small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random positions of Kalah(5,3), with workers stopped every few hundred nodes (the
    cancellation path runs often), against the serial values."""
    monkeypatch.setattr(parallel, "WORKER_CHUNK", 256)
    rng = np.random.default_rng(17)
    for empty_capture in (False, True):
        serial = Solver(5, empty_capture, egdb_seeds=6, tt_log2=16)
        par = ParallelSolver(Solver(5, empty_capture, egdb_seeds=6, tt_log2=16), 2)
        checked = 0
        while checked < 6:
            board = kernel.initial_board(5, 3)
            mover = 0
            for _ply in range(int(rng.integers(2, 8))):
                legal = [i for i in range(5) if board[(0 if mover == 0 else 6) + i] > 0]
                nxt = kernel.sow(board, mover, int(rng.choice(legal)), 5, empty_capture,
                                 kernel.END_EITHER_EMPTY)
                if nxt < 0:
                    break
                mover = int(nxt)
            else:
                rel = serial.relative(board, mover)
                if serial.is_over(rel):
                    continue
                values = serial.move_values(rel)
                got = par.value(rel)
                assert got == max(values.values())
                assert values[par.best_move(rel, got)] == got
                checked += 1


def test_one_thread_is_the_serial_search() -> None:
    a = Solver(4, False, tt_log2=14)
    rel = a.relative(kernel.initial_board(4, 3), 0)
    par = ParallelSolver(Solver(4, False, tt_log2=14), 1)
    assert par.value(rel) == a.value(rel)
    assert par.nodes == a.stats.nodes  # the same search, node for node
    with pytest.raises(SolverError):
        ParallelSolver(a, 0)


def test_threaded_block_checksums_equal_the_serial_ones() -> None:
    """The database check split over threads (up to 8 threads, one per 4 blocks) gives every
    block's sum, and a changed byte in the last block still shows."""
    from spielwerk.games.kalah import egdb

    n = 8 * egdb.BLOCK + 12345
    payload = np.resize((np.arange(251) * 97 % 251 - 125).astype(np.int8), n)
    blocks = (n + egdb.BLOCK - 1) // egdb.BLOCK
    serial = np.zeros(blocks, np.uint64)
    egdb._block_sums(payload, 0, blocks, serial)
    threaded = np.zeros(blocks, np.uint64)
    egdb._checksum_blocks(payload, blocks, threaded)
    assert np.array_equal(serial, threaded) and np.all(threaded != 0)
    payload[n - 1] ^= 1
    egdb._checksum_blocks(payload, blocks, threaded)
    assert np.array_equal(serial[:-1], threaded[:-1]) and serial[-1] != threaded[-1]


def test_a_node_budget_stops_the_split_search() -> None:
    from spielwerk.games.kalah.solver import SearchTimeout

    solver = Solver(5, False, tt_log2=14)
    rel = solver.relative(kernel.initial_board(5, 3), 0)
    par = ParallelSolver(solver, 2)
    solver.node_budget = 2000  # no iterations (a guess): spent by the main solver's task
    with pytest.raises(SearchTimeout):
        par.value(rel, guess=2)
    lo, hi = solver.bounds
    assert lo <= 6 <= hi  # Kalah(5,3) standard is +6 (docs/kalah.md table)


def test_cli_threads_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from spielwerk.cli.main import app

    monkeypatch.setenv("SPIELWERK_CACHE_DIR", str(tmp_path))  # no cached database
    runner = CliRunner()
    outs = {}
    for threads in ("1", "2"):
        out = runner.invoke(app, ["kalah", "solve", "-m", "4", "-n", "3", "-q",
                                  "--threads", threads], env={"COLUMNS": "200"})
        assert out.exit_code == 0, out.output
        assert f"x {threads} thread(s)" in out.output
        outs[threads] = [x for x in out.output.splitlines() if x.startswith(("Kalah", "best"))]
    assert outs["1"] == outs["2"] and len(outs["1"]) == 2
    bad = runner.invoke(app, ["kalah", "solve", "-m", "4", "-n", "3", "--threads", "0"])
    assert bad.exit_code != 0  # the entry point prints SpielwerkError as one line
    assert "--threads must be in 1..256" in str(bad.exception)
