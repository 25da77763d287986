"""Independent brute-force oracle for the Kalah solver tests: memoised negamax, no pruning.

Shares only the rules (``kernel.sow``) with the code under test. Positions are
keyed by a "stars and bars" bit string of the pits seen from the mover (one
1-bit per seed, a 0-bit between pits), not by the solver's colex rank, and
memoised in an open-addressing hash table of its own. Values are the mover's future store gain minus
the opponent's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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


_EMPTY = -1
_MAX_LOAD = 0.7


@njit(cache=True)
def _slot(key: int, mask: int) -> int:
    x = np.uint64(key)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0x7FB5D329728EA185)
    x ^= x >> np.uint64(27)
    return np.int64(x & np.uint64(mask))


@njit(cache=True)
def _find(keys: np.ndarray, key: int) -> int:
    """Slot holding ``key`` or the empty slot where it belongs (linear probing)."""
    mask = np.int64(keys.shape[0] - 1)
    i = _slot(key, mask)
    while keys[i] != _EMPTY and keys[i] != key:
        i = (i + np.int64(1)) & mask
    return i


@njit(cache=True)
def _rehash(keys: np.ndarray, vals: np.ndarray, new_keys: np.ndarray,
            new_vals: np.ndarray) -> None:
    for i in range(keys.shape[0]):
        if keys[i] != _EMPTY:
            j = _find(new_keys, keys[i])
            new_keys[j] = keys[i]
            new_vals[j] = vals[i]


@njit(cache=False)  # numba's cache of recursive functions has crashed on reload here
def _negamax(b, m, empty_capture, end_rule, keys, vals, state, level, scratch):  # type: ignore[no-untyped-def]
    # state: [entries, entry limit, aborted flag]; a full table aborts the whole search
    # (nothing is stored once aborted) so that the caller can grow it and search again.
    if state[2]:
        return 0
    key = _key(b, m)
    slot = _find(keys, key)
    if keys[slot] == key:
        return np.int64(vals[slot])
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
                v = gain - _negamax(child, m, empty_capture, end_rule, keys, vals, state,
                                    level + 1, scratch)
            else:
                v = gain + _negamax(child, m, empty_capture, end_rule, keys, vals, state,
                                    level + 1, scratch)
            child = scratch[level]
        if v > best:
            best = v
    if state[2]:
        return 0
    if state[0] >= state[1]:
        state[2] = 1
        return 0
    slot = _find(keys, key)  # the children may have filled the slot found above
    keys[slot] = key
    vals[slot] = best
    state[0] += 1
    return best


class Oracle:
    """Memoised exact values for one rule set and board size.

    The memo is an open-addressing hash table (int64 keys, int8 values: 9 bytes a
    position) that doubles whenever it is 70% full, so instances with ~10^8
    positions fit in a few GB.
    """

    def __init__(self, pits: int, empty_capture: bool, end_rule: int = kernel.END_EITHER_EMPTY,
                 max_depth: int = 4000, log2_capacity: int = 16) -> None:
        self.m = pits
        self.empty_capture = empty_capture
        self.end_rule = end_rule
        self.keys = np.full(1 << log2_capacity, _EMPTY, np.int64)
        self.vals = np.zeros(1 << log2_capacity, np.int8)
        self.state = np.array([0, int(_MAX_LOAD * (1 << log2_capacity)), 0], np.int64)
        self.scratch = np.zeros((max_depth, 2 * pits + 2), np.int32)

    def __len__(self) -> int:
        return int(self.state[0])

    def _grow(self) -> None:
        size = 2 * self.keys.shape[0]
        keys = np.full(size, _EMPTY, np.int64)
        vals = np.zeros(size, np.int8)
        _rehash(self.keys, self.vals, keys, vals)
        self.keys, self.vals = keys, vals
        self.state[1] = int(_MAX_LOAD * size)
        self.state[2] = 0

    def value(self, rel: np.ndarray) -> int:
        """Future gain difference for player 0 of ``rel`` (stores ignored; game not over)."""
        b = np.asarray(rel, dtype=np.int32).copy()
        b[self.m] = 0
        b[2 * self.m + 1] = 0
        if int(b.sum()) + 2 * self.m > 63:  # a key holds one bit per seed and per pit
            raise ValueError(f"{int(b.sum())} seeds on {2 * self.m} pits do not fit a key")
        while True:
            v = int(_negamax(b, self.m, self.empty_capture, self.end_rule, self.keys, self.vals,
                             self.state, 0, self.scratch))
            if not self.state[2]:
                return v
            self._grow()

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
