"""The full game graph of a small Kalah(m, n) instance, solved bottom-up (retrograde).

Counting convention (the seed's tables 3 and 4 leave it open; see
docs/kalah.md):

* a **position** is the whole board - every pit *and both stores* - and the
  player to move, as reached from the start by legal moves (an extra turn
  keeps the same player);
* a **terminal position** is a finished game: the board after the final
  sweep (every seed in a store), with nobody to move; terminal positions are
  counted separately and are *not* included in ``positions``;
* ``pit_positions`` is the coarser count that ignores the stores: distinct
  (pits, player to move) among the non-terminal positions;
* values are South's final margin (South store minus North store) under
  perfect play; W/L/D is its sign from South's point of view, counted over
  the non-terminal positions and, separately, over the terminal ones.

The graph is acyclic (seeds only move towards the stores), so a depth-first
walk that assigns each position its minimax value after all its children
(post-order) solves it bottom-up. Positions live in an open-addressing hash
table of packed int64 keys (combinatorial rank of the board times 3 plus the
player to move, 2 for finished), 10 bytes per slot, grown at 60 % load: peak
memory is about 17-34 bytes per position plus the walk's stack.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numba import njit

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.kalah import egdb_index, kernel

EMPTY = -1
RUNNING, DONE, OVERFLOW, GROW = 0, 1, 2, 3
TERMINAL_CODE = 2


class GraphError(SpielwerkError):
    """An instance too large for the full-graph analysis."""


@njit(cache=True)
def _rank_all(board: np.ndarray, binom: np.ndarray) -> int:
    """Colex rank of the whole board (pits and stores) as a composition."""
    r = 0
    s = 0
    for j in range(board.shape[0]):
        s += board[j]
        r += binom[s + j, j + 1]
    return r


@njit(cache=True)
def _unrank_all(r: int, binom: np.ndarray, board: np.ndarray) -> None:
    egdb_index.unrank_cells(r, board.shape[0], board.shape[0], binom, board)


@njit(cache=True, inline="always")
def _home(key: int, mask: int) -> int:
    h = key * -7046029254386353131
    h ^= (h >> 31) & 0x1FFFFFFFF
    return h & mask


@njit(cache=True)
def _find(keys: np.ndarray, key: int) -> int:
    """Slot of ``key`` or the empty slot where it would go (linear probing)."""
    mask = keys.size - 1
    i = _home(key, mask)
    while keys[i] != EMPTY and keys[i] != key:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _rehash(keys: np.ndarray, vals: np.ndarray, new_keys: np.ndarray, new_vals: np.ndarray) -> None:
    for i in range(keys.size):
        if keys[i] != EMPTY:
            j = _find(new_keys, keys[i])
            new_keys[j] = keys[i]
            new_vals[j] = vals[i]


@njit(cache=True)
def _walk(
    regs: np.ndarray,
    boards: np.ndarray,
    player: np.ndarray,
    nextpit: np.ndarray,
    best: np.ndarray,
    keys: np.ndarray,
    vals: np.ndarray,
    binom: np.ndarray,
    m: int,
    empty_capture: bool,
    end_rule: int,
    grow_at: int,
    pause_at: int,
) -> None:
    """Post-order walk from ``boards[0]``; regs: depth, status, stored count, steps."""
    depth = regs[0]
    count = regs[2]
    steps = regs[3]
    max_depth = boards.shape[0] - 1
    while depth >= 0:
        if count >= grow_at or steps >= pause_at:
            regs[0] = depth
            regs[1] = GROW if count >= grow_at else RUNNING
            regs[2] = count
            regs[3] = steps
            return
        steps += 1
        b = boards[depth]
        p = player[depth]
        i = nextpit[depth]
        base = p * (m + 1)
        pushed = False
        while i < m:
            if b[base + i] == 0:
                i += 1
                continue
            c = boards[depth + 1]
            c[:] = b
            nxt = kernel.sow(c, p, i, m, empty_capture, end_rule)
            code = nxt if nxt >= 0 else TERMINAL_CODE
            key = _rank_all(c, binom) * 3 + code
            slot = _find(keys, key)
            if keys[slot] == EMPTY:
                if nxt < 0:
                    v = c[m] - c[2 * m + 1]
                    keys[slot] = key
                    vals[slot] = v
                    count += 1
                else:
                    if depth + 1 >= max_depth:
                        regs[0] = depth
                        regs[1] = OVERFLOW
                        regs[2] = count
                        regs[3] = steps
                        return
                    nextpit[depth] = i + 1
                    depth += 1
                    player[depth] = nxt
                    nextpit[depth] = 0
                    best[depth] = -100000 if nxt == 0 else 100000
                    pushed = True
                    break
            else:
                v = vals[slot]
            if p == 0:
                if v > best[depth]:
                    best[depth] = v
            elif v < best[depth]:
                best[depth] = v
            i += 1
        if pushed:
            continue
        # all children known: store this position, hand its value to the parent
        v = best[depth]
        key = _rank_all(b, binom) * 3 + p
        slot = _find(keys, key)
        keys[slot] = key
        vals[slot] = v
        count += 1
        depth -= 1
        if depth >= 0:
            if player[depth] == 0:
                if v > best[depth]:
                    best[depth] = v
            elif v < best[depth]:
                best[depth] = v
    regs[0] = depth
    regs[1] = DONE
    regs[2] = count
    regs[3] = steps


@njit(cache=True)
def _tally(keys: np.ndarray, vals: np.ndarray, out: np.ndarray) -> None:
    """out: [nonterminal W, L, D, terminal W, L, D]."""
    for i in range(keys.size):
        k = keys[i]
        if k == EMPTY:
            continue
        off = 3 if k % 3 == TERMINAL_CODE else 0
        v = vals[i]
        if v > 0:
            out[off] += 1
        elif v < 0:
            out[off + 1] += 1
        else:
            out[off + 2] += 1


@njit(cache=True)
def _pit_positions(keys: np.ndarray, binom_all: np.ndarray, binom_pits: np.ndarray, m: int,
                   cells: int, set_keys: np.ndarray) -> int:
    """Distinct (pits, player to move) among the non-terminal positions."""
    board = np.zeros(cells, np.int64)
    n = 0
    for i in range(keys.size):
        k = keys[i]
        if k == EMPTY or k % 3 == TERMINAL_CODE:
            continue
        _unrank_all(k // 3, binom_all, board)
        pk = egdb_index.rank(board, m, binom_pits) * 2 + k % 3
        slot = _find(set_keys, pk)
        if set_keys[slot] == EMPTY:
            set_keys[slot] = pk
            n += 1
    return n


def _binom_rows(total: int, cells: int) -> np.ndarray:
    from math import comb

    if comb(total + cells, cells) * 3 >= 2**62:
        raise GraphError("instance too large for 64-bit position keys")
    t = np.zeros((total + cells + 1, cells + 1), dtype=np.int64)
    for x in range(total + cells + 1):
        for y in range(min(x, cells) + 1):
            t[x, y] = comb(x, y)
    return t


@dataclass
class GraphResult:
    """Counts and values of a full game graph (see the module docstring for the convention)."""

    pits: int
    seeds: int
    empty_capture: bool
    positions: int
    terminal_positions: int
    pit_positions: int
    wins: int
    losses: int
    draws: int
    terminal_wins: int
    terminal_losses: int
    terminal_draws: int
    start_value: int
    seconds: float
    table_bytes: int
    peak_rss_bytes: int
    keys: np.ndarray
    vals: np.ndarray
    binom: np.ndarray

    def values(self) -> Iterator[tuple[np.ndarray, int | None, int]]:
        """Every position as (board incl. stores, player to move or None if over, value)."""
        cells = 2 * self.pits + 2
        board = np.zeros(cells, np.int64)
        for k, v in zip(self.keys, self.vals, strict=True):
            if k == EMPTY:
                continue
            _unrank_all(int(k) // 3, self.binom, board)
            code = int(k) % 3
            yield board.astype(np.int32), (None if code == TERMINAL_CODE else code), int(v)


def full_graph(
    pits: int,
    seeds: int,
    empty_capture: bool = False,
    end_rule: int = kernel.END_EITHER_EMPTY,
    progress: Callable[[str], None] | None = None,
    max_depth: int = 4096,
    initial_log2: int = 16,
) -> GraphResult:
    """Enumerate and solve every position reachable from the start of Kalah(pits, seeds)."""
    if pits < 1 or seeds < 1:
        raise GraphError("graph: pits and seeds must be at least 1")
    cells = 2 * pits + 2
    total = 2 * pits * seeds
    binom = _binom_rows(total, cells)
    start = time.perf_counter()
    keys = np.full(1 << initial_log2, EMPTY, dtype=np.int64)
    vals = np.zeros(keys.size, dtype=np.int16)
    boards = np.zeros((max_depth + 1, cells), np.int32)
    boards[0] = kernel.initial_board(pits, seeds)
    player = np.zeros(max_depth + 1, np.int64)
    nextpit = np.zeros(max_depth + 1, np.int64)
    best = np.zeros(max_depth + 1, np.int64)
    best[0] = -100000
    regs = np.zeros(4, np.int64)
    peak_table = keys.nbytes + vals.nbytes
    next_report = 0.0
    while True:
        grow_at = int(keys.size * 0.6)
        _walk(regs, boards, player, nextpit, best, keys, vals, binom, pits, empty_capture,
              end_rule, grow_at, int(regs[3]) + (1 << 21))
        status = int(regs[1])
        if status == DONE:
            break
        if status == OVERFLOW:
            raise GraphError(f"graph: game paths longer than {max_depth} moves")
        if status == GROW:
            new_keys = np.full(keys.size * 2, EMPTY, dtype=np.int64)
            new_vals = np.zeros(new_keys.size, dtype=np.int16)
            peak_table = max(peak_table, keys.nbytes + vals.nbytes + new_keys.nbytes
                             + new_vals.nbytes)
            _rehash(keys, vals, new_keys, new_vals)
            keys, vals = new_keys, new_vals
        now = time.perf_counter()
        if progress is not None and now >= next_report:
            next_report = now + 1.0
            progress(f"{int(regs[2]):,} positions solved, walk depth {int(regs[0])}, "
                     f"{now - start:.1f} s")
    start_key = _rank_all(kernel.initial_board(pits, seeds), binom) * 3
    start_value = int(vals[_find(keys, start_key)])
    tally = np.zeros(6, np.int64)
    _tally(keys, vals, tally)
    binom_pits = egdb_index.binomials(total, pits)
    set_size = 1 << max(4, int(int(tally[:3].sum()) * 2 - 1).bit_length())
    set_keys = np.full(set_size, EMPTY, dtype=np.int64)
    n_pits = _pit_positions(keys, binom, binom_pits, pits, cells, set_keys)
    peak_table = max(peak_table, keys.nbytes + vals.nbytes + set_keys.nbytes)
    del set_keys
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return GraphResult(
        pits, seeds, empty_capture,
        positions=int(tally[:3].sum()), terminal_positions=int(tally[3:].sum()),
        pit_positions=n_pits,
        wins=int(tally[0]), losses=int(tally[1]), draws=int(tally[2]),
        terminal_wins=int(tally[3]), terminal_losses=int(tally[4]), terminal_draws=int(tally[5]),
        start_value=start_value, seconds=seconds, table_bytes=peak_table, peak_rss_bytes=rss,
        keys=keys, vals=vals, binom=binom,
    )
