"""Building Kalah endgame databases (see :mod:`spielwerk.games.kalah.egdb`).

Bottom-up by seed count: every position with ``s`` seeds needs only positions
with fewer seeds (a capture or a seed in the store) or with ``s`` seeds and a
lower potential (each seed's distance to its owner's store), which a short
explicit stack fills first. A level's positions are independent apart from
that, so a level is split into rank ranges searched by several threads
(``nogil`` kernels; two threads that meet the same unknown position both
compute it and write the same value). A build can continue from any smaller
database: the colex rank orders positions by seed count, so the database for
``N`` seeds is a prefix of the one for ``N + 1``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.egdb_index import (
    UNKNOWN,
    EgdbError,
    binomials,
    entries,
    is_over,
    over_value,
    rank,
    swap_sides,
    unrank,
)


@njit(cache=True, nogil=True)
def _solve(
    scratch: np.ndarray,
    frames: np.ndarray,
    s0: int,
    db: np.ndarray,
    binom: np.ndarray,
    m: int,
    empty_capture: bool,
    end_rule: int,
) -> int:
    """Value of ``scratch[0]`` (non-terminal, ``s0`` seeds, player 0 to move), memoised in db.

    Explicit stack (numba cannot cache recursive functions reliably). Only moves
    that keep all seeds in the pits lead to unknown entries; they strictly lower
    the potential (each seed's distance to its owner's store), so the stack
    depth is at most ``s0 * m + 1``. ``frames[level]``: next pit, best value,
    seeds, gain and next mover of the move being searched.
    """
    level = 0
    frames[0, 0] = 0
    frames[0, 1] = -1000
    frames[0, 2] = s0
    while True:
        board = scratch[level]
        child = scratch[level + 1]
        i = frames[level, 0]
        descended = False
        while i < m:
            if board[i] == 0:
                i += 1
                continue
            child[:] = board
            nxt = kernel.sow(child, 0, i, m, empty_capture, end_rule)
            g = child[m] - child[2 * m + 1]
            if nxt < 0:
                v = g
            else:
                cs = frames[level, 2] - child[m]
                child[m] = 0
                if nxt == 1:
                    swap_sides(child, m)
                known = db[rank(child, m, binom)]
                if known == UNKNOWN:
                    frames[level, 0] = i + 1
                    frames[level, 3] = g
                    frames[level, 4] = nxt
                    level += 1
                    frames[level, 0] = 0
                    frames[level, 1] = -1000
                    frames[level, 2] = cs
                    descended = True
                    break
                v = g + known if nxt == 0 else g - known
            if v > frames[level, 1]:
                frames[level, 1] = v
            i += 1
        if descended:
            continue
        val = frames[level, 1]
        db[rank(board, m, binom)] = val
        if level == 0:
            return val
        level -= 1
        g = frames[level, 3]
        v = g + val if frames[level, 4] == 0 else g - val
        if v > frames[level, 1]:
            frames[level, 1] = v


@njit(cache=True, nogil=True)
def _build_level(
    db: np.ndarray, s: int, binom: np.ndarray, m: int, empty_capture: bool, end_rule: int
) -> int:
    """Fill every entry with exactly ``s`` seeds; returns how many were filled."""
    k = 2 * m
    cells = 2 * m + 2
    scratch = np.zeros((s * m + 4, cells), np.int32)
    frames = np.zeros((s * m + 4, 5), np.int64)
    comp = np.zeros(k, np.int64)
    comp[0] = s
    count = 0
    while True:
        board = scratch[0]
        for j in range(k):
            board[j if j < m else j + 1] = comp[j]
        board[m] = 0
        board[2 * m + 1] = 0
        idx = rank(board, m, binom)
        if db[idx] == UNKNOWN:
            if is_over(board, m, end_rule):
                db[idx] = over_value(board, m)
            else:
                _solve(scratch, frames, s, db, binom, m, empty_capture, end_rule)
        count += 1
        # next composition of s into k parts
        i = k - 2
        while i >= 0 and comp[i] == 0:
            i -= 1
        if i < 0:
            break
        comp[i] -= 1
        t = comp[k - 1] + 1
        comp[k - 1] = 0
        comp[i + 1] = t
    return count


@njit(cache=True, nogil=True)
def _build_range(
    db: np.ndarray, s: int, lo: int, hi: int, binom: np.ndarray, m: int, empty_capture: bool,
    end_rule: int,
) -> int:
    """Fill every unknown entry of rank ``lo <= r < hi`` (all with ``s`` seeds); returns how
    many were searched from here."""
    cells = 2 * m + 2
    scratch = np.zeros((s * m + 4, cells), np.int32)
    frames = np.zeros((s * m + 4, 5), np.int64)
    count = 0
    for r in range(lo, hi):
        if db[r] != UNKNOWN:
            continue
        board = scratch[0]
        unrank(r, m, binom, board)
        if is_over(board, m, end_rule):
            db[r] = over_value(board, m)
        else:
            _solve(scratch, frames, s, db, binom, m, empty_capture, end_rule)
        count += 1
    return count


def build_level(db: np.ndarray, s: int, binom: np.ndarray, pits: int, empty_capture: bool,
                end_rule: int, threads: int = 1) -> None:
    """Fill level ``s`` (every entry with exactly ``s`` seeds) of ``db`` in place."""
    if threads <= 1 or s < 8:
        _build_level(db, s, binom, pits, empty_capture, end_rule)
        return
    lo, hi = entries(s - 1, pits), entries(s, pits)
    chunks = 16 * threads
    cuts = [lo + (hi - lo) * k // chunks for k in range(chunks + 1)]
    with ThreadPoolExecutor(threads) as pool:
        jobs = [pool.submit(_build_range, db, s, cuts[k], cuts[k + 1], binom, pits,
                            empty_capture, end_rule) for k in range(chunks)]
        for job in jobs:
            job.result()


def build(
    pits: int,
    max_seeds: int,
    empty_capture: bool,
    end_rule: int = kernel.END_EITHER_EMPTY,
    progress: Callable[[int, int, float], None] | None = None,
    start: np.ndarray | None = None,
    threads: int = 1,
    on_level: Callable[[np.ndarray, int], None] | None = None,
) -> np.ndarray:
    """Compute the database in memory (int8, one entry per rank below ``C(N+2m, 2m)``).

    ``start``: a finished smaller database of the same game (its levels are
    copied, not recomputed); ``on_level(db, s)`` is called after each level
    (checkpoints); ``threads`` search each level in parallel.
    """
    if pits < 1 or max_seeds < 0:
        raise EgdbError("egdb: pits must be >= 1 and the seed limit >= 0")
    if max_seeds > 120:
        raise EgdbError("egdb: at most 120 seeds (values are stored in one signed byte)")
    binom = binomials(max_seeds, pits)
    n = entries(max_seeds, pits)
    db = np.full(n, UNKNOWN, dtype=np.int8)
    db[0] = 0  # the empty board
    first = 1
    if start is not None:
        done = 0
        while done < max_seeds and entries(done + 1, pits) <= start.size:
            done += 1
        db[: entries(done, pits)] = start[: entries(done, pits)]
        first = done + 1
    t0 = time.perf_counter()
    for s in range(first, max_seeds + 1):
        build_level(db, s, binom, pits, empty_capture, end_rule, threads)
        if progress is not None:
            progress(s, max_seeds, time.perf_counter() - t0)
        if on_level is not None:
            on_level(db, s)
    return db
