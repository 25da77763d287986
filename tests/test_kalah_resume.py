"""Paused null-window tests resume where they stopped (on the same or another solver), and
the root split's rounds and checkpoints carry the paused test instead of starting it again."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from spielwerk.core.parallel import Pending, ThreadExecutor
from spielwerk.games.kalah import distributed, kernel
from spielwerk.games.kalah.solver import SearchTimeout, Solver, SolverError


def _solver(m: int = 4, ec: bool = True, tt_log2: int = 12) -> Solver:
    return Solver(m, ec, max_seeds=8 * m, tt_log2=tt_log2, depth_step=0)


def _start_value(m: int, n: int, ec: bool) -> int:
    solver = Solver(m, ec, max_seeds=2 * m * n, tt_log2=16, depth_step=0)
    return solver.value(solver.relative(kernel.initial_board(m, n), 0))


def _paused_run(solvers: list[Solver], rel: object, beta: int, budget: int,
                through_json: bool) -> tuple[int, int]:
    """The test ``>= beta`` in rounds of ``budget`` nodes, each round on the next solver of
    ``solvers`` resuming the previous round's snapshot: (answer, rounds)."""
    snap = None
    rounds = 0
    while True:
        solver = solvers[rounds % len(solvers)]
        rounds += 1
        solver.node_budget = solver.stats.nodes + budget
        try:
            return solver.test(rel, beta, resume=snap)[0], rounds  # type: ignore[arg-type]
        except SearchTimeout:
            snap = solver.snapshot()
            assert snap is not None
            if through_json:
                snap = json.loads(json.dumps(snap))


@pytest.mark.parametrize("beta", [-6, 0, 2, 4, 8])
def test_a_test_paused_and_resumed_on_one_solver_is_the_same_search(beta: int) -> None:
    whole, parts = _solver(), _solver()
    rel = whole.relative(kernel.initial_board(4, 4), 0)
    want = whole.test(rel, beta)[0]
    got, rounds = _paused_run([parts], rel, beta, 700, through_json=True)
    assert rounds > 2  # really paused
    assert got == want
    assert parts.stats.nodes == whole.stats.nodes  # nothing searched twice, nothing skipped
    assert parts.snapshot() is None  # finished: nothing paused


@pytest.mark.parametrize("beta", [-2, 2, 4, 6])
def test_a_test_resumed_on_other_solvers_gives_the_same_answer(beta: int) -> None:
    ref = _solver(tt_log2=16)
    rel = ref.relative(kernel.initial_board(4, 4), 0)
    want = ref.test(rel, beta)[0]
    others = [_solver(tt_log2=12), _solver(tt_log2=10)]  # different tables on each round
    got, rounds = _paused_run(others, rel, beta, 500, through_json=False)
    assert rounds > 2
    assert (got >= beta) == (want >= beta)  # fail-soft bounds may differ, the answer not
    exact = _start_value(4, 4, True)
    assert exact <= got if got < beta else exact >= got  # a true fail-soft bound


def test_a_snapshot_of_another_test_or_game_is_refused() -> None:
    solver = _solver()
    rel = solver.relative(kernel.initial_board(4, 4), 0)
    solver.node_budget = 200
    with pytest.raises(SearchTimeout):
        solver.test(rel, 2)
    snap = solver.snapshot()
    assert snap is not None and snap["beta"] == 2
    solver.node_budget = None
    with pytest.raises(SolverError, match="another test"):
        solver.test(rel, 4, resume=snap)
    with pytest.raises(SolverError, match="another test"):
        _solver(ec=False).test(rel, 2, resume=snap)
    broken = dict(snap, regs=[0, 3, 0, 0])  # not paused on entering a node
    with pytest.raises(SolverError, match="not a paused test"):
        solver.test(rel, 2, resume=broken)
    assert solver.test(rel, 2, resume=snap)[0] >= 2  # the real snapshot still resumes


def test_a_task_round_returns_its_paused_test_and_the_next_round_resumes_it() -> None:
    config = {"m": 4, "empty_capture": True, "end_rule": kernel.END_EITHER_EMPTY,
              "max_seeds": 32, "egdb": 0, "tt_log2": 12, "egdb_dir": None}
    board = kernel.initial_board(4, 4)
    pos = _solver().relative(board, 0).tolist()
    lo, hi, guess, tests, paused = -32, 32, 0, 0, None
    rounds = 0
    resumed = 0
    while lo < hi:
        res = distributed.solve_task(config, pos, lo, hi, 2000, rounds, guess, tests, paused)
        rounds += 1
        assert res["lo"] >= lo and res["hi"] <= hi and res["tests"] >= tests
        resumed += paused is not None
        lo, hi, guess, tests, paused = (res["lo"], res["hi"], res["guess"], res["tests"],
                                        res["paused"])
        assert (paused is None) == (lo == hi)  # an unfinished round always pauses a test
    assert lo == _start_value(4, 4, True)
    assert resumed > 0


@pytest.mark.parametrize("strategy", distributed.STRATEGIES)
@pytest.mark.parametrize("m,n,ec", [(4, 4, True), (3, 4, False)])
def test_both_strategies_reach_the_exact_value_in_small_rounds(strategy: str, m: int, n: int,
                                                               ec: bool) -> None:
    with ThreadExecutor(2) as pool:
        split, state = distributed.solve_split(m, n, ec, pool, tt_log2=14,
                                               node_budget=2000, strategy=strategy)
    assert distributed.root_bounds(split, state.bounds) == (_start_value(m, n, ec),) * 2
    assert all(p is None for p in state.paused)


def test_outside_in_tests_stay_inside_the_open_interval() -> None:
    for lo in range(-40, 0, 2):
        for hi in range(lo + 2, 42, 2):
            for tests in (0, 1):
                beta = distributed.next_test(lo, hi, 0, tests, "outside-in")
                assert lo < beta <= hi and (beta - lo) % 2 == 0
    # wide intervals are first tested far from the middle
    assert distributed.next_test(-40, 40, 0, 0, "outside-in") == 22
    assert distributed.next_test(-40, 40, 0, 1, "outside-in") == -20


def test_a_checkpoint_keeps_the_paused_tests_and_a_restart_resumes_them(tmp_path: Path
                                                                        ) -> None:
    ck = tmp_path / "ck.json"
    with ThreadExecutor(1) as pool:
        split, first = distributed.solve_split(4, 4, True, pool, tt_log2=12,
                                               node_budget=3000, checkpoint=ck, stop_after=0)
        saved = json.loads(ck.read_text())
        assert any(p is not None for p in saved["paused"])
        assert saved["paused"] == first.paused and saved["tests"] == first.tests
        split, state = distributed.solve_split(4, 4, True, pool, tt_log2=12,
                                               node_budget=3000, checkpoint=ck)
    assert distributed.root_bounds(split, state.bounds) == (_start_value(4, 4, True),) * 2
    assert sum(state.nodes) > sum(first.nodes)


def test_an_unreadable_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    ck = tmp_path / "ck.json"
    ck.write_text("{not json")
    with ThreadExecutor(1) as pool, pytest.raises(SolverError, match="not a readable"):
        distributed.solve_split(3, 3, True, pool, checkpoint=ck)
    assert ck.read_text() == "{not json"  # left as it was


def test_an_unknown_strategy_is_refused() -> None:
    with ThreadExecutor(1) as pool, pytest.raises(SolverError, match="strategy"):
        distributed.solve_split(3, 3, True, pool, strategy="random")


class _Counting(ThreadExecutor):
    """Counts the rounds submitted and the most in flight at once."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.in_flight = self.most = self.given = 0
        self.lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Pending[Any]:
        with self.lock:
            self.in_flight += 1
            self.given += 1
            self.most = max(self.most, self.in_flight)
        fut = self._pool.submit(fn, *args)

        def landed(_f: object) -> None:
            with self.lock:
                self.in_flight -= 1

        fut.add_done_callback(landed)
        return fut


def test_slots_bound_the_rounds_in_flight_and_a_stop_waits_only_for_those() -> None:
    # a new pool's threads start with cold tables (with an earlier test's warm tables every
    # task could finish in its first round: see the test below)
    with _Counting(4) as pool:
        split, state = distributed.solve_split(4, 4, True, pool, tt_log2=14,
                                               node_budget=2000, slots=2)
        assert distributed.root_bounds(split, state.bounds) == (_start_value(4, 4, True),) * 2
        assert pool.most <= 2 and pool.given > len(split.tasks)  # several rounds, two at a time
        pool.given = 0
        distributed.solve_split(4, 4, True, pool, tt_log2=14, node_budget=2000,
                                slots=2, stop_after=0)
        assert pool.given == len(split.tasks)  # one round each, none resubmitted after the stop
    with ThreadExecutor(1) as pool, pytest.raises(SolverError, match="slots"):
        distributed.solve_split(3, 3, True, pool, slots=0)


def test_a_worker_threads_solver_goes_with_the_thread() -> None:
    """A worker thread keeps its solver (and warm table) between its tasks; a later
    thread never gets it, even with the same thread ident (idents are recycled: solvers
    keyed by ident once let a new pool's tasks all finish in their first round, 14 times
    in 40)."""
    config = {"m": 3, "empty_capture": False, "end_rule": kernel.END_EITHER_EMPTY,
              "max_seeds": 12, "egdb": 0, "tt_log2": 12}
    made: list[tuple[int, Solver, Solver]] = []

    def task() -> None:
        first = distributed._worker_solver(config)
        made.append((threading.get_ident(), first, distributed._worker_solver(config)))

    for _ in range(3):
        worker = threading.Thread(target=task)
        worker.start()
        worker.join()
    assert all(first is again for _, first, again in made)  # kept within a thread
    assert len({id(first) for _, first, _ in made}) == 3  # never across threads
