"""Skat action numbers and their ISS notation, the phases and the dealing order.

Actions (ascending ints, strings in ISS notation): cards 0..31 (deal, put,
play: ``CJ``), bids 32..94 (``18`` .. ``264``), hold 95 (``y``), pass 96
(``p``), pick up 97 (``s``), declarations 98..126 (``D``, ``GH``, ``CHZ``,
``GO``, ``NOH`` ...), claim 127 (``SC``), resign 128 (``RE``), play on 129
(``PLAY``). :mod:`spielwerk.games.skat.rules` re-exports every name here.
"""

from __future__ import annotations

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat.bidding import BID_VALUES
from spielwerk.games.skat.cards import NULL, card_to_string
from spielwerk.games.skat.scoring import Contract

BID_BASE = 32
HOLD = BID_BASE + len(BID_VALUES)  # 95
PASS = HOLD + 1  # 96
PICKUP = PASS + 1  # 97
DECLARE_BASE = PICKUP + 1  # 98


def _declarations() -> list[Contract]:
    out = [Contract(g) for g in range(5)] + [Contract(NULL), Contract(NULL, ouvert=True)]
    for g in range(5):
        out += [
            Contract(g, hand=True),
            Contract(g, True, True),
            Contract(g, True, True, True),
            Contract(g, True, True, True, True),
        ]
    out += [Contract(NULL, hand=True), Contract(NULL, hand=True, ouvert=True)]
    return out


DECLARATIONS: tuple[Contract, ...] = tuple(_declarations())
CLAIM = DECLARE_BASE + len(DECLARATIONS)  # 127
RESIGN = CLAIM + 1  # 128
PLAY_ON = RESIGN + 1  # 129
NUM_ACTIONS = PLAY_ON + 1
PICKUP_DECLARATIONS = [DECLARE_BASE + i for i, c in enumerate(DECLARATIONS) if not c.hand]
HAND_DECLARATIONS = [DECLARE_BASE + i for i, c in enumerate(DECLARATIONS) if c.hand]

# ----- phases ---------------------------------------------------------------------------
DEAL, BIDDING, SKAT, PUT, DECLARE, PLAY, RESPONSE, OVER = range(8)
PHASE_NAMES = ("deal", "bidding", "skat", "put", "declare", "play", "response", "over")

SKAT_PLACE = 3
DEAL_ORDER: tuple[int, ...] = (
    (0,) * 3 + (1,) * 3 + (2,) * 3 + (SKAT_PLACE,) * 2 + (0,) * 4 + (1,) * 4 + (2,) * 4
    + (0,) * 3 + (1,) * 3 + (2,) * 3
)
"""Position (0 forehand, 1 middlehand, 2 rearhand, 3 skat) receiving each dealt card."""

MAX_SCORE = 590  # an overbid null ouvert hand (59) at bid 264 is valued 295: -590


def action_to_string(action: int) -> str:
    """ISS notation of an action (context-free: action ranges are disjoint)."""
    a = int(action)
    if 0 <= a < 32:
        return card_to_string(a)
    if BID_BASE <= a < HOLD:
        return str(BID_VALUES[a - BID_BASE])
    if a == HOLD:
        return "y"
    if a == PASS:
        return "p"
    if a == PICKUP:
        return "s"
    if DECLARE_BASE <= a < CLAIM:
        return DECLARATIONS[a - DECLARE_BASE].iss()
    if a == CLAIM:
        return "SC"
    if a == RESIGN:
        return "RE"
    if a == PLAY_ON:
        return "PLAY"
    raise SkatRuleError(f"{action} is not a Skat action (0..{NUM_ACTIONS - 1})")


_BYTE_CARDS = tuple(
    tuple(tuple(shift + i for i in range(8) if b >> i & 1) for b in range(256))
    for shift in (0, 8, 16, 24)
)
"""``_BYTE_CARDS[k][b]``: the cards of byte ``k`` of a mask whose value is ``b``."""


_B0, _B1, _B2, _B3 = _BYTE_CARDS


def card_list(mask: int) -> list[int]:
    """:func:`cards.cards_of` by bytes (the State's hot path): the cards of a mask, ascending."""
    return [*_B0[mask & 255], *_B1[mask >> 8 & 255], *_B2[mask >> 16 & 255], *_B3[mask >> 24]]


def bid_action(value: int) -> int:
    if value not in BID_VALUES:
        raise SkatRuleError(f"{value} is not a valid bid")
    return BID_BASE + BID_VALUES.index(value)


def declaration_action(contract: Contract) -> int:
    return DECLARE_BASE + DECLARATIONS.index(contract)


class SkatRuleError(SpielwerkError, ValueError):
    """Something the Skat rules do not allow (bad parameters, impossible setups)."""

