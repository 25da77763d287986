"""Table use of the double-dummy solver: card order, equivalence groups, table keys.

A table entry is keyed by the owner of every remaining card (two bits per
card: seat + 1, 0 when gone) and, beside the key, the player on lead; the
table itself is the shared clustered table of :mod:`spielwerk.search.tt`.
With equivalence classes on, each group of interchangeable cards is compacted
to the top of its group, so entries generalise across histories.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.skat.cards import (
    GRAND,
    JACK,
    JACK_ORDER,
    NULL,
    NULL_ORDER,
    PLAIN_ORDER,
    POINTS_BY_CARD,
    RANK_MASKS,
    SUITS_DESCENDING,
)
from spielwerk.games.skat.dds.bits import SUIT_BITS

MODE_POINTS = 0
MODE_DECLARER_TRICKS = 1
MODE_DEFENDER_TRICKS = 2

OWNER_BITS = 2
"""Bits per card in a table key (the owning seat + 1; 0: played)."""
PASS_THROUGH = RANK_MASKS[3] | RANK_MASKS[4] | RANK_MASKS[5] | RANK_MASKS[6]
"""Queens, kings, tens and aces: never in a group in the points objective."""
LOW_RANKS = 3
"""The 7, 8 and 9 of a suit (rank bits 0..2): one zero-point group per suit."""
# masks of the Morton interleave (bit i to bit 2i), by the shift they follow
_M16 = 0x0000FFFF0000FFFF
_M8 = 0x00FF00FF00FF00FF
_M4 = 0x0F0F0F0F0F0F0F0F
_M2 = 0x3333333333333333
_M1 = 0x5555555555555555


def card_order(game: int, mode: int, equivalence: bool) -> tuple[np.ndarray, np.ndarray]:
    """Cards by suit class in descending power, and a group id per position.

    Cards of one group are interchangeable when no live card lies between
    them: equal points (jacks; 9-8-7) in the points objective, a whole suit
    class in the trick objectives. Without ``equivalence`` every card is its
    own group.
    """
    classes: list[list[int]] = []
    if game == NULL:
        for s in SUITS_DESCENDING:
            classes.append([s * SUIT_BITS + r for r in NULL_ORDER])
    elif game == GRAND:
        classes.append(list(JACK_ORDER))
        for s in SUITS_DESCENDING:
            classes.append([s * SUIT_BITS + r for r in PLAIN_ORDER])
    else:
        classes.append(list(JACK_ORDER) + [game * SUIT_BITS + r for r in PLAIN_ORDER])
        for s in SUITS_DESCENDING:
            if s != game:
                classes.append([s * SUIT_BITS + r for r in PLAIN_ORDER])
    order: list[int] = []
    group: list[int] = []
    gid = 0
    for cls in classes:
        prev_points = -1
        first = True
        for c in cls:
            pts = POINTS_BY_CARD[c]
            if not equivalence:
                gid += 1
            elif mode != MODE_POINTS:
                if first:
                    gid += 1
            elif first or pts != prev_points or pts != 0 and (c & 7) != JACK:
                # points objective: only the jacks and the zero-point 9-8-7 form runs
                gid += 1
            first = False
            prev_points = pts
            order.append(c)
            group.append(gid)
    assert sorted(order) == list(range(32))
    return np.array(order, dtype=np.int64), np.array(group, dtype=np.int64)


@njit(cache=True)
def tt_key(hands: np.ndarray, order: np.ndarray, group: np.ndarray) -> int:
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
            key |= owner << (OWNER_BITS * j)
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


_COMPACT3 = _compact_table(LOW_RANKS)  # 9-8-7 of a suit: bits 2, 1, 0 of the suit's byte
_COMPACT4 = _compact_table(4)  # jacks: bits 7, 15, 23, 31 gathered to 0..3
_REP3 = _rep_table(LOW_RANKS)
_REP4 = _rep_table(4)
_LOW_MASK = (1 << LOW_RANKS) - 1
_J0, _J1, _J2, _J3 = (s * SUIT_BITS + JACK for s in range(4))  # the jack bits (7 15 23 31)
_LOW_SIZE = 1 << LOW_RANKS
_JACK_SIZE = 16


@njit(cache=True)
def spread(x: int) -> int:
    """Bit i of a 32-bit mask to bit 2i (a Morton interleave)."""
    x = x & 0xFFFFFFFF
    x = (x | (x << 16)) & _M16
    x = (x | (x << 8)) & _M8
    x = (x | (x << 4)) & _M4
    x = (x | (x << 2)) & _M2
    x = (x | (x << 1)) & _M1
    return x


@njit(cache=True)
def jacks4(h: int) -> int:
    """The jacks of ``h`` gathered to bits 0..3 (diamonds .. clubs)."""
    return (((h >> _J0) & 1) | ((h >> (_J1 - 1)) & 2) | ((h >> (_J2 - 2)) & 4)
            | ((h >> (_J3 - 3)) & 8))


@njit(cache=True)
def unjacks4(j: int) -> int:
    """Inverse of :func:`jacks4`: bits 0..3 back to the four jack cards."""
    return (((j & 1) << _J0) | ((j & 2) << (_J1 - 1)) | ((j & 4) << (_J2 - 2))
            | ((j & 8) << (_J3 - 3)))


@njit(cache=True)
def _map_groups(h: int, ctx: int, t4: np.ndarray, t3: np.ndarray) -> int:
    """``h`` with the jacks and the 9-8-7 of each suit replaced through a group table.

    ``t4`` (jacks) and ``t3`` (9-8-7 of a suit) are indexed by the group's bits in
    ``ctx`` and in ``h``; aces, tens, kings and queens pass through unchanged.
    """
    out = h & PASS_THROUGH
    out |= unjacks4(t4[jacks4(ctx) * _JACK_SIZE + jacks4(h)])
    for s in range(4):
        sh = SUIT_BITS * s
        out |= t3[((ctx >> sh) & _LOW_MASK) * _LOW_SIZE + ((h >> sh) & _LOW_MASK)] << sh
    return out


@njit(cache=True)
def compact_hand(h: int, rem: int) -> int:
    """``h`` with its jacks and its 9-8-7 of each suit moved to the top of their group."""
    return _map_groups(h, rem, _COMPACT4, _COMPACT3)


@njit(cache=True)
def points_reps(legal: int, live: int) -> int:
    """The legal cards worth searching in the points objective (equivalence on).

    The groups are the jacks and the 9-8-7 of each suit; of each run of the
    mover's cards in a group only the top card stays (see :func:`card_order`).
    """
    return _map_groups(legal, live | legal, _REP4, _REP3)


@njit(cache=True)
def tt_key_points(hands: np.ndarray) -> int:
    """The table key of :func:`tt_key` for the points objective, by bit operations.

    The groups there are the jacks and the 9-8-7 of each suit; each is
    compacted to its top, then the owner of every card is interleaved into
    two bits (01, 10, 11 for seats 0, 1, 2; 00 gone).
    """
    rem = hands[0] | hands[1] | hands[2]
    c0 = compact_hand(hands[0], rem)
    c1 = compact_hand(hands[1], rem)
    c2 = compact_hand(hands[2], rem)
    return spread(c0 | c2) | (spread(c1 | c2) << 1)


def generation(game: int, declarer: int, mode: int, equivalence: bool) -> int:
    """The table generation of a search context (1..108): entries of other contexts
    count as empty, so one table serves every game, declarer and objective."""
    return 1 + ((game * 3 + declarer) * 3 + mode) * 2 + int(equivalence)
