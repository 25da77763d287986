"""Seeds derived from integer parts for a whole schedule at once.

:func:`spielwerk.arena.match.derive_seed` is numpy's
``SeedSequence(parts).generate_state(2)`` folded to 63 bits.
:func:`derive_seeds` gives exactly the same values for many part tuples in
one go: the same hash (Melissa O'Neill's ``seed_seq_fe``, as numpy
implements it) written with numpy arrays over the tuples, so a tournament's
thousands of seeds cost a few array operations instead of one
``SeedSequence`` object each (which cost more than a random Kalah game's
moves). ``tests/test_arena_match.py`` checks the two agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from spielwerk.core.errors import SpielwerkError

_MASK = 0xFFFFFFFF
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4
_U32 = np.uint64(_MASK)
_SHIFT = np.uint64(16)

AGENT_SALT = 1_000_003
"""The middle part of an agent's seed: ``derive_seed(game_seed, AGENT_SALT, seat)``."""


class SeedError(SpielwerkError, ValueError):
    """Seed parts that are not non-negative integers."""


def _words(n: int) -> list[int]:
    out = [n & _MASK]
    n >>= 32
    while n:
        out.append(n & _MASK)
        n >>= 32
    return out


def derive_seeds(rows: Sequence[Sequence[int]] | np.ndarray) -> list[int]:
    """``[derive_seed(*row) for row in rows]``, computed for all rows at once.

    Rows of one length with parts below 2**63 (every seed spielwerk derives)
    go through one compiled loop (:mod:`spielwerk.arena._seedhash`); other rows
    are split into words one by one and hashed with array operations.
    """
    if len(rows) == 0:
        return []
    try:
        parts = np.asarray(rows, dtype=np.int64)
    except (OverflowError, ValueError, TypeError):  # ragged rows, or parts >= 2**63
        return _derive_ragged(rows)
    if parts.ndim != 2:
        return _derive_ragged(rows)
    negative = np.nonzero((parts < 0).any(axis=1))[0]
    if len(negative):
        row = tuple(int(p) for p in parts[negative[0]])
        raise SeedError(f"seeds must be non-negative integers, not {row}")
    kernel = _kernel()
    if kernel is not None:
        values: list[int] = kernel(parts).tolist()
        return values
    unsigned = parts.astype(np.uint64)
    low, high = unsigned & _U32, unsigned >> np.uint64(32)
    # SeedSequence takes a part as one word below 2**32, else two (low word first)
    long_parts = high != 0
    width = parts.shape[1]
    pattern = (long_parts * (1 << np.arange(width, dtype=np.int64))).sum(axis=1)
    out = np.empty(len(parts), np.uint64)
    for code in np.unique(pattern).tolist():
        index = np.nonzero(pattern == code)[0]
        columns = []
        for j in range(width):
            columns.append(low[index, j])
            if code >> j & 1:
                columns.append(high[index, j])
        words = np.stack(columns, axis=1)
        out[index] = _hash_rows(words, words.shape[1])
    values = out.tolist()
    return values


def derive_seed_array(rows: Sequence[Sequence[int]] | np.ndarray) -> np.ndarray:
    """:func:`derive_seeds` as an int64 array (every derived seed is below 2**63), without
    the round trip through Python ints where the compiled loop applies."""
    if isinstance(rows, np.ndarray) and rows.dtype == np.int64 and rows.ndim == 2 \
            and len(rows) and not (rows < 0).any():
        kernel = _kernel()
        if kernel is not None:
            return kernel(rows).astype(np.int64)
    return np.asarray(derive_seeds(rows), dtype=np.int64)


def _kernel() -> Callable[[np.ndarray], np.ndarray] | None:
    """The compiled hash (:mod:`spielwerk.arena._seedhash`); None under NUMBA_DISABLE_JIT,
    where the array operations below are much faster than the loop run as Python."""
    from spielwerk.arena import _seedhash

    if _seedhash.jit_disabled():
        return None
    return _seedhash.hash_parts


def _derive_ragged(rows: Sequence[Sequence[int]] | np.ndarray) -> list[int]:
    entropy = []
    for row in rows:
        if any(p < 0 for p in row):
            raise SeedError(f"seeds must be non-negative integers, not {tuple(row)}")
        entropy.append([w for p in row for w in _words(int(p))])
    out = [0] * len(entropy)
    by_length: dict[int, list[int]] = {}
    for i, words in enumerate(entropy):
        by_length.setdefault(len(words), []).append(i)
    for length, index in by_length.items():
        values = _hash_rows(np.array([entropy[i] for i in index], dtype=np.uint64), length)
        for j, i in enumerate(index):
            out[i] = int(values[j])
    return out


def _hash_rows(words: np.ndarray, length: int) -> np.ndarray:
    """SeedSequence's pool mixing and two output words, for rows of ``length`` words."""
    const = _INIT_A

    def hashmix(value: np.ndarray) -> np.ndarray:
        nonlocal const
        value = value ^ np.uint64(const)
        const = (const * _MULT_A) & _MASK
        value = (value * np.uint64(const)) & _U32
        return value ^ (value >> _SHIFT)

    def mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        r: np.ndarray = (np.uint64(_MIX_L) * x - np.uint64(_MIX_R) * y)
        r &= _U32
        mixed: np.ndarray = r ^ (r >> _SHIFT)
        return mixed

    zeros = np.zeros(words.shape[0], np.uint64)
    pool = [hashmix(words[:, i] if i < length else zeros) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, length):
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(words[:, src]))
    const = _INIT_B
    state = []
    for k in range(2):
        value = pool[k] ^ np.uint64(const)
        const = (const * _MULT_B) & _MASK
        value = (value * np.uint64(const)) & _U32
        state.append(value ^ (value >> _SHIFT))
    return (state[0] << np.uint64(31)) ^ state[1]
