"""SplitMix64 uniforms by counter, as a numba kernel (loaded with the first draw).

SplitMix64 (Steele, Lea and Flood 2014): value ``i`` of the stream ``seed``
is the 64-bit mix of ``seed + (i + 1) * 0x9E3779B97F4A7C15``, and its top 53
bits make a uniform in [0, 1). A stream costs nothing to seed, which matters
for an agent seeded once per game when a game is a hundred microseconds.

:func:`stack` is one compiled call (about 1.5 µs for 32 values, where the same
arithmetic as numpy array operations cost about 24 µs: ten array operations
of about 2 µs each). Under ``NUMBA_DISABLE_JIT=1`` the same values come from
:func:`reference`, the mix written with Python integers, which
``tests/test_core_play.py`` checks the kernels against.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from spielwerk._jit import prepare

prepare()  # the kernel cache folder is set before numba loads

from numba import njit  # noqa: E402
from numba.np.unsafe.ndarray import to_fixed_tuple  # noqa: E402

GOLDEN = 0x9E3779B97F4A7C15
MIX1, MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_MASK64 = 0xFFFFFFFFFFFFFFFF


@njit(cache=True)
def _value(seed: int, index: int) -> float:
    z = np.uint64(index + 1) * np.uint64(GOLDEN) + np.uint64(seed)
    z ^= z >> np.uint64(30)
    z *= np.uint64(MIX1)
    z ^= z >> np.uint64(27)
    z *= np.uint64(MIX2)
    z ^= z >> np.uint64(31)
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def block(seed: int, start: int, count: int) -> np.ndarray:
    """Uniforms number ``start`` .. ``start + count - 1`` of stream ``seed`` (an int64)."""
    out = np.empty(count, np.float64)
    for k in range(count):
        out[k] = _value(seed, start + k)
    return out


BLOCK = 32
"""Uniforms per :func:`reversed_block` call."""


@njit(cache=True)
def reversed_block(seed: int, start: int) -> tuple[float, ...]:
    """Uniforms ``start`` .. ``start + BLOCK - 1`` of stream ``seed``, last first, as a tuple.

    A tuple comes back from numba without an array object (about 1.5 µs for
    32 values, where a returned array and its ``tolist`` cost about 4 µs):
    ``list(...)`` of it is a stack to ``pop`` in stream order.
    """
    out = np.empty(BLOCK, np.float64)
    for k in range(BLOCK):
        out[BLOCK - 1 - k] = _value(seed, start + k)
    return to_fixed_tuple(out, BLOCK)  # type: ignore[call-arg]


def _int64(seed: int) -> int:
    """``seed`` modulo 2**64 as a signed 64-bit int (the kernel reads the same bits back)."""
    bits = seed & _MASK64
    return bits - (1 << 64) if bits >= 1 << 63 else bits


_reversed: Callable[[int, int], tuple[float, ...]] | None = None


def _reversed_entry() -> Callable[[int, int], tuple[float, ...]]:
    """:func:`reversed_block`'s compiled entry point (no per-call type dispatch)."""
    global _reversed
    if _reversed is None:
        from numba.core import config

        from spielwerk._jit import direct

        if config.DISABLE_JIT:  # type: ignore[attr-defined]
            # plain Python: no tuple intrinsic, no wrapping uint64 scalars; the same values
            def entry(seed: int, start: int) -> tuple[float, ...]:
                return tuple(reference(seed, i) for i in range(start + BLOCK - 1, start - 1, -1))

            _reversed = entry
        else:
            _reversed = direct(reversed_block, 0, 0)
    return _reversed


def uniforms(seed: int, start: int, count: int) -> list[float]:
    """Uniforms number ``start`` .. ``start + count - 1`` of the stream ``seed`` (any int)."""
    from numba.core import config

    if config.DISABLE_JIT:  # type: ignore[attr-defined]
        return [reference(seed, i) for i in range(start, start + count)]
    values: list[float] = block(_int64(seed), start, count).tolist()
    return values


def stack(seed: int, start: int) -> list[float]:
    """Uniforms ``start`` .. ``start + BLOCK - 1`` of stream ``seed`` as a stack: ``pop()``
    gives them in stream order (one compiled call)."""
    entry = _reversed if _reversed is not None else _reversed_entry()
    if not 0 <= seed < 1 << 63:
        seed = _int64(seed)
    return list(entry(seed, start))


def reference(seed: int, index: int) -> float:
    """Value ``index`` of the stream ``seed`` with Python integers (tests, and the kernels'
    stand-in under ``NUMBA_DISABLE_JIT=1``)."""
    z = (seed + (index + 1) * GOLDEN) & _MASK64
    z = ((z ^ (z >> 30)) * MIX1) & _MASK64
    z = ((z ^ (z >> 27)) * MIX2) & _MASK64
    z ^= z >> 31
    return (z >> 11) / 9007199254740992.0
