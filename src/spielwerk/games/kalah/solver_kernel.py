"""The Kalah solver's search kernel: a resumable null-window alpha-beta (numba).

One loop over an explicit stack of plies (no recursion: numba kernels loaded
from the cache in a second process must not recurse), paused after a node
budget so the driver can report progress, honour time budgets and Ctrl-C.
Positions are seen from the player to move with the stores zeroed; a node's
value is the mover's future store gain minus the opponent's. Per node:
futility (``s`` seeds left bound the value to ``[-s, s]``), endgame database
probes for children with at most ``db_n`` seeds, transposition table (lower
and upper bound, depth, move), enhanced transposition cut-offs, and move
ordering (table move, extra turns, captures, the rest; nearest the store
first).

The search kernel runs without numba's reference counting (``_nrt=False``): every
array it uses is passed in (it allocates nothing), and each call of a helper with
array arguments would otherwise cost two atomic counter updates per array, which
also stop the processor from overlapping the cache misses of the table and
database reads around them. Reads whose index is known a few steps ahead (the
children's table buckets and database values) are prefetched
(:mod:`spielwerk.search.prefetch`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk._jit import njit_no_refcount
from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.egdb_index import rank, swap_sides
from spielwerk.search import tt
from spielwerk.search.prefetch import prefetch
from spielwerk.search.tt import DEPTH_INF, VALUE_INF

ENTER, NEXT, RETURN, UPDATE = 0, 1, 2, 3
RUNNING, DONE, OVERFLOW = 0, 1, 2

# counters
C_NODES, C_EGDB, C_TT_CUTS, C_ETC_CUTS, C_MAX_PLY, C_FUTILITY = range(6)
N_COUNTERS = 6


@njit(cache=True, nogil=True)
def order_moves(b: np.ndarray, m: int, ttmove: int, empty_capture: bool, order: np.ndarray,
                prio: np.ndarray, ckey: np.ndarray, row: int) -> int:
    """Write the legal pits of ``b`` into ``order[row]``, clear their child keys
    ``ckey[row]``; returns how many. Order: the table move; captures and extra turns by
    the seeds they win (an extra turn counts as a capture of 4: measured best among
    2/4/8); moves that sow into the store, fewest seeds handed to the opponent first; the
    rest; ties nearest the store first. (Kalah(6,4), database <= 18: 78.2 M -> 36.7 M
    nodes standard, 51.7 M -> 18.8 M empty capture, against table move, extra turns,
    captures, rest.) (Rows of 2-d arrays rather than views: a view costs two atomic reference-count
    updates, which were a sixth of the search's time.)"""
    cycle = 2 * m + 1
    n = 0
    for i in range(m - 1, -1, -1):
        seeds = b[i]
        if seeds == 0:
            continue
        if i == ttmove:
            p = 0
        else:
            last = i + seeds  # the last pit sown, without an integer division:
            while last >= cycle:  # seeds rarely go round the board
                last -= cycle
            if last == m:
                p = 100 - 5  # an extra turn ranks with a capture of 4 seeds
            elif (last < m and seeds < cycle and last != i and b[last] == 0
                  and (last < i or empty_capture or b[2 * m - last] > 0)):
                p = 100 - 1 - b[2 * m - last]  # larger captures first
            elif i + seeds > m:  # sows into the store: fewer seeds handed over first
                p = 200 + min(i + seeds - m, m)
            else:
                p = 300
        k = n
        while k > 0 and prio[k - 1] > p:
            order[row, k] = order[row, k - 1]
            prio[k] = prio[k - 1]
            k -= 1
        order[row, k] = i
        prio[k] = p
        ckey[row, i] = -1
        n += 1
    return n


@njit(cache=True, nogil=True)
def etc_cut(b: np.ndarray, s: int, d: int, beta: int, n: int, order: np.ndarray,
            ckey: np.ndarray, row: int, scratch: np.ndarray, table: np.ndarray,
            db: np.ndarray, db_n: int, binom: np.ndarray, m: int, empty_capture: bool,
            end_rule: int, kids: np.ndarray, gains: np.ndarray) -> tuple[int, int]:
    """Enhanced transposition cut-off: (move, bound) of a child whose stored bound proves
    the value >= ``beta``, or (-1, 0). Child keys are kept in ``ckey`` for the search.

    Two passes: every child's key first (the branchy sowing and ranking, no table
    reads), then the probes in move order, which are then close together and
    independent, so the processor overlaps their cache misses. ``kids`` and
    ``gains`` (length >= m) hold the keys (-1: no probe) and ``gain * 2 + next``.
    A child in the endgame database gets its database index in ``ckey`` instead, and
    its value is prefetched for the search's read of it."""
    cd = d if d == DEPTH_INF else d - 1
    for k in range(n):
        i = order[row, k]
        kids[k] = -1
        for j in range(2 * m + 2):
            scratch[j] = b[j]
        nxt = kernel.sow(scratch, 0, i, m, empty_capture, end_rule)
        if nxt < 0:
            continue
        g = scratch[m]
        scratch[m] = 0
        if nxt == 1:
            swap_sides(scratch, m)
        ck = rank(scratch, m, binom)
        ckey[row, i] = ck
        if s - g <= db_n:
            prefetch(db, ck)
            continue
        kids[k] = ck
        gains[k] = g * 2 + nxt
        prefetch(table, 2 * tt.slot_of(ck, (table.size >> 1) - 1))
    for k in range(n):
        ck = kids[k]
        if ck < 0:
            continue
        cslot = tt.probe(table, ck)
        if cslot < 0:
            continue
        cdata = table[2 * cslot + 1]
        if tt.data_depth(cdata) < cd:
            continue
        g = gains[k] >> 1
        v = g + tt.data_lo(cdata) if gains[k] & 1 == 0 else g - tt.data_hi(cdata)
        if v >= beta:
            return order[row, k], v
    return -1, 0


@njit(cache=True, nogil=True)
def db_first(b: np.ndarray, s: int, n: int, order: np.ndarray, row: int, scratch: np.ndarray,
             db: np.ndarray, db_n: int, binom: np.ndarray, m: int, empty_capture: bool,
             end_rule: int, beta: int, counters: np.ndarray, kids: np.ndarray,
             gains: np.ndarray) -> tuple[int, int, int]:
    """Value the moves whose outcome is known without a search first: game-ending moves and
    children in the endgame database. Returns (moves left to search, best value, its move);
    ``order`` keeps the unsearched moves (in their order) in front. Stops at the first
    value ``>= beta`` (then the count left is 0).

    Two passes as in :func:`etc_cut`: the children's database indices first
    (``kids``: the index, -1 a game end, -2 a search), then the reads in move order."""
    for k in range(n):
        i = order[row, k]
        for j in range(2 * m + 2):
            scratch[j] = b[j]
        nxt = kernel.sow(scratch, 0, i, m, empty_capture, end_rule)
        g = scratch[m] - scratch[2 * m + 1]
        if nxt < 0:
            kids[k] = -1
            gains[k] = g
        elif s - scratch[m] <= db_n:
            scratch[m] = 0
            if nxt == 1:
                swap_sides(scratch, m)
            kids[k] = rank(scratch, m, binom)
            gains[k] = g * 2 + nxt
            prefetch(db, kids[k])
        else:
            kids[k] = -2
    best = -VALUE_INF
    bestmv = -1
    left = 0
    for k in range(n):
        i = order[row, k]
        ix = kids[k]
        if ix == -1:
            v = gains[k]
        elif ix >= 0:
            counters[C_EGDB] += 1
            ev = db[ix]
            g = gains[k] >> 1
            v = g + ev if gains[k] & 1 == 0 else g - ev
        else:
            order[row, left] = i
            left += 1
            continue
        if v > best:
            best, bestmv = v, i
            if v >= beta:
                return 0, best, bestmv
    return left, best, bestmv


@njit(cache=True, nogil=True)
def tt_bound(table: np.ndarray, key: int, d: int, beta: int, root: bool) -> tuple[int, int]:
    """(table move or -1, stored bound that answers the null-window test or VALUE_INF)."""
    slot = tt.probe(table, key)
    if slot < 0:
        return -1, VALUE_INF
    dd = table[2 * slot + 1]
    if not root and tt.data_depth(dd) >= d:
        lo = tt.data_lo(dd)
        if lo >= beta:
            return tt.data_move(dd), lo
        hi = tt.data_hi(dd)
        if hi < beta:
            return tt.data_move(dd), hi
    return tt.data_move(dd), VALUE_INF


@njit_no_refcount(nogil=True)
def nws(regs: np.ndarray, brd: np.ndarray, nbeta: np.ndarray, ndepth: np.ndarray,
        nkey: np.ndarray, nseeds: np.ndarray, ckey: np.ndarray, corder: np.ndarray,
        nmv: np.ndarray, mi: np.ndarray, best: np.ndarray, bestmv: np.ndarray,
        curg: np.ndarray, curx: np.ndarray, nstart: np.ndarray, table: np.ndarray,
        db: np.ndarray, db_n: int,
        binom: np.ndarray, m: int, empty_capture: bool, end_rule: int, etc_min_seeds: int,
        tt_min_seeds: int, db_margin: int, counters: np.ndarray, node_limit: int,
        work: np.ndarray, boards: np.ndarray) -> None:
    """Null-window search (is the value of ``brd[0]`` >= ``nbeta[0]``?), resumable.

    ``regs``: ply, mode, value, status. ``nstart[ply]``: the node count when the node
    at ``ply`` was entered (the table keeps the entries of the costliest subtrees).
    Returns when done (``regs[2]`` is a
    fail-soft bound, ``bestmv[0]`` the move that proved a fail high), on stack
    overflow, or paused when ``counters[C_NODES]`` reaches ``node_limit``. ``work``
    (3 x m int64) and ``boards`` (2 x cells int32) are the kernel's scratch rows.
    """
    ply, mode, retval = regs[0], regs[1], regs[2]
    max_ply = brd.shape[0] - 1
    prio = work[0]
    kids = work[1]  # etc_cut's and db_first's children, between their passes
    gains = work[2]
    scratch = boards[0]
    b = boards[1]  # the node's board, then the child's
    cells = 2 * m + 2
    v = 0
    while True:
        if mode == ENTER:
            if counters[C_NODES] >= node_limit:
                regs[0], regs[1], regs[2], regs[3] = ply, mode, retval, RUNNING
                return
            counters[C_NODES] += 1
            nstart[ply] = counters[C_NODES]
            if ply > counters[C_MAX_PLY]:
                counters[C_MAX_PLY] = ply
            s, beta, d = nseeds[ply], nbeta[ply], ndepth[ply]
            mode = RETURN
            if ply > 0 and (s < beta or -s >= beta):
                counters[C_FUTILITY] += 1
                retval = s if s < beta else -s
                continue
            if ply > 0 and d == 0:
                retval = 0
                continue
            for j in range(cells):
                b[j] = brd[ply, j]
            if nkey[ply] < 0:
                nkey[ply] = rank(b, m, binom)
            ttmove = -1
            if s >= tt_min_seeds or ply == 0:
                ttmove, bound = tt_bound(table, nkey[ply], d, beta, ply == 0)
                if bound != VALUE_INF:
                    counters[C_TT_CUTS] += 1
                    retval = bound
                    continue
            n = order_moves(b, m, ttmove, empty_capture, corder, prio, ckey, ply)
            nmv[ply], mi[ply], best[ply], bestmv[ply] = n, 0, -VALUE_INF, -1
            if s <= db_n + db_margin:
                n, v, i = db_first(b, s, n, corder, ply, scratch, db, db_n, binom, m,
                                   empty_capture, end_rule, beta, counters, kids, gains)
                nmv[ply], best[ply], bestmv[ply] = n, v, i
                if v >= beta:
                    if s >= tt_min_seeds:
                        tt.store(table, nkey[ply], d, v, VALUE_INF, i, 1)
                    retval = v
                    continue
            if s >= etc_min_seeds:
                i, v = etc_cut(b, s, d, beta, n, corder, ckey, ply, scratch, table, db, db_n,
                               binom, m, empty_capture, end_rule, kids, gains)
                if i >= 0:
                    counters[C_ETC_CUTS] += 1
                    tt.store(table, nkey[ply], d, v, VALUE_INF, i, 1)
                    bestmv[ply] = i
                    retval = v
                    continue
            mode = NEXT
        elif mode == NEXT:
            if mi[ply] >= nmv[ply]:
                if nseeds[ply] >= tt_min_seeds:
                    tt.store(table, nkey[ply], ndepth[ply], -VALUE_INF, best[ply], -1,
                             tt.work_of(counters[C_NODES] - nstart[ply] + 1))
                retval = best[ply]
                mode = RETURN
                continue
            if ply + 1 > max_ply:
                regs[0], regs[1], regs[2], regs[3] = ply, mode, retval, OVERFLOW
                return
            i = corder[ply, mi[ply]]
            # the child is sown into b itself: an alias (c = b) costs a reference count
            # update per child (numba's atomic NRT_decref was 12 % of the search)
            for j in range(cells):
                b[j] = brd[ply, j]
            nxt = kernel.sow(b, 0, i, m, empty_capture, end_rule)
            g = b[m] - b[2 * m + 1]
            mode = UPDATE
            if nxt < 0:
                v = g
                continue
            cs = nseeds[ply] - b[m]
            b[m] = 0
            if nxt == 1:
                swap_sides(b, m)
            if cs <= db_n:
                counters[C_EGDB] += 1
                ix = ckey[ply, i]  # etc_cut's index, or -1
                ev = db[ix if ix >= 0 else rank(b, m, binom)]
                v = g + ev if nxt == 0 else g - ev
                continue
            for j in range(cells):
                brd[ply + 1, j] = b[j]
            nseeds[ply + 1], nkey[ply + 1] = cs, ckey[ply, i]
            curg[ply], curx[ply] = g, 1 if nxt == 0 else 0
            nbeta[ply + 1] = nbeta[ply] - g if nxt == 0 else g - nbeta[ply] + 1
            d = ndepth[ply]
            ndepth[ply + 1] = d if d == DEPTH_INF else d - 1
            ply += 1
            mode = ENTER
        elif mode == RETURN:  # the node at ply has the value bound retval
            if ply == 0:
                regs[0], regs[1], regs[2], regs[3] = 0, mode, retval, DONE
                return
            ply -= 1
            g = curg[ply]
            v = g + retval if curx[ply] == 1 else g - retval
            mode = UPDATE
        else:  # UPDATE: move corder[ply, mi[ply]] has value bound v
            i = corder[ply, mi[ply]]
            if v > best[ply]:
                best[ply], bestmv[ply] = v, i
            if v >= nbeta[ply]:
                if nseeds[ply] >= tt_min_seeds or ply == 0:
                    tt.store(table, nkey[ply], ndepth[ply], v, VALUE_INF, i,
                             tt.work_of(counters[C_NODES] - nstart[ply] + 1))
                retval = v
                mode = RETURN
            else:
                mi[ply] += 1
                mode = NEXT
