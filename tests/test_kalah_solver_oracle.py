"""Independent brute-force oracle for the Kalah solver tests: memoised negamax, no pruning.

Shares only the rules (``kernel.sow``) with the code under test. Positions are
keyed by a "stars and bars" bit string of the pits seen from the mover (one
1-bit per seed, a 0-bit between pits), not by the solver's colex rank, and
memoised in a numba typed dict. Values are the mover's future store gain minus
the opponent's.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from spielwerk.games.kalah import kernel


@njit(cache=True)
def _key(b: np.ndarray, m: int) -> int:
    k = 0
    for i in range(m):
        for _ in range(b[i]):
            k = (k << 1) | 1
        k <<= 1
    for i in range(m + 1, 2 * m + 1):
        for _ in range(b[i]):
            k = (k << 1) | 1
        k <<= 1
    return k


@njit(cache=False)  # numba's cache of recursive functions has crashed on reload here
def _negamax(b, m, empty_capture, end_rule, memo, level, scratch):  # type: ignore[no-untyped-def]
    key = _key(b, m)
    if key in memo:
        return memo[key]
    best = -10_000
    child = scratch[level]
    for i in range(m):
        if b[i] == 0:
            continue
        for j in range(2 * m + 2):
            child[j] = b[j]
        nxt = kernel.sow(child, 0, i, m, empty_capture, end_rule)
        gain = child[m] - child[2 * m + 1]
        if nxt < 0:
            v = gain
        else:
            child[m] = 0
            if nxt == 1:
                for j in range(m + 1):
                    t = child[j]
                    child[j] = child[m + 1 + j]
                    child[m + 1 + j] = t
                child[m] = 0
                child[2 * m + 1] = 0
                v = gain - _negamax(child, m, empty_capture, end_rule, memo, level + 1, scratch)
            else:
                v = gain + _negamax(child, m, empty_capture, end_rule, memo, level + 1, scratch)
            child = scratch[level]
        if v > best:
            best = v
    memo[key] = best
    return best


class Oracle:
    """Memoised exact values for one rule set and board size."""

    def __init__(self, pits: int, empty_capture: bool, end_rule: int = kernel.END_EITHER_EMPTY,
                 max_depth: int = 4000) -> None:
        self.m = pits
        self.empty_capture = empty_capture
        self.end_rule = end_rule
        self.memo = Dict.empty(key_type=types.int64, value_type=types.int64)
        self.scratch = np.zeros((max_depth, 2 * pits + 2), np.int32)

    def value(self, rel: np.ndarray) -> int:
        """Future gain difference for player 0 of ``rel`` (stores ignored; game not over)."""
        b = np.asarray(rel, dtype=np.int32).copy()
        b[self.m] = 0
        b[2 * self.m + 1] = 0
        return int(_negamax(b, self.m, self.empty_capture, self.end_rule, self.memo, 0,
                            self.scratch))

    def move_values(self, rel: np.ndarray) -> dict[int, int]:
        """Value of every legal move of ``rel`` for player 0 (future gain difference)."""
        m = self.m
        out = {}
        for i in range(m):
            if rel[i] == 0:
                continue
            c = np.asarray(rel, dtype=np.int32).copy()
            c[m] = 0
            c[2 * m + 1] = 0
            nxt = kernel.sow(c, 0, i, m, self.empty_capture, self.end_rule)
            g = int(c[m] - c[2 * m + 1])
            if nxt < 0:
                out[i] = g
                continue
            if nxt == 1:
                c = np.concatenate([c[m + 1 :], c[: m + 1]]).astype(np.int32)
            out[i] = g + self.value(c) if nxt == 0 else g - self.value(c)
        return out
