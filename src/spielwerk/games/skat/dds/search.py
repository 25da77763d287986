"""The search loop of the double-dummy solver: fail-soft alpha-beta on an explicit stack.

The declarer is MAX, the two defenders MIN; the value searched is the rest of
the game from the node. The table (shared :mod:`spielwerk.search.tt`
clustered table) is used at trick boundaries only; exact values come from
the shared null-window driver (:mod:`spielwerk.search.nullwindow`, MTD-bi).
No recursion: every node lives in a row of ``stk`` (numba kernels must not
recurse, see ARCHITECTURE.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.dds.bits import popcount
from spielwerk.games.skat.dds.bounds import (
    NO_VALUE_MAX,
    NO_VALUE_MIN,
    gain,
    last_trick,
    quick_points,
    two_tricks,
    upper_bound,
)
from spielwerk.games.skat.dds.keys import MODE_POINTS, tt_key, tt_key_points
from spielwerk.games.skat.dds.ordering import (
    ORDER_HISTORY,
    ORDER_KILLERS,
    generate,
    record_cutoff,
    score_moves,
    sort_moves,
)
from spielwerk.games.skat.kernel import legal_cards, trick_winner
from spielwerk.search import tt
from spielwerk.search.nullwindow import narrow, next_beta

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


@njit(cache=True)
def _leaf(hands: np.ndarray, table: np.ndarray, nt: int, leader: int, alpha: int, beta: int,
          cfg: np.ndarray, stats: np.ndarray) -> tuple[bool, int, int]:
    """(answered, value, upper bound) of a node before any table use or search."""
    rem = hands[0] | hands[1] | hands[2]
    if cfg[CFG_NODE_LIMIT] > 0 and stats[STAT_NODES] > cfg[CFG_NODE_LIMIT]:
        stats[STAT_ABORTED] = 1  # unwind: no more moves, no table stores
        return True, 0, 0
    if nt == 0 and rem == 0:
        return True, 0, 0
    mode = cfg[CFG_MODE]
    upper = upper_bound(hands, table, nt, mode)
    if beta <= 0:
        return True, 0, upper
    if alpha >= upper:
        return True, upper, upper
    cards = popcount(rem)
    if nt + cards == 3:  # the last trick: every card left is forced, so score it directly
        return True, last_trick(hands, table, nt, leader, cfg[CFG_GAME], cfg[CFG_DECL],
                                mode), upper
    if nt == 0 and cards == 6:  # two tricks left: at most eight lines, minimax them
        return True, two_tricks(hands, leader, cfg[CFG_GAME], cfg[CFG_DECL], mode), upper
    return False, 0, upper


@njit(cache=True)
def _probe(hands: np.ndarray, leader: int, alpha: int, beta: int, cfg: np.ndarray,
           order: np.ndarray, group: np.ndarray, table_tt: np.ndarray, stats: np.ndarray
           ) -> tuple[bool, int, int, int, int, int, int]:
    """Table probe at a trick boundary: (answered, value, alpha, beta, hash move, bucket, key)."""
    if cfg[CFG_MODE] == MODE_POINTS and cfg[CFG_USE_EQUIV]:
        key = tt_key_points(hands)
    else:
        key = tt_key(hands, order, group)
    bucket = tt.cluster_bucket(key, leader, cfg[CFG_TT_MASK])
    e = tt.cluster_probe(table_tt, bucket, key, leader, cfg[CFG_GEN])
    if e < 0:
        return False, 0, alpha, beta, -1, bucket, key
    d = table_tt[e + 1]
    lo = tt.entry_lo(d)
    hi = tt.entry_hi(d)
    move = tt.entry_move(d)
    if lo >= beta or lo == hi:
        stats[STAT_TT_HITS] += 1
        return True, lo, alpha, beta, move, bucket, key
    if hi <= alpha:
        stats[STAT_TT_HITS] += 1
        return True, hi, alpha, beta, move, bucket, key
    return False, 0, max(alpha, lo), min(beta, hi), move, bucket, key


@njit(cache=True)
def _quick_cut(hands: np.ndarray, leader: int, alpha: int, beta: int, upper: int,
               cfg: np.ndarray) -> tuple[bool, int]:
    """Cut on the sure points of either side (points objective, suit and grand)."""
    rem = hands[0] | hands[1] | hands[2]
    dec, dfd = quick_points(hands, rem, leader, cfg[CFG_GAME], cfg[CFG_DECL])
    if dec >= beta:  # the declarer surely takes these points
        return True, dec
    if upper - dfd <= alpha:  # the defenders surely take these
        return True, upper - dfd
    return False, 0


@njit(cache=True)
def _open(hands: np.ndarray, table: np.ndarray, stk: np.ndarray, ply: int, alpha: int,
          beta: int, hash_move: int, bucket: int, key: int, upper: int, cfg: np.ndarray,
          order: np.ndarray, group: np.ndarray, opos: np.ndarray, hist: np.ndarray,
          killers: np.ndarray, mbuf: np.ndarray, sbuf: np.ndarray) -> None:
    """Generate and order the moves of an unanswered node and set up its stack row."""
    nt = stk[ply, _F_NT]
    leader = stk[ply, _F_LEAD]
    game = cfg[CFG_GAME]
    decl = cfg[CFG_DECL]
    mode = cfg[CFG_MODE]
    flags = cfg[CFG_ORDER]
    p = (leader + nt) % 3
    legal = legal_cards(hands[p], table[0] if nt > 0 else -1, game)
    live = (hands[0] | hands[1] | hands[2]) & ~legal
    for i in range(nt):
        live |= 1 << table[i]
    n = generate(legal, live, mode == MODE_POINTS and cfg[CFG_USE_EQUIV] != 0,
                 cfg[CFG_USE_EQUIV] != 0, order, group, opos, mbuf, sbuf, ply)
    if flags and n > 1:
        score_moves(hands, table, nt, leader, p, n, flags, hash_move, game, decl, mode, hist,
                    killers, mbuf, sbuf, ply)
    if n > 1:
        sort_moves(mbuf, sbuf, ply, n)
    stk[ply, _F_A] = alpha
    stk[ply, _F_B] = beta
    stk[ply, _F_WA] = alpha
    stk[ply, _F_WB] = beta
    stk[ply, _F_BEST] = NO_VALUE_MIN if p == decl else NO_VALUE_MAX
    stk[ply, _F_BM] = -1
    stk[ply, _F_N] = n
    stk[ply, _F_I] = 0
    stk[ply, _F_SLOT] = bucket
    stk[ply, _F_KEY] = key
    stk[ply, _F_T0] = table[0]
    stk[ply, _F_T1] = table[1]
    stk[ply, _F_P] = p
    stk[ply, _F_UP] = upper
    stk[ply, _F_CUT] = 0


@njit(cache=True)
def _enter(hands: np.ndarray, table: np.ndarray, stk: np.ndarray, ply: int, cfg: np.ndarray,
           order: np.ndarray, group: np.ndarray, opos: np.ndarray, table_tt: np.ndarray,
           hist: np.ndarray, killers: np.ndarray, mbuf: np.ndarray, sbuf: np.ndarray,
           stats: np.ndarray) -> tuple[bool, int]:
    """Enter the node of ``stk[ply]``: (answered, value), or its moves set up to search."""
    stats[STAT_NODES] += 1
    nt = stk[ply, _F_NT]
    leader = stk[ply, _F_LEAD]
    alpha = stk[ply, _F_A]
    beta = stk[ply, _F_B]
    done, r, upper = _leaf(hands, table, nt, leader, alpha, beta, cfg, stats)
    if done:
        return True, r
    bucket = -1
    key = 0
    hash_move = -1
    if nt == 0 and cfg[CFG_USE_TT]:
        done, r, alpha, beta, hash_move, bucket, key = _probe(
            hands, leader, alpha, beta, cfg, order, group, table_tt, stats)
        if done:
            return True, r
    if nt == 0 and cfg[CFG_USE_QUICK] and cfg[CFG_MODE] == MODE_POINTS \
            and cfg[CFG_GAME] != NULL:
        done, r = _quick_cut(hands, leader, alpha, beta, upper, cfg)
        if done:
            return True, r
    _open(hands, table, stk, ply, alpha, beta, hash_move, bucket, key, upper, cfg, order,
          group, opos, hist, killers, mbuf, sbuf)
    return False, 0


@njit(cache=True)
def _play(hands: np.ndarray, table: np.ndarray, stk: np.ndarray, ply: int, c: int,
          cfg: np.ndarray) -> None:
    """Play the card ``c`` of node ``ply`` and set up the child's row ``ply + 1``."""
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
    winner = (leader + trick_winner(t0, t1, c, cfg[CFG_GAME])) % 3
    g = gain(winner, t0, t1, c, cfg[CFG_DECL], cfg[CFG_MODE])
    stk[ply, _F_GAIN] = g
    stk[ply + 1, _F_NT] = 0
    stk[ply + 1, _F_LEAD] = winner
    stk[ply + 1, _F_A] = a - g
    stk[ply + 1, _F_B] = b - g


@njit(cache=True)
def _close(hands: np.ndarray, stk: np.ndarray, ply: int, cfg: np.ndarray,
           table_tt: np.ndarray, hist: np.ndarray, killers: np.ndarray,
           stats: np.ndarray) -> int:
    """Finish node ``ply``: history and killers, the table store; its value."""
    best = stk[ply, _F_BEST]
    best_move = stk[ply, _F_BM]
    cards_left = popcount(hands[0] | hands[1] | hands[2])
    if (cfg[CFG_ORDER] & (ORDER_HISTORY | ORDER_KILLERS)) and best_move >= 0 \
            and stk[ply, _F_CUT] != 0:
        record_cutoff(hist, killers, ply, stk[ply, _F_P], best_move, cards_left)
    bucket = stk[ply, _F_SLOT]
    if bucket >= 0 and stats[STAT_ABORTED] == 0:
        kind = tt.bound_of(best, stk[ply, _F_WA], stk[ply, _F_WB])
        tt.cluster_store(table_tt, bucket, stk[ply, _F_KEY], stk[ply, _F_LEAD], cfg[CFG_GEN],
                         cards_left, best, kind, best_move, 0, stk[ply, _F_UP])
        stats[STAT_TT_STORES] += 1
    return best


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


@njit(cache=True)
def alpha_beta(hands: np.ndarray, table: np.ndarray, nt0: int, leader0: int, alpha0: int,
               beta0: int, ply0: int, cfg: np.ndarray, order: np.ndarray, group: np.ndarray,
               table_tt: np.ndarray, hist: np.ndarray, killers: np.ndarray, mbuf: np.ndarray,
               sbuf: np.ndarray, stats: np.ndarray, stk: np.ndarray) -> int:
    """Fail-soft alpha-beta on the remaining value, with an explicit stack.

    ``table[0:nt0]`` are the cards of the current trick. ``ply0`` is the
    first stack level used (the root helpers search children at level 1).
    """
    opos = np.empty(32, dtype=np.int64)  # position of each card in the power order
    for i in range(32):
        opos[order[i]] = i
    ply = ply0
    stk[ply, _F_NT] = nt0
    stk[ply, _F_LEAD] = leader0
    stk[ply, _F_A] = alpha0
    stk[ply, _F_B] = beta0
    entering = True
    while True:
        if entering:
            done, r = _enter(hands, table, stk, ply, cfg, order, group, opos, table_tt, hist,
                             killers, mbuf, sbuf, stats)
            if not done:
                entering = False
                continue
        else:
            i = stk[ply, _F_I]
            if i < stk[ply, _F_N] and stk[ply, _F_CUT] == 0 and stats[STAT_ABORTED] == 0:
                stk[ply, _F_I] = i + 1
                _play(hands, table, stk, ply, mbuf[ply, i], cfg)
                ply += 1
                entering = True
                continue
            r = _close(hands, stk, ply, cfg, table_tt, hist, killers, stats)
        # the node's value r goes to its parent
        if ply == ply0:
            return r
        ply -= 1
        entering = False
        _after_child(hands, table, stk, ply, r, cfg[CFG_DECL])


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

