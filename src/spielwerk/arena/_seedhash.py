""":func:`spielwerk.arena.seeds.derive_seeds`'s hash as one compiled loop over the rows.

numpy's ``SeedSequence(parts).generate_state(2, uint32)`` (Melissa O'Neill's
``seed_seq_fe`` with a pool of four words) folded to 63 bits, for rows of
non-negative int64 parts: each part is one 32-bit word below 2**32, else two
(low word first), as ``SeedSequence`` takes it. The array version in
:mod:`spielwerk.arena.seeds` needs about a hundred array operations per call
(about 1 µs per seed); this is a few nanoseconds per seed.
Loaded on the first schedule; ``tests/test_arena_fast_paths.py`` checks it
against ``derive_seed``.
"""

from __future__ import annotations

import numpy as np

from spielwerk._jit import prepare

prepare()  # the kernel cache folder is set before numba loads

from numba import config, njit  # noqa: E402


def jit_disabled() -> bool:
    """True under ``NUMBA_DISABLE_JIT=1`` (the kernel would run as plain Python)."""
    return bool(getattr(config, "DISABLE_JIT", 0))

_M = np.uint64(0xFFFFFFFF)
_S16 = np.uint64(16)
_S32 = np.uint64(32)
_INIT_A, _MULT_A = np.uint64(0x43B0D7E5), np.uint64(0x931E8875)
_INIT_B, _MULT_B = np.uint64(0x8B51F9DD), np.uint64(0x58F38DED)
_MIX_L, _MIX_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)


@njit(inline="always")
def _hashmix(value: np.uint64, const: np.uint64, mult: np.uint64) -> tuple[np.uint64, np.uint64]:
    """seed_seq_fe's hash of one word: the hashed word and the next hash constant."""
    value ^= const
    const = (const * mult) & _M
    value = (value * const) & _M
    return value ^ (value >> _S16), const


@njit(inline="always")
def _mix(x: np.uint64, y: np.uint64) -> np.uint64:
    """seed_seq_fe's mix of a hashed word ``y`` into the pool word ``x``."""
    mixed = (_MIX_L * x - _MIX_R * y) & _M
    return mixed ^ (mixed >> _S16)


@njit(cache=True)
def hash_parts(parts: np.ndarray) -> np.ndarray:
    """The 63-bit seed of each row of ``parts`` (int64, every part >= 0)."""
    n, width = parts.shape
    out = np.empty(n, np.uint64)
    words = np.zeros(max(2 * width, 4), np.uint64)
    pool = np.zeros(4, np.uint64)
    for i in range(n):
        length = 0
        for j in range(width):
            part = np.uint64(parts[i, j])
            words[length] = part & _M
            length += 1
            if part >> _S32:
                words[length] = part >> _S32
                length += 1
        const = _INIT_A
        for k in range(4):  # the pool: the first four words (zeros past the end), hashed
            pool[k], const = _hashmix(words[k] if k < length else np.uint64(0), const, _MULT_A)
        for src in range(4):
            for dst in range(4):
                if src != dst:
                    value, const = _hashmix(pool[src], const, _MULT_A)
                    pool[dst] = _mix(pool[dst], value)
        for src in range(4, length):
            for dst in range(4):
                value, const = _hashmix(words[src], const, _MULT_A)
                pool[dst] = _mix(pool[dst], value)
        state0, const = _hashmix(pool[0], _INIT_B, _MULT_B)
        state1, const = _hashmix(pool[1], const, _MULT_B)
        out[i] = (state0 << np.uint64(31)) ^ state1
    return out
