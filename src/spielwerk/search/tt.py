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

Buckets of two slots: the first keeps the deeper search (of equal depths, the
larger *work*: the bit length of the node count of the search that produced the
entry, when the caller gives it), the second always takes the newest entry.
Without the work every search of an exact (unbounded) solve has the same depth
and the first slot degenerates into a second always-replace slot; with it the
entries that cost most to recompute stay when the table overflows. Keys are
hashed by a multiplicative mix.

Layout of the two-slot table's data word (low bit first)::

    bits  0-15  lower bound + VALUE_OFFSET      (data_lo)
    bits 16-31  upper bound + VALUE_OFFSET      (data_hi)
    bits 32-47  depth, DEPTH_INF = exact        (data_depth)
    bits 48-55  best move + 1, 0 = none         (data_move)
    bits 56-61  work: bit length of the subtree's node count, 0 = not given (data_work)

**Clustered table** (``new_cluster_table``, ``cluster_probe``,
``cluster_store``): four entries per bucket (one 64-byte cache line), each a
full 64-bit key and a data word tagged with a *generation* (a search context
such as the game and objective: entries of another generation count as empty,
so one table serves many contexts without clearing) and a *side* (who is to
move, when the key does not say it). Replacement: an empty or stale entry
first, else the shallowest. Bounds of the same key merge (tightened), as in the
two-slot table. Layout of its data word (low bit first)::

    bits  0-7   generation, 0 = empty           (entry_gen)
    bits  8-15  depth (remaining plies/cards)   (entry_depth)
    bits 16-19  side to move                    (entry_side)
    bits 20-27  best move + 1, 0 = none         (entry_move)
    bits 28-43  lower bound + VALUE_OFFSET      (entry_lo)
    bits 44-59  upper bound + VALUE_OFFSET      (entry_hi)

Bound kinds: a search with window ``(alpha, beta)`` that returns ``value``
proves an upper bound (``value <= alpha``, ``Bound.UPPER``), a lower bound
(``value >= beta``, ``Bound.LOWER``) or the exact value (``Bound.EXACT``);
:func:`bound_of` says which and :func:`tighten` folds it into stored bounds.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

VALUE_BITS = 16
VALUE_OFFSET = 1 << (VALUE_BITS - 1)
VALUE_MASK = (1 << VALUE_BITS) - 1
VALUE_INF = 30000
DEPTH_INF = 0xFFFF
NO_MOVE = -1
LO_SHIFT = 0
HI_SHIFT = 16
DEPTH_SHIFT = 32
DEPTH_MASK = 0xFFFF
MOVE_SHIFT = 48
MOVE_MASK = 0xFF
WORK_SHIFT = 56
WORK_MASK = 0x3F
HASH_MUL = -7046029254386353131
"""Multiplier of the key mix (the 64-bit golden-ratio constant 0x9E3779B97F4A7C15)."""

# Bound kinds as plain ints for numba kernels (the same values as :class:`Bound`).
BOUND_NONE = 0
BOUND_LOWER = 1
BOUND_UPPER = 2
BOUND_EXACT = 3


class Bound(IntEnum):
    """What a stored value means (derived from the two stored bounds)."""

    NONE = 0
    LOWER = 1
    UPPER = 2
    EXACT = 3
    RANGE = 4
    """Both bounds known but apart."""


FILL_STEP = 1 << 22
"""Slots cleared or copied per step (64 MiB): a large table is filled step by step, so a
Ctrl-C during the seconds that filling gigabytes takes is seen after at most one step."""


def new_table(log2_entries: int) -> np.ndarray:
    """Empty table with ``2 ** log2_entries`` slots, 16 bytes per slot (cleared in steps of
    :data:`FILL_STEP` slots: interruptible)."""
    if not 1 <= log2_entries <= 34:
        raise ValueError("transposition table size: log2 entries must be in 1..34")
    table = np.zeros(2 << log2_entries, dtype=np.int64)
    step = 2 * FILL_STEP
    for i in range(0, table.size, step):
        table[i : i + step : 2] = -1
    return table


def copy_table(src: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``src`` copied into ``out`` (a new array when None), in steps of :data:`FILL_STEP`
    slots (interruptible, as :func:`new_table`)."""
    if out is None:
        out = np.empty_like(src)
    elif out.shape != src.shape:
        raise ValueError("transposition table copy: the tables differ in size")
    step = 2 * FILL_STEP
    for i in range(0, src.size, step):
        out[i : i + step] = src[i : i + step]
    return out


@njit(cache=True, inline="always")
def pack(lo: int, hi: int, depth: int, move: int, work: int = 0) -> int:
    """The two-slot table's data word (layout in the module docstring)."""
    return (
        ((lo + VALUE_OFFSET) << LO_SHIFT)
        | ((hi + VALUE_OFFSET) << HI_SHIFT)
        | (depth << DEPTH_SHIFT)
        | ((move + 1) << MOVE_SHIFT)
        | (work << WORK_SHIFT)
    )


@njit(cache=True, inline="always")
def data_lo(d: int) -> int:
    return ((d >> LO_SHIFT) & VALUE_MASK) - VALUE_OFFSET


@njit(cache=True, inline="always")
def data_hi(d: int) -> int:
    return ((d >> HI_SHIFT) & VALUE_MASK) - VALUE_OFFSET


@njit(cache=True, inline="always")
def data_depth(d: int) -> int:
    return (d >> DEPTH_SHIFT) & DEPTH_MASK


@njit(cache=True, inline="always")
def data_move(d: int) -> int:
    return ((d >> MOVE_SHIFT) & MOVE_MASK) - 1


@njit(cache=True, inline="always")
def data_work(d: int) -> int:
    return (d >> WORK_SHIFT) & WORK_MASK


@njit(cache=True, inline="always")
def work_of(nodes: int) -> int:
    """The work field for a search of ``nodes`` nodes: their bit length (at most 63)."""
    w = 0
    while nodes > 0 and w < WORK_MASK:
        nodes >>= 1
        w += 1
    return w


@njit(cache=True, inline="always")
def slot_of(key: int, mask: int) -> int:
    h = key * HASH_MUL
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
def store(table: np.ndarray, key: int, depth: int, lo: int, hi: int, move: int,
          work: int = 0) -> None:
    """Record bounds ``lo <= value <= hi`` from a search of ``depth``, merging with an entry
    of the same depth and key (bounds tightened, move kept if none is given, the larger
    work kept). ``work`` (:func:`work_of` of the search's node count, 0: unknown) breaks
    ties of depth in the replacement: the first slot of a bucket keeps the deeper, then
    the costlier entry."""
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
            ow = data_work(old)
            if ow > work:
                work = ow
        elif od > depth:
            if move >= 0:
                table[2 * j + 1] = pack(data_lo(old), data_hi(old), od, move,
                                        data_work(old))
            return
        elif move < 0:
            move = data_move(old)
        table[2 * j + 1] = pack(lo, hi, depth, move, work)
        return
    word = pack(lo, hi, depth, move, work)
    if table[2 * i] < 0:
        table[2 * i] = key
        table[2 * i + 1] = word
        return
    first = table[2 * i + 1]
    fd = data_depth(first)
    if depth > fd or (depth == fd and work >= data_work(first)):
        table[2 * i + 2] = table[2 * i]
        table[2 * i + 3] = first
        table[2 * i] = key
        table[2 * i + 1] = word
    else:
        table[2 * i + 2] = key
        table[2 * i + 3] = word


@njit(cache=True, inline="always")
def bound_of(value: int, alpha: int, beta: int) -> int:
    """What a fail-soft search with window ``(alpha, beta)`` proved about its ``value``."""
    if value <= alpha:
        return BOUND_UPPER
    if value >= beta:
        return BOUND_LOWER
    return BOUND_EXACT


@njit(cache=True, inline="always")
def tighten(lo: int, hi: int, value: int, kind: int) -> tuple[int, int]:
    """Stored bounds ``(lo, hi)`` after learning ``value`` of bound kind ``kind``."""
    if kind == BOUND_UPPER:
        if value < hi:
            hi = value
    elif kind == BOUND_LOWER:
        if value > lo:
            lo = value
    elif kind == BOUND_EXACT:
        lo = value
        hi = value
    return lo, hi


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


# --------------------------------------------------------------------------- clustered table
CLUSTER = 4
"""Entries per bucket of the clustered table (two int64 words each: 64 bytes)."""
GEN_MASK = 0xFF
E_DEPTH_SHIFT = 8
E_DEPTH_MASK = 0xFF
E_SIDE_SHIFT = 16
E_SIDE_MASK = 0xF
E_MOVE_SHIFT = 20
E_MOVE_MASK = 0xFF
E_LO_SHIFT = 28
E_HI_SHIFT = 44
SIDE_MUL = 0x9E3779B1
"""Mixes the side to move into the clustered table's hash."""
CLUSTER_MUL = 0x2545F4914F6CDD1D
"""Multiplier of the clustered table's key mix."""


def new_cluster_table(log2_entries: int) -> np.ndarray:
    """Empty clustered table with ``2 ** log2_entries`` entries (16 bytes each)."""
    if not 2 <= log2_entries <= 34:
        raise ValueError("clustered table size: log2 entries must be in 2..34 (buckets of 4)")
    return np.zeros(2 << log2_entries, dtype=np.int64)


@njit(cache=True, inline="always")
def entry_pack(gen: int, depth: int, side: int, move: int, lo: int, hi: int) -> int:
    """A clustered table's data word (layout in the module docstring)."""
    return (gen | (depth << E_DEPTH_SHIFT) | (side << E_SIDE_SHIFT)
            | ((move + 1) << E_MOVE_SHIFT) | ((lo + VALUE_OFFSET) << E_LO_SHIFT)
            | ((hi + VALUE_OFFSET) << E_HI_SHIFT))


@njit(cache=True, inline="always")
def entry_gen(d: int) -> int:
    return d & GEN_MASK


@njit(cache=True, inline="always")
def entry_depth(d: int) -> int:
    return (d >> E_DEPTH_SHIFT) & E_DEPTH_MASK


@njit(cache=True, inline="always")
def entry_side(d: int) -> int:
    return (d >> E_SIDE_SHIFT) & E_SIDE_MASK


@njit(cache=True, inline="always")
def entry_move(d: int) -> int:
    return ((d >> E_MOVE_SHIFT) & E_MOVE_MASK) - 1


@njit(cache=True, inline="always")
def entry_lo(d: int) -> int:
    return ((d >> E_LO_SHIFT) & VALUE_MASK) - VALUE_OFFSET


@njit(cache=True, inline="always")
def entry_hi(d: int) -> int:
    return ((d >> E_HI_SHIFT) & VALUE_MASK) - VALUE_OFFSET


@njit(cache=True, inline="always")
def cluster_bucket(key: int, side: int, entries_mask: int) -> int:
    """First entry index of the bucket of ``(key, side)``; ``entries_mask`` = entries - 1."""
    h = (key ^ (key >> 31) ^ (side * SIDE_MUL)) * CLUSTER_MUL
    h ^= h >> 29
    return h & entries_mask & ~(CLUSTER - 1)


@njit(cache=True)
def cluster_probe(table: np.ndarray, bucket: int, key: int, side: int, gen: int) -> int:
    """Index of the key word of ``(key, side)`` in generation ``gen`` (its data word
    follows it), or -1."""
    b2 = 2 * bucket
    for e in range(b2, b2 + 2 * CLUSTER, 2):
        d = table[e + 1]
        if (d & GEN_MASK) == gen and table[e] == key and entry_side(d) == side:
            return e
    return -1


@njit(cache=True)
def cluster_store(table: np.ndarray, bucket: int, key: int, side: int, gen: int, depth: int,
                  value: int, kind: int, move: int, lo0: int, hi0: int) -> None:
    """Fold ``value`` of bound kind ``kind`` into the entry of ``(key, side)``.

    A new entry starts from the bounds ``lo0 <= value <= hi0`` known without
    search; it takes an empty or stale entry of the bucket, else the shallowest.
    """
    b2 = 2 * bucket
    found = -1
    victim = b2
    vdepth = 1 << 20
    d = 0
    for e in range(b2, b2 + 2 * CLUSTER, 2):
        d = table[e + 1]
        if (d & GEN_MASK) != gen:
            if vdepth >= 0:  # an empty or stale entry goes first
                victim = e
                vdepth = -1
            continue
        if table[e] == key and entry_side(d) == side:
            found = e
            break
        if entry_depth(d) < vdepth:  # else the shallowest position
            victim = e
            vdepth = entry_depth(d)
    if found >= 0:
        lo = entry_lo(d)
        hi = entry_hi(d)
    else:
        lo = lo0
        hi = hi0
        found = victim
    lo, hi = tighten(lo, hi, value, kind)
    table[found] = key
    table[found + 1] = entry_pack(gen, depth, side, move, lo, hi)
