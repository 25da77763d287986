"""MTD(f) (Plaat, Schaeffer, Pijls, de Bruin 1996): the minimax value from null-window tests.

Generic over the game: ``test(beta)`` runs a null-window alpha-beta search that
answers "is the value >= beta?" and returns a fail-soft bound (a value
``>= beta`` is a lower bound, a value ``< beta`` an upper bound). With a
transposition table behind it, each test reuses the previous ones' work.
"""

from __future__ import annotations

from collections.abc import Callable


def mtdf(
    test: Callable[[int], int],
    first_guess: int,
    lower: int,
    upper: int,
    step: int = 1,
) -> int:
    """Exact integer value in ``[lower, upper]``.

    ``step`` > 1 when values are known to lie on a lattice (Kalah: the value
    has the parity of the seeds left, so ``step=2`` with ``lower`` on it).
    """
    if lower > upper or step < 1:
        raise ValueError("mtdf: need lower <= upper and step >= 1")
    base = lower
    upper -= (upper - base) % step
    g = min(max(first_guess, lower), upper)
    while lower < upper:
        beta = g + (-(g - base)) % step  # the lattice point at or above g
        if beta <= lower:
            beta = lower + step
        if beta > upper:
            beta = upper
        g = test(beta)
        if g < beta:
            upper = min(upper, g)
            upper -= (upper - base) % step
        else:
            lower = max(lower, g)
            lower += (-(lower - base)) % step
    return lower
