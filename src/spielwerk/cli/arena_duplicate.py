"""Running and reporting a duplicate match on the command line, for any game.

``spielwerk arena GAME A B --seating duplicate`` and the shortcut ``spielwerk skat match A B``
both come here: the same configuration gives the same games, progress, Ctrl-C handling and
tables. A game with a ``match_report`` (Skat: Seeger-Fabian points) prints its own figures;
others print the arena's standings.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from spielwerk.arena.duplicate import (
    DuplicateConfig,
    describe_config,
    match_report,
    read_duplicate,
    report_json,
)
from spielwerk.arena.match import GameResult
from spielwerk.arena.tournament import TournamentResult
from spielwerk.cli.run_games import interrupted, play_games
from spielwerk.cli.standings import print_standings


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
    run = play_games(config, executor, workers, output, resume, fresh, label, as_json)
    if run.played or not run.interrupted:
        print_figures(config, run.result.results, confidence, run.footer(output), as_json)
    if run.interrupted:
        interrupted(run.played, output, "the figures above")
