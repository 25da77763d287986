"""Iterative deepening: search depth after depth, each iteration seeded by the last.

Generic over the game and the search: ``iteration(depth, carried)`` runs one
depth-limited search and returns what the next iteration starts from (an
MTD(f) first guess, the best moves so far). A time limit is the search's
business: it raises its own timeout, and the caller keeps whatever the last
finished iteration handed over (``on_done`` sees each one as it finishes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def depth_schedule(step: int, max_depth: int) -> range:
    """The depths ``step, 2 * step, ...`` up to ``max_depth`` (none when ``step`` < 1)."""
    if step < 1:
        return range(0)
    return range(step, max_depth + 1, step)


def iterative_deepening(
    iteration: Callable[[int, T], T],
    depths: Iterable[int],
    start: T,
    on_done: Callable[[int, T], None] | None = None,
) -> T:
    """Run ``iteration`` at each depth in turn, threading its result; the last result.

    >>> iterative_deepening(lambda depth, guess: guess + depth, depth_schedule(2, 6), 0)
    12
    """
    carried = start
    for depth in depths:
        carried = iteration(depth, carried)
        if on_done is not None:
            on_done(depth, carried)
    return carried
