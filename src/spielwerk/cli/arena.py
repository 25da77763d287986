"""``spielwerk arena GAME AGENT...``: one command for every game and seating (round robin,
duplicate, sequential), with standings or the game's own match figures."""

from __future__ import annotations

from pathlib import Path

import typer

from spielwerk.arena.duplicate import DuplicateConfig
from spielwerk.arena.match import ArenaError
from spielwerk.arena.stats import z_value
from spielwerk.arena.tournament import (
    TournamentConfig,
    seatings,
)
from spielwerk.cli.arena_duplicate import play_duplicate
from spielwerk.cli.arena_duplicate import summarize as summarize_file
from spielwerk.cli.arena_sequential import play_sequential
from spielwerk.cli.options import file_target, workers_option
from spielwerk.cli.run_games import interrupted, play_games
from spielwerk.cli.standings import print_standings
from spielwerk.core.registry import load_game

HELP = """Play AGENTS against each other in GAME and print the standings.

--seating round-robin (the default): every pairing (every group of as many
agents as the game has seats) plays --games games; each deal is replayed with
the seats rotated, so for Kalah every pairing plays both seat orders
(permutations: every order). --seating duplicate: 2 agents up to one per seat
at one table, each of --deals deals played under every arrangement of them; a
game with its own match figures prints them (Skat: Seeger-Fabian points, as
spielwerk skat match). --seating sequential: the round robin of a two-player
game as win rates over decisive games, undecided pairings extended by
--extend games per round (as spielwerk durak tournament). Results are written
to --output as each game finishes; an interrupted run continues with --resume.

Examples: spielwerk arena kalah random greedy alphabeta:depth=4 --games 40 -o results/k.jsonl
          spielwerk arena skat knn rule --seating duplicate --deals 20 --seed 5
"""

DEFAULT_GAMES = 20
DEFAULT_DEALS = 10


SEATING_MODES = ("round-robin", "permutations", "duplicate", "sequential")
"""``--seating``: ``round-robin`` (also ``rotations``) seats every group of agents with the
seats rotated per deal; ``permutations`` the same in every order; ``duplicate`` plays each
deal under every arrangement of the agents at one table (:mod:`spielwerk.arena.duplicate`);
``sequential`` is the round robin of a two-player game, reported as win rates over
decisive games and extended by ``--extend`` (:mod:`spielwerk.cli.arena_sequential`)."""


def arena(
    game: str = typer.Argument(..., help="game spec, e.g. kalah or 'kalah(pits=4,seeds=3)'"),
    agents: list[str] = typer.Argument(
        ..., help="agent specs, e.g. random greedy alphabeta:depth=6 (repeat one to seat it twice)"
    ),
    games: int | None = typer.Option(
        None, "--games", "-n", min=1,
        help="games per pairing: a multiple of the seatings (2 for two players); default 20 "
        "(21 for three)"
    ),
    deals: int | None = typer.Option(
        None, "--deals", min=1,
        help="--seating duplicate: deals, each played under every arrangement; default 10"),
    seed: int = typer.Option(0, "--seed", "-s", min=0,
                             help="tournament seed: same seed, same games"),
    executor: str = typer.Option(
        "local", "--executor", "-e", help="local (process pool), serial or dask://HOST:PORT"
    ),
    workers: int | None = workers_option(
        help="worker processes for --executor local (default: all cores)"),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="results file (JSON Lines), appended as games finish"
    ),
    resume: bool = typer.Option(False, "--resume", help="continue the games in --output"),
    fresh: bool = typer.Option(False, "--fresh", help="overwrite --output if it exists"),
    as_json: bool = typer.Option(False, "--json", help="print machine-readable results only"),
    confidence: float = typer.Option(
        0.95, "--confidence", help="confidence level of the intervals, e.g. 0.98"
    ),
    seating: str = typer.Option(
        "round-robin", "--seating", help=f"how agents meet: {', '.join(SEATING_MODES)}"
    ),
    extend: int = typer.Option(
        0, "--extend", min=0,
        help="--seating sequential: games added to each undecided pairing per round"),
    max_games: int = typer.Option(
        0, "--max-games", min=0,
        help="--seating sequential: cap on games per pairing (0: ten times --games)"),
    summarize: bool = typer.Option(
        False, "--summarize", help="--seating duplicate: play nothing, print the figures of the "
        "games already in --output (also while a run is writing it)"),
) -> None:
    z_value(confidence)  # a bad level fails before any game is played
    mode = "rotations" if seating in ("round-robin", "rotations") else seating
    if mode not in ("rotations", *SEATING_MODES[1:]):
        raise ArenaError(f"--seating must be one of {', '.join(SEATING_MODES)}, not {seating!r}")
    if mode != "sequential" and (extend or max_games):
        raise ArenaError("--extend and --max-games extend a --seating sequential round robin")
    if mode != "duplicate" and (deals is not None or summarize):
        raise ArenaError("--deals and --summarize are for --seating duplicate (a round robin "
                         "counts --games per pairing)")
    if output is not None and not summarize:
        file_target("--output", output)
    if mode == "duplicate":
        if games is not None:
            raise ArenaError("a duplicate match counts deals: give --deals, not --games")
        if summarize:
            if output is None:
                raise ArenaError("--summarize reads the games in --output FILE: give -o")
            summarize_file(output, None, confidence, as_json)
            return
        match = DuplicateConfig.create_match(game, agents, deals or DEFAULT_DEALS, seed)
        play_duplicate(match, executor, workers, output, resume, fresh, as_json, confidence,
                       load_game(match.game).game_type.long_name)
        return
    g = load_game(game)
    if mode == "sequential" and g.num_players != 2:
        raise ArenaError(f"--seating sequential extends pairings: {g.spec()} is a "
                         f"{g.num_players}-player game")
    orders = "rotations" if mode == "sequential" else mode
    if games is None:  # the default: the first multiple of the seatings from 20
        step = len(seatings(g.num_players, orders))
        games = -(-DEFAULT_GAMES // step) * step
    config = TournamentConfig.create(game, agents, games, seed, orders)
    if mode == "sequential":
        play_sequential(config, extend=extend, max_games=max_games, confidence=confidence,
                        executor=executor, workers=workers, output=output, resume=resume,
                        fresh=fresh, partial=False, as_json=as_json, heatmap_path=None)
        return
    _round_robin(config, executor, workers, output, resume, fresh, as_json, confidence)


def _round_robin(config: TournamentConfig, executor: str, workers: int | None,
                 output: Path | None, resume: bool, fresh: bool, as_json: bool,
                 confidence: float) -> None:
    long_name = load_game(config.game).game_type.long_name
    run = play_games(config, executor, workers, output, resume, fresh, long_name, as_json,
                     rate_digits=1)
    if run.interrupted and not run.played:
        interrupted(0, output, "the standings above")
    print_standings(run.result, confidence, run.footer(output, rate=True), as_json,
                    wall_s=run.wall)
    if run.interrupted:
        interrupted(run.played, output, "the standings above")


def register(app: typer.Typer) -> None:
    """Add the ``arena`` command to the ``spielwerk`` app."""
    app.command("arena", help=HELP)(arena)
