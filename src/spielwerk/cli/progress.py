"""The live progress of a run of games, shared by the commands that play many of them.

On a terminal: a bar with the games done of all, games per second, the time so far and the
time left (rich's estimate from the recent rate), on stderr. Into a file or a pipe (a log),
where a bar cannot redraw itself: a plain line a minute and one for the last game.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO, TypeVar

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

T = TypeVar("T")
R = TypeVar("R")
LOG_EVERY = 60.0
"""Seconds between the plain progress lines written to a log (not a terminal)."""


class GamesProgress:
    """Progress of a run of games: :meth:`start` with the number of games (and how many a
    resumed run has already) once the run knows it, :meth:`result` after each finished game,
    :meth:`stop` at the end (also after an error or Ctrl-C). ``start`` again begins the next
    run of games (a sequential extension round) on the same bar.

    ``label``: the bar's name; ``resumed_from``: said in the line of a resumed run ("3 of 10
    games already in FILE"); ``quiet``: show nothing (``--json``)."""

    def __init__(self, console: Console, label: str, quiet: bool = False,
                 resumed_from: str = "played", rate_digits: int = 2) -> None:
        self.console, self.quiet, self.resumed_from = console, quiet, resumed_from
        self.rate_digits = rate_digits
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
            console=console, disable=quiet, transient=False,
        )
        self.bar = self.progress.add_task(escape(label), total=None, rate="")
        self.total = self.done = self.played = 0
        self.started = self.last_line = time.perf_counter()

    def start(self, total: int, done: int) -> None:
        """A run of ``total`` games begins, ``done`` of them finished before (resumed)."""
        self.total, self.done, self.played = total, done, 0
        self.started = self.last_line = time.perf_counter()
        self.progress.reset(self.bar, total=total, completed=done, rate="")
        self.progress.start()
        if done and not self.quiet:
            self.console.print(f"resuming: {done} of {total} games already {self.resumed_from}",
                               highlight=False)

    def result(self, _result: Any = None) -> None:
        """One more game finished."""
        self.done += 1
        self.played += 1
        now = time.perf_counter()
        rate = self.played / max(1e-9, now - self.started)
        self.progress.update(self.bar, advance=1, rate=f"{rate:.{self.rate_digits}f} games/s")
        if self.quiet or self.console.is_terminal:
            return
        if now - self.last_line >= LOG_EVERY or self.done == self.total:
            self.last_line = now  # a log gets a plain line a minute instead of a bar
            self.console.print(f"{self.done}/{self.total} games, {rate:.2f} games/s, "
                               f"{now - self.started:.0f} s", highlight=False)

    def stop(self) -> None:
        self.progress.stop()


def stream(fn: Callable[[T], R], tasks: Sequence[T], executor: str, workers: int | None,
           progress: GamesProgress, total: int, done: int,
           sink: TextIO | None = None) -> tuple[list[R], bool]:
    """Run ``fn`` over ``tasks`` (:func:`core.parallel.make_executor` of ``executor`` and
    ``workers``) as they finish, each result written as one JSON line to ``sink`` (flushed)
    and counted by ``progress`` (``total`` in all, ``done`` before); Ctrl-C stops the
    workers. Returns the results and whether the run was interrupted."""
    from spielwerk.core.parallel import make_executor
    from spielwerk.core.process import ignore_further_interrupts

    results: list[R] = []
    interrupted = False
    try:
        with make_executor(executor, workers) as ex:
            progress.start(total, done)
            try:
                for result in ex.map_unordered(fn, tasks):
                    results.append(result)
                    if sink is not None:
                        sink.write(json.dumps(result) + "\n")
                        sink.flush()
                    progress.result(result)
            except KeyboardInterrupt:
                ignore_further_interrupts()
                ex.stop()
                interrupted = True
    finally:
        progress.stop()
    return results, interrupted
