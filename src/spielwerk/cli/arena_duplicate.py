"""Running and reporting a duplicate match on the command line, for any game.

``spielwerk arena GAME A B --seating duplicate`` and the shortcut ``spielwerk skat match A B``
both come here: the same configuration gives the same games, progress, Ctrl-C handling and
tables. A game with a ``match_report`` (Skat: Seeger-Fabian points) prints its own figures;
others print the arena's standings.
"""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.console import Console

from spielwerk.arena.duplicate import (
    DuplicateConfig,
    describe_config,
    match_report,
    read_duplicate,
    report_json,
    run_duplicate,
)
from spielwerk.arena.match import GameResult
from spielwerk.arena.tournament import TournamentResult
from spielwerk.cli.progress import GamesProgress
from spielwerk.cli.standings import print_standings
from spielwerk.core.parallel import make_executor
from spielwerk.core.process import ignore_further_interrupts


def _out() -> Console:
    out = Console(highlight=False)
    if not out.is_terminal:  # piped or captured: do not squeeze the tables
        out = Console(width=180, highlight=False)
    return out


def print_figures(config: DuplicateConfig, results: list[GameResult], confidence: float,
                  footer: str, as_json: bool) -> None:
    """The game's figures of ``results`` (its report, else the standings) and ``footer``."""
    report = match_report(config.game)
    if report is None:
        print_standings(TournamentResult(config, results), confidence, footer, as_json,
                        describe_config(config))
        return
    figures = report.figures(results, config.labels, len(config.arrangements), confidence)
    if as_json:
        print(report_json(config, report, figures))
        return
    out = _out()
    for table in report.renderables(figures, describe_config(config)):
        out.print(table)
    if footer:
        out.print(footer)


def summarize(path: Path, game: str | None, confidence: float, as_json: bool) -> None:
    """``--summarize FILE``: the figures of a match results file (also one being written)."""
    config, results = read_duplicate(path, game)
    print_figures(config, results, confidence,
                  f"{len(results)} of {config.total_games()} games in {path}", as_json)


def play_duplicate(config: DuplicateConfig, executor: str, workers: int | None,
                   output: Path | None, resume: bool, fresh: bool, as_json: bool,
                   confidence: float, label: str) -> None:
    """Play ``config``'s games not yet in ``output`` with a progress bar (``label``), then
    print the figures; after Ctrl-C, the figures of what finished and how to continue
    (exit 130)."""
    console = Console(stderr=True)
    started = time.perf_counter()
    finished: list[GameResult] = []  # this run's games, for the figures after Ctrl-C
    interrupted = False
    with make_executor(executor, workers) as ex:
        progress = GamesProgress(console, label, resumed_from=f"in {output}", quiet=as_json)

        def on_result(result: GameResult) -> None:
            finished.append(result)
            progress.result(result)

        try:
            result = run_duplicate(config, ex, output, resume=resume, fresh=fresh,
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
    played = len(finished)
    if played or not interrupted:
        where = f", results in {output}" if output else ""
        print_figures(config, result.results, confidence,
                      f"{played} games played in {wall:.1f} s on {described}{where}", as_json)
    if interrupted:
        shown = " (the figures above)" if played else ""
        hint = (f"; continue with --resume -o {output}" if output else
                "; they are not saved: add -o FILE to continue a long run with --resume")
        console.print(f"interrupted after {played} new games{shown}{hint}", highlight=False)
        raise typer.Exit(130)

