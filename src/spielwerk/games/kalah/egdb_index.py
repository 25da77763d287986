"""The index of Kalah endgame positions: the colex rank of the pits (combinatorial number
system, :mod:`egdb` explains it), its inverse, and the end of a game - shared by the database
(:mod:`egdb`, :mod:`egdb_build`) and the solver, whose transposition-table key it is."""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.kalah import kernel

UNKNOWN = -128
"""A database entry not yet computed."""


class EgdbError(SpielwerkError):
    """An endgame database that cannot be built, read or used as asked."""


def binomials(max_seeds: int, pits: int) -> np.ndarray:
    """Table ``C[x, y]`` (int64) for ``x <= max_seeds + 2*pits``, ``y <= 2*pits``."""
    k = 2 * pits
    if comb(max_seeds + k, k) >= 2**62:
        raise EgdbError(
            f"Kalah with {pits} pits and {max_seeds} seeds is too large to index in 64 bits"
        )
    table = np.zeros((max_seeds + k + 1, k + 1), dtype=np.int64)
    for x in range(max_seeds + k + 1):
        for y in range(min(x, k) + 1):
            table[x, y] = comb(x, y)
    return table


def entries(max_seeds: int, pits: int) -> int:
    """Number of positions with at most ``max_seeds`` seeds in ``2 * pits`` pits."""
    return comb(max_seeds + 2 * pits, 2 * pits)


@njit(cache=True)
def rank(board: np.ndarray, m: int, binom: np.ndarray) -> int:
    """Colex rank of the pits (mover's ``board[0:m]``, opponent's ``board[m+1:2m+1]``)."""
    r = 0
    s = 0
    j = 0
    for i in range(m):
        s += board[i]
        r += binom[s + j, j + 1]
        j += 1
    for i in range(m + 1, 2 * m + 1):
        s += board[i]
        r += binom[s + j, j + 1]
        j += 1
    return r


@njit(cache=True, nogil=True)
def unrank_cells(r: int, k: int, gap: int, binom: np.ndarray, board: np.ndarray) -> None:
    """Write the ``k`` parts of colex rank ``r`` into ``board``: part ``j`` to cell ``j``,
    or ``j + 1`` from part ``gap`` on (skipping a store cell)."""
    prev_t = binom.shape[0]
    ts = np.empty(k, np.int64)
    for j in range(k - 1, -1, -1):
        t = prev_t - 1
        while binom[t, j + 1] > r:
            t -= 1
        ts[j] = t
        r -= binom[t, j + 1]
        prev_t = t
    prev_s = 0
    for j in range(k):
        s = ts[j] - j
        board[j if j < gap else j + 1] = s - prev_s
        prev_s = s


@njit(cache=True, nogil=True)
def unrank(r: int, m: int, binom: np.ndarray, board: np.ndarray) -> None:
    """Inverse of :func:`rank`: write the pits of rank ``r`` into ``board`` (stores set to 0)."""
    unrank_cells(r, 2 * m, m, binom, board)
    board[m] = 0
    board[2 * m + 1] = 0


@njit(cache=True)
def swap_sides(board: np.ndarray, m: int) -> None:
    """Exchange the two halves (pits and store) so the other player becomes player 0."""
    for i in range(m + 1):
        t = board[i]
        board[i] = board[m + 1 + i]
        board[m + 1 + i] = t


@njit(cache=True)
def is_over(board: np.ndarray, m: int, end_rule: int) -> bool:
    """Whether the game is already over with player 0 to move."""
    own = kernel.side_seeds(board, 0, m)
    if end_rule == kernel.END_EITHER_EMPTY:
        return own == 0 or kernel.side_seeds(board, 1, m) == 0
    return own == 0


@njit(cache=True)
def over_value(board: np.ndarray, m: int) -> int:
    """Future gain of player 0 in a finished position: each side keeps its own seeds."""
    return kernel.side_seeds(board, 0, m) - kernel.side_seeds(board, 1, m)
