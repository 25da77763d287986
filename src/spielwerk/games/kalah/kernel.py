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

from spielwerk._jit import njit_no_refcount

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


@njit(cache=True, inline="always")
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
    south = 0  # both sides' seeds in one pass (the hot loop of every search)
    north = 0
    for i in range(m):
        south += board[i]
        north += board[m + 1 + i]
    if end_rule == END_EITHER_EMPTY:
        over = south == 0 or north == 0
    else:
        over = (south if nxt == 0 else north) == 0
    if over:
        sweep(board, m)
        return -1
    return nxt


@njit(cache=True, inline="always")
def legal_mask(board: np.ndarray, player: int, m: int) -> int:
    """Bit ``i`` set when the mover's pit ``i`` holds seeds."""
    base = player * (m + 1)
    mask = 0
    for i in range(m):
        mask |= (board[base + i] > 0) << i  # branch-free: the pits' contents are random
    return mask


STEP_MASK_BITS = 16
"""The low bits of a :func:`step` code: the legal mask (Kalah has at most 16 pits a side)."""
STEP_PLAYER_SHIFT = 23
"""Where the player to move (plus 2) sits in a :func:`step` code, above the game's bits."""


def step_code(m: int, empty_capture: bool, end_rule: int) -> int:
    """The game part of a :func:`step` code (pits, capture rule, end rule); never 0."""
    return m << 16 | int(empty_capture) << 21 | end_rule << 22


@njit_no_refcount()
def step(board: np.ndarray, code: int, action: int) -> int:
    """One move for the API's state, checked: the position packed in one int each way.

    ``code = (player + 2) << STEP_PLAYER_SHIFT | step_code(m, empty_capture, end_rule) |
    legal_mask`` (0: the game is over; below 2**25, one digit of a Python int): bit 23 is the
    player, and ``code >> 23`` minus 2 is the API's player number (TERMINAL, -2, for the code
    0). Returns -1, the board untouched, when the mask has no bit ``action`` (an illegal pit,
    or the game is over); else 0 when the move ends the game, or the next position's code.
    The state keeps the code as it is.
    """
    if action < 0 or action >= STEP_MASK_BITS or (code >> action) & 1 == 0:
        return -1
    m = (code >> 16) & 31
    player = (code >> STEP_PLAYER_SHIFT) & 1
    nxt = sow(board, player, action, m, (code >> 21) & 1 == 1, (code >> 22) & 1)
    if nxt < 0:
        return 0
    return (nxt + 2) << STEP_PLAYER_SHIFT | (code & 0x7F0000) | legal_mask(board, nxt, m)


@njit(cache=True)
def legal_masks(boards: np.ndarray, players: np.ndarray, m: int) -> np.ndarray:
    """:func:`legal_mask` of many positions at once: row ``i`` of ``boards`` with
    ``players[i]`` to move (a negative player, a finished game, gives 0)."""
    n = boards.shape[0]
    out = np.zeros(n, np.int64)
    for i in range(n):
        if players[i] >= 0:
            out[i] = legal_mask(boards[i], players[i], m)
    return out


@njit(cache=True)
def random_playouts(
    board: np.ndarray, player: int, m: int, empty_capture: bool, end_rule: int, n: int, seed: int
) -> np.ndarray:
    """``n`` uniformly random games from ``board`` with ``player`` to move (board unchanged).

    Row ``i`` of the result: South's store, North's store, number of moves.
    """
    np.random.seed(seed)
    out = np.empty((n, 3), np.int64)
    work = board.copy()
    for g in range(n):
        work[:] = board
        p = player
        moves = 0
        while p >= 0:
            mask = legal_mask(work, p, m)
            k = 0
            for i in range(m):
                k += (mask >> i) & 1
            r = np.random.randint(0, k)  # the r-th legal pit, counted from the left
            pit = 0
            while True:
                if (mask >> pit) & 1:
                    if r == 0:
                        break
                    r -= 1
                pit += 1
            p = sow(work, p, pit, m, empty_capture, end_rule)
            moves += 1
        out[g, 0] = work[m]
        out[g, 1] = work[2 * m + 1]
        out[g, 2] = moves
    return out


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
