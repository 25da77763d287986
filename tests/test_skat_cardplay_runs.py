"""Card-play matches (:mod:`spielwerk.games.skat_ai.cardplay_runs`): the auction's declarer
plays both tables, the same records on every executor, agents that declare otherwise are
refused, and ``experiments/skat_card_play_match.py`` resumes (a torn last line cut),
refuses another match and summarizes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skat_helpers import EXPERIMENTS, declared_deals
from spielwerk.core.parallel import DaskExecutor, LocalProcessExecutor, SerialExecutor
from spielwerk.games.skat_ai.cardplay_runs import (
    TABLES,
    CardPlayRun,
    CardPlayRunError,
    play_cardplay_deal,
)

A, B = "knn:play=rule:calibration=strong", "knn:play=pimc:worlds=2:calibration=strong"
RUN = CardPlayRun(A, B, seed=5)
DEALS = range(5)


def _untimed(record: dict[str, Any]) -> dict[str, Any]:
    """A record without its decision times (the only part that differs between runs)."""
    r = json.loads(json.dumps(record))
    for table in r.get("games", {}).values():
        del table["times_lone"], table["times_pair"]
    return r


@pytest.fixture(scope="module")
def serial() -> list[dict[str, Any]]:
    with SerialExecutor() as ex:
        return sorted((_untimed(r) for r in ex.map_unordered(play_cardplay_deal,
                                                             RUN.tasks(DEALS))),
                      key=lambda r: r["deal"])


def test_the_auctions_declarer_declares_at_both_tables(serial: list[dict[str, Any]]) -> None:
    # an independent auction with A in all three seats, seeded as the match seeds it
    auctions = [(state.declarer, state.contract.iss())
                for _, state in declared_deals(A, RUN.seed, len(DEALS))]
    games = [r for r in serial if not r["passed"]]
    assert len(games) >= 2, "seed 5 should give declared deals"
    assert [(r["declarer"], r["contract"]) for r in games] == auctions
    for r in games:
        assert set(r["games"]) == set(TABLES)
        for table in r["games"].values():
            assert isinstance(table["won"], bool)
            assert 0 <= table["declarer_points"] <= 120
            # Seeger-Fabian: the defenders score 40 each only when the declarer loses
            assert table["defender_sf"] == ([0, 0] if table["won"] else [40, 40])
            assert (table["declarer_sf"] > 0) == table["won"]
    # the rule card play and PIMC differ somewhere on these deals
    assert any(r["games"][TABLES[0]] != r["games"][TABLES[1]] for r in games)


def test_a_process_pool_gives_the_serial_records(serial: list[dict[str, Any]]) -> None:
    with LocalProcessExecutor(workers=2, batch_size=1) as pool:
        got = sorted((_untimed(r) for r in pool.map_unordered(play_cardplay_deal,
                                                              RUN.tasks(DEALS))),
                     key=lambda r: r["deal"])
    assert got == serial


def test_a_dask_cluster_gives_the_serial_records(serial: list[dict[str, Any]]) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(  # one thread: a worker's agents serve one task at a time
            n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
            dashboard_address=None) as cluster, \
            DaskExecutor(cluster.scheduler_address, batch_size=2) as ex:
        got = sorted((_untimed(r) for r in ex.map_unordered(play_cardplay_deal,
                                                            RUN.tasks(DEALS))),
                     key=lambda r: r["deal"])
    assert got == serial


def test_agents_that_declare_otherwise_are_refused() -> None:
    # without one named calibration the rule and PIMC card play tell other chances, so
    # the second table's auction goes elsewhere on one of these deals
    run = CardPlayRun("knn:play=rule", "knn:play=pimc:worlds=2", seed=5)
    with pytest.raises(CardPlayRunError, match="did not declare alike"):
        for deal in DEALS:
            play_cardplay_deal((run, deal))


@pytest.mark.parametrize(("run", "message"), [
    (CardPlayRun("knn:worlds=zero", B, 1), "'knn:worlds=zero'"),
    (CardPlayRun(A, "nosuchagent", 1), "'nosuchagent'"),
    (CardPlayRun(A, B, -1), "0 or more"),
])
def test_a_match_that_cannot_be_played_is_refused_in_one_line(run: CardPlayRun,
                                                              message: str) -> None:
    with pytest.raises(CardPlayRunError, match=message) as info:
        run.check()
    assert "\n" not in str(info.value)


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(EXPERIMENTS / "skat_card_play_match.py"),
                           "--a", A, "--b", B, "--seed", "5", "--executor", "serial", *args],
                          capture_output=True, text=True, timeout=600)


def test_the_script_resumes_refuses_another_match_and_summarizes(
        tmp_path: Path, serial: list[dict[str, Any]]) -> None:
    out = tmp_path / "cp.jsonl"
    done = _script("--deals", "3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    with out.open("a") as f:
        f.write('{"deal": 3, "pass')  # a run killed while writing deal 3
    done = _script("--deals", "5", "--out", str(out))
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["a"] == A and "machine" in json.loads(lines[0])
    rows = sorted((_untimed(json.loads(x)) for x in lines[1:]), key=lambda r: r["deal"])
    assert rows == serial  # deal 3 played again, none twice
    assert "5 deals, " in done.stdout and "paired difference A - B" in done.stdout
    other = subprocess.run([sys.executable, str(EXPERIMENTS / "skat_card_play_match.py"),
                            "--a", A, "--b", A, "--seed", "5", "--deals", "5", "--out",
                            str(out), "--executor", "serial"],
                           capture_output=True, text=True, timeout=600)
    assert other.returncode != 0 and "holds another run" in other.stderr
    assert len(out.read_text().splitlines()) == 6  # the file is left as it was
