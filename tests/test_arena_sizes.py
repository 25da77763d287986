"""Sizes: a run that cannot finish is refused at once, in one line, with an estimate (exit
code 2); the schedule is computed as it is played, never built whole, so a large run starts
at once and stops on Ctrl-C; worker counts are capped."""

from __future__ import annotations

import itertools
import resource
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from spielwerk.arena import SerialExecutor, TournamentConfig, run_tournament
from spielwerk.arena import tournament as tournament_mod
from spielwerk.arena.match import ArenaError, derive_seed
from spielwerk.games.skat.cli_match import skat_match_config

SPIELWERK = Path(sys.executable).with_name("spielwerk")
MEMORY_LIMIT = 2 << 30
"""Address space of the command under test: building a schedule of the sizes below whole
needs far more, so an attempt crashes the command instead of passing slowly."""


def _limited(limit: int = MEMORY_LIMIT) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _spielwerk(*args: str, timeout: float = 60) -> tuple[int, str, float]:
    start = time.perf_counter()
    done = subprocess.run([str(SPIELWERK), *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=_limited)
    return done.returncode, done.stdout + done.stderr, time.perf_counter() - start


@pytest.mark.parametrize("args", [
    ["arena", "kalah", "random", "greedy", "-n", "1000000000000"],
    ["durak", "tournament", "--agents", "random", "random", "--games", "1000000000"],
    ["skat", "match", "random", "random", "--deals", "2147483648"],
    ["fuzz", "kalah", "--games", "1000000000000"],
], ids=["arena", "durak", "skat-match", "fuzz"])
def test_a_run_that_cannot_finish_is_refused_at_once_in_one_line(args: list[str]) -> None:
    code, text, seconds = _spielwerk(*args)
    lines = [line for line in text.splitlines() if line.strip()]
    assert code == 2, text
    assert len(lines) == 1, text
    assert "cannot" in lines[0] and ("memory" in lines[0] or "years" in lines[0]), text
    assert seconds < 20, seconds  # the imports and, for fuzz, a fraction of a second's probe


def test_a_large_run_that_fits_starts_at_once_and_stops_on_ctrl_c() -> None:
    proc = subprocess.Popen(
        [str(SPIELWERK), "arena", "kalah(pits=3,seeds=3)", "random", "random", "-n", "10000000",
         "-e", "serial"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: _limited(1 << 30))
    try:
        time.sleep(6)  # imports, then games (the whole schedule would need 1.5 GB first)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        start = time.perf_counter()
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, out + err
    assert time.perf_counter() - start < 10
    assert "interrupted" in out + err


def test_the_schedule_is_computed_as_it_is_played() -> None:
    config = TournamentConfig("kalah", ("random", "greedy"), 10**12)
    next(iter(TournamentConfig("kalah", ("random", "greedy"), 2).lazy_plan()))  # imports
    tracemalloc.start()
    try:
        plan = config.lazy_plan()
        first = list(itertools.islice(plan, 3))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(plan) == 10**12
    assert peak < 10_000_000, peak  # one chunk of games; the whole schedule: terabytes
    assert [t.task_id for t in first] == ["g0-d0-s0", "g0-d0-s1", "g0-d1-s0"]
    assert first[2].seed == derive_seed(0, 2, 0, 1, 0)
    assert first[2].chance_seed == derive_seed(0, 1, 1)
    last = plan[len(plan) - 1 :].tasks()[0]  # any slice, computed alone
    deals = 10**12 // 2  # each deal played with the seats both ways
    assert last.task_id == f"g0-d{deals - 1}-s1"
    assert last.seed == derive_seed(0, 2, 0, deals - 1, 1)
    assert plan.position(last.task_id) == len(plan) - 1


@pytest.mark.parametrize("config", [
    TournamentConfig.create("kalah(pits=3,seeds=2)", ["random", "greedy", "random"], 6, seed=4),
    TournamentConfig.create("skat", ["random"] * 4, 6, seed=2, seating="permutations"),
    skat_match_config(["random", "rule"], 3, seed=5),
    skat_match_config(["random", "rule", "random"], 2, seed=6,
                                 seating="permutations"),
], ids=["kalah", "skat-4-agents", "skat-match-pairs", "skat-match-3"])
def test_the_lazy_schedule_lists_the_same_games(config: TournamentConfig) -> None:
    tasks = config.schedule()
    plan = config.lazy_plan()
    assert list(plan) == tasks and len(plan) == len(tasks) == config.total_games()
    for cut in (1, len(tasks) // 2):
        assert plan[:cut].tasks() + plan[cut:].tasks() == tasks
    assert config.plan().tasks() == tasks
    odd = plan.subset(list(range(1, len(tasks), 2)))
    assert list(odd) == tasks[1::2] and odd[:].row.tolist() == list(range(1, len(tasks), 2))
    assert plan.take([3, 0]).tasks() == [tasks[3], tasks[0]]
    for k, task in enumerate(tasks):
        assert plan.position(task.task_id) == k
    assert plan.position("g99-d0-s0") is None and plan.position("nonsense") is None


def test_skat_match_seeds_are_unchanged() -> None:
    config = skat_match_config(["random", "rule"], 2, seed=7)
    for task in config.schedule():
        assert task.task_id == f"d{task.deal}-s{task.seating}"
        assert task.seed == derive_seed(7, 2, task.deal, task.seating)
        assert task.chance_seed == derive_seed(7, 1, task.deal)


def test_a_tournament_too_big_for_memory_is_refused_before_anything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tournament_mod, "physical_memory", lambda: 10_000_000)
    config = TournamentConfig.create("kalah(pits=3,seeds=2)", ["random", "greedy", "random"],
                                     10_000)
    out = tmp_path / "r.jsonl"
    with pytest.raises(ArenaError) as caught:
        run_tournament(config, SerialExecutor(), out)
    message = str(caught.value)
    assert "\n" not in message and "30 MB" in message and "10 MB" in message
    assert "at most about 3,332 games per pairing" in message  # even: paired deals
    assert not out.exists()
    assert len(run_tournament(TournamentConfig.create(
        "kalah(pits=3,seeds=2)", ["random", "greedy"], 4), SerialExecutor()).results) == 4


@pytest.mark.parametrize("args", [
    ["arena", "kalah", "random", "greedy", "-n", "2"],
    ["durak", "tournament", "--agents", "random", "random", "--games", "2"],
    ["skat", "match", "random", "random", "--deals", "1"],
    ["fuzz", "kalah", "--games", "2"],
    ["skat", "kb", "build", "--deals", "1", "--out", "never-made"],
], ids=["arena", "durak", "skat-match", "fuzz", "skat-kb-build"])
def test_worker_counts_are_capped_in_one_line(args: list[str]) -> None:
    from typer.testing import CliRunner

    from spielwerk.cli.main import app
    from spielwerk.cli.options import OptionValueError

    result = CliRunner().invoke(app, [*args, "--workers", "100000"])
    assert isinstance(result.exception, OptionValueError), result.output
    low = 0 if args[0] == "fuzz" else 1  # fuzz: 0 is all cores
    assert str(result.exception) == f"--workers must be in {low}..256, not 100000"
    assert CliRunner().invoke(app, [*args, "--workers", "257"]).exit_code != 0


def test_arena_refuses_a_hundred_thousand_workers_at_once() -> None:
    code, text, _ = _spielwerk("arena", "kalah", "random", "greedy", "-w", "100000")
    assert code == 2 and text.strip() == "error: --workers must be in 1..256, not 100000", text
