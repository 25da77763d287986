"""The null-window / MTD driver: which test to run next and what its answer proves.

A null-window test at ``beta`` asks "is the value >= beta?" and returns a
fail-soft bound ``g`` (``g >= beta``: a lower bound, ``g < beta``: an upper
bound). A driver keeps ``lower <= value <= upper`` and narrows it test by test
until the two meet. Both steps are numba functions, so a numba search loop
(the Skat solver) and the Python :func:`~spielwerk.search.mtdf.mtdf` (Kalah)
run the very same driver:

* MTD(f) (Plaat et al. 1996): the next test sits at the last answer ``g``;
* MTD-bi (``bisect``): the next test halves ``[lower, upper]``, which suits
  values with few possible outcomes and no good first guess.

``step`` > 1 when the values lie on a lattice ``base + k * step`` (Kalah: the
value has the parity of the seeds left).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def next_beta(lower: int, upper: int, guess: int, base: int, step: int, bisect: bool) -> int:
    """The test value for the next null-window search (``lower < upper``)."""
    if bisect:
        beta = (lower + upper + 1) // 2
        beta += (-(beta - base)) % step
    else:
        beta = guess + (-(guess - base)) % step  # the lattice point at or above the guess
    if beta <= lower:
        beta = lower + step
    if beta > upper:
        beta = upper
    return beta


@njit(cache=True)
def narrow(lower: int, upper: int, beta: int, g: int, base: int, step: int) -> tuple[int, int]:
    """The bounds after a test at ``beta`` answered ``g`` (fail-soft), kept on the lattice."""
    if g < beta:
        if g < upper:
            upper = g
        upper -= (upper - base) % step
    else:
        if g > lower:
            lower = g
        lower += (-(lower - base)) % step
    return lower, upper
