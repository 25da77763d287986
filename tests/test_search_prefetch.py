"""The prefetch hint: compiles in a kernel, never faults, changes no value."""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.search.prefetch import prefetch


@njit(cache=False)
def _sum_with_hints(values: np.ndarray, index: np.ndarray, ahead: int) -> int:
    total = 0
    n = index.shape[0]
    for k in range(n):
        # a hint for a read some steps ahead, and one far outside the array
        prefetch(values, index[(k + ahead) % n])
        prefetch(values, values.shape[0] + 10**9)
        total += values[index[k]]
    return total


def test_prefetch_changes_no_value_and_never_faults() -> None:
    rng = np.random.default_rng(7)
    values = rng.integers(-100, 100, 1 << 16).astype(np.int8)
    index = rng.integers(0, values.size, 5000)
    expected = int(values[index].astype(np.int64).sum())
    for ahead in (0, 1, 8):
        assert _sum_with_hints(values, index, ahead) == expected
