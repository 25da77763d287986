"""Skat cards: 32 cards as ints 0..31 and card sets as 32-bit masks.

Encoding (the same as OpenSpiel's ``skat``, which keeps the differential test
simple): ``card = suit * 8 + rank`` with suits diamonds 0, hearts 1, spades 2,
clubs 3 (ascending value) and ranks 7 8 9 Q K T A J (0..7), i.e. the order of
a suit in a suit game with the jack on top. Strings are as in the ISS records:
suit letter C S H D then rank letter A T K Q J 9 8 7 (``CJ``, ``ST``, ``H7``).
"""

from __future__ import annotations

from collections.abc import Iterable

from spielwerk.core.errors import SpielwerkError

SUITS = "DHSC"
"""Suit letters by suit index (diamonds, hearts, spades, clubs)."""
RANKS = "789QKTAJ"
"""Rank letters by rank index."""
SUIT_NAMES = ("diamonds", "hearts", "spades", "clubs")

DIAMONDS, HEARTS, SPADES, CLUBS = 0, 1, 2, 3
SEVEN, EIGHT, NINE, QUEEN, KING, TEN, ACE, JACK = range(8)

NUM_CARDS = 32
CARD_POINTS = (0, 0, 0, 3, 4, 10, 11, 2)
"""Card points (Augen) by rank index: A 11, T 10, K 4, Q 3, J 2, 9/8/7 0."""
TOTAL_POINTS = 4 * sum(CARD_POINTS)
"""All card points of a deal (120)."""
POINTS_BY_CARD = tuple(CARD_POINTS[c & 7] for c in range(NUM_CARDS))
"""Card points by card number."""
ALL_CARDS_MASK = (1 << 32) - 1
RANK_MASKS = tuple(sum(1 << (s * 8 + r) for s in range(4)) for r in range(8))
"""The four cards of each rank index (``RANK_MASKS[JACK]``: the jacks)."""
JACKS_MASK = RANK_MASKS[JACK]
SUIT_MASKS = tuple(0xFF << (8 * s) for s in range(4))

# Game codes: 0..3 a suit game with that trump suit, then grand and null.
GRAND = 4
"""Game code of a grand game (only the jacks are trumps)."""
NULL = 5
"""Game code of a null game (no trumps; the declarer must take no trick)."""
GAME_NAMES = ("diamonds", "hearts", "spades", "clubs", "grand", "null")
"""Names of the games by game code."""
GAME_LETTERS = "DHSCGN"
"""Letters of the games by game code (as in the ISS records)."""

# Card power order (ISkO 2.3), strongest first.
JACK_ORDER = (CLUBS * 8 + JACK, SPADES * 8 + JACK, HEARTS * 8 + JACK, DIAMONDS * 8 + JACK)
"""The jacks in suit and grand games: CJ SJ HJ DJ, above every other trump."""
PLAIN_ORDER = (ACE, TEN, KING, QUEEN, NINE, EIGHT, SEVEN)
"""Ranks of a suit without its jack in suit and grand games: A T K Q 9 8 7."""
NULL_ORDER = (ACE, KING, QUEEN, JACK, TEN, NINE, EIGHT, SEVEN)
"""Ranks of a suit in null games: A K Q J T 9 8 7 (the jack in its own suit)."""
NULL_RANK = tuple(len(NULL_ORDER) - 1 - NULL_ORDER.index(r) for r in range(8))
"""Null strength by rank index (7 for the ace ... 0 for the seven)."""
SUITS_DESCENDING = (CLUBS, SPADES, HEARTS, DIAMONDS)
"""Suits in the order of their value (and of the jacks): clubs first."""

# Bidding and game values (ISkO 3.3, 5.1-5.2): the constants the rule kernels and the
# Python modules (bidding, scoring) share.
BID_VALUES: tuple[int, ...] = (
    18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60, 63,
    66, 70, 72, 77, 80, 81, 84, 88, 90, 96, 99, 100, 108, 110, 117, 120, 121, 126, 130,
    132, 135, 140, 143, 144, 150, 153, 154, 156, 160, 162, 165, 168, 170, 176, 180, 187,
    192, 198, 204, 216, 240, 264,
)
"""Every valid bid: the game values from 18 to 264 (the Reiztabelle)."""
BASE_VALUES = (9, 10, 11, 12, 24)
"""Base values of diamonds, hearts, spades, clubs and grand (ISkO 5.1)."""
NULL_BASE_VALUES = (23, 46, 35, 59)
"""Null game values by ``2 * hand + ouvert``: null 23, ouvert 46, hand 35, ouvert hand 59."""
WIN_POINTS = TOTAL_POINTS // 2 + 1
"""Card points a declarer needs to win (61)."""
SCHNEIDER_POINTS = 90
"""Card points that make the opponents schneider (ISkO 5.2.2: more than 89)."""
LOSE_SCHNEIDER_POINTS = TOTAL_POINTS - SCHNEIDER_POINTS
"""A declarer with this many card points or fewer is schneider himself (30)."""
TRICKS = 10
"""Tricks in a deal (schwarz: all of them)."""


class CardError(SpielwerkError, ValueError):
    """A card string or card number that names no Skat card."""


def card_suit(card: int) -> int:
    return card >> 3


def card_rank(card: int) -> int:
    return card & 7


def card_points(card: int) -> int:
    return CARD_POINTS[card & 7]


def card_to_string(card: int) -> str:
    """``0`` -> ``D7``; ``31`` -> ``CJ``.

    >>> card_to_string(0), card_to_string(31)
    ('D7', 'CJ')
    >>> card_to_string(32)
    Traceback (most recent call last):
    ...
    spielwerk.games.skat.cards.CardError: 32 is not a card number (0..31)
    """
    if not 0 <= card < NUM_CARDS:
        raise CardError(f"{card} is not a card number (0..31)")
    return SUITS[card >> 3] + RANKS[card & 7]


def string_to_card(text: str) -> int:
    """``"CJ"`` -> 31; raises :class:`CardError` for anything else.

    >>> string_to_card("CJ"), string_to_card(" st ")
    (31, 21)
    >>> all(string_to_card(card_to_string(c)) == c for c in range(32))
    True
    >>> string_to_card("C1")
    Traceback (most recent call last):
    ...
    spielwerk.games.skat.cards.CardError: 'C1' is not a card (suit C S H D, rank A T K Q J 9 8 7)
    """
    t = text.strip().upper()
    if len(t) != 2 or t[0] not in SUITS or t[1] not in RANKS:
        raise CardError(f"{text!r} is not a card (suit C S H D, rank A T K Q J 9 8 7)")
    return SUITS.index(t[0]) * 8 + RANKS.index(t[1])


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask: int) -> list[int]:
    """Cards of a mask, ascending.

    >>> cards_of(mask_of([31, 0, 7]))
    [0, 7, 31]
    """
    return [c for c in range(NUM_CARDS) if mask >> c & 1]


def popcount(mask: int) -> int:
    return int(mask).bit_count()


def points_of(mask: int) -> int:
    """Card points of a set of cards.

    >>> points_of(mask_of([string_to_card("CA"), string_to_card("CT"), string_to_card("DJ")]))
    23
    """
    return sum(POINTS_BY_CARD[c] for c in cards_of(mask))


DISPLAY_ORDER = list(JACK_ORDER) + [s * 8 + r for s in SUITS_DESCENDING for r in PLAIN_ORDER]
"""Cards in the usual sorting of a hand: jacks, then clubs .. diamonds, A T K Q 9 8 7."""


def mask_to_string(mask: int) -> str:
    """A hand as ISS card strings in the usual sorting (jacks first).

    >>> mask_to_string(mask_of(string_to_card(c) for c in ["D7", "HJ", "CA", "CJ", "ST"]))
    'CJ HJ CA ST D7'
    """
    return " ".join(card_to_string(c) for c in DISPLAY_ORDER if mask >> c & 1)


def suit_cards(mask: int, suit: int) -> int:
    """The cards of ``suit`` in ``mask`` as 7 rank bits: 7 8 9 Q K T A (the jack apart)."""
    return mask >> (suit * 8) & 0x7F


def has_card(mask: int, suit: int, rank: int) -> bool:
    """Whether ``mask`` holds the card of ``suit`` and ``rank``."""
    return bool(mask >> (suit * 8 + rank) & 1)


def side_suits(game: int) -> list[int]:
    """The suits that are not trump in ``game`` (all four in grand and null)."""
    return [s for s in range(4) if s != game] if game < 4 else [0, 1, 2, 3]


class HandError(SpielwerkError, ValueError):
    """A hand that is not the right number of distinct Skat cards."""


def as_hand(cards: int | Iterable[int | str], sizes: tuple[int, ...] = (10, 12)) -> int:
    """A card mask of ``sizes`` distinct cards, from a mask or a list of cards (ints or "CJ")."""
    if isinstance(cards, bool):
        raise HandError("a hand is a card mask or a list of cards, not a bool")
    if isinstance(cards, int):
        if not 0 <= cards < 1 << 32:
            raise HandError(f"{cards} is not a card mask (32 bits)")
        mask = cards
    else:
        mask = 0
        for item in cards:
            c = string_to_card(item) if isinstance(item, str) else int(item)
            if not 0 <= c < 32:
                raise HandError(f"{c} is not a card number (0..31)")
            if mask >> c & 1:
                raise HandError(f"card {c} appears twice in the hand")
            mask |= 1 << c
    n = mask.bit_count()
    if n not in sizes:
        want = " or ".join(str(s) for s in sizes)
        raise HandError(f"a hand here has {want} distinct cards, not {n}")
    return mask
