"""``spielwerk fuzz`` and its engine: small runs, a caught broken game, argument errors."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable

import pytest
from typer.testing import CliRunner

from conftest import ToyGame
from spielwerk import load_game
from spielwerk.cli.main import app
from spielwerk.core.fuzz import PROBE_FROM, FuzzError, check_fuzz_size, fuzz_batch, run_fuzz
from spielwerk.core.testing import random_playout

runner = CliRunner()
ToyFactory = Callable[..., ToyGame]


def crashing_seeds(game: ToyGame, seeds: range) -> list[int]:
    """Seeds of the games in which the crash bug can strike: the oracle for the crash bug.

    A call after a bet crashes; the harness tries every legal action on a clone,
    so every game in which player 0 bets (history: two cards, then 1) must fail.
    """
    bad = []
    for seed in seeds:
        try:
            history = random_playout(game, seed).history
        except ZeroDivisionError:
            bad.append(seed)
            continue
        if history[2] == 1:
            bad.append(seed)
    return bad


def test_fuzz_kalah_in_process() -> None:
    result = runner.invoke(
        app, ["fuzz", "kalah(pits=4,seeds=3)", "--games", "30", "--seed", "7", "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "all invariants held" in result.output
    assert "30 games (seeds 7..36)" in result.output
    assert re.search(r"[\d.,]+ games/s", result.output)
    assert re.search(r"[\d,]+ moves/s", result.output)


def test_fuzz_kalah_on_a_process_pool_counts_every_move() -> None:
    spec = "kalah(pits=3,seeds=2,empty_capture=true)"
    summary = run_fuzz(spec, 40, seed=100, workers=2, batch_size=7)
    assert summary.ok and summary.games == 40 and summary.workers == 2
    game = load_game(spec)
    expected_moves = sum(len(random_playout(game, s).history) for s in range(100, 140))
    assert summary.moves == expected_moves
    assert summary.games_per_second > 0 and summary.moves_per_second > 0


def test_fuzz_reports_exactly_the_failing_seeds(toy_game: ToyFactory) -> None:
    game = toy_game(bug="crash")
    expected = crashing_seeds(game, range(20, 60))
    assert expected  # the bug does show up in this range
    summary = run_fuzz(game.spec(), 40, seed=20, workers=1, max_failures=1000)
    assert [f.seed for f in summary.failures] == expected
    assert {f.invariant for f in summary.failures} == {"no unexpected exception"}
    assert summary.games == 40 and not summary.stopped_early


def test_fuzz_pool_finds_the_same_failures(toy_game: ToyFactory) -> None:
    game = toy_game(bug="crash")
    expected = crashing_seeds(game, range(0, 30))
    summary = run_fuzz(game.spec(), 30, workers=2, batch_size=4, max_failures=1000)
    assert [f.seed for f in summary.failures] == expected


def test_fuzz_cli_catches_a_broken_game_and_prints_its_seed(toy_game: ToyFactory) -> None:
    game = toy_game(bug="utility_range")
    first_bad = next(
        s for s in range(100) if abs(random_playout(game, s).returns()[0]) > 2.0
    )
    result = runner.invoke(
        app,
        ["fuzz", game.spec(), "--games", "100", "--workers", "1", "--max-failures", "1"],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 1, result.output
    assert f"seed {first_bad}: returns" in result.output
    assert f'spielwerk fuzz "{game.spec()}" --games 1 --seed {first_bad}' in result.output
    assert "1 failing game (stopped early)" in result.output
    assert "all invariants held" not in result.output


def test_fuzz_stops_after_max_failures(toy_game: ToyFactory) -> None:
    summary = run_fuzz(toy_game(bug="unsorted").spec(), 200, workers=1, max_failures=3,
                       batch_size=2)
    assert len(summary.failures) == 3 and summary.stopped_early and summary.games < 200
    assert [f.seed for f in summary.failures] == [0, 1, 2]  # every game fails: the first seeds


def test_fuzz_reports_a_broken_spec_once(toy_game: ToyFactory) -> None:
    toy_game()  # registers the toy game
    summary = run_fuzz("toy_highcard(bug=bad_spec)", 10, workers=1)
    assert not summary.ok and summary.games == 0
    assert summary.failures[0].invariant == "load_game(game.spec()) round trip"


def test_fuzz_batch_checks_every_move_deeply(toy_game: ToyFactory) -> None:
    # the replay bug only shows in the JSON round trip; every game longer than one
    # action fails when the round trip runs after every move
    result = fuzz_batch(toy_game(bug="replay").spec(), 0, 10)
    assert result.games == 10 and len(result.failures) == 10
    assert {f.invariant for f in result.failures} == {"JSON round trip"}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(games=0), "--games"),
        (dict(games=5, seed=-1), "--seed"),
        (dict(games=5, workers=0), "--workers"),
        (dict(games=5, max_moves=0), "--max-moves"),
    ],
)
def test_run_fuzz_argument_errors(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(FuzzError, match=message):
        run_fuzz("kalah", **kwargs)  # type: ignore[arg-type]


def test_fuzz_cli_user_errors_are_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "spielwerk.cli.main", "fuzz", "nosuchgame", "--games", "3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "unknown game 'nosuchgame'" in proc.stderr and "kalah" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    result = runner.invoke(app, ["fuzz", "kalah", "--games", "0"])
    assert "--games must be at least 1, not 0" in str(result.exception)


def test_fuzz_cli_on_a_pool_reports_failing_seeds(toy_game: ToyFactory) -> None:
    game = toy_game(bug="crash")
    expected = crashing_seeds(game, range(0, 24))[:3]
    result = runner.invoke(
        app,
        ["fuzz", game.spec(), "--games", "24", "--workers", "2", "--max-failures", "3"],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 1, result.output
    assert "on 2 workers" in result.output
    for seed in expected:
        assert f"seed {seed}: no unexpected exception" in result.output
        assert f"--games 1 --seed {seed} --workers 1" in result.output
    assert "ZeroDivisionError: pot split by zero" in result.output


def test_a_fuzz_run_hands_out_its_games_as_it_goes() -> None:
    """10**12 games: the first batch is checked at once (the seeds are not listed first,
    which needs far more than the 2 GB the run may take here)."""
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "from spielwerk.core.fuzz import run_fuzz\n"
        "class Done(Exception): pass\n"
        "def stop(batch): raise Done(batch.games)\n"
        "try:\n"
        "    run_fuzz('kalah(pits=2,seeds=1)', 10**12, workers=1, on_batch=stop)\n"
        "except Done as done:\n"
        "    print('first batch', done.args[0])\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "first batch 50"


def test_a_large_fuzz_run_is_timed_and_refused_when_it_takes_years() -> None:
    spec = "kalah(pits=2,seeds=1)"
    assert check_fuzz_size(spec, PROBE_FROM - 1) is None  # small runs: no timing
    est = check_fuzz_size(spec, PROBE_FROM, workers=2)
    assert est is not None and est.workers == 2 and est.timed >= 1
    assert est.wall_seconds == pytest.approx(PROBE_FROM * est.seconds_per_game / 2)
    with pytest.raises(FuzzError, match=r"--games 10,000,000,000,000,000 cannot be played "
                                        r"here: at .* a game \(timed on \d+ games?\) it takes "
                                        r"about .* years on 2 workers; at most about [\d,]+ "
                                        r"games fit in a year"):
        check_fuzz_size(spec, 10**16, workers=2)
