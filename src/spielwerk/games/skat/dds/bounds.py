"""Bounds of the double-dummy solver: sure points (quick tricks), the last two tricks.

Values are the *rest of the game* (card points or tricks still to be won, the
cards on the table included). :func:`quick_points` gives lower bounds on what
each side surely wins; :func:`last_trick` and :func:`two_tricks` answer the
last one or two tricks exactly, cheaper than searching them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.skat.cards import CARD_POINTS, GRAND, JACK, RANK_MASKS
from spielwerk.games.skat.dds.bits import (
    BELOW_JACK,
    POINTS32,
    PTS7,
    SUIT_BITS,
    lowest_bit,
    mask_points,
    popcount,
    single_card,
)
from spielwerk.games.skat.dds.keys import (
    MODE_DECLARER_TRICKS,
    MODE_POINTS,
    jacks4,
)
from spielwerk.games.skat.kernel import legal_cards, trick_winner, trump_mask

_LEVELS = sorted(set(CARD_POINTS))
TIER_MASKS = np.array([sum(RANK_MASKS[r] for r in range(8) if CARD_POINTS[r] == p)
                       for p in _LEVELS], dtype=np.int64)
"""Card ranks from cheapest to dearest (masks over the four suits): 9-8-7, J, Q, K, T, A."""
TIER_POINTS = np.array(_LEVELS, dtype=np.int64)
JACK_POINTS = CARD_POINTS[JACK]
NO_VALUE_MIN = -1
"""Start of a maximiser's best value (every real value is >= 0)."""
NO_VALUE_MAX = 1 << 20
"""Start of a minimiser's best value (above every real value)."""


@njit(cache=True)
def gain(winner: int, c0: int, c1: int, c2: int, decl: int, mode: int) -> int:
    """What a finished trick adds to the objective."""
    if mode == MODE_POINTS:
        if winner == decl:
            return int(POINTS32[c0] + POINTS32[c1] + POINTS32[c2])
        return 0
    if mode == MODE_DECLARER_TRICKS:
        return 1 if winner == decl else 0
    return 1 if winner != decl else 0


@njit(cache=True)
def upper_bound(hands: np.ndarray, table: np.ndarray, nt: int, mode: int) -> int:
    """The most the declarer's side can still gain (every remaining point or trick)."""
    rem = hands[0] | hands[1] | hands[2]
    if mode == MODE_POINTS:
        u = mask_points(rem)
        for i in range(nt):
            u += POINTS32[table[i]]
        return u
    return (popcount(rem) + nt) // 3


@njit(cache=True)
def last_trick(
    hands: np.ndarray, table: np.ndarray, nt: int, leader: int, game: int, decl: int, mode: int
) -> int:
    """Value of the last trick when each player still to play holds one card."""
    c0 = table[0] if nt > 0 else single_card(hands[leader])
    c1 = table[1] if nt > 1 else single_card(hands[(leader + 1) % 3])
    c2 = single_card(hands[(leader + 2) % 3])
    winner = (leader + trick_winner(c0, c1, c2, game)) % 3
    return gain(winner, c0, c1, c2, decl, mode)


@njit(cache=True)
def trump_bits(h: int, game: int) -> int:
    """The trumps of ``h`` in power order: the jacks above the trump suit's A..7."""
    j = jacks4(h) << JACK  # above the seven non-jack ranks
    if game == GRAND:
        return j
    return j | ((h >> (SUIT_BITS * game)) & BELOW_JACK)


@njit(cache=True)
def trump_points(t: int) -> int:
    """Card points of a power-ordered trump mask (see :func:`trump_bits`)."""
    return JACK_POINTS * popcount(t >> JACK) + PTS7[t & BELOW_JACK]


@njit(cache=True)
def smear_down(y: int) -> int:
    """Every bit below the highest set bit of an 11-bit mask set too."""
    y |= y >> 1
    y |= y >> 2
    y |= y >> 4
    y |= y >> 8
    return y


@njit(cache=True)
def top_of(r: int, x: int) -> int:
    """The cards of ``r`` (power-ordered bits) above every card of ``r`` not in ``x``."""
    return r & ~smear_down(r & ~x)


@njit(cache=True)
def lowest_points(h: int, m: int) -> int:
    """The fewest points any ``m`` cards of ``h`` can hold (its m cheapest cards)."""
    total = 0
    for t in range(TIER_MASKS.shape[0]):
        n = popcount(h & TIER_MASKS[t])
        if m <= n:
            return total + TIER_POINTS[t] * m
        total += TIER_POINTS[t] * n
        m -= n
    return total


@njit(cache=True)
def _top_trump_points(hands: np.ndarray, r: int, game: int, decl: int) -> tuple[int, int]:
    """Points of the unbeatable top trumps (declarer, defenders) with the opponents'
    cheapest cards that must fall to them."""
    d1 = (decl + 1) % 3
    d2 = (decl + 2) % 3
    td = trump_bits(hands[decl], game)
    dec = 0
    dfd = 0
    if r != 0:
        hi = smear_down(r)
        hi = hi ^ (hi >> 1)  # the highest remaining trump
        if hi & td:
            seq = top_of(r, td)
            s = popcount(seq)
            dec = trump_points(seq) + lowest_points(hands[d1], s) + lowest_points(hands[d2], s)
        else:
            seq = top_of(r, r & ~td)
            s1 = popcount(seq & trump_bits(hands[d1], game))
            s2 = popcount(seq & trump_bits(hands[d2], game))
            dfd = trump_points(seq) + lowest_points(hands[decl], max(s1, s2))
    return dec, dfd


@njit(cache=True)
def quick_points(hands: np.ndarray, rem: int, leader: int, game: int,
                 decl: int) -> tuple[int, int]:
    """Card points each side surely wins (suit and grand): (declarer, defenders).

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
    r = trump_bits(rem, game)
    dec, dfd = _top_trump_points(hands, r, game, decl)
    hand = hands[leader]
    kset = top_of(r, trump_bits(hand, game))
    k = popcount(kset)
    if leader == decl:
        t1 = popcount(hands[d1] & tm)
        t2 = popcount(hands[d2] & tm)
        cash = t1 <= k and t2 <= k
    else:
        td_n = popcount(hands[decl] & tm)
        cash = td_n <= k
    q = trump_points(kset)
    if cash:
        big_k = k
        for su in range(4):
            if su == game:
                continue
            sh = SUIT_BITS * su
            top = top_of((rem >> sh) & BELOW_JACK, (hand >> sh) & BELOW_JACK)
            q += PTS7[top]
            big_k += popcount(top)
        if leader == decl:
            q += (mask_points(hands[d1] & tm) + lowest_points(hands[d1] & ~tm, big_k - t1)
                  + mask_points(hands[d2] & tm) + lowest_points(hands[d2] & ~tm, big_k - t2))
            dec = max(dec, q)
        else:
            partner = hands[3 - leader - decl]
            q += (mask_points(hands[decl] & tm)
                  + lowest_points(hands[decl] & ~tm, big_k - td_n)
                  + lowest_points(partner, big_k))
            dfd = max(dfd, q)
    elif leader == decl:
        dec = max(dec, q)
    else:
        dfd = max(dfd, q)
    return dec, dfd


@njit(cache=True)
def _last_of_two(w: int, leader: int, r0: int, r1: int, r2: int, game: int, decl: int,
                 mode: int) -> int:
    """Value of the forced last trick led by ``w`` (hands of one card each)."""
    x = lowest_bit(r0)
    y = lowest_bit(r1)
    z = lowest_bit(r2)
    p1 = (leader + 1) % 3
    if w == leader:
        w2 = (w + trick_winner(x, y, z, game)) % 3
    elif w == p1:
        w2 = (w + trick_winner(y, z, x, game)) % 3
    else:
        w2 = (w + trick_winner(z, x, y, game)) % 3
    return gain(w2, x, y, z, decl, mode)


@njit(cache=True)
def two_tricks(hands: np.ndarray, leader: int, game: int, decl: int, mode: int) -> int:
    """Exact value of a trick boundary with two cards in every hand (plain minimax).

    The leader has two cards, each follower at most two legal replies, and the
    last trick is forced: at most eight lines, cheaper than a table probe.
    """
    p1 = (leader + 1) % 3
    p2 = (leader + 2) % 3
    h0 = hands[leader]
    h1 = hands[p1]
    h2 = hands[p2]
    best0 = NO_VALUE_MIN if leader == decl else NO_VALUE_MAX
    m0 = h0
    while m0 != 0:
        a = lowest_bit(m0)
        m0 &= m0 - 1
        best1 = NO_VALUE_MIN if p1 == decl else NO_VALUE_MAX
        m1 = legal_cards(h1, a, game)
        while m1 != 0:
            b = lowest_bit(m1)
            m1 &= m1 - 1
            best2 = NO_VALUE_MIN if p2 == decl else NO_VALUE_MAX
            m2 = legal_cards(h2, a, game)
            while m2 != 0:
                c = lowest_bit(m2)
                m2 &= m2 - 1
                w = (leader + trick_winner(a, b, c, game)) % 3
                v = gain(w, a, b, c, decl, mode) + _last_of_two(
                    w, leader, h0 & ~(1 << a), h1 & ~(1 << b), h2 & ~(1 << c), game, decl, mode)
                best2 = max(best2, v) if p2 == decl else min(best2, v)
            best1 = max(best1, best2) if p1 == decl else min(best1, best2)
        best0 = max(best0, best1) if leader == decl else min(best0, best1)
    return best0
