"""``spielwerk arena GAME AGENT...``: a round-robin tournament with standings."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import NoReturn

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from spielwerk.arena.match import GameResult
from spielwerk.arena.stats import Standings, z_value
from spielwerk.arena.tournament import (
    SEATINGS,
    TournamentConfig,
    TournamentResult,
    run_tournament,
)
from spielwerk.cli.options import file_target, workers_option
from spielwerk.cli.progress import GamesProgress
from spielwerk.core.parallel import make_executor
from spielwerk.core.process import ignore_further_interrupts
from spielwerk.core.registry import load_game

HELP = """Play a round-robin tournament between AGENTS in GAME and print the standings.

Every pairing (every group of as many agents as the game has seats) plays
--games games; each deal is replayed with the seats rotated, so for Kalah
every pairing plays both seat orders. Results are written to --output as
each game finishes; an interrupted run continues with --resume.

Example: spielwerk arena kalah random greedy alphabeta:depth=4 --games 40 -o results/k.jsonl
"""


def _fmt(x: float, spec: str = ".1f", signed: bool = False) -> str:
    if isinstance(x, float) and math.isnan(x):
        return "-"
    return format(x, ("+" if signed else "") + spec)


def _ci(lo: float, hi: float) -> str:
    return f"{100 * lo:.1f}-{100 * hi:.1f}"


def standings_tables(st: Standings, title: str, value: str = "margin") -> tuple[Table, Table]:
    """The rich standings table and the pairwise table.

    ``value`` names the mean return: "margin" for two-player zero-sum games.
    """
    level = f"{100 * st.confidence:g}% CI"
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAVY, pad_edge=False)
    table.add_column("agent", no_wrap=True, style="bold")
    table.add_column("games", justify="right")
    table.add_column("W/D/L", justify="right", no_wrap=True)
    table.add_column("score%", justify="right", min_width=6)
    table.add_column(level, justify="right", no_wrap=True)
    table.add_column(f"{value} ± SE", justify="right", no_wrap=True)
    table.add_column("Elo", justify="right")
    for a in st.agents:
        table.add_row(
            a.label,
            str(a.games),
            f"{a.wins}/{a.draws}/{a.losses}",
            _fmt(100 * a.score),
            _ci(a.ci_low, a.ci_high),
            f"{_fmt(a.mean_return, '.1f', True)} ± {_fmt(a.se_return, '.1f')}",
            _fmt(a.elo, ".0f", True),
        )
    pairs = Table(title="Pairings (first agent's view)", title_justify="left",
                  box=box.SIMPLE_HEAVY, pad_edge=False)
    pairs.add_column("agent", no_wrap=True)
    pairs.add_column("opponent", no_wrap=True)
    pairs.add_column("W/D/L", justify="right", no_wrap=True)
    pairs.add_column("score%", justify="right", min_width=6)
    pairs.add_column(level, justify="right", no_wrap=True)
    pairs.add_column(f"{value}±SE", justify="right", no_wrap=True)
    for p in st.pairs:
        pairs.add_row(
            p.a,
            p.b,
            f"{p.wins}/{p.draws}/{p.losses}",
            _fmt(100 * p.score),
            _ci(p.ci_low, p.ci_high),
            f"{_fmt(p.mean_return, '.1f', True)}±{_fmt(p.se_return, '.1f')}",
        )
    return table, pairs


def arena(
    game: str = typer.Argument(..., help="game spec, e.g. kalah or 'kalah(pits=4,seeds=3)'"),
    agents: list[str] = typer.Argument(
        ..., help="agent specs, e.g. random greedy alphabeta:depth=6 (repeat one to seat it twice)"
    ),
    games: int = typer.Option(
        20, "--games", "-n", min=1,
        help="games per pairing: a multiple of the seatings (2 for two players)"
    ),
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
        0.95, "--confidence", help="confidence level of the Wilson intervals, e.g. 0.98"
    ),
    seating: str = typer.Option(
        "rotations", "--seating", help=f"how each deal is reseated: {', '.join(SEATINGS)}"
    ),
) -> None:
    z_value(confidence)  # a bad level fails before any game is played
    if output is not None:
        file_target("--output", output)
    config = TournamentConfig.create(game, agents, games, seed, seating)
    console = Console(stderr=True)
    out = Console()
    if not out.is_terminal:  # piped or captured: do not squeeze the tables into 80 columns
        out = Console(width=160)
    started = time.perf_counter()
    with make_executor(executor, workers) as ex:
        long_name = load_game(config.game).game_type.long_name
        progress = GamesProgress(console, long_name, quiet=as_json,
                                 resumed_from=f"in {output}", rate_digits=1)
        played = 0
        finished: list[GameResult] = []  # this run's games, for the table after Ctrl-C
        interrupted = False

        def on_start(total: int, done: int) -> None:
            # called once the results file is open: errors before it print no progress bar
            progress.start(total, done)

        def on_result(result: GameResult) -> None:
            nonlocal played
            played += 1
            finished.append(result)
            progress.result(result)

        try:
            result = run_tournament(
                config, ex, output, resume=resume, fresh=fresh,
                on_start=on_start, on_result=on_result,
            )
        except KeyboardInterrupt:  # the table of what finished, then how to continue
            ignore_further_interrupts()
            ex.stop()
            interrupted = True
            result = TournamentResult(config, finished)
        finally:
            progress.stop()
        described = ex.describe()
    wall = time.perf_counter() - started
    if interrupted and not finished:
        _interrupted(console, played, output)
    st = result.standings(confidence)
    if as_json:
        data = result.to_dict(confidence)
        data["wall_s"] = round(wall, 3)
        print(json.dumps(data, indent=2))
        if interrupted:
            _interrupted(console, played, output)
        return
    title = (
        f"Standings: {config.game}\n{len(result.results)} games, seed {config.seed}, "
        "Elo: Bradley-Terry fit, mean 0"
    )
    game_type = load_game(config.game).game_type
    value = "margin" if game_type.num_players == 2 and game_type.zero_sum else "return"
    table, pairs = standings_tables(st, title, value)
    out.print(table)
    if game_type.num_players > 2:
        others = game_type.num_players - 1
        out.print(
            f"W/D/L compares each game's return with each of the {others} opponents at the "
            f"table, so W+D+L is {others} x games; score% = (W + D/2) / (W + D + L).",
            highlight=False,
        )
    out.print(pairs)
    where = f", results in {output}" if output else ""
    out.print(
        f"{played} games played in {wall:.1f} s ({played / max(wall, 1e-9):.1f} games/s) "
        f"on {described}{where}",
        highlight=False,
    )
    if interrupted:
        _interrupted(console, played, output)


def _interrupted(console: Console, played: int, output: Path | None) -> NoReturn:
    """The one line after Ctrl-C (below the table of the games that finished), exit 130."""
    shown = " (the standings above)" if played else ""
    hint = (f"; continue with --resume -o {output}" if output else
            "; they are not saved: add -o FILE to continue a long run with --resume")
    console.print(f"interrupted after {played} new games{shown}{hint}", highlight=False)
    raise typer.Exit(130)


def register(app: typer.Typer) -> None:
    """Add the ``arena`` command to the ``spielwerk`` app."""
    app.command("arena", help=HELP)(arena)
