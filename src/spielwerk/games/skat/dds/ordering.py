"""Move ordering of the double-dummy solver: flags, score fields and helpers.

The search loop (:mod:`.search`) writes the moves of a node to
``mbuf[ply, :n]`` with a sort score in ``sbuf[ply, :n]`` (higher first) and
sorts them there (the loop is kept in one piece for speed). The score
packs, from the most significant field down (named shifts below): the hash
move from the table; on lead, a defender's card his side wins in a
one-trick look-ahead (null: a card the declarer must win), then the card
leaving the next player fewest replies; following, win cheaply, give points
to a winning partner, or throw the cheapest card; two killer moves per ply;
a history of cut-off moves; last, the card's power order (ties). Which
fields count is chosen by the ``ORDER_*`` flags.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.skat.dds.bits import POINTS32, lowest_bit
from spielwerk.games.skat.kernel import card_power, legal_cards

# move-ordering flags (SolverConfig turns each on or off)
ORDER_HASH_MOVE = 1
"""The best move stored in the table entry first."""
ORDER_HISTORY = 2
"""A history of cut-off moves (per seat and card)."""
ORDER_FOLLOW = 4
"""Following a trick: win cheaply, feed a winning partner, else throw the cheapest card."""
ORDER_KILLERS = 8
"""Two killer moves per ply."""
ORDER_LEAD = 16
"""Leading: a defender's winning card first, then the fewest replies for the next player."""

# fields of the sort score, from the top
SCORE_HASH_SHIFT = 52
SCORE_LEAD_SHIFT = 40
SCORE_FOLLOW_SHIFT = 33
SCORE_KILLER0_SHIFT = 32
SCORE_KILLER1_SHIFT = 31
HISTORY_CAP = (1 << 30) - 1
"""History scores are capped below the killer fields."""
TIE_BITS = 5
"""The power-order tie break (0..31) under every other field."""
LEAD_WIN_SHIFT = 4
"""On lead, a won trick outranks any reply count (at most ten replies)."""
MAX_REPLIES = 16
POWER_BITS = 7
POWER_CAP = (1 << POWER_BITS) - 1
FOLLOW_FEED = 100
"""Tiers of a following card: give points to a winning partner / throw ..."""
FOLLOW_OVERTAKE = 200
"""... take the lead second in the trick (the weakest winning card first) ..."""
FOLLOW_WIN_LAST = 300
"""... win the trick as its last card (the most points first)."""


@njit(cache=True)
def max_power(h: int, led: int, game: int) -> int:
    """The strongest legal reply of hand ``h`` to the card ``led``."""
    m = legal_cards(h, led, game)
    best = 0
    while m != 0:
        c = lowest_bit(m)
        m &= m - 1
        pw = card_power(c, led, game)
        if pw > best:
            best = pw
    return best


@njit(cache=True)
def lead_wins(hands: np.ndarray, p: int, c: int, game: int, decl: int) -> int:
    """1 if the leader's side wins the trick when each follower plays his strongest card.

    A one-trick look-ahead for ordering a defender's leads (measured: for the
    declarer's leads it costs nodes).
    """
    p1 = (p + 1) % 3
    p2 = (p + 2) % 3
    w = p
    bp = card_power(c, c, game)
    pw = max_power(hands[p1], c, game)
    if pw > bp:
        bp = pw
        w = p1
    pw = max_power(hands[p2], c, game)
    if pw > bp:
        w = p2
    return 1 if (w == decl) == (p == decl) else 0


@njit(cache=True)
def null_forces(hands: np.ndarray, p: int, c: int, game: int, decl: int) -> int:
    """1 if the declarer's weakest reply still beats the defenders' strongest cards."""
    m = legal_cards(hands[decl], c, game)
    lo = 1 << 20
    while m != 0:
        d = lowest_bit(m)
        m &= m - 1
        pw = card_power(d, c, game)
        if pw < lo:
            lo = pw
    hi = card_power(c, c, game)
    pw = max_power(hands[3 - p - decl], c, game)
    if pw > hi:
        hi = pw
    return 1 if lo > hi else 0


@njit(cache=True)
def follow_score(c: int, t0: int, nt: int, bp: int, mine_wins: bool, game: int) -> int:
    """Ordering tier of a following card (higher first)."""
    pw = card_power(c, t0, game)
    if nt == 2 and mine_wins:  # last, partner winning: most points
        return (FOLLOW_FEED + POINTS32[c]) << POWER_BITS
    if pw > bp:
        if nt == 2:
            return (FOLLOW_WIN_LAST + POINTS32[c]) << POWER_BITS
        return (FOLLOW_OVERTAKE + POWER_CAP - min(pw, POWER_CAP)) << POWER_BITS
    if mine_wins:
        return (FOLLOW_FEED + POINTS32[c]) << POWER_BITS
    # losing: the fewest points, then the weakest card
    return ((FOLLOW_FEED - POINTS32[c]) << POWER_BITS) + POWER_CAP - min(pw, POWER_CAP)


@njit(cache=True)
def record_cutoff(hist: np.ndarray, killers: np.ndarray, ply: int, p: int, move: int,
                  cards_left: int) -> None:
    """A move that cut off: raise its history (deeper counts more) and make it a killer."""
    weight = cards_left + 1
    hist[p, move] += weight * weight
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
