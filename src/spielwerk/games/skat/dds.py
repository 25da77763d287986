"""Double-dummy Skat solver (DDSS after Kupferschmid 2003): all hands known, perfect play.

The search is a numba alpha-beta on 32-bit card masks. The declarer is MAX, the
two defenders are MIN nodes, and the turn order follows the trick winners. The
searched value is the *rest of the game* from the current node (card points
of the tricks still to be won, the cards on the table included), so a
transposition-table entry is reusable whatever the history was (seed section
"Optimierungen der Alpha-Beta-Suche").

Three objectives ("modes") share one search:

* ``MODE_POINTS`` - card points the declarer wins (61 / 90 thresholds, exact value);
* ``MODE_DECLARER_TRICKS`` - tricks the declarer wins (schwarz: all of them);
* ``MODE_DEFENDER_TRICKS`` - tricks the defenders win (null: the declarer wins
  the null game iff the defenders take every remaining trick).

Techniques, each with a switch in :class:`SolverConfig` for the ablation:

* transposition table at trick boundaries, keyed by the remaining cards (as
  owner per card) and the player to move; each entry keeps a lower and an
  upper bound of the remaining value (``VALID`` when they meet, ``LBOUND`` /
  ``UBOUND`` otherwise), packed with the best card into two 64-bit words, four
  entries per bucket (one cache line);
* equivalence classes (partition search): cards of one suit class that are
  adjacent in rank order and equal in points are interchangeable - in suit
  and grand games the jacks and 9-8-7, in the trick objectives (null,
  schwarz) any cards of a suit class. Only one card of a run held by the
  mover with no other live card between is searched, and the table key
  compacts each such group so entries generalise across histories;
* move ordering: the best move stored in the table entry first; leading, a
  defender first tries cards his side wins in a one-trick look-ahead (null:
  cards the declarer must win), then the card that leaves the next player
  the fewest legal replies; following, win cheaply, give points to a winning
  partner, or throw the cheapest card. A history of cut-off moves and two
  killer moves per ply are available as switches but cost nodes in our
  measurements, so they are off by default;
* quick tricks (sure points): at a trick boundary the top trumps of either
  side, and the cards the opponents must give to them; the side on lead
  cashing its top trumps and, once the opponents are out of trumps, its top
  side-suit cards, with the opponents' forced cards; a node cuts when that
  decides the window. The last two tricks are minimaxed directly;
* null-window tests for thresholds and MTD(f) for exact values (switch off:
  one full-window alpha-beta search).

Early cut-offs use the points counted so far: a node stops as soon as the
remaining points cannot change the outcome of the window. Depth is bounded
(at most 30 plies), so recursion cannot run away.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat.cards import DISPLAY_ORDER
from spielwerk.games.skat.kernel import (
    GRAND,
    NULL,
    card_power,
    class_mask,
    legal_cards,
    trick_winner,
    trump_mask,
)

MODE_POINTS = 0
MODE_DECLARER_TRICKS = 1
MODE_DEFENDER_TRICKS = 2

MAX_PLY = 34

# cfg indices
_GAME, _DECL, _MODE, _USE_TT, _USE_EQUIV, _USE_ORDER, _GEN, _TT_MASK, _NODE_LIMIT = range(9)
# stats indices
_NODES, _TT_HITS, _TT_STORES, _ABORTED = range(4)

_POINTS32 = np.array([(0, 0, 0, 3, 4, 10, 11, 2)[c & 7] for c in range(32)], dtype=np.int64)


class SolverError(SpielwerkError, ValueError):
    """A position or query the solver cannot answer (bad game code, bad threshold)."""


class SearchLimitError(SolverError):
    """The search passed its node limit (``SolverConfig.node_limit``) without an answer."""


# --------------------------------------------------------------------------- bit helpers
def _ctpop_typer(typingctx, x):  # type: ignore[no-untyped-def]
    """The CPU's population count (LLVM ``ctpop``) on a 64-bit integer."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return sig, codegen


_ctpop: Any = intrinsic(_ctpop_typer)


def _cttz_typer(typingctx, x):  # type: ignore[no-untyped-def]
    """Index of the lowest set bit (LLVM ``cttz``) of a non-zero 64-bit integer."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return sig, codegen


_cttz: Any = intrinsic(_cttz_typer)


@njit(cache=True)
def _popcount(x: int) -> int:
    return _ctpop(x & 0xFFFFFFFF)


@njit(cache=True)
def _mask_points(m: int) -> int:
    return (
        3 * _popcount(m & 0x08080808)
        + 4 * _popcount(m & 0x10101010)
        + 10 * _popcount(m & 0x20202020)
        + 11 * _popcount(m & 0x40404040)
        + 2 * _popcount(m & 0x80808080)
    )


# --------------------------------------------------------------------------- card order
def card_order(game: int, mode: int, equivalence: bool) -> tuple[np.ndarray, np.ndarray]:
    """Cards by suit class in descending power, and a group id per position.

    Cards of one group are interchangeable when no live card lies between
    them: equal points (jacks; 9-8-7) in the points objective, a whole suit
    class in the trick objectives. Without ``equivalence`` every card is its
    own group.
    """
    classes: list[list[int]] = []
    jacks = [31, 23, 15, 7]
    plain = [6, 5, 4, 3, 2, 1, 0]  # A T K Q 9 8 7
    if game == NULL:
        null_order = [6, 4, 3, 7, 5, 2, 1, 0]  # A K Q J T 9 8 7
        for s in (3, 2, 1, 0):
            classes.append([s * 8 + r for r in null_order])
    elif game == GRAND:
        classes.append(jacks)
        for s in (3, 2, 1, 0):
            classes.append([s * 8 + r for r in plain])
    else:
        classes.append(jacks + [game * 8 + r for r in plain])
        for s in (3, 2, 1, 0):
            if s != game:
                classes.append([s * 8 + r for r in plain])
    order: list[int] = []
    group: list[int] = []
    gid = 0
    for cls in classes:
        prev_points = -1
        first = True
        for c in cls:
            pts = int(_POINTS32[c])
            if not equivalence:
                gid += 1
            elif mode != MODE_POINTS:
                if first:
                    gid += 1
            elif first or pts != prev_points or pts != 0 and (c & 7) != 7:
                # points objective: only the jacks and the zero-point 9-8-7 form runs
                gid += 1
            first = False
            prev_points = pts
            order.append(c)
            group.append(gid)
    assert sorted(order) == list(range(32))
    return np.array(order, dtype=np.int64), np.array(group, dtype=np.int64)


# --------------------------------------------------------------------------- search kernel
@njit(cache=True)
def _tt_key(hands: np.ndarray, order: np.ndarray, group: np.ndarray) -> int:
    """Owner (1..3) of each remaining card, compacted to the top of its group."""
    key = 0
    j = 0
    pg = -1
    start = 0
    for pos in range(32):
        g = group[pos]
        if g != pg:
            pg = g
            start = pos
            j = start
        c = order[pos]
        bit = 1 << c
        owner = 0
        if hands[0] & bit:
            owner = 1
        elif hands[1] & bit:
            owner = 2
        elif hands[2] & bit:
            owner = 3
        if owner:
            key |= owner << (2 * j)
            j += 1
    return key


def _compact_table(bits: int) -> np.ndarray:
    """``T[rem * 2**bits + mine]``: the cards ``mine`` of a group moved to its top.

    A group's remaining cards (``rem``, bit i = the i-th card from the bottom)
    keep their order and move to the highest bits, so positions that differ
    only in which card of the group is gone map to the same pattern.
    """
    size = 1 << bits
    out = np.zeros(size * size, dtype=np.int64)
    for rem in range(size):
        live = [i for i in range(bits) if rem >> i & 1]
        shift = bits - len(live)
        for mine in range(size):
            if mine & ~rem:
                continue
            packed = sum(1 << j for j, i in enumerate(live) if mine >> i & 1)
            out[rem * size + mine] = packed << shift
    return out


_COMPACT3 = _compact_table(3)  # 9-8-7 of a suit: bits 2, 1, 0 of the suit's byte
_COMPACT4 = _compact_table(4)  # jacks: bits 7, 15, 23, 31 gathered to 0..3


def _rep_table(bits: int) -> np.ndarray:
    """``T[live * 2**bits + mine]``: the top card of each run of ``mine`` in a group.

    ``live`` holds every card of the group still in play or on the table
    (``mine`` among them); a run is the mover's cards with no other live card
    between, and only its top card needs searching.
    """
    size = 1 << bits
    out = np.zeros(size * size, dtype=np.int64)
    for live in range(size):
        for mine in range(size):
            if mine & ~live:
                continue
            reps = 0
            prev_mine = False
            for b in range(bits - 1, -1, -1):
                if mine >> b & 1:
                    if not prev_mine:
                        reps |= 1 << b
                    prev_mine = True
                elif live >> b & 1:
                    prev_mine = False
            out[live * size + mine] = reps
    return out


_REP3 = _rep_table(3)
_REP4 = _rep_table(4)


@njit(cache=True)
def _spread(x: int) -> int:
    """Bit i of a 32-bit mask to bit 2i (a Morton interleave)."""
    x = x & 0xFFFFFFFF
    x = (x | (x << 16)) & 0x0000FFFF0000FFFF
    x = (x | (x << 8)) & 0x00FF00FF00FF00FF
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0F
    x = (x | (x << 2)) & 0x3333333333333333
    x = (x | (x << 1)) & 0x5555555555555555
    return x


@njit(cache=True)
def _jacks4(h: int) -> int:
    return ((h >> 7) & 1) | ((h >> 14) & 2) | ((h >> 21) & 4) | ((h >> 28) & 8)


@njit(cache=True)
def _map_groups(h: int, ctx: int, t4: np.ndarray, t3: np.ndarray) -> int:
    """``h`` with the jacks and the 9-8-7 of each suit replaced through a group table.

    ``t4`` (jacks) and ``t3`` (9-8-7 of a suit) are indexed by the group's bits in
    ``ctx`` and in ``h``; aces, tens, kings and queens pass through unchanged.
    """
    out = h & 0x78787878
    j = t4[_jacks4(ctx) * 16 + _jacks4(h)]
    out |= ((j & 1) << 7) | ((j & 2) << 14) | ((j & 4) << 21) | ((j & 8) << 28)
    for s in range(4):
        sh = 8 * s
        out |= t3[((ctx >> sh) & 7) * 8 + ((h >> sh) & 7)] << sh
    return out


@njit(cache=True)
def _compact_hand(h: int, rem: int) -> int:
    """``h`` with its jacks and its 9-8-7 of each suit moved to the top of their group."""
    return _map_groups(h, rem, _COMPACT4, _COMPACT3)


@njit(cache=True)
def _points_reps(legal: int, live: int) -> int:
    """The legal cards worth searching in the points objective (equivalence on).

    The groups are the jacks and the 9-8-7 of each suit; of each run of the
    mover's cards in a group only the top card stays (see :func:`card_order`).
    """
    return _map_groups(legal, live | legal, _REP4, _REP3)


@njit(cache=True)
def _max_power(h: int, led: int, game: int) -> int:
    m = legal_cards(h, led, game)
    best = 0
    while m != 0:
        c = _cttz(m)
        m &= m - 1
        pw = card_power(c, led, game)
        if pw > best:
            best = pw
    return best


@njit(cache=True)
def _lead_wins(hands: np.ndarray, p: int, c: int, game: int, decl: int) -> int:
    """1 if the leader's side wins the trick when each follower plays his strongest card.

    A one-trick look-ahead for ordering a defender's leads (measured: for the
    declarer's leads it costs nodes).
    """
    p1 = (p + 1) % 3
    p2 = (p + 2) % 3
    w = p
    bp = card_power(c, c, game)
    pw = _max_power(hands[p1], c, game)
    if pw > bp:
        bp = pw
        w = p1
    pw = _max_power(hands[p2], c, game)
    if pw > bp:
        w = p2
    return 1 if (w == decl) == (p == decl) else 0


@njit(cache=True)
def _null_forces(hands: np.ndarray, p: int, c: int, game: int, decl: int) -> int:
    """1 if the declarer's weakest reply still beats the defenders' strongest cards."""
    m = legal_cards(hands[decl], c, game)
    lo = 1 << 20
    while m != 0:
        d = _cttz(m)
        m &= m - 1
        pw = card_power(d, c, game)
        if pw < lo:
            lo = pw
    hi = card_power(c, c, game)
    pw = _max_power(hands[3 - p - decl], c, game)
    if pw > hi:
        hi = pw
    return 1 if lo > hi else 0


@njit(cache=True)
def _tt_key_points(hands: np.ndarray) -> int:
    """The table key of :func:`_tt_key` for the points objective, by bit operations.

    The groups there are the jacks and the 9-8-7 of each suit; each is
    compacted to its top, then the owner of every card is interleaved into
    two bits (01, 10, 11 for seats 0, 1, 2; 00 gone).
    """
    rem = hands[0] | hands[1] | hands[2]
    c0 = _compact_hand(hands[0], rem)
    c1 = _compact_hand(hands[1], rem)
    c2 = _compact_hand(hands[2], rem)
    return _spread(c0 | c2) | (_spread(c1 | c2) << 1)


@njit(cache=True)
def _tt_index(key: int, leader: int, mask: int) -> int:
    h = (key ^ (key >> 31) ^ (leader * 0x9E3779B1)) * 0x2545F4914F6CDD1D
    h ^= h >> 29
    return h & mask


@njit(cache=True)
def _last_trick(
    hands: np.ndarray, table: np.ndarray, nt: int, leader: int, game: int, decl: int, mode: int
) -> int:
    """Value of the last trick when each player still to play holds one card."""
    c0 = table[0] if nt > 0 else _popcount(hands[leader] - 1)  # index of the single card
    c1 = table[1] if nt > 1 else _popcount(hands[(leader + 1) % 3] - 1)
    c2 = _popcount(hands[(leader + 2) % 3] - 1)
    winner = (leader + trick_winner(c0, c1, c2, game)) % 3
    if mode == MODE_POINTS:
        if winner == decl:
            return int(_POINTS32[c0] + _POINTS32[c1] + _POINTS32[c2])
        return 0
    if mode == MODE_DECLARER_TRICKS:
        return 1 if winner == decl else 0
    return 1 if winner != decl else 0


_PTS7 = np.array([sum((0, 0, 0, 3, 4, 10, 11)[r] for r in range(7) if f >> r & 1)
                  for f in range(128)], dtype=np.int64)


@njit(cache=True)
def _trump_bits(h: int, game: int) -> int:
    """The trumps of ``h`` in power order: the jacks above the trump suit's A..7."""
    j = _jacks4(h) << 7
    if game == GRAND:
        return j
    return j | ((h >> (8 * game)) & 0x7F)


@njit(cache=True)
def _trump_points(t: int) -> int:
    return 2 * _popcount(t >> 7) + _PTS7[t & 0x7F]


@njit(cache=True)
def _top_of(r: int, x: int) -> int:
    """The cards of ``r`` (power-ordered bits) above every card of ``r`` not in ``x``."""
    y = r & ~x
    y |= y >> 1
    y |= y >> 2
    y |= y >> 4
    y |= y >> 8
    return r & ~y


# Card ranks from cheapest to dearest (masks over the four suits) and their points.
_TIER_MASKS = np.array([0x07070707, 0x80808080, 0x08080808, 0x10101010, 0x20202020, 0x40404040],
                       np.int64)  # 9-8-7, jacks, queens, kings, tens, aces
_TIER_POINTS = np.array([0, 2, 3, 4, 10, 11], np.int64)


@njit(cache=True)
def _lowest_points(h: int, m: int) -> int:
    """The fewest points any ``m`` cards of ``h`` can hold (its m cheapest cards)."""
    total = 0
    for t in range(_TIER_MASKS.shape[0]):
        n = _popcount(h & _TIER_MASKS[t])
        if m <= n:
            return total + _TIER_POINTS[t] * m
        total += _TIER_POINTS[t] * n
        m -= n
    return total


@njit(cache=True)
def _quick_points(hands: np.ndarray, rem: int, leader: int, game: int, decl: int) -> int:
    """Card points each side surely wins (suit and grand): declarer * 256 + defenders.

    Top trumps: the remaining trumps above every trump of the other side win
    whatever trick they fall in, so their points go to the side holding them
    (the defenders count jointly), and so does one card of each opponent per
    such trick (at least the opponent's cheapest cards). Cashing: the leader
    leads his own highest trumps while they are the top ones, each wins and
    keeps the lead; once these rounds have drawn every opposing trump, his top
    remaining cards of each side suit win too (a partner can always let a
    winning card through, and a defender holding only trumps wins every trick
    left anyway). In these K tricks each opponent has to give all his trumps
    and K minus that many other cards, the leader's partner K cards. All are
    lower bounds on what the side can force.
    """
    tm = trump_mask(game)
    d1 = (decl + 1) % 3
    d2 = (decl + 2) % 3
    r = _trump_bits(rem, game)
    td = _trump_bits(hands[decl], game)
    dec = 0
    dfd = 0
    if r != 0:
        hi = r
        hi |= hi >> 1
        hi |= hi >> 2
        hi |= hi >> 4
        hi |= hi >> 8
        hi = hi ^ (hi >> 1)  # the highest remaining trump
        if hi & td:
            seq = _top_of(r, td)
            s = _popcount(seq)
            dec = (_trump_points(seq) + _lowest_points(hands[d1], s)
                   + _lowest_points(hands[d2], s))
        else:
            seq = _top_of(r, r & ~td)
            s1 = _popcount(seq & _trump_bits(hands[d1], game))
            s2 = _popcount(seq & _trump_bits(hands[d2], game))
            dfd = _trump_points(seq) + _lowest_points(hands[decl], max(s1, s2))
    hand = hands[leader]
    lt = _trump_bits(hand, game)
    kset = _top_of(r, lt)
    k = _popcount(kset)
    if leader == decl:
        t1 = _popcount(hands[d1] & tm)
        t2 = _popcount(hands[d2] & tm)
        cash = t1 <= k and t2 <= k
    else:
        td_n = _popcount(hands[decl] & tm)
        cash = td_n <= k
    q = _trump_points(kset)
    if cash:
        big_k = k
        for su in range(4):
            if su == game:
                continue
            sh = 8 * su
            top = _top_of((rem >> sh) & 0x7F, (hand >> sh) & 0x7F)
            q += _PTS7[top]
            big_k += _popcount(top)
        if leader == decl:
            q += (_mask_points(hands[d1] & tm) + _lowest_points(hands[d1] & ~tm, big_k - t1)
                  + _mask_points(hands[d2] & tm) + _lowest_points(hands[d2] & ~tm, big_k - t2))
            dec = max(dec, q)
        else:
            partner = hands[3 - leader - decl]
            q += (_mask_points(hands[decl] & tm)
                  + _lowest_points(hands[decl] & ~tm, big_k - td_n)
                  + _lowest_points(partner, big_k))
            dfd = max(dfd, q)
    elif leader == decl:
        dec = max(dec, q)
    else:
        dfd = max(dfd, q)
    return dec * 256 + dfd


@njit(cache=True)
def _gain(winner: int, c0: int, c1: int, c2: int, decl: int, mode: int) -> int:
    """What a finished trick adds to the objective."""
    if mode == MODE_POINTS:
        if winner == decl:
            return int(_POINTS32[c0] + _POINTS32[c1] + _POINTS32[c2])
        return 0
    if mode == MODE_DECLARER_TRICKS:
        return 1 if winner == decl else 0
    return 1 if winner != decl else 0


@njit(cache=True)
def _two_tricks(hands: np.ndarray, leader: int, game: int, decl: int, mode: int) -> int:
    """Exact value of a trick boundary with two cards in every hand (plain minimax).

    The leader has two cards, each follower at most two legal replies, and the
    last trick is forced: at most eight lines, cheaper than a table probe.
    """
    p1 = (leader + 1) % 3
    p2 = (leader + 2) % 3
    h0 = hands[leader]
    h1 = hands[p1]
    h2 = hands[p2]
    best0 = -1 if leader == decl else 1 << 20
    m0 = h0
    while m0 != 0:
        a = _cttz(m0)
        m0 &= m0 - 1
        best1 = -1 if p1 == decl else 1 << 20
        m1 = legal_cards(h1, a, game)
        while m1 != 0:
            b = _cttz(m1)
            m1 &= m1 - 1
            best2 = -1 if p2 == decl else 1 << 20
            m2 = legal_cards(h2, a, game)
            while m2 != 0:
                c = _cttz(m2)
                m2 &= m2 - 1
                w = (leader + trick_winner(a, b, c, game)) % 3
                v = _gain(w, a, b, c, decl, mode)
                r0 = h0 & ~(1 << a)  # the last trick, led by the winner
                r1 = h1 & ~(1 << b)
                r2 = h2 & ~(1 << c)
                x = _cttz(r0)
                y = _cttz(r1)
                z = _cttz(r2)
                if w == leader:
                    w2 = (w + trick_winner(x, y, z, game)) % 3
                elif w == p1:
                    w2 = (w + trick_winner(y, z, x, game)) % 3
                else:
                    w2 = (w + trick_winner(z, x, y, game)) % 3
                v += _gain(w2, x, y, z, decl, mode)
                if p2 == decl:
                    if v > best2:
                        best2 = v
                elif v < best2:
                    best2 = v
            if p1 == decl:
                if best2 > best1:
                    best1 = best2
            elif best2 < best1:
                best1 = best2
        if leader == decl:
            if best1 > best0:
                best0 = best1
        elif best1 < best0:
            best0 = best1
    return best0


# per-ply fields of the explicit search stack
_F_NT, _F_LEAD, _F_A, _F_B, _F_WA, _F_WB, _F_BEST, _F_BM, _F_N, _F_I = range(10)
_F_SLOT, _F_KEY, _F_GAIN, _F_T0, _F_T1, _F_P, _F_UP, _F_CARD, _F_CUT = range(10, 19)
_NF = 19


@njit(cache=True)
def _ab(
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
    tt: np.ndarray,
    hist: np.ndarray,
    killers: np.ndarray,
    mbuf: np.ndarray,
    sbuf: np.ndarray,
    stats: np.ndarray,
    stk: np.ndarray,
) -> int:
    """Fail-soft alpha-beta on the remaining value, with an explicit stack.

    ``table[0:nt0]`` are the cards of the current trick. ``ply0`` is the
    first stack level used (the root helpers search children at level 1).
    """
    game = cfg[_GAME]
    decl = cfg[_DECL]
    mode = cfg[_MODE]
    use_tt = cfg[_USE_TT] != 0
    use_equiv = cfg[_USE_EQUIV] != 0
    use_order = cfg[_USE_ORDER]
    use_quick = (use_order & 32) != 0 and game != NULL
    gen = cfg[_GEN]
    ttmask = cfg[_TT_MASK]
    fast_key = mode == MODE_POINTS and use_equiv
    opos = np.empty(32, dtype=np.int64)  # position of each card in the power order
    for i in range(32):
        opos[order[i]] = i
    ply = ply0
    stk[ply, _F_NT] = nt0
    stk[ply, _F_LEAD] = leader0
    stk[ply, _F_A] = alpha0
    stk[ply, _F_B] = beta0
    entering = True
    r = 0
    while True:
        if entering:
            # ------------------------------------------------------------ enter a node
            entering = False
            stats[_NODES] += 1
            nt = stk[ply, _F_NT]
            leader = stk[ply, _F_LEAD]
            alpha = stk[ply, _F_A]
            beta = stk[ply, _F_B]
            rem = hands[0] | hands[1] | hands[2]
            done = False
            t0 = -1
            t1 = -1
            upper = 0
            if cfg[_NODE_LIMIT] > 0 and stats[_NODES] > cfg[_NODE_LIMIT]:
                stats[_ABORTED] = 1  # unwind: no more moves, no table stores
                r = 0
                done = True
            elif nt == 0 and rem == 0:
                r = 0
                done = True
            else:
                t0 = table[0]
                t1 = table[1]
                if mode == MODE_POINTS:
                    upper = _mask_points(rem)
                    for i in range(nt):
                        upper += _POINTS32[table[i]]
                else:
                    upper = (_popcount(rem) + nt) // 3
                if beta <= 0:
                    r = 0
                    done = True
                elif alpha >= upper:
                    r = upper
                    done = True
                elif nt + _popcount(rem) == 3:
                    # the last trick: every card left is forced, so score it directly
                    r = _last_trick(hands, table, nt, leader, game, decl, mode)
                    done = True
                elif nt == 0 and _popcount(rem) == 6:
                    # two tricks left: at most eight lines, minimax them directly
                    r = _two_tricks(hands, leader, game, decl, mode)
                    done = True
            slot = -1
            key = 0
            hash_move = -1
            if not done and nt == 0 and use_tt:
                if fast_key:
                    key = _tt_key_points(hands)
                else:
                    key = _tt_key(hands, order, group)
                slot = _tt_index(key, leader, ttmask) & ~3  # bucket of four entries
                b2 = 2 * slot  # each entry: key, data
                found = -1
                d = 0
                for e in range(b2, b2 + 8, 2):
                    d = tt[e + 1]
                    if (d & 0xFF) == gen and tt[e] == key and ((d >> 14) & 3) == leader:
                        found = e
                        break
                if found >= 0:
                    hash_move = ((d >> 16) & 63) - 1
                    lo = (d >> 22) & 511
                    hi = (d >> 31) & 511
                    if lo >= beta or lo == hi:
                        stats[_TT_HITS] += 1
                        r = lo
                        done = True
                    elif hi <= alpha:
                        stats[_TT_HITS] += 1
                        r = hi
                        done = True
                    else:
                        if lo > alpha:
                            alpha = lo
                        if hi < beta:
                            beta = hi
            if not done and nt == 0 and use_quick and mode == MODE_POINTS:
                q = _quick_points(hands, rem, leader, game, decl)
                if (q >> 8) >= beta:  # the declarer surely takes these points
                    r = q >> 8
                    done = True
                elif upper - (q & 255) <= alpha:  # the defenders surely take these
                    r = upper - (q & 255)
                    done = True
            if not done:
                p = (leader + nt) % 3
                hand = hands[p]
                led = t0 if nt > 0 else -1
                legal = legal_cards(hand, led, game)
                n = 0
                if fast_key:
                    live = rem & ~legal
                    for i in range(nt):
                        live |= 1 << table[i]
                    mv = _points_reps(legal, live)
                    while mv != 0:
                        c = _cttz(mv)
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
                        c = _cttz(mv)
                        mv &= mv - 1
                        mbuf[ply, n] = c
                        sbuf[ply, n] = 31 - opos[c]
                        n += 1
                if use_order and n > 1:
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
                        # hash move, then fewest replies for the next player, then
                        # killers, then the history of best moves
                        s = 0
                        if use_order & 2:
                            s = hist[p, c]
                            if s > (1 << 30) - 1:
                                s = (1 << 30) - 1
                        if c == hash_move and use_order & 1:
                            s += 1 << 52
                        if c == k0 and use_order & 8:
                            s += 1 << 32
                        elif c == k1 and use_order & 8:
                            s += 1 << 31
                        if nt == 0:
                            if use_order & 16:  # lead: fewest replies for the next player
                                f = nxt & class_mask(game, c)
                                b = _popcount(f) if f != 0 else _popcount(nxt)
                                x = 0
                                if p != decl and mode != MODE_DEFENDER_TRICKS:
                                    # a defender leads: a card his side wins first
                                    x = _lead_wins(hands, p, c, game, decl)
                                elif p != decl:  # null: a card the declarer must win
                                    x = _null_forces(hands, p, c, game, decl)
                                s += ((x << 4) + 16 - b) << 40
                        elif use_order & 4:  # follow: win cheaply, feed a winning partner
                            pw = card_power(c, t0, game)
                            if nt == 2 and mine_wins:  # last, partner winning: most points
                                h = (100 + _POINTS32[c]) << 7
                            elif pw > bp:
                                if nt == 2:
                                    h = (300 + _POINTS32[c]) << 7
                                else:
                                    h = (200 + 127 - min(pw, 127)) << 7
                            elif mine_wins:
                                h = (100 + _POINTS32[c]) << 7
                            else:  # losing: the fewest points, then the weakest card
                                h = ((100 - _POINTS32[c]) << 7) + 127 - min(pw, 127)
                            s += h << 33
                        sbuf[ply, i] = (s << 5) | sbuf[ply, i]  # ties: power order
                if n > 1:
                    for i in range(1, n):  # insertion sort, descending score
                        c = mbuf[ply, i]
                        s = sbuf[ply, i]
                        j = i - 1
                        while j >= 0 and sbuf[ply, j] < s:
                            mbuf[ply, j + 1] = mbuf[ply, j]
                            sbuf[ply, j + 1] = sbuf[ply, j]
                            j -= 1
                        mbuf[ply, j + 1] = c
                        sbuf[ply, j + 1] = s
                stk[ply, _F_A] = alpha
                stk[ply, _F_B] = beta
                stk[ply, _F_WA] = alpha
                stk[ply, _F_WB] = beta
                stk[ply, _F_BEST] = -1 if p == decl else 1 << 20
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
            else:
                # immediate answer: return r to the parent
                if ply == ply0:
                    return r
                ply -= 1
                _after_child(hands, table, stk, ply, r, decl)
        else:
            # ---------------------------------------------------- next move or finish
            i = stk[ply, _F_I]
            n = stk[ply, _F_N]
            if i < n and stk[ply, _F_CUT] == 0 and stats[_ABORTED] == 0:
                stk[ply, _F_I] = i + 1
                c = mbuf[ply, i]
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
                else:
                    t0 = stk[ply, _F_T0]
                    t1 = stk[ply, _F_T1]
                    w = trick_winner(t0, t1, c, game)
                    winner = (leader + w) % 3
                    gain = 0
                    if mode == MODE_POINTS:
                        if winner == decl:
                            gain = _POINTS32[t0] + _POINTS32[t1] + _POINTS32[c]
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
                ply += 1
                entering = True
            else:
                # ------------------------------------------------------ finish the node
                best = stk[ply, _F_BEST]
                best_move = stk[ply, _F_BM]
                p = stk[ply, _F_P]
                if use_order and best_move >= 0 and stk[ply, _F_CUT] != 0:
                    rem = hands[0] | hands[1] | hands[2]
                    weight = _popcount(rem) + 1
                    hist[p, best_move] += weight * weight
                    if killers[ply, 0] != best_move:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = best_move
                slot = stk[ply, _F_SLOT]
                if slot >= 0 and stats[_ABORTED] == 0:
                    key = stk[ply, _F_KEY]
                    leader = stk[ply, _F_LEAD]
                    wa = stk[ply, _F_WA]
                    wb = stk[ply, _F_WB]
                    depth = _popcount(hands[0] | hands[1] | hands[2])
                    b2 = 2 * slot
                    found = -1
                    victim = b2
                    vdepth = 1 << 20
                    d = 0
                    for e in range(b2, b2 + 8, 2):
                        d = tt[e + 1]
                        if (d & 0xFF) != gen:
                            if vdepth >= 0:  # an empty or stale entry goes first
                                victim = e
                                vdepth = -1
                            continue
                        if tt[e] == key and ((d >> 14) & 3) == leader:
                            found = e
                            break
                        if ((d >> 8) & 63) < vdepth:  # else the shallowest position
                            victim = e
                            vdepth = (d >> 8) & 63
                    if found >= 0:
                        lo = (d >> 22) & 511
                        hi = (d >> 31) & 511
                    else:
                        lo = 0
                        hi = stk[ply, _F_UP]
                        found = victim
                    if best <= wa:
                        if best < hi:
                            hi = best
                    elif best >= wb:
                        if best > lo:
                            lo = best
                    else:
                        lo = best
                        hi = best
                    tt[found] = key
                    tt[found + 1] = (gen | (depth << 8) | (leader << 14) | ((best_move + 1) << 16)
                                     | (lo << 22) | (hi << 31))
                    stats[_TT_STORES] += 1
                r = best
                if ply == ply0:
                    return r
                ply -= 1
                _after_child(hands, table, stk, ply, r, decl)


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
def _upper_bound(hands: np.ndarray, table: np.ndarray, nt: int, mode: int) -> int:
    rem = hands[0] | hands[1] | hands[2]
    if mode == MODE_POINTS:
        u = _mask_points(rem)
        for i in range(nt):
            u += _POINTS32[table[i]]
        return u
    return (_popcount(rem) + nt) // 3


@njit(cache=True)
def _value(
    hands: np.ndarray,
    table: np.ndarray,
    nt: int,
    leader: int,
    lo_t: int,
    null_window_flag: int,
    kind: int,
    cfg: np.ndarray,
    order: np.ndarray,
    group: np.ndarray,
    tt: np.ndarray,
    hist: np.ndarray,
    killers: np.ndarray,
    mbuf: np.ndarray,
    sbuf: np.ndarray,
    stats: np.ndarray,
    stk: np.ndarray,
    ply: int,
) -> int:
    """kind 0: exact remaining value (MTD(f) or full window); kind 1: 1 if value >= lo_t else 0.

    ``kind`` 1 with null window off searches the full window and compares.
    """
    upper = _upper_bound(hands, table, nt, cfg[_MODE])
    null_window = null_window_flag != 0
    if kind == 1:
        t = lo_t
        if t <= 0:
            return 1
        if t > upper:
            return 0
        if null_window:
            v = _ab(hands, table, nt, leader, t - 1, t, ply, cfg, order, group,
                    tt, hist, killers, mbuf, sbuf, stats, stk)
        else:
            v = _ab(hands, table, nt, leader, -1, upper + 1, ply, cfg, order, group,
                    tt, hist, killers, mbuf, sbuf, stats, stk)
        return 1 if v >= t else 0
    if not null_window:
        return _ab(hands, table, nt, leader, -1, upper + 1, ply, cfg, order, group,
                   tt, hist, killers, mbuf, sbuf, stats, stk)
    lower = 0
    while lower < upper:  # bisection with null-window tests (MTD-bi); fail-soft bounds
        beta = (lower + upper + 1) // 2
        g = _ab(hands, table, nt, leader, beta - 1, beta, ply, cfg, order, group,
                tt, hist, killers, mbuf, sbuf, stats, stk)
        if g < beta:
            upper = g
        else:
            lower = g
    return lower


@njit(cache=True)
def _move_values(
    hands: np.ndarray,
    table: np.ndarray,
    nt: int,
    leader: int,
    t: int,
    kind: int,
    null_window: int,
    cfg: np.ndarray,
    order: np.ndarray,
    group: np.ndarray,
    tt: np.ndarray,
    hist: np.ndarray,
    killers: np.ndarray,
    mbuf: np.ndarray,
    sbuf: np.ndarray,
    stats: np.ndarray,
    stk: np.ndarray,
    out: np.ndarray,
    want: int,
) -> None:
    """``out[c]`` = value after card c for every legal card (-1 for illegal cards).

    kind 0: exact remaining value from the root (the card's trick included);
    kind 1: 1 if that value is >= t, else 0. Equivalent cards share the value of
    the representative searched. Only cards in the mask ``want`` (and their
    equivalents) are searched; the others get -2.
    """
    game = cfg[_GAME]
    decl = cfg[_DECL]
    mode = cfg[_MODE]
    for c in range(32):
        out[c] = -1
    p = (leader + nt) % 3
    hand = hands[p]
    t0 = table[0]
    t1 = table[1]
    led = t0 if nt > 0 else -1
    legal = legal_cards(hand, led, game)
    rem = hands[0] | hands[1] | hands[2]
    live = rem & ~legal
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
            if rep >= 0 and cfg[_USE_EQUIV]:
                out[c] = out[rep]
                continue
            rep = c
            needed = False
            for pos2 in range(pos, 32):  # is any card of this run wanted?
                c2 = order[pos2]
                if group[pos2] != g or (pos2 > pos and not cfg[_USE_EQUIV]):
                    break
                if (legal >> c2) & 1:
                    if (want >> c2) & 1:
                        needed = True
                        break
                elif (live >> c2) & 1:
                    break
            if not needed:
                out[c] = -2
                continue
            hands[p] &= ~(1 << c)
            if nt < 2:
                table[nt] = c
                nleader = leader
                nnt = nt + 1
                gain = 0
            else:
                w = trick_winner(t0, t1, c, game)
                nleader = (leader + w) % 3
                nnt = 0
                gain = 0
                if mode == MODE_POINTS:
                    if nleader == decl:
                        gain = _POINTS32[t0] + _POINTS32[t1] + _POINTS32[c]
                elif mode == MODE_DECLARER_TRICKS:
                    if nleader == decl:
                        gain = 1
                elif nleader != decl:
                    gain = 1
            hi_flag = 1 if null_window else 0
            if kind == 0:
                v = gain + _value(hands, table, nnt, nleader, 0, hi_flag, 0, cfg, order,
                                  group, tt, hist, killers, mbuf, sbuf,
                                  stats, stk, 1)
            else:
                v = _value(hands, table, nnt, nleader, t - gain, hi_flag, 1, cfg, order, group,
                           tt, hist, killers, mbuf, sbuf, stats, stk, 1)
            hands[p] |= 1 << c
            table[0] = t0
            table[1] = t1
            out[c] = v
        elif (live >> c) & 1:
            rep = -1


# --------------------------------------------------------------------------- Python API
@dataclass(frozen=True)
class DealPosition:
    """A play-phase position with every hand known, in kernel form.

    ``hands`` are card masks per seat; ``trick`` the cards on the table in
    play order; ``leader`` the seat that led the current trick (the player to
    move is ``(leader + len(trick)) % 3``). ``declarer_points`` include the
    skat (it counts for the declarer); the trick counts are of finished tricks.
    """

    game: int
    declarer: int
    hands: tuple[int, int, int]
    trick: tuple[int, ...] = ()
    leader: int = 0
    declarer_points: int = 0
    defender_points: int = 0
    declarer_tricks: int = 0
    defender_tricks: int = 0

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % 3

    @property
    def tricks_left(self) -> int:
        """Tricks not finished yet (the current one included)."""
        return (sum(int(h).bit_count() for h in self.hands) + len(self.trick)) // 3


@dataclass(frozen=True)
class SolverConfig:
    """Switches for the ablation; all on by default."""

    transposition_table: bool = True
    equivalence: bool = True
    move_ordering: bool = True
    """Hash move from the table, then the card leaving the next player fewest replies."""
    history: bool = False
    """Also order by a history of cut-off moves (measured: costs nodes here, so off)."""
    killers: bool = False
    """Also try two killer moves per ply early (measured: costs nodes here, so off)."""
    null_window: bool = True
    quick_tricks: bool = True
    """Cut when the side on lead surely takes enough points by cashing top cards."""
    tt_log2: int = 20
    node_limit: int = 0
    """Give up (:class:`SearchLimitError`) after this many nodes in one call; 0: never."""

    def ordering_bits(self) -> int:
        if not self.move_ordering:
            return 0
        return (1 | 4 | 16 | (32 if self.quick_tricks else 0) | (2 if self.history else 0)
                | (8 if self.killers else 0))


QUERIES = ("exact", "61", "90", "schwarz", "null")


@dataclass
class SolveResult:
    """Answer to a query; ``moves`` maps each legal card to its value (int or bool)."""

    query: str
    value: int | bool
    best: int
    moves: dict[int, int | bool]
    nodes: int
    seconds: float
    extra: dict[str, int] = field(default_factory=dict)


class Solver:
    """A double-dummy solver with its own transposition table and move-ordering tables.

    Table entries are keyed by the full remaining position (owner of every
    card), so they stay valid across deals and calls with the same game,
    declarer and objective; :meth:`clear` empties everything (used for
    reproducible node counts).
    """

    def __init__(self, config: SolverConfig | None = None) -> None:
        self.config = config or SolverConfig()
        if not 2 <= self.config.tt_log2 <= 30:
            raise SolverError(f"tt_log2 must be 2..30 (a bucket holds 4 entries), "
                              f"not {self.config.tt_log2}")
        size = 1 << self.config.tt_log2
        # entry i: key at 2i, data at 2i + 1 (generation 8 bits, depth 6, leader 2,
        # best card + 1 6, lower bound 9, upper bound 9); buckets of four entries
        self._tt = np.zeros(2 * size, dtype=np.int64)
        self._hist = np.zeros((3, 32), dtype=np.int64)
        self._killers = np.full((MAX_PLY, 2), -1, dtype=np.int64)
        self._mbuf = np.zeros((MAX_PLY, 16), dtype=np.int64)
        self._sbuf = np.zeros((MAX_PLY, 16), dtype=np.int64)
        self.stats = np.zeros(4, dtype=np.int64)
        self._stk = np.zeros((MAX_PLY, _NF), dtype=np.int64)
        self._orders: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def clear(self) -> None:
        """Forget all table entries, history and killers."""
        self._tt[:] = 0
        self._hist[:] = 0
        self._killers[:] = -1
        self.stats[:] = 0

    @property
    def nodes(self) -> int:
        return int(self.stats[_NODES])

    # ---- internals
    def _prepare(
        self, pos: DealPosition, mode: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if not 0 <= pos.game <= 5:
            raise SolverError(f"game code {pos.game} is not 0..5")
        if not 0 <= pos.declarer <= 2 or not 0 <= pos.leader <= 2:
            raise SolverError("declarer and leader are seats 0..2")
        if len(pos.trick) > 2:
            raise SolverError("at most two cards can lie on the table before the next card")
        c = self.config
        okey = (pos.game, mode)
        if okey not in self._orders:
            self._orders[okey] = card_order(pos.game, mode, c.equivalence)
        order, group = self._orders[okey]
        gen = 1 + ((pos.game * 3 + pos.declarer) * 3 + mode) * 2 + int(c.equivalence)
        cfg = np.array(
            [pos.game, pos.declarer, mode, int(c.transposition_table), int(c.equivalence),
             c.ordering_bits(), gen, (1 << c.tt_log2) - 1,
             self.nodes + c.node_limit if c.node_limit else 0],
            dtype=np.int64,
        )
        hands = np.array(pos.hands, dtype=np.int64)
        table = np.full(3, -1, dtype=np.int64)
        for i, card in enumerate(pos.trick):
            table[i] = card
        return cfg, order, group, hands, table

    def _check_limit(self) -> None:
        if self.stats[_ABORTED]:
            self.stats[_ABORTED] = 0
            self._tt[:] = 0  # entries written on the way out may be incomplete
            raise SearchLimitError(f"gave up after the node limit {self.config.node_limit}")

    def _run_value(self, pos: DealPosition, mode: int, kind: int, target: int) -> int:
        cfg, order, group, hands, table = self._prepare(pos, mode)
        value = int(
            _value(hands, table, len(pos.trick), pos.leader, target,
                   int(self.config.null_window), kind, cfg, order, group, self._tt,
                   self._hist, self._killers, self._mbuf, self._sbuf, self.stats, self._stk, 0)
        )
        self._check_limit()
        return value

    def _run_moves(
        self, pos: DealPosition, mode: int, kind: int, target: int, want: int = 0xFFFFFFFF
    ) -> dict[int, int]:
        cfg, order, group, hands, table = self._prepare(pos, mode)
        out = np.full(32, -1, dtype=np.int64)
        _move_values(hands, table, len(pos.trick), pos.leader, target, kind,
                     int(self.config.null_window), cfg, order, group, self._tt, self._hist,
                     self._killers, self._mbuf, self._sbuf, self.stats, self._stk, out, want)
        self._check_limit()
        return {c: int(out[c]) for c in range(32) if out[c] >= 0 and (want >> c) & 1}

    def remaining_move_values(self, pos: DealPosition, mode: int) -> dict[int, int]:
        """Exact value of the rest of the game after each legal card, in objective ``mode``.

        ``MODE_POINTS``: card points the declarer takes from here on (the table's
        cards included); the trick modes count tricks.
        """
        if mode not in (MODE_POINTS, MODE_DECLARER_TRICKS, MODE_DEFENDER_TRICKS):
            raise SolverError(f"unknown objective {mode}")
        return self._run_moves(pos, mode, 0, 0)

    @staticmethod
    def _query_setup(pos: DealPosition, query: str) -> tuple[int, int, int | None]:
        """(mode, kind, target on the remaining value or None if already decided)."""
        if query not in QUERIES:
            raise SolverError(f"unknown query {query!r}; choose one of {', '.join(QUERIES)}")
        if query == "null":
            if pos.game != NULL:
                raise SolverError("the null query needs a null game")
            if pos.declarer_tricks > 0:
                return MODE_DEFENDER_TRICKS, 1, None
            return MODE_DEFENDER_TRICKS, 1, pos.tricks_left
        if pos.game == NULL:
            raise SolverError(f"query {query!r} is for suit and grand games; null has 'null'")
        if query == "exact":
            return MODE_POINTS, 0, 0
        if query == "schwarz":
            if pos.defender_tricks > 0:
                return MODE_DECLARER_TRICKS, 1, None
            return MODE_DECLARER_TRICKS, 1, pos.tricks_left
        need = int(query) - pos.declarer_points
        return MODE_POINTS, 1, need

    # ---- public queries
    def exact(self, pos: DealPosition) -> int:
        """The declarer's final card points (skat included) under perfect play."""
        if pos.game == NULL:
            raise SolverError("exact card points are not defined for null games")
        return pos.declarer_points + self._run_value(pos, MODE_POINTS, 0, 0)

    def reaches(self, pos: DealPosition, points: int) -> bool:
        """Can the declarer end with at least ``points`` card points?"""
        if pos.game == NULL:
            raise SolverError("point thresholds are for suit and grand games")
        return bool(self._run_value(pos, MODE_POINTS, 1, points - pos.declarer_points))

    def query(self, pos: DealPosition, query: str) -> bool | int:
        """``exact`` -> final declarer points; thresholds -> bool (declarer succeeds)."""
        mode, kind, target = self._query_setup(pos, query)
        if kind == 0:
            return self.exact(pos)
        if target is None:
            return False
        return bool(self._run_value(pos, mode, 1, target))

    def move_values(
        self, pos: DealPosition, query: str = "exact", cards: int = 0xFFFFFFFF
    ) -> dict[int, int | bool]:
        """Value after each legal card of the player to move (same meaning as :meth:`query`).

        ``cards`` (a mask) limits the answer to those legal cards; the others
        are not searched.
        """
        mode, kind, target = self._query_setup(pos, query)
        if target is None:  # already decided: every card fails
            leg = legal_cards(pos.hands[pos.to_move], pos.trick[0] if pos.trick else -1, pos.game)
            return {c: False for c in range(32) if leg >> c & cards >> c & 1}
        raw = self._run_moves(pos, mode, kind, target, cards)
        if kind == 0:
            return {c: pos.declarer_points + v for c, v in raw.items()}
        return {c: bool(v) for c, v in raw.items()}

    def solve(self, pos: DealPosition, query: str = "exact") -> SolveResult:
        """Value, best card and the value of every legal card, with nodes and time."""
        start_nodes = self.nodes
        t0 = time.perf_counter()
        moves = self.move_values(pos, query)
        if not moves:
            raise SolverError("the player to move has no card")
        declarer_moves = pos.to_move == pos.declarer
        scored = {c: int(v) for c, v in moves.items()}
        value_int = max(scored.values()) if declarer_moves else min(scored.values())
        best = next(c for c in DISPLAY_ORDER if scored.get(c, -1) == value_int)
        value: int | bool = value_int if query == "exact" else bool(value_int)
        seconds = time.perf_counter() - t0
        return SolveResult(query, value, best, moves, self.nodes - start_nodes, seconds)


def best_cards(values: dict[int, int | bool], maximize: bool) -> set[int]:
    """Cards whose value is optimal for the mover (declarer maximises)."""
    scored = {c: int(v) for c, v in values.items()}
    target = max(scored.values()) if maximize else min(scored.values())
    return {c for c, v in scored.items() if v == target}
