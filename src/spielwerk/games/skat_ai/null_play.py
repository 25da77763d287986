"""The null declarer's choice between cards that PIMC values alike.

PIMC with win values scores a card 1 or 0 per sampled world; in null most
decisions of a declarer tie - every card wins in every sampled world, or the
double-dummy defenders catch every card in all of them - and the vote cannot
tell the cards apart. Real defenders do not see every card, so the tie is
broken the way null declarers play:

* **following suit**: the highest card that stays under the trick's best card
  (the low cards are kept for later tricks of the suit); when every card goes
  over it, the highest (the trick is lost either way);
* **void in the led suit**: the card with the largest exposure, the per-suit
  measure of :mod:`knowledge.features` for a single card - its null rank minus
  twice the number of own cards of its suit below it - highest rank first;
* **leading**: no preference (the seeded random pick of the vote stays).
"""

from __future__ import annotations

from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import NULL, NULL_RANK
from spielwerk.games.skat.info import SkatInfoState


def exposure(card: int, hand: int) -> int:
    """Null rank of ``card`` minus twice the number of ``hand``'s cards of its suit below it."""
    suit, pos = card >> 3, NULL_RANK[card & 7]
    below = sum(1 for r in range(8) if hand >> (suit * 8 + r) & 1 and NULL_RANK[r] < pos)
    return pos - 2 * below


def null_declarer_preference(info: SkatInfoState, tied: list[int]) -> int | None:
    """The null declarer's card among ``tied`` (see the module docstring); None when the
    contract is not null, the mover is not the declarer, or the mover leads."""
    if info.game_code != NULL or info.player != info.declarer or not info.trick:
        return None
    led = info.trick[0]
    top = max(kernel.card_power(c, led, NULL) for c in info.trick)
    following = [c for c in tied if c >> 3 == led >> 3]
    if following:
        under = [c for c in following if kernel.card_power(c, led, NULL) < top]
        return max(under or following, key=lambda c: NULL_RANK[c & 7])
    hand = info.hand
    return max(tied, key=lambda c: (exposure(c, hand), NULL_RANK[c & 7]))
