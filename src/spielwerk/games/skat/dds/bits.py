"""Bit helpers of the double-dummy solver: CPU popcount / lowest bit, card points of a mask.

Every rule fact here is derived from :mod:`spielwerk.games.skat.cards`
(card points, rank masks); nothing is restated.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from spielwerk.games.skat.cards import (
    ALL_CARDS_MASK,
    CARD_POINTS,
    JACK,
    POINTS_BY_CARD,
    RANK_MASKS,
)

SUIT_BITS = 8
"""Bits per suit in a card mask (``card = suit * 8 + rank``)."""
BELOW_JACK = (1 << JACK) - 1
"""The ranks 7 8 9 Q K T A of one suit (a suit's byte without its jack)."""
POINTS32 = np.array(POINTS_BY_CARD, dtype=np.int64)
_POINT_RANKS = [r for r in range(8) if CARD_POINTS[r]]
_POINT_MASKS = np.array([RANK_MASKS[r] for r in _POINT_RANKS], dtype=np.int64)
_POINT_VALUES = np.array([CARD_POINTS[r] for r in _POINT_RANKS], dtype=np.int64)
PTS7 = np.array([sum(CARD_POINTS[r] for r in range(JACK) if f >> r & 1)
                 for f in range(1 << JACK)], dtype=np.int64)
"""Card points of a suit's non-jack cards, indexed by the suit's low seven bits."""


def _ctpop_typer(typingctx, x):  # type: ignore[no-untyped-def]
    """The CPU's population count (LLVM ``ctpop``) on a 64-bit integer."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return sig, codegen


_ctpop: Any = intrinsic(_ctpop_typer)


def _cttz_typer(typingctx, x):  # type: ignore[no-untyped-def]
    """Index of the lowest set bit (LLVM ``cttz``) of a non-zero 64-bit integer."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return sig, codegen


lowest_bit: Any = intrinsic(_cttz_typer)
"""Index of the lowest set bit of a non-zero mask (numba only)."""


@njit(cache=True)
def popcount(x: int) -> int:
    """Number of cards in a 32-bit card mask."""
    return _ctpop(x & ALL_CARDS_MASK)


@njit(cache=True)
def mask_points(m: int) -> int:
    """Card points of a card mask, one popcount per rank that carries points."""
    total = 0
    for i in range(_POINT_MASKS.shape[0]):
        total += _POINT_VALUES[i] * popcount(m & _POINT_MASKS[i])
    return total


@njit(cache=True)
def single_card(m: int) -> int:
    """The card of a one-card mask."""
    return popcount(m - 1)
