"""``spielwerk bench``: a fixed set of solver positions per game, Stockfish's habit.

Each game's exact solver runs on the same positions every time with a fresh
table; the total node count per game is its **signature**: a change to move
generation, ordering, pruning or the table shows up as a different number,
which must then be made on purpose (and recorded in the game's plug-in record,
``bench_signature``, and in the commit). Nodes per second measure the machine
and the build.

The positions are each game's :class:`~spielwerk.plugins.BenchWorkload`, named by
its plug-in record (:mod:`spielwerk.plugins`); the games with one are benched, in
the records' order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from spielwerk.core.errors import SpielwerkError
from spielwerk.plugins import BenchWorkload, GamePlugin, game_plugins, load_object


def bench_games() -> tuple[str, ...]:
    """The games with a bench workload, in the records' order."""
    return tuple(r.name for r in game_plugins() if r.bench is not None)


def _record(game: str) -> GamePlugin:
    for record in game_plugins():
        if record.name == game and record.bench is not None:
            return record
    raise SpielwerkError(f"no bench for {game!r} (games: {', '.join(bench_games())})")


def signature(game: str) -> int | None:
    """The recorded total node count of ``game``'s bench (None: none recorded)."""
    return _record(game).bench_signature


def workload(game: str) -> BenchWorkload:
    """``game``'s bench workload (its module is imported now)."""
    reference = _record(game).bench
    assert reference is not None
    made = load_object(reference)
    if not isinstance(made, BenchWorkload):
        raise SpielwerkError(f"{game}: bench {reference} is not a BenchWorkload")
    return made


@dataclass(frozen=True)
class BenchRow:
    """One game's bench: positions solved, total nodes, seconds of search."""

    game: str
    positions: int
    nodes: int
    seconds: float

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def signature_ok(self) -> bool:
        return self.nodes == signature(self.game)


Progress = Callable[[str], None]


def run_bench(games: Iterable[str] | None = None,
              progress: Progress | None = None) -> list[BenchRow]:
    """Solve every position of ``games`` (None: every game with a bench); ``progress`` gets
    one line per position.

    Each game's kernels are loaded (compiled on a fresh cache) before its timing.
    """
    rows = []
    for game in bench_games() if games is None else games:
        work = workload(game)
        work.warm_up()
        count = nodes = 0
        seconds = 0.0
        for label, n, took in work.positions():
            count += 1
            nodes += n
            seconds += took
            if progress is not None:
                progress(f"{game:6s} {label:36s} {n:>11,} nodes {took:7.2f} s")
        rows.append(BenchRow(game, count, nodes, seconds))
    return rows
