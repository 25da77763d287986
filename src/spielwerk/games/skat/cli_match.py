"""``spielwerk skat match AGENT...``: a duplicate-deal Skat match with Seeger-Fabian figures.

Parses and prints only; the match itself is :mod:`spielwerk.arena.duplicate`.
:func:`register_match_command` adds the command to the ``skat`` sub-app.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from spielwerk.arena.duplicate import (
    GAME_CATEGORIES,
    CategoryCount,
    SkatMatchConfig,
    SkatMatchStats,
    describe_config,
    match_stats,
    read_match,
    run_skat_match,
    skat_match_stats,
    stats_json,
)
from spielwerk.arena.match import ArenaError, GameResult
from spielwerk.arena.stats import z_value
from spielwerk.arena.tournament import TournamentResult
from spielwerk.cli.options import OptionValueError, range_text, workers_option
from spielwerk.cli.progress import GamesProgress
from spielwerk.core.parallel import make_executor
from spielwerk.core.process import ignore_further_interrupts

HELP = """Play a duplicate-deal Skat match between 2 or 3 AGENTS and print Seeger-Fabian figures.

Every deal is played once for each seating: with two agents A and B the six
arrangements BAA ABA AAB ABB BAB BBA (each agent alone in each seat and
twice with itself), with three agents the three rotations (--seating
permutations: all six orders). Reported per agent: games declared, declarer
win rate, seat-games passed in, mean game value, Seeger-Fabian points per 36
games with a 95% interval (deals as the units), counts per game type and
announcement, and the paired difference between agents on the same deals.

Results are written to --output as each game finishes; an interrupted run
(Ctrl-C, kill -9) continues with --resume. --summarize FILE prints the
figures of a results file, also while a run is still writing it.

Example: spielwerk skat match knn rule --deals 2000 --seed 1 -o knn-rule.jsonl --workers 2
"""


EXPERT_MIX = {"grand": "28-30%", "null": "7-8%"}
"""The declared mix of expert players (Edelkamp's 50,000 expert games, via the seed): grand
about 28-30% of declared games, null 7-8%."""

def _f(x: float, spec: str = ".1f", signed: bool = False) -> str:
    if isinstance(x, float) and math.isnan(x):
        return "-"
    return format(x, ("+" if signed else "") + spec)


def _ci(lo: float, hi: float, spec: str = ".1f") -> str:
    return "-" if math.isnan(lo) else f"{_f(lo, spec)} .. {_f(hi, spec)}"


def _short_names(stats: SkatMatchStats) -> dict[str, str]:
    """Agent names for the tables: the spec, or its letter (A, B, C as in the title) when
    the spec is too long for a column (e.g. one with a base directory)."""
    return {a.label: a.label if len(a.label) <= 28 else "ABC"[i]
            for i, a in enumerate(stats.agents)}


def _category_table(title: str, stats: SkatMatchStats, short: dict[str, str],
                    cell: Callable[[CategoryCount], str]) -> Table:
    """One row per agent, one column per game category (:data:`GAME_CATEGORIES`)."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAVY, pad_edge=False)
    table.add_column("agent", no_wrap=True)
    for c in GAME_CATEGORIES:
        table.add_column(c, justify="right", no_wrap=True)
    for a in stats.agents:
        table.add_row(short[a.label], *(cell(a.categories[c]) for c in GAME_CATEGORIES))
    return table


def stats_tables(stats: SkatMatchStats, title: str) -> list[Table]:
    """The agent table, the game-type table and the paired differences."""
    level = f"{100 * stats.confidence:g}%"
    short = _short_names(stats)
    agents = Table(title=title, title_justify="left", box=box.SIMPLE_HEAVY, pad_edge=False)
    for name, justify in (
        ("agent", "left"), ("seat-games", "right"), ("declared", "right"),
        ("won", "right"), ("win rate", "right"), (f"{level} CI", "right"),
        ("passed in", "right"), ("mean value", "right"), ("SF / 36 games", "right"),
        (f"{level} CI", "right"),
    ):
        agents.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for a in stats.agents:
        agents.add_row(
            short[a.label], str(a.seat_games), str(a.declared), str(a.won),
            _f(a.win_rate, ".3f"), _ci(a.win_low, a.win_high, ".3f"), str(a.passed_in),
            _f(a.mean_value), _f(a.seeger_per_list, ".0f", True),
            _ci(a.seeger_low, a.seeger_high, ".0f"),
        )
    kinds = _category_table(
        "Declared games by type and announcement: declared / won, declarer's SF points per "
        "36 seat-games", stats, short,
        lambda n: f"{n.declared}/{n.won} ({_f(n.seeger_per_list, '.0f', True)})")
    mix = _category_table(
        "Declared mix: share of the agent's declared games, win rate, mean value, declarer's "
        "SF points per declared game", stats, short,
        lambda n: "-" if not n.declared else (
            f"{100 * n.share:.1f}% {n.win_rate:.2f} {n.mean_value:.0f} "
            f"{_f(n.seeger_per_game, '.0f', True)}"))
    mix.add_row("experts", *(EXPERT_MIX.get(c, "") for c in GAME_CATEGORIES))
    diffs = Table(title="Paired difference on the same deals (SF points per 36 games)",
                  title_justify="left", box=box.SIMPLE_HEAVY, pad_edge=False)
    for name in ("agent", "minus", "deals", "difference", f"{level} CI"):
        diffs.add_column(name, no_wrap=True)
    for d in stats.differences:
        diffs.add_row(short[d.a], short[d.b], str(d.deals), _f(d.mean, ".0f", True),
                      _ci(d.low, d.high, ".0f"))
    return [agents, kinds, mix, diffs]


def _print_stats(config: SkatMatchConfig, stats: SkatMatchStats, footer: str) -> None:
    out = Console(highlight=False)
    if not out.is_terminal:  # piped or captured: do not squeeze the tables
        out = Console(width=180, highlight=False)
    title = (f"Skat duplicate match: {describe_config(config)}\n{stats.deals} complete deals, "
             f"{stats.games} games, {stats.passed_in_games} passed in")
    if stats.incomplete_deals:
        title += f" ({stats.incomplete_deals} incomplete deals left out)"
    for table in stats_tables(stats, title):
        out.print(table)
    if footer:
        out.print(footer)


def match_command(
    agents: list[str] | None = typer.Argument(
        None, help="2 or 3 agent specs, e.g. knn rule or 'pimc:worlds=16' rule"
    ),
    deals: int = typer.Option(100, "--deals", "-n", min=1, help="number of deals (each is played "
                              "once per seating)"),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="match seed: same seed, same deals"),
    seating: str | None = typer.Option(
        None, "--seating", help="pairs (2 agents, the default), rotations (3 agents, the "
        "default) or permutations (3 agents)"
    ),
    executor: str = typer.Option(
        "local", "--executor", "-e", help="local (process pool), serial or dask://HOST:PORT"
    ),
    workers: int | None = workers_option(
        help="worker processes for --executor local (default: all cores)"),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="results file (JSON Lines), appended as games finish"
    ),
    resume: bool = typer.Option(False, "--resume", help="continue the games in --output"),
    fresh: bool = typer.Option(False, "--fresh", help="overwrite --output if it is ours"),
    summarize: Path | None = typer.Option(
        None, "--summarize", help="only print the figures of this results file"
    ),
    as_json: bool = typer.Option(False, "--json", help="print machine-readable results only"),
    confidence: float = typer.Option(0.95, "--confidence",
                                     help="level of the intervals (between 0 and 1)"),
) -> None:
    if not 0.0 < confidence < 1.0:  # a bad level fails before any game is played
        raise OptionValueError(f"--confidence must be {range_text(0, 1, True, True)} "
                               f"(e.g. 0.95), not {confidence:g}")
    z_value(confidence)
    if summarize is not None:
        if agents:
            raise ArenaError("--summarize reads a results file: give no agents with it")
        config, results = read_match(summarize)
        stats = skat_match_stats(results, config.labels, len(config.arrangements), confidence)
        if as_json:
            print(stats_json(config, stats))
        else:
            _print_stats(config, stats, f"{len(results)} of {config.total_games()} games "
                         f"in {summarize}")
        return
    if not agents:
        raise ArenaError("give 2 or 3 agent specs, e.g. spielwerk skat match knn rule")
    config = SkatMatchConfig.create_match(agents, deals, seed, seating)
    console = Console(stderr=True)
    started = time.perf_counter()
    played = 0
    finished: list[GameResult] = []  # this run's games, for the figures after Ctrl-C
    interrupted = False
    with make_executor(executor, workers) as ex:
        progress = GamesProgress(console, "skat match", resumed_from=f"in {output}")

        def on_result(result: GameResult) -> None:
            nonlocal played
            played += 1
            finished.append(result)
            progress.result(result)

        try:
            result = run_skat_match(config, ex, output, resume=resume, fresh=fresh,
                                    on_start=progress.start, on_result=on_result)
        except KeyboardInterrupt:  # the figures of what finished, then how to continue
            ignore_further_interrupts()
            ex.stop()
            interrupted = True
            result = TournamentResult(config, finished)
        finally:
            progress.stop()
        described = ex.describe()
    wall = time.perf_counter() - started
    figures = match_stats(result, confidence) if played or not interrupted else None
    where = f", results in {output}" if output else ""
    if figures is not None and as_json:
        print(stats_json(config, figures))
    elif figures is not None:
        _print_stats(config, figures,
                     f"{played} games played in {wall:.1f} s on {described}{where}")
    if interrupted:
        shown = " (the figures above)" if played else ""
        hint = (f"; continue with --resume -o {output}" if output else
                "; they are not saved: add -o FILE to continue a long run with --resume")
        console.print(f"interrupted after {played} new games{shown}{hint}", highlight=False)
        raise typer.Exit(130)


def register_match_command(skat_app: typer.Typer) -> None:
    """Add ``match`` to the ``skat`` sub-app."""
    skat_app.command("match", help=HELP)(match_command)
