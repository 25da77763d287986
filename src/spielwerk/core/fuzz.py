"""Fuzzing: many seeded random games with every conformance check after every move.

Game ``i`` of a run uses seed ``seed + i`` and is checked by
:func:`spielwerk.core.testing.play_checked_game` with deep checks after every
move, so a fuzz run checks exactly the invariants of ``check_game``, only
more often and for more games. Games are cut into batches and run on a
process pool (``workers=1`` runs in this process); a failing game is reported
by its seed, which replays it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from functools import lru_cache

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.estimate import MAX_RUN_SECONDS, duration
from spielwerk.core.game import Game
from spielwerk.core.process import init_worker, interrupts_ignored, terminate_pool
from spielwerk.core.registry import load_game
from spielwerk.core.testing import (
    ConformanceError,
    check_game_metadata,
    play_checked_game,
    replay_command,
)


class FuzzError(SpielwerkError, ValueError):
    """Bad arguments for a fuzz run."""


@dataclass(frozen=True)
class FuzzFailure:
    """One failing game: its seed, the broken invariant and the full message."""

    seed: int
    invariant: str
    message: str
    history: list[int] | None = None

    def replay(self, spec: str) -> str:
        return replay_command(spec, self.seed)


@dataclass
class BatchResult:
    """What one batch of games found (picklable: it crosses process boundaries)."""

    start: int
    stop: int
    games: int = 0
    moves: int = 0
    chance_moves: int = 0
    failures: list[FuzzFailure] = field(default_factory=list)


@dataclass
class FuzzSummary:
    """The outcome of :func:`run_fuzz`."""

    spec: str
    seed: int
    requested: int
    workers: int
    games: int = 0
    moves: int = 0
    chance_moves: int = 0
    seconds: float = 0.0
    failures: list[FuzzFailure] = field(default_factory=list)
    stopped_early: bool = False
    interrupted: bool = False
    """Stopped by Ctrl-C: the figures are those of the games that finished."""
    next_seed: int | None = None
    """After Ctrl-C: every seed below this one was played (continue from it)."""

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def moves_per_second(self) -> float:
        return (self.moves + self.chance_moves) / self.seconds if self.seconds > 0 else 0.0


PROBE_FROM = 1_000_000
"""Fuzz runs of this many games or more are timed before they start (:func:`check_fuzz_size`)."""
PROBE_SECONDS = 0.3
"""About how long :func:`estimate_fuzz` plays games to time them."""
PROBE_GAMES = 200
"""At most this many games are timed."""


@dataclass(frozen=True)
class FuzzEstimate:
    """How long a fuzz run takes: ``games`` on ``workers`` processes at the rate timed on
    ``timed`` games here."""

    games: int
    workers: int
    seconds_per_game: float
    timed: int

    @property
    def wall_seconds(self) -> float:
        return self.games * self.seconds_per_game / self.workers

    def describe(self) -> str:
        each = self.seconds_per_game
        rate = f"{1000 * each:.2g} ms" if each < 1 else f"{each:.2g} s"
        return (f"at {rate} a game (timed on {self.timed} "
                f"game{'s' if self.timed != 1 else ''}) it takes about "
                f"{duration(self.wall_seconds)} on {self.workers} "
                f"worker{'s' if self.workers != 1 else ''}")


@lru_cache(maxsize=8)
def _game(spec: str) -> Game:
    return load_game(spec)


def fuzz_batch(
    spec: str, start: int, stop: int, max_moves: int = 10_000, max_failures: int | None = None
) -> BatchResult:
    """Play and check the games with seeds ``start .. stop-1`` (runs in a worker).

    Stops early once the batch has ``max_failures`` failing games.
    """
    return _check_games(_game(spec), start, stop, max_moves, max_failures)


def _check_games(
    game: Game, start: int, stop: int, max_moves: int, max_failures: int | None
) -> BatchResult:
    result = BatchResult(start, stop)
    for seed in range(start, stop):
        if max_failures is not None and len(result.failures) >= max_failures:
            break
        try:
            played = play_checked_game(game, seed, max_moves=max_moves, deep_every=1)
        except ConformanceError as exc:
            result.failures.append(FuzzFailure(seed, exc.invariant, str(exc), exc.history))
            result.games += 1
            continue
        result.games += 1
        result.moves += played.moves
        result.chance_moves += played.chance_moves
    return result


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def estimate_fuzz(game: Game, games: int, seed: int = 0, workers: int = 1,
                  max_moves: int = 10_000) -> FuzzEstimate:
    """Time a few of the run's games here (about :data:`PROBE_SECONDS`) and scale to
    ``games`` on ``workers`` processes. The first game is played untimed before (it may
    load or compile code)."""
    times: list[float] = []
    start = 0.0
    for s in range(seed, seed + min(games, PROBE_GAMES)):
        t0 = time.perf_counter()
        try:
            play_checked_game(game, s, max_moves=max_moves, deep_every=1)
        except ConformanceError:
            pass  # the run reports it; the time still counts
        times.append(time.perf_counter() - t0)
        start = start or time.perf_counter()  # the clock starts after the first game
        if time.perf_counter() - start >= PROBE_SECONDS:
            break
    timed = times[1:] or times
    return FuzzEstimate(games, max(1, min(workers, games)), sum(timed) / len(timed),
                        len(timed))


def check_fuzz_size(spec: str, games: int, seed: int = 0, workers: int | None = None,
                    max_moves: int = 10_000) -> FuzzEstimate | None:
    """Refuse, in one line with the estimate, a run of ``games`` games that takes longer than
    :data:`~spielwerk.core.estimate.MAX_RUN_SECONDS`. Runs of fewer than :data:`PROBE_FROM`
    games are not timed (None); larger ones are (a fraction of a second)."""
    if games < PROBE_FROM:
        return None
    workers = default_workers() if workers is None else workers
    est = estimate_fuzz(load_game(spec), games, seed, workers, max_moves)
    if est.wall_seconds > MAX_RUN_SECONDS:
        fit = int(MAX_RUN_SECONDS * est.workers / est.seconds_per_game)
        raise FuzzError(
            f"--games {games:,} cannot be played here: {est.describe()}; at most about "
            f"{fit:,} games fit in a year")
    return est


def run_fuzz(
    spec: str,
    games: int,
    seed: int = 0,
    workers: int | None = None,
    *,
    max_moves: int = 10_000,
    max_failures: int = 10,
    batch_size: int | None = None,
    on_batch: Callable[[BatchResult], None] | None = None,
) -> FuzzSummary:
    """Fuzz ``spec`` with ``games`` random games (seeds ``seed .. seed+games-1``).

    ``workers`` processes (default: all cores; 1 runs here). The run stops
    early once ``max_failures`` failing games are found and reports at most that
    many (the lowest seeds among those found). ``on_batch`` is called
    in this process after each finished batch (progress display).
    """
    if games < 1:
        raise FuzzError(f"--games must be at least 1, not {games}")
    if seed < 0:
        raise FuzzError(f"--seed must be non-negative, not {seed}")
    if max_moves < 1:
        raise FuzzError(f"--max-moves must be at least 1, not {max_moves}")
    if max_failures < 1:
        raise FuzzError(f"--max-failures must be at least 1, not {max_failures}")
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise FuzzError(f"--workers must be at least 1, not {workers}")
    game = load_game(spec)
    spec = game.spec()
    workers = min(workers, games)
    summary = FuzzSummary(spec, seed, games, workers)
    start_time = time.perf_counter()
    try:
        check_game_metadata(game)
    except ConformanceError as exc:
        summary.failures.append(FuzzFailure(seed, exc.invariant, str(exc)))
        summary.stopped_early = True
        summary.seconds = time.perf_counter() - start_time
        return summary
    if batch_size is None:
        batch_size = max(1, min(50, games // (workers * 8)))
    # generated as the batches are handed out: 10**12 games are no list of bounds
    bounds = ((s, min(s + batch_size, seed + games)) for s in range(seed, seed + games,
                                                                      batch_size))

    finished: list[tuple[int, int]] = []  # the seed ranges played, for --seed after Ctrl-C

    def absorb(result: BatchResult) -> bool:
        finished.append((result.start, result.stop))
        summary.games += result.games
        summary.moves += result.moves
        summary.chance_moves += result.chance_moves
        summary.failures.extend(result.failures)
        if on_batch is not None:
            on_batch(result)
        return len(summary.failures) >= max_failures

    def args(lo: int, hi: int) -> tuple[str, int, int, int, int]:
        return spec, lo, hi, max_moves, max_failures

    try:
        if workers == 1:
            for lo, hi in bounds:
                if absorb(_check_games(game, lo, hi, max_moves, max_failures)):
                    summary.stopped_early = summary.games < games
                    break
        else:
            _run_pool(workers, bounds, args, absorb, summary, games)
    except KeyboardInterrupt:  # Ctrl-C: what finished, and where to continue
        summary.interrupted = True
        summary.next_seed = _first_unplayed(seed, finished)
    summary.failures.sort(key=lambda f: f.seed)
    del summary.failures[max_failures:]
    summary.seconds = time.perf_counter() - start_time
    return summary


def _first_unplayed(seed: int, finished: list[tuple[int, int]]) -> int:
    """The lowest seed from ``seed`` on that no finished batch covers."""
    for lo, hi in sorted(finished):
        if lo > seed:
            break
        seed = max(seed, hi)
    return seed


def _run_pool(workers: int, bounds: Iterator[tuple[int, int]],
              args: Callable[[int, int], tuple[str, int, int, int, int]],
              absorb: Callable[[BatchResult], bool], summary: FuzzSummary,
              games: int) -> None:
    """The batches on a pool of ``workers`` processes, two per worker in flight."""
    pending = iter(bounds)
    with ProcessPoolExecutor(max_workers=workers, initializer=init_worker,
                             initargs=(os.getpid(),)) as pool:
        running: set[Future[BatchResult]] = set()
        try:
            for lo, hi in pending:
                running.add(pool.submit(fuzz_batch, *args(lo, hi)))
                if len(running) >= 2 * workers:
                    break
            stop = False
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    stop = absorb(fut.result()) or stop
                if stop:
                    for fut in running:
                        fut.cancel()
                    for fut in running:
                        if not fut.cancelled():
                            absorb(fut.result())
                    running = set()
                    summary.stopped_early = summary.games < games
                    break
                for lo, hi in pending:
                    running.add(pool.submit(fuzz_batch, *args(lo, hi)))
                    if len(running) >= 2 * workers:
                        break
        except KeyboardInterrupt:  # kill the workers rather than wait for their batches
            with interrupts_ignored():
                terminate_pool(pool)
            raise
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


__all__ = [
    "BatchResult",
    "FuzzError",
    "FuzzEstimate",
    "FuzzFailure",
    "FuzzSummary",
    "check_fuzz_size",
    "default_workers",
    "estimate_fuzz",
    "fuzz_batch",
    "run_fuzz",
]
