"""The search loop of the double-dummy solver: fail-soft alpha-beta on an explicit stack.

The declarer is MAX, the two defenders MIN; the value searched is the rest of
the game from the node. The table (shared :mod:`spielwerk.search.tt`
clustered table) is used at trick boundaries only; exact values come from
the shared null-window driver (:mod:`spielwerk.search.nullwindow`, MTD-bi).
No recursion: every node lives in a row of ``stk`` (numba kernels must not
recurse, see ARCHITECTURE.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.dds.bits import POINTS32, lowest_bit, mask_points, popcount
from spielwerk.games.skat.dds.bounds import (
    NO_VALUE_MAX,
    NO_VALUE_MIN,
    gain,
    last_trick,
    quick_points,
    two_tricks,
    upper_bound,
)
from spielwerk.games.skat.dds.keys import (
    MODE_DECLARER_TRICKS,
    MODE_DEFENDER_TRICKS,
    MODE_POINTS,
    points_reps,
    tt_key,
    tt_key_points,
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
from spielwerk.search.nullwindow import narrow, next_beta
from spielwerk.search.tt import (
    bound_of,
    cluster_bucket,
    cluster_probe,
    cluster_store,
    entry_hi,
    entry_lo,
    entry_move,
)

MAX_PLY = 34
MAX_MOVES = 16
"""Room per ply in the move buffers (a hand holds at most twelve cards)."""

# fields of cfg, the search context
(CFG_GAME, CFG_DECL, CFG_MODE, CFG_USE_TT, CFG_USE_EQUIV, CFG_ORDER, CFG_GEN, CFG_TT_MASK,
 CFG_NODE_LIMIT, CFG_USE_QUICK) = range(10)
CFG_SIZE = 10
# fields of stats
STAT_NODES, STAT_TT_HITS, STAT_TT_STORES, STAT_ABORTED = range(4)
STATS_SIZE = 4

# per-ply fields of the explicit search stack
_F_NT, _F_LEAD, _F_A, _F_B, _F_WA, _F_WB, _F_BEST, _F_BM, _F_N, _F_I = range(10)
_F_SLOT, _F_KEY, _F_GAIN, _F_T0, _F_T1, _F_P, _F_UP, _F_CARD, _F_CUT = range(10, 19)
STACK_FIELDS = 19

_NO_REFCOUNTS: dict[str, Any] = {"_nrt": False}
"""numba's option for a kernel that allocates nothing: no reference counts on its arrays."""


@njit(cache=True)
def _after_child(
    hands: np.ndarray, table: np.ndarray, stk: np.ndarray, ply: int, r: int, decl: int
) -> None:
    """Undo the move of ``ply`` and fold the child's value ``r`` into its window."""
    c = stk[ply, _F_CARD]
    p = stk[ply, _F_P]
    hands[p] |= 1 << c
    table[0] = stk[ply, _F_T0]
    table[1] = stk[ply, _F_T1]
    v = stk[ply, _F_GAIN] + r
    if p == decl:
        if v > stk[ply, _F_BEST]:
            stk[ply, _F_BEST] = v
            stk[ply, _F_BM] = c
            if v > stk[ply, _F_A]:
                stk[ply, _F_A] = v
    else:
        if v < stk[ply, _F_BEST]:
            stk[ply, _F_BEST] = v
            stk[ply, _F_BM] = c
            if v < stk[ply, _F_B]:
                stk[ply, _F_B] = v
    if stk[ply, _F_A] >= stk[ply, _F_B]:
        stk[ply, _F_CUT] = 1


@njit(inline="always")
def _settle(hands: np.ndarray, table: np.ndarray, nt: int, leader: int, alpha: int, beta: int,
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
def _probe(table_tt: np.ndarray, key: int, leader: int, alpha: int, beta: int, gen: int,
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
def _generate(hands: np.ndarray, table: np.ndarray, nt: int, p: int, rem: int, led: int,
              game: int, fast_key: bool, use_equiv: bool, order: np.ndarray,
              group: np.ndarray, opos: np.ndarray, mbuf: np.ndarray, sbuf: np.ndarray,
              ply: int) -> int:
    """The moves of ``p`` into ``mbuf[ply]`` (one card per equivalence group when
    ``use_equiv``), with their power order as the tie score in ``sbuf[ply]``; their count."""
    legal = legal_cards(hands[p], led, game)
    n = 0
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
    elif use_equiv:
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
    else:
        mv = legal
        while mv != 0:
            c = lowest_bit(mv)
            mv &= mv - 1
            mbuf[ply, n] = c
            sbuf[ply, n] = 31 - opos[c]
            n += 1
    return n


@njit(inline="always")
def _score(hands: np.ndarray, nt: int, leader: int, p: int, t0: int, t1: int, game: int,
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
def _sort(mbuf: np.ndarray, sbuf: np.ndarray, ply: int, n: int) -> None:
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
def _open(stk: np.ndarray, ply: int, alpha: int, beta: int, p: int, n: int, slot: int,
          key: int, t0: int, t1: int, upper: int, decl: int) -> None:
    """Store a node about to search its ``n`` moves in its stack row."""
    stk[ply, _F_A] = alpha
    stk[ply, _F_B] = beta
    stk[ply, _F_WA] = alpha
    stk[ply, _F_WB] = beta
    stk[ply, _F_BEST] = NO_VALUE_MIN if p == decl else NO_VALUE_MAX
    stk[ply, _F_BM] = -1
    stk[ply, _F_N] = n
    stk[ply, _F_I] = 0
    stk[ply, _F_SLOT] = slot
    stk[ply, _F_KEY] = key
    stk[ply, _F_T0] = t0
    stk[ply, _F_T1] = t1
    stk[ply, _F_P] = p
    stk[ply, _F_UP] = upper
    stk[ply, _F_CUT] = 0


@njit(inline="always")
def _play(hands: np.ndarray, table: np.ndarray, stk: np.ndarray, c: int, ply: int, game: int,
          decl: int, mode: int) -> None:
    """Play card ``c`` at ``ply`` and set up the child's row: the next seat in the trick, or
    after the third card the trick's winner to lead with the window shifted by its gain."""
    p = stk[ply, _F_P]
    nt = stk[ply, _F_NT]
    leader = stk[ply, _F_LEAD]
    a = stk[ply, _F_A]
    b = stk[ply, _F_B]
    hands[p] &= ~(1 << c)
    stk[ply, _F_CARD] = c
    if nt < 2:
        table[nt] = c
        stk[ply, _F_GAIN] = 0
        stk[ply + 1, _F_NT] = nt + 1
        stk[ply + 1, _F_LEAD] = leader
        stk[ply + 1, _F_A] = a
        stk[ply + 1, _F_B] = b
        return
    t0 = stk[ply, _F_T0]
    t1 = stk[ply, _F_T1]
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
    stk[ply, _F_GAIN] = gain
    stk[ply + 1, _F_NT] = 0
    stk[ply + 1, _F_LEAD] = winner
    stk[ply + 1, _F_A] = a - gain
    stk[ply + 1, _F_B] = b - gain


@njit(inline="always")
def _close(hands: np.ndarray, stk: np.ndarray, ply: int, use_order: int, hist: np.ndarray,
           killers: np.ndarray, table_tt: np.ndarray, gen: int, stats: np.ndarray) -> int:
    """A node whose moves are done: record a cutoff's move, store the value's bound at a
    trick boundary (not after an abort); its value."""
    best = stk[ply, _F_BEST]
    best_move = stk[ply, _F_BM]
    if (use_order & (ORDER_HISTORY | ORDER_KILLERS)) and best_move >= 0 \
            and stk[ply, _F_CUT] != 0:
        record_cutoff(hist, killers, ply, stk[ply, _F_P], best_move,
                      popcount(hands[0] | hands[1] | hands[2]))
    slot = stk[ply, _F_SLOT]
    if slot >= 0 and stats[STAT_ABORTED] == 0:
        depth = popcount(hands[0] | hands[1] | hands[2])
        cluster_store(table_tt, slot, stk[ply, _F_KEY], stk[ply, _F_LEAD], gen, depth, best,
                      bound_of(best, stk[ply, _F_WA], stk[ply, _F_WB]), best_move, 0,
                      stk[ply, _F_UP])
        stats[STAT_TT_STORES] += 1
    return best


@njit(cache=True)
def alpha_beta(
    hands: np.ndarray,
    table: np.ndarray,
    nt0: int,
    leader0: int,
    alpha0: int,
    beta0: int,
    ply0: int,
    cfg: np.ndarray,
    order: np.ndarray,
    group: np.ndarray,
    table_tt: np.ndarray,
    hist: np.ndarray,
    killers: np.ndarray,
    mbuf: np.ndarray,
    sbuf: np.ndarray,
    stats: np.ndarray,
    stk: np.ndarray,
) -> int:
    """Fail-soft alpha-beta on the remaining value, with an explicit stack (:func:`_search`).

    ``table[0:nt0]`` are the cards of the current trick. ``ply0`` is the
    first stack level used (the root helpers search children at level 1).
    """
    opos = np.empty(32, dtype=np.int64)  # position of each card in the power order
    for i in range(32):
        opos[order[i]] = i
    return _search(hands, table, nt0, leader0, alpha0, beta0, ply0, cfg, order,
                   group, table_tt, hist, killers, mbuf, sbuf, stats, stk, opos)


@njit(cache=True, **_NO_REFCOUNTS)  # type: ignore[untyped-decorator]  # _nrt: not in the stubs
def _search(
    hands: np.ndarray,
    table: np.ndarray,
    nt0: int,
    leader0: int,
    alpha0: int,
    beta0: int,
    ply0: int,
    cfg: np.ndarray,
    order: np.ndarray,
    group: np.ndarray,
    table_tt: np.ndarray,
    hist: np.ndarray,
    killers: np.ndarray,
    mbuf: np.ndarray,
    sbuf: np.ndarray,
    stats: np.ndarray,
    stk: np.ndarray,
    opos: np.ndarray,
) -> int:
    """The search loop of :func:`alpha_beta` (``opos[c]``: card ``c``'s place in ``order``).

    Each step is a helper inlined into this loop (``inline="always"``): a node is
    settled by its bounds (:func:`_settle`) or the table (:func:`_probe`), or its moves
    are generated (:func:`_generate`), ordered (:func:`_score`, :func:`_sort`) and
    opened (:func:`_open`); then each move is played (:func:`_play`) and its child's
    value folded in (:func:`_after_child`) until a cutoff, and the node is closed
    (:func:`_close`: cutoff history, table store).

    Compiled without numba's reference counting (``_nrt=False``; it allocates nothing):
    every inlined helper's array arguments would otherwise be counted references, and
    those counts cost a third more time per node (measured: 1.34x the one-function
    loop with them, 0.98x without, same node counts; docs/skat-dds.md).
    """
    game = cfg[CFG_GAME]
    decl = cfg[CFG_DECL]
    mode = cfg[CFG_MODE]
    use_tt = cfg[CFG_USE_TT] != 0
    use_equiv = cfg[CFG_USE_EQUIV] != 0
    use_order = cfg[CFG_ORDER]
    use_quick = cfg[CFG_USE_QUICK] != 0 and game != NULL
    gen = cfg[CFG_GEN]
    ttmask = cfg[CFG_TT_MASK]
    node_limit = cfg[CFG_NODE_LIMIT]
    fast_key = mode == MODE_POINTS and use_equiv
    ply = ply0
    stk[ply, _F_NT] = nt0
    stk[ply, _F_LEAD] = leader0
    stk[ply, _F_A] = alpha0
    stk[ply, _F_B] = beta0
    entering = True
    r = 0
    while True:
        if entering:  # enter a node: settle it, or open it with its moves ordered
            entering = False
            stats[STAT_NODES] += 1
            nt = stk[ply, _F_NT]
            leader = stk[ply, _F_LEAD]
            alpha = stk[ply, _F_A]
            beta = stk[ply, _F_B]
            rem = hands[0] | hands[1] | hands[2]
            done, r, upper = _settle(hands, table, nt, leader, alpha, beta, rem, node_limit,
                                     stats, game, decl, mode)
            slot = -1
            key = 0
            hash_move = -1
            if not done and nt == 0 and use_tt:
                key = tt_key_points(hands) if fast_key else tt_key(hands, order, group)
                done, r, alpha, beta, slot, hash_move = _probe(table_tt, key, leader, alpha,
                                                               beta, gen, ttmask, stats)
            if not done and nt == 0 and use_quick and mode == MODE_POINTS:
                qd, qf = quick_points(hands, rem, leader, game, decl)
                if qd >= beta:  # the declarer surely takes these points
                    r = qd
                    done = True
                elif upper - qf <= alpha:  # the defenders surely take these
                    r = upper - qf
                    done = True
            if not done:
                p = (leader + nt) % 3
                t0 = table[0]
                t1 = table[1]
                n = _generate(hands, table, nt, p, rem, t0 if nt > 0 else -1, game, fast_key,
                              use_equiv, order, group, opos, mbuf, sbuf, ply)
                if use_order and n > 1:
                    _score(hands, nt, leader, p, t0, t1, game, decl, mode, use_order,
                           hash_move, hist, killers, mbuf, sbuf, ply, n)
                if n > 1:
                    _sort(mbuf, sbuf, ply, n)
                _open(stk, ply, alpha, beta, p, n, slot, key, t0, t1, upper, decl)
                continue
        else:  # the next move, or close the node
            i = stk[ply, _F_I]
            if i < stk[ply, _F_N] and stk[ply, _F_CUT] == 0 and stats[STAT_ABORTED] == 0:
                stk[ply, _F_I] = i + 1
                _play(hands, table, stk, mbuf[ply, i], ply, game, decl, mode)
                ply += 1
                entering = True
                continue
            r = _close(hands, stk, ply, use_order, hist, killers, table_tt, gen, stats)
        # return r to the parent
        if ply == ply0:
            return r
        ply -= 1
        _after_child(hands, table, stk, ply, r, decl)


@njit(cache=True)
def value(hands: np.ndarray, table: np.ndarray, nt: int, leader: int, target: int,
          null_window: bool, threshold: bool, cfg: np.ndarray, order: np.ndarray,
          group: np.ndarray, table_tt: np.ndarray, hist: np.ndarray, killers: np.ndarray,
          mbuf: np.ndarray, sbuf: np.ndarray, stats: np.ndarray, stk: np.ndarray,
          ply: int) -> int:
    """The exact remaining value, or (``threshold``) 1 if it is >= ``target`` else 0.

    With ``null_window`` a threshold is one null-window test and an exact
    value comes from the shared MTD-bi driver; without, one full-window search.
    """
    upper = upper_bound(hands, table, nt, cfg[CFG_MODE])
    if threshold:
        if target <= 0:
            return 1
        if target > upper:
            return 0
        if null_window:
            v = alpha_beta(hands, table, nt, leader, target - 1, target, ply, cfg, order, group,
                           table_tt, hist, killers, mbuf, sbuf, stats, stk)
        else:
            v = alpha_beta(hands, table, nt, leader, -1, upper + 1, ply, cfg, order, group,
                           table_tt, hist, killers, mbuf, sbuf, stats, stk)
        return 1 if v >= target else 0
    if not null_window:
        return alpha_beta(hands, table, nt, leader, -1, upper + 1, ply, cfg, order, group,
                          table_tt, hist, killers, mbuf, sbuf, stats, stk)
    lower = 0
    g = 0
    while lower < upper:
        beta = next_beta(lower, upper, g, 0, 1, True)
        g = alpha_beta(hands, table, nt, leader, beta - 1, beta, ply, cfg, order, group,
                       table_tt, hist, killers, mbuf, sbuf, stats, stk)
        lower, upper = narrow(lower, upper, beta, g, 0, 1)
    return lower


@njit(cache=True)
def _wanted(legal: int, live: int, want: int, pos: int, order: np.ndarray, group: np.ndarray,
            use_equiv: bool) -> bool:
    """Is a card of the run starting at ``order[pos]`` among the ``want`` cards?"""
    g = group[pos]
    for pos2 in range(pos, 32):
        c2 = order[pos2]
        if group[pos2] != g or (pos2 > pos and not use_equiv):
            break
        if (legal >> c2) & 1:
            if (want >> c2) & 1:
                return True
        elif (live >> c2) & 1:
            break
    return False


@njit(cache=True)
def _card_value(hands: np.ndarray, table: np.ndarray, nt: int, leader: int, p: int, c: int,
                target: int, threshold: bool, null_window: bool, cfg: np.ndarray,
                order: np.ndarray, group: np.ndarray, table_tt: np.ndarray, hist: np.ndarray,
                killers: np.ndarray, mbuf: np.ndarray, sbuf: np.ndarray, stats: np.ndarray,
                stk: np.ndarray) -> int:
    """Value after the mover ``p`` plays ``c`` at the root (its trick's gain included)."""
    t0 = table[0]
    t1 = table[1]
    hands[p] &= ~(1 << c)
    if nt < 2:
        table[nt] = c
        nleader = leader
        nnt = nt + 1
        g = 0
    else:
        nleader = (leader + trick_winner(t0, t1, c, cfg[CFG_GAME])) % 3
        nnt = 0
        g = gain(nleader, t0, t1, c, cfg[CFG_DECL], cfg[CFG_MODE])
    if threshold:
        v = value(hands, table, nnt, nleader, target - g, null_window, True, cfg, order, group,
                  table_tt, hist, killers, mbuf, sbuf, stats, stk, 1)
    else:
        v = g + value(hands, table, nnt, nleader, 0, null_window, False, cfg, order, group,
                      table_tt, hist, killers, mbuf, sbuf, stats, stk, 1)
    hands[p] |= 1 << c
    table[0] = t0
    table[1] = t1
    return v


@njit(cache=True)
def move_values(hands: np.ndarray, table: np.ndarray, nt: int, leader: int, target: int,
                threshold: bool, null_window: bool, cfg: np.ndarray, order: np.ndarray,
                group: np.ndarray, table_tt: np.ndarray, hist: np.ndarray,
                killers: np.ndarray, mbuf: np.ndarray, sbuf: np.ndarray, stats: np.ndarray,
                stk: np.ndarray, out: np.ndarray, want: int) -> None:
    """``out[c]`` = value after card c for every legal card (-1 for illegal cards).

    Exact: the remaining value from the root (the card's trick included);
    ``threshold``: 1 if that value is >= ``target``, else 0. Equivalent cards
    share the value of the representative searched. Only cards in the mask
    ``want`` (and their equivalents) are searched; the others get -2.
    """
    use_equiv = cfg[CFG_USE_EQUIV] != 0
    for c in range(32):
        out[c] = -1
    p = (leader + nt) % 3
    legal = legal_cards(hands[p], table[0] if nt > 0 else -1, cfg[CFG_GAME])
    live = (hands[0] | hands[1] | hands[2]) & ~legal
    for i in range(nt):
        live |= 1 << table[i]
    rep = -1
    pg = -1
    for pos in range(32):
        c = order[pos]
        g = group[pos]
        if g != pg:
            pg = g
            rep = -1
        if (legal >> c) & 1:
            if rep >= 0 and use_equiv:
                out[c] = out[rep]
                continue
            rep = c
            if not _wanted(legal, live, want, pos, order, group, use_equiv):
                out[c] = -2
                continue
            out[c] = _card_value(hands, table, nt, leader, p, c, target, threshold, null_window,
                                 cfg, order, group, table_tt, hist, killers, mbuf, sbuf, stats,
                                 stk)
        elif (live >> c) & 1:
            rep = -1

