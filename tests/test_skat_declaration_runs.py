"""Declarations compared and declarers compared as library tasks
(games/skat_ai/declaration_runs.py): the same records serial, in a process pool and on a
Dask cluster; the open-hand declarer against the solver's verdict; one-line refusals; and
``experiments/skat_declarer_compare.py`` run end to end, resumed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from spielwerk.core.agent import make_agent
from spielwerk.core.parallel import DaskExecutor, LocalProcessExecutor, SerialExecutor
from spielwerk.core.registry import load_game
from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai.calibration import OPEN
from spielwerk.games.skat_ai.declaration_runs import (
    OURS,
    DeclarerRun,
    DiffRun,
    play_declarers,
    play_diff,
)
from spielwerk.games.skat_ai.defence_runs import DefenceRunError, reach_declaration
from test_skat_defence_runs import dask_address  # noqa: F401  (the module's Dask cluster)

ROOT = Path(__file__).resolve().parents[1]
A = "knn:play=rule:calibration=played_grand_hand:put_grand_shift=0"
DIFF = DiffRun((A, A + ":put_grand_shift=3"), seed=31, defences=("rule",))
DECLARERS = DeclarerRun("knn:play=rule", ("rule", OPEN), "rule", "none", seed=5)


def _untimed(record: Any) -> Any:
    if isinstance(record, dict):
        return {k: _untimed(v) for k, v in record.items() if k != "seconds"}
    return record


def _serial(task: Any, tasks: list[Any]) -> list[dict[str, Any]]:
    with SerialExecutor() as ex:
        return sorted((_untimed(r) for r in ex.map_unordered(task, tasks)),
                      key=lambda r: r["deal"])


@pytest.fixture(scope="module")
def diffs() -> list[dict[str, Any]]:
    return _serial(play_diff, DIFF.tasks(range(30)))


@pytest.fixture(scope="module")
def declared() -> list[dict[str, Any]]:
    return _serial(play_declarers, DECLARERS.tasks(range(10)))


def test_only_the_deals_declared_otherwise_are_played(diffs: list[dict[str, Any]]) -> None:
    changed = [r for r in diffs if not r["same"]]
    assert changed and len(changed) < len(diffs)
    assert all(set(r) == {"deal", "same"} for r in diffs if r["same"])
    for r in changed:
        assert r["a"]["declaration"] != r["b"]["declaration"]
        for side in "ab":
            assert r[side]["type"]
            for defence in (OURS, OPEN, "rule"):
                got = r[side][defence]  # a lost game gives each defender 40
                assert got["relative"] == got["sf"] - (0 if got["won"] else 40)


def test_a_pool_and_a_dask_cluster_give_the_serial_records(
        diffs: list[dict[str, Any]], declared: list[dict[str, Any]],
        dask_address: str) -> None:  # noqa: F811  (the fixture imported above)
    with LocalProcessExecutor(workers=2, batch_size=1) as pool:
        got = sorted((_untimed(r) for r in pool.map_unordered(play_diff,
                                                              DIFF.tasks(range(30)))),
                     key=lambda r: r["deal"])
    assert got == diffs
    with DaskExecutor(dask_address, batch_size=3) as ex:
        got = sorted((_untimed(r) for r in ex.map_unordered(play_declarers,
                                                            DECLARERS.tasks(range(10)))),
                     key=lambda r: r["deal"])
    assert got == declared


def test_the_open_hand_declarer_wins_exactly_the_games_won_double_dummy(
        declared: list[dict[str, Any]]) -> None:
    """Against the open-hand defence a declarer wins where the solver says the declared
    game can be won from its first card; the open-hand declarer wins every one of them, and
    also wins against our defence wherever it wins against the open hands."""
    game = load_game("skat")
    agents = [make_agent(DECLARERS.agent, game, 0) for _ in range(3)]
    solver = Solver()
    games = [r for r in declared if not r["passed"]]
    assert len(games) >= 5
    for r in games:
        state, _ = reach_declaration(game, agents, DECLARERS.seed, r["deal"], "none")
        winnable = any(solver.move_values(deal_from_state(state),
                                          state.contract.goal()).values())
        assert r[OPEN][OPEN]["won"] == winnable
        assert r["rule"][OPEN]["won"] <= winnable
        assert r[OPEN][OURS]["won"] >= r[OPEN][OPEN]["won"]
        assert 0 <= r["predicted"] <= 1 and 0 <= r["decided"] <= 1


@pytest.mark.parametrize(("run", "message"), [
    (DiffRun((A, "nonsense"), 1), "'nonsense'"),
    (DiffRun((A, A), 1, ("ours",)), "each further defence once"),
    (DeclarerRun("rule", ("rule",), "rule", "all", 1), "force must be one of"),
    (DeclarerRun("rule", ("rule", "rule"), "rule", "none", 1), "each declarer once"),
    (DeclarerRun("rule", ("rule",), "knn:k=0", "none", 1), "'knn:k=0'"),
])
def test_a_run_that_cannot_be_played_is_refused_in_one_line(run: Any, message: str) -> None:
    with pytest.raises(DefenceRunError, match=message) as info:
        run.check()
    assert "\n" not in str(info.value)


def test_the_declarer_compare_script_runs_resumes_and_summarizes(tmp_path: Path) -> None:
    out = tmp_path / "decl.jsonl"

    def run(deals: int, *more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(ROOT / "experiments" / "skat_declarer_compare.py"),
             "--agent", "knn:play=rule", "--declarer", "rule", "--declarer", "open",
             "--defence", "rule", "--force", "none", "--deals", str(deals), "--seed", "5",
             "--executor", "serial", "--out", str(out), *more],
            capture_output=True, text=True, timeout=600, cwd=ROOT / "experiments")

    done = run(4)
    assert done.returncode == 0, done.stderr
    done = run(6)  # deals 4 and 5 only
    assert done.returncode == 0, done.stderr
    assert "2/2 deals" in done.stdout and "open minus rule" in done.stdout
    rows = [json.loads(x) for x in out.read_text().splitlines()[1:]]
    assert sorted(r["deal"] for r in rows) == list(range(6))
    assert [_untimed(r) for r in sorted(rows, key=lambda r: r["deal"])] == [
        r for r in _serial(play_declarers, DECLARERS.tasks(range(6)))]
    bad = run(6, "--declarer", "knn:k=0")
    assert bad.returncode != 0 and "'knn:k=0'" in bad.stderr
    assert len(out.read_text().splitlines()) == 7  # the file is left as it was
