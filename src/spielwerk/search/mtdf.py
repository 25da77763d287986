"""MTD(f) (Plaat, Schaeffer, Pijls, de Bruin 1996): the minimax value from null-window tests.

Generic over the game: ``test(beta)`` runs a null-window alpha-beta search that
answers "is the value >= beta?" and returns a fail-soft bound (a value
``>= beta`` is a lower bound, a value ``< beta`` an upper bound). With a
transposition table behind it, each test reuses the previous ones' work. The
driver's steps are :mod:`spielwerk.search.nullwindow`'s, shared with the
numba searches.
"""

from __future__ import annotations

from collections.abc import Callable

from spielwerk.search.nullwindow import narrow, next_beta


def mtdf(
    test: Callable[[int], int],
    first_guess: int,
    lower: int,
    upper: int,
    step: int = 1,
    bisect: bool = False,
) -> int:
    """Exact integer value in ``[lower, upper]``.

    ``step`` > 1 when values are known to lie on a lattice (Kalah: the value
    has the parity of the seeds left, so ``step=2`` with ``lower`` on it).
    ``bisect`` halves the interval instead of testing at the last answer (MTD-bi).
    """
    if lower > upper or step < 1:
        raise ValueError("mtdf: need lower <= upper and step >= 1")
    base = lower
    upper -= (upper - base) % step
    g = min(max(first_guess, lower), upper)
    while lower < upper:
        beta = next_beta(lower, upper, g, base, step, bisect)
        g = test(beta)
        lower, upper = narrow(lower, upper, beta, g, base, step)
    return lower
