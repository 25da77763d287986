"""Durak cards: ids ``rank * 4 + suit`` (rank 0 = deuce .. 12 = ace; suits C, D, H, S).

Names are suit letter + rank letter as in the Skat records (``S6``, ``HT``,
``CA``). A set of cards is a 52-bit integer mask.
"""

from __future__ import annotations

from spielwerk.core.errors import SpielwerkError

SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANKS = "23456789TJQKA"
DECK_SIZES = (24, 36, 52)


class CardError(SpielwerkError, ValueError):
    """A card name that is not a card."""


def card_name(card: int) -> str:
    """The name of card id ``card``.

    >>> card_name(0), card_name(51), card_name(parse_card("HT"))
    ('C2', 'SA', 'HT')
    """
    return SUITS[card & 3] + RANKS[card >> 2]


def parse_card(text: str) -> int:
    """``"S6"`` -> card id; also accepts ``"10"`` for the ten (``"S10"``).

    >>> parse_card("S6"), parse_card("s10") == parse_card("ST")
    (19, True)
    >>> all(parse_card(card_name(c)) == c for c in range(52))
    True
    >>> parse_card("X6")
    Traceback (most recent call last):
    ...
    spielwerk.games.durak.cards.CardError: 'X6' is not a card (write suit then rank, ...)
    """
    t = text.strip().upper().replace("10", "T")
    if len(t) != 2 or t[0] not in SUITS or t[1] not in RANKS:
        raise CardError(f"{text!r} is not a card (write suit then rank, e.g. S6, HT, CA)")
    return RANKS.index(t[1]) * 4 + SUITS.index(t[0])


def lowest_rank(deck: int) -> int:
    """Rank index of the lowest rank in a ``deck``-card pack (24: nine, 36: six, 52: deuce).

    >>> [RANKS[lowest_rank(d)] for d in DECK_SIZES]
    ['9', '6', '2']
    """
    return 13 - deck // 4


def deck_cards(deck: int) -> list[int]:
    return list(range(4 * lowest_rank(deck), 52))


def mask_to_cards(mask: int) -> list[int]:
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def cards_to_mask(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def mask_names(mask: int, trump: int | None = None) -> str:
    """Cards of ``mask`` sorted by suit (trumps last) then rank, as names.

    >>> mask_names(cards_to_mask([parse_card(c) for c in ["SA", "C6", "H9", "S7"]]), trump=3)
    'C6 H9 S7 SA'
    >>> mask_names(0)
    '-'
    """
    cards = mask_to_cards(mask)
    cards.sort(key=lambda c: ((c & 3) == trump, c & 3, c >> 2))
    return " ".join(card_name(c) for c in cards) if cards else "-"
