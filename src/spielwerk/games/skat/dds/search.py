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
from spielwerk.games.skat.dds.bounds import (
    gain,
    quick_points,
    upper_bound,
)
from spielwerk.games.skat.dds.keys import (
    MODE_POINTS,
    tt_key,
    tt_key_points,
)
from spielwerk.games.skat.dds.steps import (
    F_A,
    F_B,
    F_CUT,
    F_I,
    F_LEAD,
    F_N,
    F_NT,
    STAT_ABORTED,
    STAT_NODES,
    after_child,
    close_node,
    generate_moves,
    open_node,
    play_card,
    probe,
    score_moves,
    settle,
    sort_moves,
)
from spielwerk.games.skat.kernel import legal_cards, trick_winner
from spielwerk.search.nullwindow import narrow, next_beta

MAX_PLY = 34
MAX_MOVES = 16
"""Room per ply in the move buffers (a hand holds at most twelve cards)."""

# fields of cfg, the search context
(CFG_GAME, CFG_DECL, CFG_MODE, CFG_USE_TT, CFG_USE_EQUIV, CFG_ORDER, CFG_GEN, CFG_TT_MASK,
 CFG_NODE_LIMIT, CFG_USE_QUICK) = range(10)
CFG_SIZE = 10
_NO_REFCOUNTS: dict[str, Any] = {"_nrt": False}
"""numba's option for a kernel that allocates nothing: no reference counts on its arrays."""


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
    settled by its bounds (:func:`~.steps.settle`) or the table (:func:`~.steps.probe`),
    or its moves are generated (:func:`~.steps.generate_moves`), ordered
    (:func:`~.steps.score_moves`, :func:`~.steps.sort_moves`) and opened
    (:func:`~.steps.open_node`); then each move is played (:func:`~.steps.play_card`)
    and its child's value folded in (:func:`~.steps.after_child`) until a cutoff, and
    the node is closed (:func:`~.steps.close_node`: cutoff history, table store).

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
    stk[ply, F_NT] = nt0
    stk[ply, F_LEAD] = leader0
    stk[ply, F_A] = alpha0
    stk[ply, F_B] = beta0
    entering = True
    r = 0
    while True:
        if entering:  # enter a node: settle it, or open it with its moves ordered
            entering = False
            stats[STAT_NODES] += 1
            nt = stk[ply, F_NT]
            leader = stk[ply, F_LEAD]
            alpha = stk[ply, F_A]
            beta = stk[ply, F_B]
            rem = hands[0] | hands[1] | hands[2]
            done, r, upper = settle(hands, table, nt, leader, alpha, beta, rem, node_limit,
                                     stats, game, decl, mode)
            slot = -1
            key = 0
            hash_move = -1
            if not done and nt == 0 and use_tt:
                key = tt_key_points(hands) if fast_key else tt_key(hands, order, group)
                done, r, alpha, beta, slot, hash_move = probe(table_tt, key, leader, alpha,
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
                n = generate_moves(hands, table, nt, p, rem, t0 if nt > 0 else -1, game, fast_key,
                              use_equiv, order, group, opos, mbuf, sbuf, ply)
                if use_order and n > 1:
                    score_moves(hands, nt, leader, p, t0, t1, game, decl, mode, use_order,
                           hash_move, hist, killers, mbuf, sbuf, ply, n)
                if n > 1:
                    sort_moves(mbuf, sbuf, ply, n)
                open_node(stk, ply, alpha, beta, p, n, slot, key, t0, t1, upper, decl)
                continue
        else:  # the next move, or close the node
            i = stk[ply, F_I]
            if i < stk[ply, F_N] and stk[ply, F_CUT] == 0 and stats[STAT_ABORTED] == 0:
                stk[ply, F_I] = i + 1
                play_card(hands, table, stk, mbuf[ply, i], ply, game, decl, mode)
                ply += 1
                entering = True
                continue
            r = close_node(hands, stk, ply, use_order, hist, killers, table_tt, gen, stats)
        # return r to the parent
        if ply == ply0:
            return r
        ply -= 1
        after_child(hands, table, stk, ply, r, decl)


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

