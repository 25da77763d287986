"""The Skat play rules on 32-bit card masks, as numba kernels.

These functions are the single source of truth for following suit and trick
winners (the ``State`` and any solver call them; there is no second copy).
Card encoding as in :mod:`cards` (``suit * 8 + rank``, ranks 7 8 9 Q K T A J).
Game codes: 0..3 a suit game with that trump suit (diamonds, hearts, spades,
clubs), 4 grand, 5 null.

Rules (ISkO 2.3, 4.1): in suit and grand games the jacks belong to the trump
suit (grand: only the jacks are trumps; order CJ SJ HJ DJ, then A T K Q 9 8 7
of the trump suit); in null there are no trumps and every suit ranks
A K Q J T 9 8 7 with the jack in its own suit. A player must follow the led
suit class if possible; otherwise any card may be played. The highest trump
wins a trick, else the highest card of the led class.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.skat.cards import (
    CARD_POINTS,
    GRAND,
    JACK,
    JACK_ORDER,
    JACKS_MASK,
    NULL,
    NULL_RANK,
    PLAIN_ORDER,
    SUIT_MASKS,
)

__all__ = ["GRAND", "NULL", "JACKS", "JACK_POWER", "TRUMP_SUIT_POWER", "class_mask",
           "trump_mask", "legal_cards", "card_power", "trick_winner", "points", "matadors"]

JACKS = JACKS_MASK
_SUIT = np.array(SUIT_MASKS, dtype=np.int64)
_POINTS = np.array(CARD_POINTS, dtype=np.int64)
_NULL_RANK = np.array(NULL_RANK, dtype=np.int64)  # null order A K Q J T 9 8 7
_PLAIN = np.array(PLAIN_ORDER, dtype=np.int64)
_JACK_ORDER = np.array(JACK_ORDER, dtype=np.int64)
JACK_POWER = 100
"""card_power of a jack is JACK_POWER + its suit (clubs highest)."""
TRUMP_SUIT_POWER = 50
"""card_power of a non-jack trump is TRUMP_SUIT_POWER + its rank index."""


@njit(cache=True)
def class_mask(game: int, card: int) -> int:
    """Mask of the cards that follow ``card`` when it is led (its suit class)."""
    suit = card >> 3
    if game == NULL:
        return int(_SUIT[suit])
    if (card & 7) == JACK:  # a jack is a trump in suit and grand games
        if game == GRAND:
            return JACKS
        return JACKS | int(_SUIT[game])
    if game < GRAND and suit == game:
        return JACKS | int(_SUIT[game])
    return int(_SUIT[suit]) & ~JACKS


@njit(cache=True)
def trump_mask(game: int) -> int:
    """All trumps of the game (empty in null)."""
    if game == NULL:
        return 0
    if game == GRAND:
        return JACKS
    return JACKS | int(_SUIT[game])


@njit(cache=True)
def legal_cards(hand: int, led_card: int, game: int) -> int:
    """Mask of the cards of ``hand`` that may be played; ``led_card`` -1 leads."""
    if led_card < 0:
        return hand
    follow = hand & class_mask(game, led_card)
    if follow != 0:
        return follow
    return hand


@njit(cache=True)
def card_power(card: int, led_card: int, game: int) -> int:
    """Strength of ``card`` in a trick led by ``led_card``; 0 means it cannot win."""
    rank = card & 7
    if game == NULL:
        if (card >> 3) == (led_card >> 3):
            return 1 + int(_NULL_RANK[rank])
        return 0
    if rank == JACK:
        return JACK_POWER + (card >> 3)
    if game < GRAND and (card >> 3) == game:
        return TRUMP_SUIT_POWER + rank
    if (class_mask(game, led_card) >> card) & 1:
        return 1 + rank
    return 0


@njit(cache=True)
def trick_winner(c0: int, c1: int, c2: int, game: int) -> int:
    """Position (0 leader, 1, 2) of the card that wins the trick ``c0 c1 c2``."""
    best = 0
    best_power = card_power(c0, c0, game)
    p = card_power(c1, c0, game)
    if p > best_power:
        best = 1
        best_power = p
    p = card_power(c2, c0, game)
    if p > best_power:
        best = 2
    return best


@njit(cache=True)
def points(mask: int) -> int:
    """Card points of a mask."""
    total = 0
    for c in range(32):
        if (mask >> c) & 1:
            total += int(_POINTS[c & 7])
    return total


@njit(cache=True)
def matadors(cards: int, game: int) -> int:
    """Matadors (Spitzen) of ``cards``: + "with n", - "without n" (ISkO 2.4.2).

    The sequence runs CJ SJ HJ DJ, then (suit games) A T K Q 9 8 7 of trumps;
    null has none (0).
    """
    if game == NULL:
        return 0
    order = np.empty(11, dtype=np.int64)
    n = 0
    for j in _JACK_ORDER:
        order[n] = j
        n += 1
    if game < GRAND:
        for r in _PLAIN:
            order[n] = game * 8 + r
            n += 1
    with_ = (cards >> order[0]) & 1
    count = 0
    for i in range(n):
        if ((cards >> order[i]) & 1) == with_:
            count += 1
        else:
            break
    if with_ == 1:
        return count
    return -count
