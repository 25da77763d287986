"""Kalah rules as numba kernels on a small int array: the single source of truth.

Board layout for Kalah(m, n), ``2m + 2`` cells::

    index 0 .. m-1        South's pits (player 0), from South's left
    index m               South's store
    index m+1 .. 2m       North's pits (player 1), from North's left
    index 2m+1            North's store

Sowing runs to increasing indices (counter-clockwise), skipping the
opponent's store. Player ``p``'s pit ``i`` (0-based from that player's left)
is ``p * (m + 1) + i``; the pit opposite index ``j`` is ``2m - j``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

END_EITHER_EMPTY = 0
"""The game ends as soon as either side's pits are empty after a move."""
END_MOVER_EMPTY = 1
"""The game ends only when the player to move has no seeds to sow."""


@njit(cache=True)
def side_seeds(board: np.ndarray, player: int, m: int) -> int:
    base = player * (m + 1)
    total = 0
    for i in range(m):
        total += board[base + i]
    return total


@njit(cache=True)
def sweep(board: np.ndarray, m: int) -> None:
    """Each side's remaining seeds go to that side's store."""
    for p in range(2):
        base = p * (m + 1)
        for i in range(m):
            board[base + m] += board[base + i]
            board[base + i] = 0


@njit(cache=True)
def sow(
    board: np.ndarray, player: int, pit: int, m: int, empty_capture: bool, end_rule: int
) -> int:
    """Sow ``player``'s ``pit`` (0-based from the mover's left) in place.

    Returns the next player to move, or -1 when the game is over (the board is
    then swept: every remaining seed lies in its owner's store). The caller
    guarantees the pit is non-empty.
    """
    size = 2 * m + 2
    own_store = player * (m + 1) + m
    opp_store = (1 - player) * (m + 1) + m
    pos = player * (m + 1) + pit
    seeds = board[pos]
    board[pos] = 0
    while seeds > 0:
        pos += 1
        if pos == size:
            pos = 0
        if pos == opp_store:
            continue
        board[pos] += 1
        seeds -= 1
    nxt = 1 - player
    if pos == own_store:
        nxt = player
    else:
        own_lo = player * (m + 1)
        if own_lo <= pos < own_lo + m and board[pos] == 1:
            opposite = 2 * m - pos
            if board[opposite] > 0 or empty_capture:
                board[own_store] += board[opposite] + 1
                board[opposite] = 0
                board[pos] = 0
    if end_rule == END_EITHER_EMPTY:
        if side_seeds(board, 0, m) == 0 or side_seeds(board, 1, m) == 0:
            sweep(board, m)
            return -1
    else:
        if side_seeds(board, nxt, m) == 0:
            sweep(board, m)
            return -1
    return nxt


@njit(cache=True)
def legal_mask(board: np.ndarray, player: int, m: int) -> int:
    """Bit ``i`` set when the mover's pit ``i`` holds seeds."""
    base = player * (m + 1)
    mask = 0
    for i in range(m):
        if board[base + i] > 0:
            mask |= 1 << i
    return mask


@njit(cache=True)
def random_playout(
    board: np.ndarray, player: int, m: int, empty_capture: bool, end_rule: int, seed: int
) -> int:
    """Play uniformly random moves to the end in place; returns the number of moves."""
    np.random.seed(seed)
    moves = 0
    legal = np.empty(m, np.int64)
    while player >= 0:
        k = 0
        base = player * (m + 1)
        for i in range(m):
            if board[base + i] > 0:
                legal[k] = i
                k += 1
        pit = legal[np.random.randint(0, k)]
        player = sow(board, player, pit, m, empty_capture, end_rule)
        moves += 1
    return moves


def initial_board(pits: int, seeds: int) -> np.ndarray:
    board = np.full(2 * pits + 2, seeds, dtype=np.int32)
    board[pits] = 0
    board[2 * pits + 1] = 0
    return board
