"""One arena for every game: ``spielwerk arena GAME AGENTS --seating round-robin|permutations|
duplicate|sequential``; ``skat match`` and ``durak tournament`` are shortcuts over it that
give the same games and the same figures."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spielwerk.arena import SerialExecutor, read_results
from spielwerk.arena.duplicate import DuplicateConfig, arrangements, run_duplicate
from spielwerk.arena.match import ArenaError, GameTask, run_detailed_task, run_task
from spielwerk.cli.main import app
from spielwerk.core.registry import load_game
from spielwerk.games.skat.outcome import SkatOutcomeError, final_details

runner = CliRunner()


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def _no_time(text: str) -> str:
    """The output without its wall times."""
    return re.sub(r"in [0-9.]+ s", "in T s", text)


def test_the_arena_plays_the_skat_match_with_its_figures() -> None:
    args = ["rule", "random", "--deals", "3", "--seed", "5", "-e", "serial"]
    match = _run("skat", "match", *args)
    arena = _run("arena", "skat", *args[:2], "--seating", "duplicate", *args[2:])
    assert "SF / 36 games" in arena and "Paired difference" in arena  # Seeger-Fabian tables
    assert _no_time(arena) == _no_time(match)
    as_json = [json.loads(_run(*cmd, "--json")) for cmd in
               (["skat", "match", *args], ["arena", "skat", *args[:2], "--seating",
                                           "duplicate", *args[2:]])]
    assert as_json[0] == as_json[1] and as_json[0]["config"]["kind"] == "skat-duplicate"


def test_three_agents_the_arena_plays_every_order_the_shortcut_the_rotations() -> None:
    args = ["rule", "random", "rule", "--deals", "1", "--seed", "2", "-e", "serial", "--json"]
    arena = json.loads(_run("arena", "skat", *args[:3], "--seating", "duplicate", *args[3:]))
    every = json.loads(_run("skat", "match", *args, "--seating", "permutations"))
    assert arena == every and arena["games"] == 6
    assert json.loads(_run("skat", "match", *args))["games"] == 3


def test_the_arena_plays_the_durak_tournament_with_its_table() -> None:
    tournament = _run("durak", "tournament", "--agents", "random", "greedy", "smart",
                      "--games", "4", "--seed", "2", "--executor", "serial")
    arena = _run("arena", "durak(preset=classic,players=2,deck=36)", "random", "greedy",
                 "smart", "--seating", "sequential", "--games", "4", "--seed", "2",
                 "--confidence", "0.98", "-e", "serial")
    assert "win rate over decisive" in arena and _no_time(arena) == _no_time(tournament)
    extended = [_run("durak", "tournament", "--agents", "random", "greedy", "--games", "2",
                     "--extend", "2", "--max-games", "6", "--seed", "1", "--json",
                     "--executor", "serial"),
                _run("arena", "durak", "random", "greedy", "--seating", "sequential",
                     "--games", "2", "--extend", "2", "--max-games", "6", "--seed", "1",
                     "--confidence", "0.98", "--json", "-e", "serial")]
    assert extended[0] == extended[1]


def test_a_duplicate_kalah_match_resumes_and_prints_standings(tmp_path: Path) -> None:
    out = tmp_path / "k.jsonl"
    args = ["arena", "kalah(pits=3,seeds=2)", "random", "greedy", "--seating", "duplicate",
            "--deals", "3", "-e", "serial", "-o", str(out)]
    first = _run(*args)
    assert "Standings" in first and "3 deals x 2 seatings (AB BA)" in first
    header = read_results(out).header
    assert header is not None and header["config"]["kind"] == "kalah-duplicate"
    assert len(read_results(out).results) == 6
    again = _run(*args, "--resume")
    assert "0 games played" in again and len(read_results(out).results) == 6
    summary = _run("arena", "kalah(pits=3,seeds=2)", "random", "greedy", "--seating",
                   "duplicate", "--summarize", "-o", str(out))
    assert "6 of 6 games in" in summary


@pytest.mark.parametrize(("args", "message"), [
    (["kalah", "random", "greedy", "--extend", "4"], "--seating sequential"),
    (["kalah", "random", "greedy", "--deals", "4"], "--seating duplicate"),
    (["kalah", "random", "greedy", "--seating", "duplicate", "--games", "4"], "--deals"),
    (["kalah", "random", "greedy", "--seating", "sideways"], "must be one of"),
    (["skat", "random", "rule", "random", "--seating", "sequential"], "3-player game"),
    (["skat", "random", "rule", "random", "rule", "--seating", "duplicate"],
     "between 2 and 3 agents"),
    (["kalah", "random", "--seating", "duplicate"], "between 2 and 2 agents"),
])
def test_seating_mistakes_are_one_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["arena", *args, "-e", "serial"])
    assert result.exit_code != 0 and message in str(result.exception)


def test_fewer_agents_than_seats_sit_in_every_arrangement_that_seats_each() -> None:
    for agents, seats, count in ((2, 3, 6), (2, 4, 14), (3, 4, 36), (2, 6, 62)):
        orders = arrangements(agents, seats, "pairs")
        assert len(orders) == len(set(orders)) == count
        assert all(set(o) == set(range(agents)) for o in orders)
        for seat in range(seats):  # every agent holds every seat equally often
            assert len(set(Counter(o[seat] for o in orders).values())) == 1
    # the first files' order of the two-agent Skat arrangements: BAA ABA AAB ABB BAB BBA
    assert arrangements(2, 3, "pairs")[:3] == [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
    with pytest.raises(ArenaError, match="pairs"):
        arrangements(2, 4, "permutations")


def test_the_final_details_come_from_the_final_state_without_a_replay() -> None:
    config = DuplicateConfig.create_match("skat", ["rule", "random"], 1, seed=8)
    tasks = config.plan().tasks()
    game = load_game(config.game)
    for task in tasks[:2]:
        detailed = run_detailed_task(task)
        plain = run_task(task)
        assert detailed.details is not None and plain.details is None
        assert detailed.returns == plain.returns
        # the same outcome a replay of the game's record gives
        state = game.new_initial_state()
        for action in _history(task):
            state.apply(action)
        assert detailed.details == final_details(state)
    with pytest.raises(SkatOutcomeError, match="not KalahState|Skat deals"):
        final_details(load_game("kalah").new_initial_state())
    nim_free = DuplicateConfig.create_match("kalah(pits=3,seeds=2)", ["random", "greedy"], 1)
    assert all(r.details is None for r in run_duplicate(nim_free, SerialExecutor()).results)


def _history(task: GameTask) -> list[int]:
    from spielwerk.arena.match import play_task

    return play_task(task)[1]


def test_the_default_round_robin_fits_a_three_seat_game() -> None:
    data = json.loads(_run("arena", "skat", "random", "rule", "random", "-e", "serial",
                           "--json"))
    assert data["games_played"] == 21  # the first multiple of three seatings from 20
