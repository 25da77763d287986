"""Transposition tables as numpy arrays: packed entries with lower and upper bounds.

A table is one int64 array: slot ``j`` holds the key at ``2j`` (-1: empty) and
one packed int64 at ``2j + 1``, so a bucket of two slots fills 32 bytes of one
cache line (one memory access per probe). The packed word holds the lower bound,
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


def new_table(log2_entries: int) -> np.ndarray:
    """Empty table with ``2 ** log2_entries`` slots, 16 bytes per slot."""
    if not 1 <= log2_entries <= 34:
        raise ValueError("transposition table size: log2 entries must be in 1..34")
    table = np.zeros(2 << log2_entries, dtype=np.int64)
    table[0::2] = -1
    return table


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
def probe(table: np.ndarray, key: int) -> int:
    """Slot index holding ``key`` (its data word is ``table[2 * slot + 1]``), or -1."""
    i = slot_of(key, (table.size >> 1) - 1)
    if table[2 * i] == key:
        return i
    if table[2 * i + 2] == key:
        return i + 1
    return -1


@njit(cache=True)
def store(table: np.ndarray, key: int, depth: int, lo: int, hi: int, move: int) -> None:
    """Record bounds ``lo <= value <= hi`` from a search of ``depth``, merging with an entry
    of the same depth and key (bounds tightened, move kept if none is given)."""
    i = slot_of(key, (table.size >> 1) - 1)
    j = -1
    if table[2 * i] == key:
        j = i
    elif table[2 * i + 2] == key:
        j = i + 1
    if j >= 0:
        old = table[2 * j + 1]
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
                table[2 * j + 1] = pack(data_lo(old), data_hi(old), od, move)
            return
        elif move < 0:
            move = data_move(old)
        table[2 * j + 1] = pack(lo, hi, depth, move)
        return
    if table[2 * i] < 0:
        table[2 * i] = key
        table[2 * i + 1] = pack(lo, hi, depth, move)
    elif depth >= data_depth(table[2 * i + 1]):
        table[2 * i + 2] = table[2 * i]
        table[2 * i + 3] = table[2 * i + 1]
        table[2 * i] = key
        table[2 * i + 1] = pack(lo, hi, depth, move)
    else:
        table[2 * i + 2] = key
        table[2 * i + 3] = pack(lo, hi, depth, move)


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
