"""Duplicate-deal Skat matches (arena/duplicate.py): seating, duplicate deals, resume,
foreign files, statistics against hand-computed values, executors."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from process_helpers import HAVE_PROC, assert_stopped_cleanly, ctrl_c, stop
from spielwerk.arena import ArenaError, ResultsFileError, SerialExecutor, read_results
from spielwerk.arena.duplicate import DuplicateConfig, arrangements
from spielwerk.arena.duplicate import run_duplicate as run_skat_match
from spielwerk.arena.match import GameResult
from spielwerk.arena.tournament import TournamentConfig, run_tournament
from spielwerk.core.parallel import LocalProcessExecutor
from spielwerk.games.skat.cli_match import match_stats, read_match, skat_match_config
from spielwerk.games.skat_ai.match_stats import SkatMatchError, skat_match_stats


def _outcomes(results: list[GameResult]) -> list[tuple[Any, ...]]:
    return sorted(r.outcome() for r in results)


# ----- seating -------------------------------------------------------------------------------
def test_two_agents_sit_in_six_arrangements_balanced_by_seat() -> None:
    orders = arrangements(2, 3, "pairs")
    assert len(orders) == 6 == len(set(orders))
    for seat in range(3):
        assert Counter(o[seat] for o in orders) == {0: 3, 1: 3}
    # each arrangement has one agent alone and the other twice
    assert all(sorted(Counter(o).values()) == [1, 2] for o in orders)


def test_three_agents_rotate_or_permute() -> None:
    rot = arrangements(3, 3, "rotations")
    assert len(rot) == 3
    for seat in range(3):
        assert sorted(o[seat] for o in rot) == [0, 1, 2]
    assert len(set(arrangements(3, 3, "permutations"))) == 6
    with pytest.raises(ArenaError, match="between 2 and 3 agents"):
        arrangements(4, 3, "rotations")
    with pytest.raises(ArenaError, match="pairs"):
        arrangements(2, 3, "rotations")


def test_config_validates_input() -> None:
    with pytest.raises(ArenaError, match="2 or 3 agents"):
        skat_match_config(["rule"], 3)
    with pytest.raises(ArenaError, match="at least 1"):
        skat_match_config(["rule", "random"], 0)
    with pytest.raises(ArenaError, match="non-negative"):
        skat_match_config(["rule", "random"], 2, seed=-1)
    with pytest.raises(Exception, match="nosuch"):
        skat_match_config(["rule", "nosuch"], 2)


def test_schedule_replays_each_deal_under_every_seating() -> None:
    config = skat_match_config(["rule", "random"], 4, seed=3)
    tasks = config.schedule()
    assert len(tasks) == 24 and len({t.task_id for t in tasks}) == 24
    for deal in range(4):
        mine = [t for t in tasks if t.deal == deal]
        assert len({t.chance_seed for t in mine}) == 1
        assert sorted(t.labels for t in mine) == sorted(
            tuple(config.labels[m] for m in o) for o in config.arrangements
        )
    assert len({t.chance_seed for t in tasks}) == 4
    other = skat_match_config(["rule", "random"], 4, seed=4)
    assert other.config_hash() != config.config_hash()
    assert DuplicateConfig.from_dict(config.to_dict()) == config


def test_the_same_agent_in_every_seat_plays_every_seating_of_a_deal_alike() -> None:
    """The duplicate property: a deal's cards do not depend on the seating, so one
    deterministic agent everywhere gives the same game in all six seatings."""
    config = skat_match_config(["rule", "rule"], 4, seed=11)
    result = run_skat_match(config, SerialExecutor())
    for deal in range(4):
        games = [r for r in result.results if r.deal == deal]
        assert len(games) == 6
        details = {json.dumps(g.details, sort_keys=True) for g in games}
        assert len(details) == 1, details
    assert len({json.dumps(r.details, sort_keys=True) for r in result.results}) > 1


# ----- statistics on a hand-made log ---------------------------------------------------------
def _game(deal: int, seating: int, labels: tuple[str, ...], declarer: int,
          contract: str | None, won: bool, value: int, overbid: bool = False) -> GameResult:
    if declarer < 0:
        seeger = [0, 0, 0]
    elif won:
        seeger = [value + 50 if s == declarer else 0 for s in range(3)]
    else:
        seeger = [-2 * value - 50 if s == declarer else 40 for s in range(3)]
    details = {"declarer": declarer, "contract": contract, "bid": 18, "won": won,
               "value": value, "declarer_points": 70, "declarer_tricks": 5,
               "schneider": False, "schwarz": False, "overbid": overbid, "seeger": seeger}
    return GameResult(f"d{deal}-s{seating}", "skat", labels, labels, 0, 0, deal, seating,
                      (0.0, 0.0, 0.0), 30, 0.1, details)


A, B = "A", "B"
SEATS = [(B, A, A), (A, B, A), (A, A, B), (A, B, B), (B, A, B), (B, B, A)]


def _tiny_log() -> list[GameResult]:
    """Two complete deals and one incomplete; the expected figures are worked out below."""
    deal0 = [
        _game(0, 0, SEATS[0], 0, "C", True, 24),       # B declares clubs, won 24: B +74
        _game(0, 1, SEATS[1], 1, "G", False, 48),      # B loses grand 48: B -146, A +40 +40
        _game(0, 2, SEATS[2], -1, None, False, 0),     # passed in
        _game(0, 3, SEATS[3], 0, "NH", True, 35),      # A wins null hand 35: A +85
        _game(0, 4, SEATS[4], 1, "HHS", True, 60),     # A wins hearts hand schneider ann.: +110
        _game(0, 5, SEATS[5], 2, "D", False, 18),      # A loses diamonds 18: A -86, B +40 +40
    ]
    deal1 = [_game(1, s, SEATS[s], -1, None, False, 0) for s in range(6)]  # all passed in
    deal2 = [_game(2, 0, SEATS[0], 0, "C", True, 24)]  # incomplete: left out
    return deal0 + deal1 + deal2


def test_statistics_match_hand_computed_values() -> None:
    st = skat_match_stats(_tiny_log(), [A, B], games_per_deal=6)
    assert (st.deals, st.incomplete_deals, st.games, st.passed_in_games) == (2, 1, 12, 7)
    a, b = st.agents
    # seat-games: 9 per agent per deal
    assert a.seat_games == b.seat_games == 18
    assert (a.declared, a.won, b.declared, b.won) == (3, 2, 2, 1)
    assert a.win_rate == pytest.approx(2 / 3) and b.win_rate == pytest.approx(1 / 2)
    assert a.win_low < 2 / 3 < a.win_high
    # passed-in seat-games: deal 0 game 2 (A twice, B once), deal 1 all six games (9 each)
    assert (a.passed_in, b.passed_in) == (11, 10)
    assert a.mean_value == pytest.approx((35 + 60 + 18) / 3)
    assert b.mean_value == pytest.approx((24 + 48) / 2)
    assert a.mean_declarer_score == pytest.approx((35 + 60 - 36) / 3)
    # deal 0: A's seat points 40+40+85+110-86 = 189 over 9 seats; B's 74-146+40+40 = 8
    a0, b0 = 36 * 189 / 9, 36 * 8 / 9
    assert a.seeger_per_list == pytest.approx((a0 + 0) / 2)
    assert b.seeger_per_list == pytest.approx((b0 + 0) / 2)
    half = 1.959963984540054 * math.sqrt(((a0 - a0 / 2) ** 2 + (a0 / 2) ** 2) / 1) / math.sqrt(2)
    assert a.seeger_low == pytest.approx(a0 / 2 - half)
    assert a.seeger_high == pytest.approx(a0 / 2 + half)
    (diff,) = st.differences
    assert (diff.a, diff.b, diff.deals) == (A, B, 2)
    assert diff.mean == pytest.approx((a0 - b0) / 2)
    assert diff.low < diff.mean < diff.high
    cats = a.categories
    assert (cats["null"].declared, cats["null"].won, cats["null"].seeger) == (1, 1, 85)
    assert (cats["hand"].declared, cats["hand"].won, cats["hand"].seeger) == (2, 2, 195)
    assert (cats["schneider announced"].declared, cats["schneider announced"].seeger) == (1, 110)
    assert (cats["suit"].declared, cats["suit"].won, cats["suit"].seeger) == (2, 1, 24)
    assert cats["suit"].seeger_per_list == pytest.approx(36 * 24 / 18)
    assert (b.categories["grand"].declared, b.categories["grand"].won) == (1, 0)
    assert b.categories["grand"].seeger == -146
    assert b.categories["ouvert"].declared == 0
    assert json.loads(json.dumps(st.to_dict()))["agents"][0]["label"] == A


def test_statistics_of_one_deal_have_no_interval() -> None:
    st = skat_match_stats(_tiny_log()[:6], [A, B], games_per_deal=6)
    assert st.deals == 1
    assert math.isnan(st.agents[0].seeger_low)
    assert st.to_dict()["agents"][0]["seeger_low"] is None


def test_statistics_refuse_records_without_skat_outcome() -> None:
    bad = GameResult("d0-s0", "skat", SEATS[0], SEATS[0], 0, 0, 0, 0, (0.0,) * 3, 1, 0.0)
    with pytest.raises(SkatMatchError, match="no Skat outcome"):
        skat_match_stats([bad] * 6, [A, B], games_per_deal=6)


# ----- results files: resume, kill -9, foreign files -----------------------------------------
def _small(seed: int = 5, deals: int = 3) -> DuplicateConfig:
    return skat_match_config(["rule", "random"], deals, seed=seed)


def test_resume_after_a_half_written_line_finishes_without_duplicates(tmp_path: Path) -> None:
    whole = run_skat_match(_small(), SerialExecutor())
    out = tmp_path / "m.jsonl"
    run_skat_match(_small(), SerialExecutor(), output=out)
    lines = out.read_bytes().split(b"\n")
    out.write_bytes(b"\n".join(lines[:6]) + b"\n" + lines[6][:25])  # killed mid-write
    resumed = run_skat_match(_small(), SerialExecutor(), output=out, resume=True)
    assert resumed.resumed == 5
    back = read_results(out)
    assert back.discarded_tail == b"" and len(back.results) == 18
    assert len({r.task_id for r in back.results}) == 18
    assert _outcomes(back.results) == _outcomes(whole.results)
    config, results = read_match(out)
    assert config == _small() and len(results) == 18


CHILD = textwrap.dedent(
    """
    import sys, time
    from spielwerk.core.agent import register_agent
    from spielwerk.games.skat_ai.baseline import SkatRandomAgent
    from spielwerk.arena import SerialExecutor
    from spielwerk.arena.duplicate import run_duplicate as run_skat_match
    from spielwerk.games.skat.cli_match import skat_match_config

    class Sleepy(SkatRandomAgent):
        def act(self, info_state):
            time.sleep(float(sys.argv[2]))
            return super().act(info_state)

    register_agent("sleepy", Sleepy, {}, "random Skat, slowly", games=("skat",))
    config = skat_match_config(["sleepy", "rule"], 4, seed=21)
    run_skat_match(config, SerialExecutor(), output=sys.argv[1], resume=True)
    """
)


def test_killed_match_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    out = tmp_path / "killed.jsonl"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(out), "0.01"])
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if out.exists() and out.read_bytes().count(b"\n") >= 5:
                break
            if child.poll() is not None:
                pytest.fail(f"child exited early with {child.returncode}")
            time.sleep(0.005)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL
    partial = read_results(out)
    assert 4 <= len(partial.results) < 24, "the kill did not land part-way"
    subprocess.run([sys.executable, "-c", CHILD, str(out), "0"], check=True)
    whole = tmp_path / "whole.jsonl"
    subprocess.run([sys.executable, "-c", CHILD, str(whole), "0"], check=True)
    resumed, reference = read_results(out), read_results(whole)
    assert len(resumed.results) == 24 == len({r.task_id for r in resumed.results})
    assert _outcomes(resumed.results) == _outcomes(reference.results)


@pytest.mark.skipif(not HAVE_PROC, reason="needs /proc and the installed spielwerk script")
def test_ctrl_c_prints_the_figures_of_what_finished_and_resume_adds_no_duplicates(
        tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"

    def games(pid: int) -> int:
        return len(out.read_text().splitlines()) if out.exists() else 0

    run = ctrl_c(["skat", "match", "rule", "random", "--deals", "3000", "--workers", "2",
                  "-o", str(out)], lambda pid: games(pid) > 3, tmp_path)
    assert_stopped_cleanly(run)
    kept = read_results(out).results
    assert f"{len(kept)} games played" in run.stdout  # the figures of the finished games
    assert len({r.task_id for r in kept}) == len(kept)


@pytest.mark.skipif(not HAVE_PROC, reason="needs /proc and the installed spielwerk script")
@pytest.mark.parametrize("background", [False, True], ids=["terminal", "background-job"])
def test_sigterm_stops_like_ctrl_c_and_the_run_resumes(tmp_path: Path, background: bool) -> None:
    """``kill PID`` (a batch system's end of a job, ``timeout``): the workers stop, the games
    that finished are kept and said, exit code 143; also for a job started with ``&`` from
    a script, whose SIGINT is ignored."""
    out = tmp_path / "m.jsonl"

    def games(pid: int) -> int:
        return len(out.read_text().splitlines()) if out.exists() else 0

    args = ["skat", "match", "rule", "random", "--deals", "3000", "--workers", "2", "-o",
            str(out)]
    run = stop(args, lambda pid: games(pid) > 3, tmp_path, signum=signal.SIGTERM,
               group=False, sigint_ignored=background)
    assert_stopped_cleanly(run, code=143)
    kept = read_results(out).results
    assert f"{len(kept)} games played" in run.stdout
    resumed = stop([*args, "--resume"], lambda pid: games(pid) > len(kept) + 3, tmp_path,
                   signum=signal.SIGTERM, group=False, sigint_ignored=background)
    assert_stopped_cleanly(resumed, code=143)
    more = read_results(out).results
    assert len(more) > len(kept) and len({r.task_id for r in more}) == len(more)


def test_foreign_files_are_refused_and_left_untouched(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my shopping list\n")
    for kwargs in ({"resume": True}, {"fresh": True}, {}):
        with pytest.raises(ResultsFileError):
            run_skat_match(_small(), SerialExecutor(), output=notes, **kwargs)
        assert notes.read_text() == "my shopping list\n"
    # another match (other seed) and a Kalah tournament: ours, but not this match
    other = tmp_path / "other.jsonl"
    run_skat_match(_small(seed=6, deals=1), SerialExecutor(), output=other)
    kalah = tmp_path / "kalah.jsonl"
    run_tournament(TournamentConfig.create("kalah(pits=4,seeds=3)", ["random", "greedy"], 2),
                   SerialExecutor(), output=kalah)
    for path in (other, kalah):
        before = path.read_bytes()
        with pytest.raises(ResultsFileError, match="different tournament"):
            run_skat_match(_small(), SerialExecutor(), output=path, resume=True)
        assert path.read_bytes() == before
    with pytest.raises(ResultsFileError, match="not a Skat duplicate match"):
        read_match(kalah)
    with pytest.raises(ResultsFileError, match="not a spielwerk"):
        read_match(notes)


# ----- executors and PIMC ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def pimc_serial() -> list[tuple[Any, ...]]:
    config = skat_match_config(["pimc:worlds=2", "rule"], 1, seed=2)
    return _outcomes(run_skat_match(config, SerialExecutor()).results)


def test_pimc_match_is_the_same_on_a_process_pool(pimc_serial: list[tuple[Any, ...]]) -> None:
    config = skat_match_config(["pimc:worlds=2", "rule"], 1, seed=2)
    with LocalProcessExecutor(workers=2, batch_size=2) as pool:
        result = run_skat_match(config, pool)
    assert _outcomes(result.results) == pimc_serial
    st = match_stats(result)
    assert st.deals == 1 and st.games == 6
    assert sum(a.seat_games for a in st.agents) == 18


def test_pimc_match_is_the_same_on_dask(pimc_serial: list[tuple[Any, ...]]) -> None:
    distributed = pytest.importorskip("distributed")
    from spielwerk.core.parallel import DaskExecutor

    config = skat_match_config(["pimc:worlds=2", "rule"], 1, seed=2)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
        dashboard_address=None,
    ) as cluster, DaskExecutor(cluster.scheduler_address) as ex:
        result = run_skat_match(config, ex)
    assert _outcomes(result.results) == pimc_serial


def test_three_agents_give_three_paired_differences() -> None:
    config = skat_match_config(["rule", "random", "rule"], 2, seed=9,
                                          seating="permutations")
    assert config.labels == ("rule", "random", "rule#2")
    result = run_skat_match(config, SerialExecutor())
    st = match_stats(result)
    assert (st.deals, st.games) == (2, 12)
    assert [a.seat_games for a in st.agents] == [12, 12, 12]
    assert [(d.a, d.b) for d in st.differences] == [
        ("rule", "random"), ("rule", "rule#2"), ("random", "rule#2")]
    # every order is played, so the two copies of one deterministic agent meet the same
    # hands in the same company: equal figures, a zero paired difference
    assert st.agents[0].seeger_per_list == pytest.approx(st.agents[2].seeger_per_list)
    assert st.agents[0].declared == st.agents[2].declared
    assert st.differences[1].mean == pytest.approx(0.0)
    rotations = skat_match_config(["rule", "random", "rule"], 2, seed=9)
    assert len(rotations.schedule()) == 6


# ----- the knowledge base in the header ----------------------------------------------------------
_SHIPPED_KB = Path(__file__).resolve().parents[1] / "src" / "spielwerk" / "data" / "skat_kb"


@pytest.mark.skipif(not (_SHIPPED_KB / "manifest.json").exists(), reason="no shipped base")
def test_header_records_the_knowledge_base_and_resume_refuses_another(tmp_path: Path) -> None:
    import shutil

    base = tmp_path / "kb"
    shutil.copytree(_SHIPPED_KB, base)
    spec = f"knn:play=rule:base={base}"
    out = tmp_path / "m.jsonl"
    config = skat_match_config([spec, "rule"], 1, seed=3)
    run_skat_match(config, SerialExecutor(), output=out)
    header = json.loads(out.read_text().splitlines()[0])
    recorded = header["config"]["knowledge_bases"]
    assert list(recorded) == [spec]  # rule has no base
    manifest = json.loads((base / "manifest.json").read_text())
    assert recorded[spec]["dir"] == str(base.resolve())
    assert recorded[spec]["deals"] == manifest["counts"]["deals"]
    back, results = read_match(out)  # the header's hash still checks with the field in it
    assert back == config and len(results) == 6
    # the same directory holding another base (here: a changed manifest) is refused
    (base / "manifest.json").write_text(json.dumps(manifest, indent=2))
    before = out.read_bytes()
    again = skat_match_config([spec, "rule"], 1, seed=3)
    assert again.config_hash() != config.config_hash()
    with pytest.raises(ResultsFileError, match="different tournament"):
        run_skat_match(again, SerialExecutor(), output=out, resume=True)
    assert out.read_bytes() == before


def _forged_header(path: Path, config: DuplicateConfig, settings: dict[str, Any] | None) -> None:
    """A results file holding only the header ``config`` would have had with ``settings``
    (None: written before settings were recorded), its hash computed as it was then."""
    d = config.to_dict()
    d.pop("settings", None)
    if settings is not None:
        d["settings"] = settings
    text = json.dumps(d, sort_keys=True, separators=(",", ":"))
    import hashlib

    header = {"format": "spielwerk-arena-results", "config": d,
              "config_hash": hashlib.sha256(text.encode()).hexdigest()}
    path.write_text(json.dumps(header) + "\n")


def test_header_records_what_each_spec_means_and_resume_refuses_another_bot(
        tmp_path: Path) -> None:
    """A ``knn`` match resumed after the default moved is the same spec and another bot:
    refused, naming the setting; a file from before settings were recorded resumes by name."""
    spec = "knn:play=rule"
    config = skat_match_config([spec, "rule"], 1, seed=3)
    told = dict(config.settings)
    assert list(told) == [spec]  # rule tells none
    settings = json.loads(told[spec])
    assert settings["play"] == "rule" and len(settings["base_manifest"]) == 64
    assert settings["null_floor"] == 0.0 and "calibration" in settings
    assert DuplicateConfig.from_dict(config.to_dict()) == config  # the header reads back

    moved = tmp_path / "moved.jsonl"  # written when knn's null_floor default was 0.55
    _forged_header(moved, config, {spec: {**settings, "null_floor": 0.55}})
    before = moved.read_bytes()
    with pytest.raises(ResultsFileError, match=r"settings\.knn:play=rule\.null_floor: file has "
                                               r"0\.55, now 0\.0"):
        run_skat_match(config, SerialExecutor(), output=moved, resume=True)
    assert moved.read_bytes() == before

    older = tmp_path / "older.jsonl"  # no settings in its header: resumed by the specs' names
    _forged_header(older, config, None)  # (by the command, which runs the arena directly)
    run = subprocess.run([str(Path(sys.executable).with_name("spielwerk")), "skat", "match",
                          spec, "rule", "--deals", "1", "--seed", "3", "--workers", "1",
                          "-o", str(older), "--resume"], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    back = read_results(older)
    assert "settings" not in back.header["config"] and len(back.results) == 6
    # that file holds no settings: a changed knowledge base is still named, not the tables
    _forged_header(older, replace(config, knowledge_bases=()), None)
    with pytest.raises(ResultsFileError) as refused:
        run_skat_match(config, SerialExecutor(), output=older, resume=True)
    assert f"knowledge_bases: file has None, now {{{spec}: ...}}" in str(refused.value)

    new = tmp_path / "new.jsonl"
    run_skat_match(config, SerialExecutor(), output=new)
    header = json.loads(new.read_text().splitlines()[0])
    assert header["config"]["settings"] == {spec: settings}
    assert read_match(new)[0] == config  # the hash checks with the settings in it
    assert run_skat_match(config, SerialExecutor(), output=new, resume=True).resumed == 6
