"""The named steps of the double-dummy search loop (:func:`.search.alpha_beta`).

Each is a numba helper inlined into the loop (``inline="always"``, except
:func:`after_child`, a plain call as before), so the loop reads as its steps and
runs as one function. A node lives in a row of the explicit stack ``stk``
(fields ``F_*``); no step recurses.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.skat.dds.bits import POINTS32, lowest_bit, mask_points, popcount
from spielwerk.games.skat.dds.bounds import (
    NO_VALUE_MAX,
    NO_VALUE_MIN,
    last_trick,
    two_tricks,
)
from spielwerk.games.skat.dds.keys import (
    MODE_DECLARER_TRICKS,
    MODE_DEFENDER_TRICKS,
    MODE_POINTS,
    points_reps,
)
from spielwerk.games.skat.dds.ordering import (
    HISTORY_CAP,
    LEAD_WIN_SHIFT,
    MAX_REPLIES,
    ORDER_FOLLOW,
    ORDER_HASH_MOVE,
    ORDER_HISTORY,
    ORDER_KILLERS,
    ORDER_LEAD,
    SCORE_FOLLOW_SHIFT,
    SCORE_HASH_SHIFT,
    SCORE_KILLER0_SHIFT,
    SCORE_KILLER1_SHIFT,
    SCORE_LEAD_SHIFT,
    TIE_BITS,
    follow_score,
    lead_wins,
    null_forces,
    record_cutoff,
)
from spielwerk.games.skat.kernel import card_power, class_mask, legal_cards, trick_winner
from spielwerk.search.tt import (
    bound_of,
    cluster_bucket,
    cluster_probe,
    cluster_store,
    entry_hi,
    entry_lo,
    entry_move,
)

# fields of stats
STAT_NODES, STAT_TT_HITS, STAT_TT_STORES, STAT_ABORTED = range(4)
STATS_SIZE = 4

# per-ply fields of the explicit search stack
F_NT, F_LEAD, F_A, F_B, F_WA, F_WB, F_BEST, F_BM, F_N, F_I = range(10)
F_SLOT, F_KEY, F_GAIN, F_T0, F_T1, F_P, F_UP, F_CARD, F_CUT = range(10, 19)
STACK_FIELDS = 19


@njit(cache=True)
def after_child(
    hands: np.ndarray, table: np.ndarray, stk: np.ndarray, ply: int, r: int, decl: int
) -> None:
    """Undo the move of ``ply`` and fold the child's value ``r`` into its window."""
    c = stk[ply, F_CARD]
    p = stk[ply, F_P]
    hands[p] |= 1 << c
    table[0] = stk[ply, F_T0]
    table[1] = stk[ply, F_T1]
    v = stk[ply, F_GAIN] + r
    if p == decl:
        if v > stk[ply, F_BEST]:
            stk[ply, F_BEST] = v
            stk[ply, F_BM] = c
            if v > stk[ply, F_A]:
                stk[ply, F_A] = v
    else:
        if v < stk[ply, F_BEST]:
            stk[ply, F_BEST] = v
            stk[ply, F_BM] = c
            if v < stk[ply, F_B]:
                stk[ply, F_B] = v
    if stk[ply, F_A] >= stk[ply, F_B]:
        stk[ply, F_CUT] = 1


@njit(inline="always")
def settle(hands: np.ndarray, table: np.ndarray, nt: int, leader: int, alpha: int, beta: int,
            rem: int, node_limit: int, stats: np.ndarray, game: int, decl: int,
            mode: int) -> tuple[bool, int, int]:
    """A node answered without searching its moves: (done, value, upper bound).

    Over the node limit (unwind), no cards left, a window the bound decides, or the
    last one or two tricks (scored directly)."""
    if node_limit > 0 and stats[STAT_NODES] > node_limit:
        stats[STAT_ABORTED] = 1  # unwind: no more moves, no table stores
        return True, 0, 0
    if nt == 0 and rem == 0:
        return True, 0, 0
    upper = 0
    if mode == MODE_POINTS:
        upper = mask_points(rem)
        for i in range(nt):
            upper += POINTS32[table[i]]
    else:
        upper = (popcount(rem) + nt) // 3
    if beta <= 0:
        return True, 0, upper
    if alpha >= upper:
        return True, upper, upper
    if nt + popcount(rem) == 3:
        # the last trick: every card left is forced, so score it directly
        return True, last_trick(hands, table, nt, leader, game, decl, mode), upper
    if nt == 0 and popcount(rem) == 6:
        # two tricks left: at most eight lines, minimax them directly
        return True, two_tricks(hands, leader, game, decl, mode), upper
    return False, 0, upper


@njit(inline="always")
def probe(table_tt: np.ndarray, key: int, leader: int, alpha: int, beta: int, gen: int,
           ttmask: int, stats: np.ndarray) -> tuple[bool, int, int, int, int, int]:
    """The table at a trick boundary: (done, value, alpha, beta, slot, hash move). A bound
    that decides the window answers the node; otherwise it narrows the window."""
    slot = cluster_bucket(key, leader, ttmask)  # bucket of four entries
    found = cluster_probe(table_tt, slot, key, leader, gen)
    if found < 0:
        return False, 0, alpha, beta, slot, -1
    d = table_tt[found + 1]
    hash_move = entry_move(d)
    lo = entry_lo(d)
    hi = entry_hi(d)
    if lo >= beta or lo == hi:
        stats[STAT_TT_HITS] += 1
        return True, lo, alpha, beta, slot, hash_move
    if hi <= alpha:
        stats[STAT_TT_HITS] += 1
        return True, hi, alpha, beta, slot, hash_move
    return False, 0, max(alpha, lo), min(beta, hi), slot, hash_move


@njit(inline="always")
def generate_moves(hands: np.ndarray, table: np.ndarray, nt: int, p: int, rem: int, led: int,
              game: int, fast_key: bool, use_equiv: bool, order: np.ndarray,
              group: np.ndarray, opos: np.ndarray, mbuf: np.ndarray, sbuf: np.ndarray,
              ply: int) -> int:
    """The moves of ``p`` into ``mbuf[ply]`` (one card per equivalence group when
    ``use_equiv``), with their power order as the tie score in ``sbuf[ply]``; their count."""
    legal = legal_cards(hands[p], led, game)
    n = 0
    if use_equiv and not fast_key:
        live = rem & ~legal
        for i in range(nt):
            live |= 1 << table[i]
        prev_mine = False
        pg = -1
        for pos in range(32):
            c = order[pos]
            if (legal >> c) & 1:
                g = group[pos]
                if g != pg:
                    pg = g
                    prev_mine = False
                if not prev_mine:
                    mbuf[ply, n] = c
                    sbuf[ply, n] = 31 - pos
                    n += 1
                prev_mine = True
            elif (live >> c) & 1:
                prev_mine = False
    else:  # every legal card, or (fast_key) one per points-equivalence class
        mv = legal
        if fast_key:
            live = rem & ~legal
            for i in range(nt):
                live |= 1 << table[i]
            mv = points_reps(legal, live)
        while mv != 0:
            c = lowest_bit(mv)
            mv &= mv - 1
            mbuf[ply, n] = c
            sbuf[ply, n] = 31 - opos[c]
            n += 1
    return n


@njit(inline="always")
def score_moves(hands: np.ndarray, nt: int, leader: int, p: int, t0: int, t1: int, game: int,
           decl: int, mode: int, use_order: int, hash_move: int, hist: np.ndarray,
           killers: np.ndarray, mbuf: np.ndarray, sbuf: np.ndarray, ply: int, n: int) -> None:
    """Ordering scores of the ``n`` moves above their tie bits: the hash move, then fewest
    replies for the next player (leading) or winning cheaply (following), then killers,
    then the history of best moves."""
    nxt = hands[(p + 1) % 3]
    k0 = killers[ply, 0]
    k1 = killers[ply, 1]
    # following: who wins the trick so far, and is it my side?
    bp = 0
    mine_wins = False
    if nt > 0:
        bp = card_power(t0, t0, game)
        bw = 0
        if nt == 2:
            p1 = card_power(t1, t0, game)
            if p1 > bp:
                bp = p1
                bw = 1
        mine_wins = (((leader + bw) % 3) == decl) == (p == decl)
    for i in range(n):
        c = mbuf[ply, i]
        s = 0
        if use_order & ORDER_HISTORY:
            s = min(hist[p, c], HISTORY_CAP)
        if c == hash_move and use_order & ORDER_HASH_MOVE:
            s += 1 << SCORE_HASH_SHIFT
        if c == k0 and use_order & ORDER_KILLERS:
            s += 1 << SCORE_KILLER0_SHIFT
        elif c == k1 and use_order & ORDER_KILLERS:
            s += 1 << SCORE_KILLER1_SHIFT
        if nt == 0:
            if use_order & ORDER_LEAD:  # lead: fewest replies for the next player
                f = nxt & class_mask(game, c)
                b = popcount(f) if f != 0 else popcount(nxt)
                x = 0
                if p != decl and mode != MODE_DEFENDER_TRICKS:
                    # a defender leads: a card his side wins first
                    x = lead_wins(hands, p, c, game, decl)
                elif p != decl:  # null: a card the declarer must win
                    x = null_forces(hands, p, c, game, decl)
                s += ((x << LEAD_WIN_SHIFT) + MAX_REPLIES - b) << SCORE_LEAD_SHIFT
        elif use_order & ORDER_FOLLOW:  # win cheaply, feed a winning partner
            s += follow_score(c, t0, nt, bp, mine_wins, game) << SCORE_FOLLOW_SHIFT
        sbuf[ply, i] = (s << TIE_BITS) | sbuf[ply, i]  # ties: power order


@njit(inline="always")
def sort_moves(mbuf: np.ndarray, sbuf: np.ndarray, ply: int, n: int) -> None:
    """Insertion sort of the ``n`` moves of ``ply``, highest score first."""
    for i in range(1, n):
        c = mbuf[ply, i]
        s = sbuf[ply, i]
        j = i - 1
        while j >= 0 and sbuf[ply, j] < s:
            mbuf[ply, j + 1] = mbuf[ply, j]
            sbuf[ply, j + 1] = sbuf[ply, j]
            j -= 1
        mbuf[ply, j + 1] = c
        sbuf[ply, j + 1] = s


@njit(inline="always")
def open_node(stk: np.ndarray, ply: int, alpha: int, beta: int, p: int, n: int, slot: int,
          key: int, t0: int, t1: int, upper: int, decl: int) -> None:
    """Store a node about to search its ``n`` moves in its stack row."""
    stk[ply, F_A] = alpha
    stk[ply, F_B] = beta
    stk[ply, F_WA] = alpha
    stk[ply, F_WB] = beta
    stk[ply, F_BEST] = NO_VALUE_MIN if p == decl else NO_VALUE_MAX
    stk[ply, F_BM] = -1
    stk[ply, F_N] = n
    stk[ply, F_I] = 0
    stk[ply, F_SLOT] = slot
    stk[ply, F_KEY] = key
    stk[ply, F_T0] = t0
    stk[ply, F_T1] = t1
    stk[ply, F_P] = p
    stk[ply, F_UP] = upper
    stk[ply, F_CUT] = 0


@njit(inline="always")
def play_card(hands: np.ndarray, table: np.ndarray, stk: np.ndarray, c: int, ply: int, game: int,
          decl: int, mode: int) -> None:
    """Play card ``c`` at ``ply`` and set up the child's row: the next seat in the trick, or
    after the third card the trick's winner to lead with the window shifted by its gain."""
    p = stk[ply, F_P]
    nt = stk[ply, F_NT]
    leader = stk[ply, F_LEAD]
    a = stk[ply, F_A]
    b = stk[ply, F_B]
    hands[p] &= ~(1 << c)
    stk[ply, F_CARD] = c
    if nt < 2:
        table[nt] = c
        stk[ply, F_GAIN] = 0
        stk[ply + 1, F_NT] = nt + 1
        stk[ply + 1, F_LEAD] = leader
        stk[ply + 1, F_A] = a
        stk[ply + 1, F_B] = b
        return
    t0 = stk[ply, F_T0]
    t1 = stk[ply, F_T1]
    winner = (leader + trick_winner(t0, t1, c, game)) % 3
    gain = 0
    if mode == MODE_POINTS:
        if winner == decl:
            gain = POINTS32[t0] + POINTS32[t1] + POINTS32[c]
    elif mode == MODE_DECLARER_TRICKS:
        if winner == decl:
            gain = 1
    elif winner != decl:
        gain = 1
    stk[ply, F_GAIN] = gain
    stk[ply + 1, F_NT] = 0
    stk[ply + 1, F_LEAD] = winner
    stk[ply + 1, F_A] = a - gain
    stk[ply + 1, F_B] = b - gain


@njit(inline="always")
def close_node(hands: np.ndarray, stk: np.ndarray, ply: int, use_order: int, hist: np.ndarray,
           killers: np.ndarray, table_tt: np.ndarray, gen: int, stats: np.ndarray) -> int:
    """A node whose moves are done: record a cutoff's move, store the value's bound at a
    trick boundary (not after an abort); its value."""
    best = stk[ply, F_BEST]
    best_move = stk[ply, F_BM]
    if (use_order & (ORDER_HISTORY | ORDER_KILLERS)) and best_move >= 0 \
            and stk[ply, F_CUT] != 0:
        record_cutoff(hist, killers, ply, stk[ply, F_P], best_move,
                      popcount(hands[0] | hands[1] | hands[2]))
    slot = stk[ply, F_SLOT]
    if slot >= 0 and stats[STAT_ABORTED] == 0:
        depth = popcount(hands[0] | hands[1] | hands[2])
        cluster_store(table_tt, slot, stk[ply, F_KEY], stk[ply, F_LEAD], gen, depth, best,
                      bound_of(best, stk[ply, F_WA], stk[ply, F_WB]), best_move, 0,
                      stk[ply, F_UP])
        stats[STAT_TT_STORES] += 1
    return best
