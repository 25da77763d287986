"""Transposition tables as numpy arrays: packed entries with lower and upper bounds.

An entry holds a 64-bit key (-1: empty) and one packed int64: the lower bound,
the upper bound (16 bits each, offset by ``VALUE_OFFSET``), the search depth
the bounds hold for (16 bits, ``DEPTH_INF`` for an unbounded, exact-to-the-end
search) and the best move (8 bits, 0 for none). Keeping both bounds (rather
than one value and a flag) suits MTD(f), whose passes alternate between lower
and upper bounds on the same nodes; the classic flag is derived by
:func:`bound_kind` (``Bound.EXACT`` when both bounds meet).

Buckets of two slots: the first keeps the deeper search, the second always
takes the newest entry. Keys are hashed by a multiplicative mix.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

VALUE_OFFSET = 1 << 15
VALUE_INF = 30000
DEPTH_INF = 0xFFFF
NO_MOVE = -1


class Bound(IntEnum):
    """What a stored value means (derived from the two stored bounds)."""

    NONE = 0
    LOWER = 1
    UPPER = 2
    EXACT = 3
    RANGE = 4
    """Both bounds known but apart."""


def new_table(log2_entries: int) -> tuple[np.ndarray, np.ndarray]:
    """Empty table with ``2 ** log2_entries`` slots: (keys, data); 16 bytes per slot."""
    if not 1 <= log2_entries <= 34:
        raise ValueError("transposition table size: log2 entries must be in 1..34")
    size = 1 << log2_entries
    return np.full(size, -1, dtype=np.int64), np.zeros(size, dtype=np.int64)


@njit(cache=True, inline="always")
def pack(lo: int, hi: int, depth: int, move: int) -> int:
    return (
        (lo + VALUE_OFFSET)
        | ((hi + VALUE_OFFSET) << 16)
        | (depth << 32)
        | ((move + 1) << 48)
    )


@njit(cache=True, inline="always")
def data_lo(d: int) -> int:
    return (d & 0xFFFF) - VALUE_OFFSET


@njit(cache=True, inline="always")
def data_hi(d: int) -> int:
    return ((d >> 16) & 0xFFFF) - VALUE_OFFSET


@njit(cache=True, inline="always")
def data_depth(d: int) -> int:
    return (d >> 32) & 0xFFFF


@njit(cache=True, inline="always")
def data_move(d: int) -> int:
    return ((d >> 48) & 0xFF) - 1


@njit(cache=True, inline="always")
def slot_of(key: int, mask: int) -> int:
    h = key * -7046029254386353131
    h ^= (h >> 29) & 0x7FFFFFFFF
    return h & mask & ~1


@njit(cache=True)
def probe(keys: np.ndarray, data: np.ndarray, key: int) -> int:
    """Index of the slot holding ``key``, or -1."""
    i = slot_of(key, keys.size - 1)
    if keys[i] == key:
        return i
    if keys[i + 1] == key:
        return i + 1
    return -1


@njit(cache=True)
def store(
    keys: np.ndarray, data: np.ndarray, key: int, depth: int, lo: int, hi: int, move: int
) -> None:
    """Record bounds ``lo <= value <= hi`` from a search of ``depth``, merging with an entry
    of the same depth and key (bounds tightened, move kept if none is given)."""
    i = slot_of(key, keys.size - 1)
    j = -1
    if keys[i] == key:
        j = i
    elif keys[i + 1] == key:
        j = i + 1
    if j >= 0:
        old = data[j]
        od = data_depth(old)
        if od == depth:
            olo = data_lo(old)
            ohi = data_hi(old)
            if olo > lo:
                lo = olo
            if ohi < hi:
                hi = ohi
            if move < 0:
                move = data_move(old)
        elif od > depth:
            if move >= 0:
                data[j] = pack(data_lo(old), data_hi(old), od, move)
            return
        elif move < 0:
            move = data_move(old)
        data[j] = pack(lo, hi, depth, move)
        return
    if keys[i] < 0:
        keys[i] = key
        data[i] = pack(lo, hi, depth, move)
    elif depth >= data_depth(data[i]):
        keys[i + 1] = keys[i]
        data[i + 1] = data[i]
        keys[i] = key
        data[i] = pack(lo, hi, depth, move)
    else:
        keys[i + 1] = key
        data[i + 1] = pack(lo, hi, depth, move)


def bound_kind(lo: int, hi: int) -> Bound:
    """The classic flag of stored bounds."""
    has_lo = lo > -VALUE_INF
    has_hi = hi < VALUE_INF
    if has_lo and has_hi and lo == hi:
        return Bound.EXACT
    if has_lo and not has_hi:
        return Bound.LOWER
    if has_hi and not has_lo:
        return Bound.UPPER
    return Bound.RANGE if has_lo and has_hi else Bound.NONE
