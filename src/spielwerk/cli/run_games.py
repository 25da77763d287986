"""Playing a tournament's games on the command line: the executor, the progress bar and
Ctrl-C, shared by ``spielwerk arena``'s seatings and their shortcuts (``skat match``)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import typer
from rich.console import Console

from spielwerk.arena.match import GameResult
from spielwerk.arena.tournament import TournamentConfig, TournamentResult, run_tournament
from spielwerk.cli.progress import GamesProgress
from spielwerk.core.parallel import make_executor
from spielwerk.core.process import ignore_further_interrupts


@dataclass
class Played:
    """What a run of games left: the results (all of them, or after Ctrl-C this run's),
    how many this run played, whether Ctrl-C stopped it, the executor and the wall time."""

    result: TournamentResult
    played: int
    interrupted: bool
    described: str
    wall: float

    def footer(self, output: Path | None, rate: bool = False) -> str:
        """The line under the tables: games, time (and games/s), executor, results file."""
        where = f", results in {output}" if output else ""
        per_s = (f" ({self.played / max(self.wall, 1e-9):.1f} games/s)" if rate else "")
        return (f"{self.played} games played in {self.wall:.1f} s{per_s} on "
                f"{self.described}{where}")


def play_games(config: TournamentConfig, executor: str, workers: int | None,
               output: Path | None, resume: bool, fresh: bool, label: str, quiet: bool,
               rate_digits: int = 2) -> Played:
    """Play ``config``'s games not yet in ``output`` with a progress bar named ``label``;
    a Ctrl-C stops the workers and keeps the games that finished (see :class:`Played`)."""
    console = Console(stderr=True)
    started = time.perf_counter()
    finished: list[GameResult] = []  # this run's games, for the figures after Ctrl-C
    interrupted = False
    with make_executor(executor, workers) as ex:
        progress = GamesProgress(console, label, quiet=quiet, resumed_from=f"in {output}",
                                 rate_digits=rate_digits)

        def on_result(result: GameResult) -> None:
            finished.append(result)
            progress.result(result)

        try:  # progress starts once the results file is open: errors before it show no bar
            result = run_tournament(config, ex, output, resume=resume, fresh=fresh,
                                    on_start=progress.start, on_result=on_result)
        except KeyboardInterrupt:  # the figures of what finished, then how to continue
            ignore_further_interrupts()
            ex.stop()
            interrupted = True
            result = TournamentResult(config, finished)
        finally:
            progress.stop()
        described = ex.describe()
    return Played(result, len(finished), interrupted, described,
                  time.perf_counter() - started)


def interrupted(played: int, output: Path | None, shown: str) -> NoReturn:
    """The one line after Ctrl-C (below ``shown``, the tables of the games that finished,
    when there are any), exit code 130."""
    above = f" ({shown})" if played else ""
    hint = (f"; continue with --resume -o {output}" if output else
            "; they are not saved: add -o FILE to continue a long run with --resume")
    Console(stderr=True).print(f"interrupted after {played} new games{above}{hint}",
                               highlight=False)
    raise typer.Exit(130)
