"""Skat defence runs (:mod:`spielwerk.games.skat_ai.defence_runs`): one deal per task, the
same records on every executor, the game types played out, and the runner of
``experiments/skat_defence_compare.py`` (resume, refusal of another run)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skat_helpers import experiment
from spielwerk.core.parallel import DaskExecutor, LocalProcessExecutor, SerialExecutor
from spielwerk.games.skat_ai.defence_runs import (
    OPEN,
    DefenceRun,
    DefenceRunError,
    check_run,
    gap_difference,
    play_deal,
    played,
)

RUN = DefenceRun("rule", ("rule", "pimc:worlds=2"), seed=31)
DEALS = range(8)


def _untimed(record: dict[str, Any]) -> dict[str, Any]:
    """A record without its seconds (the only part that differs between runs)."""
    return {k: ({x: y for x, y in v.items() if "seconds" not in x} if isinstance(v, dict)
                else v) for k, v in record.items()}


@pytest.fixture(scope="module")
def serial() -> list[dict[str, Any]]:
    with SerialExecutor() as ex:
        return sorted((_untimed(r) for r in ex.map_unordered(play_deal, RUN.tasks(DEALS))),
                      key=lambda r: r["deal"])


@pytest.fixture(scope="module")
def dask_address() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(  # one thread: a worker's agents serve one task at a time
            n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
            dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_a_declared_deal_is_played_out_by_every_defence_and_the_open_hand(
        serial: list[dict[str, Any]]) -> None:
    games = played(serial)
    assert games, "seed 31 should give declared games in 8 deals"
    for r in games:
        assert {"declarer", "contract", "type", "rule", "pimc:worlds=2", OPEN} <= set(r)
        for name in ("rule", "pimc:worlds=2", OPEN):
            assert set(r[name]) == {"won", "declarer_points"}
            assert isinstance(r[name]["won"], bool) and 0 <= r[name]["declarer_points"] <= 120
    passed = [r for r in serial if r["passed"]]
    assert all(set(r) == {"deal", "passed"} for r in passed)
    assert len(games) + len(passed) == len(DEALS)


def test_a_process_pool_gives_the_serial_records(serial: list[dict[str, Any]]) -> None:
    with LocalProcessExecutor(workers=2, batch_size=1) as pool:
        got = sorted((_untimed(r) for r in pool.map_unordered(play_deal, RUN.tasks(DEALS))),
                     key=lambda r: r["deal"])
    assert got == serial


def test_a_dask_cluster_gives_the_serial_records(serial: list[dict[str, Any]],
                                                 dask_address: str) -> None:
    with DaskExecutor(dask_address, batch_size=3) as ex:
        got = sorted((_untimed(r) for r in ex.map_unordered(play_deal, RUN.tasks(DEALS))),
                     key=lambda r: r["deal"])
    assert got == serial


def test_types_play_out_only_the_named_game_types(serial: list[dict[str, Any]]) -> None:
    declared = [r for r in serial if not r["passed"]]
    kept = declared[0]["type"]
    run = DefenceRun(RUN.agent, RUN.defences, RUN.seed, types=(kept,))
    for r, full in zip((play_deal((run, d)) for d in DEALS), serial, strict=True):
        if full["passed"]:
            assert r == {"deal": full["deal"], "passed": True}
        elif full["type"] == kept:
            assert _untimed(r) == full
        else:  # recorded with its type, not played out
            assert r == {"deal": full["deal"], "passed": False, "declarer": full["declarer"],
                         "contract": full["contract"], "type": full["type"], "skipped": True}
    assert played([play_deal((run, d)) for d in DEALS]) != []


def test_forced_nulls_are_plain_nulls_or_left_out() -> None:
    run = DefenceRun("rule", ("rule",), seed=32, force="null")
    records = [play_deal((run, d)) for d in range(6)]
    assert any(not r["passed"] for r in records)
    for r in records:
        assert r["passed"] or (r["type"] == "null" and r["contract"].startswith("N"))


@pytest.mark.parametrize(("run", "message"), [
    (DefenceRun("rule", ("rule",), 1, force="grand"), "force must be one of none, null"),
    (DefenceRun("rule", (), 1), "at least one defence"),
    (DefenceRun("rule", ("rule", OPEN), 1), "always played"),
    (DefenceRun("rule", ("rule", "rule"), 1), "named twice"),
    (DefenceRun("rule", ("rule",), 1, types=("grandhand",)), "unknown game type 'grandhand'"),
    (DefenceRun("rule", ("knn:worlds=zero",), 1), "'knn:worlds=zero'"),
])
def test_a_run_that_cannot_be_played_is_refused_in_one_line(run: DefenceRun,
                                                            message: str) -> None:
    with pytest.raises(DefenceRunError, match=message) as info:
        check_run(run)
    assert "\n" not in str(info.value)


def test_the_gap_difference_counts_the_games_one_defence_lets_through() -> None:
    def row(a: bool, b: bool, open_won: bool) -> dict[str, Any]:
        return {"a": {"won": a}, "b": {"won": b}, OPEN: {"won": open_won}}

    # b beats one game a let through (and the open hand beat), lets none through that a beat
    rows = [row(True, False, False), row(True, True, False), row(True, True, True),
            row(False, False, False)]
    mean, lo, hi = gap_difference(rows, "a", "b")
    assert mean == pytest.approx(-0.25)
    assert lo < mean < hi
    assert gap_difference(rows, "a", "a") == (0.0, 0.0, 0.0)


def test_the_compare_runner_resumes_and_refuses_another_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gap = experiment("skat_defence_gap")
    out = tmp_path / "cmp.jsonl"
    run = DefenceRun("rule", ("rule",), seed=31)
    gap.run_defences(out, run, 3, "serial", 1, every=1)
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["defences"] == ["rule"] and len(lines) == 4
    gap.run_defences(out, run, 5, "serial", 1, every=1)  # plays deals 3 and 4 only
    rows = [json.loads(x) for x in out.read_text().splitlines()[1:]]
    assert sorted(r["deal"] for r in rows) == [0, 1, 2, 3, 4]
    assert "2/2 deals" in capsys.readouterr().out
    other = DefenceRun("rule", ("rule",), seed=31, types=("grand",))
    with pytest.raises(SystemExit, match="holds another run"):
        gap.run_defences(out, other, 5, "serial", 1, every=1)
    assert len(out.read_text().splitlines()) == 6  # the file is left as it was


def test_a_run_beside_with_other_defences_is_joined_deal_by_deal(tmp_path: Path) -> None:
    """``--beside``: the second run's defences join the first's over the deals both hold;
    the same seed with the same defence again, another seed, or a game that differs are
    refused."""
    compare = experiment("skat_defence_compare")
    gap = experiment("skat_defence_gap")
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    gap.run_defences(first, DefenceRun("rule", ("rule",), seed=31), 4, "serial", 1, every=9)
    gap.run_defences(second, DefenceRun("rule", ("pimc:worlds=2",), seed=31), 3, "serial", 1,
                     every=9)
    header, rows = compare.joined(first, (second,))
    assert header["defences"] == ["rule", "pimc:worlds=2"]
    assert sorted(r["deal"] for r in rows) == [0, 1, 2]
    _, alone = compare.read_results(second)
    by_deal = {r["deal"]: r for r in alone}
    for r in played(rows):
        assert r["pimc:worlds=2"] == by_deal[r["deal"]]["pimc:worlds=2"]
    assert played(rows), "no deal played out"
    with pytest.raises(SystemExit, match="a defence of"):
        compare.joined(first, (first,))
    other = tmp_path / "c.jsonl"
    gap.run_defences(other, DefenceRun("rule", ("pimc:worlds=2",), seed=32), 2, "serial", 1,
                     every=9)
    with pytest.raises(SystemExit, match="another declarer, seed"):
        compare.joined(first, (other,))
    lines = second.read_text().splitlines()
    row = json.loads(next(x for x in lines[1:] if not json.loads(x)["passed"]))
    row[OPEN]["declarer_points"] += 1
    second.write_text("\n".join([*(x if json.loads(x).get("deal") != row["deal"]
                                   else json.dumps(row) for x in lines)]) + "\n")
    with pytest.raises(SystemExit, match="is not the game of"):
        compare.joined(first, (second,))
