"""The null players' choice between cards that PIMC values alike.

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
* **leading**: no preference (the seeded random pick of the vote stays), or with
  ``lead`` (:func:`null_lead_risk`) the card the defenders can least easily let win
  the trick: the fewest unseen cards of its suit below it (none below and some above:
  a defender must go over it), then from the shortest own suit (a void to discard
  into later), then the higher of equal cards (the low ones are kept to stay under).

A null **defender** whose vote ties (most often: the declarer loses in every sampled
world whatever the card, since the double-dummy defenders find the catch later, which
real defenders, who do not see each other's cards, often do not) catches the declarer as
soon as it can: of the tied cards, the one with which the declarer must take the current
trick in the most sampled worlds, the rest of the trick played best for each side (the
declarer ducking if it can, the partner helping); :func:`null_defender_preference`.
Where no tied card catches in any world, the random pick stays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import NULL, NULL_RANK, cards_of
from spielwerk.games.skat.dds import DealPosition
from spielwerk.games.skat.info import SkatInfoState


def exposure(card: int, hand: int) -> int:
    """Null rank of ``card`` minus twice the number of ``hand``'s cards of its suit below it."""
    suit, pos = card >> 3, NULL_RANK[card & 7]
    below = sum(1 for r in range(8) if hand >> (suit * 8 + r) & 1 and NULL_RANK[r] < pos)
    return pos - 2 * below


def null_lead_risk(card: int, hand: int, unseen: int) -> tuple[int, int, int]:
    """The null declarer's sort key for leading ``card`` from ``hand`` (lowest first) when
    ``unseen`` are the cards it cannot place: the unseen cards of its suit below it (the
    defenders' ways to stay under; a suit whose every unseen card is above is safe: a
    defender who holds one must go over, and with no unseen card of the suit left the lead
    takes the trick, the worst), the own cards of the suit, minus the card's null rank."""
    suit, pos = card >> 3, NULL_RANK[card & 7]
    ranks = [NULL_RANK[r] for r in range(8) if unseen >> (suit * 8 + r) & 1]
    below = sum(1 for r in ranks if r < pos)
    risk = 99 if not ranks else below
    own = (hand >> (suit * 8) & 0xFF).bit_count()
    return risk, own, -pos


def null_declarer_preference(info: SkatInfoState, tied: list[int], lead: bool = False
                             ) -> int | None:
    """The null declarer's card among ``tied`` (see the module docstring); None when the
    contract is not null, the mover is not the declarer, or the mover leads (unless
    ``lead``)."""
    if info.game_code != NULL or info.player != info.declarer:
        return None
    if not info.trick:
        if not lead:
            return None
        unseen = info.unseen()
        return min(tied, key=lambda c: null_lead_risk(c, info.hand, unseen))
    led = info.trick[0]
    top = max(kernel.card_power(c, led, NULL) for c in info.trick)
    following = [c for c in tied if c >> 3 == led >> 3]
    if following:
        under = [c for c in following if kernel.card_power(c, led, NULL) < top]
        return max(under or following, key=lambda c: NULL_RANK[c & 7])
    hand = info.hand
    return max(tied, key=lambda c: (exposure(c, hand), NULL_RANK[c & 7]))


def declarer_takes_trick(trick: list[int], leader: int, hands: list[int],
                         declarer: int) -> bool:
    """Whether the null declarer must win the trick ``trick`` (cards so far, led by
    ``leader``) whatever it plays, when the rest of the trick is played from ``hands``
    (card masks per seat) - the declarer ducking if it can, the defenders helping."""
    if len(trick) == 3:
        led = trick[0]
        powers = [kernel.card_power(c, led, NULL) for c in trick]
        return (leader + powers.index(max(powers))) % 3 == declarer
    seat = (leader + len(trick)) % 3
    legal = kernel.legal_cards(hands[seat], trick[0] if trick else -1, NULL)
    outcomes = (declarer_takes_trick(trick + [c], leader,
                                     [h & ~(1 << c) if i == seat else h
                                      for i, h in enumerate(hands)], declarer)
                for c in cards_of(legal))
    return all(outcomes) if seat == declarer else any(outcomes)


def trick_totals(tied: list[int], worlds: Sequence[DealPosition],
                 score: Callable[[list[int], DealPosition, list[int]], int]) -> dict[int, int]:
    """For each card of ``tied``, the sum over ``worlds`` (where the mover holds it) of
    ``score(trick, world, hands)``: the current trick with the card played and the hands
    left."""
    totals = {c: 0 for c in tied}
    for pos in worlds:
        mover = pos.to_move
        for c in tied:
            if pos.hands[mover] >> c & 1:
                hands = [h & ~(1 << c) if i == mover else h for i, h in enumerate(pos.hands)]
                totals[c] += score([*pos.trick, c], pos, hands)
    return totals


def null_defender_preference(info: SkatInfoState, tied: list[int],
                             worlds: Sequence[DealPosition]) -> int | None:
    """The null defender's card among ``tied``: the one that makes the declarer take the
    current trick in the most of ``worlds`` (the positions the vote solved); None when the
    contract is not null, the mover is the declarer, or no tied card catches in any world."""
    if info.game_code != NULL or info.player == info.declarer or not worlds:
        return None
    catches = trick_totals(tied, worlds, lambda trick, pos, hands: int(declarer_takes_trick(
        trick, pos.leader, hands, pos.declarer)))
    best = max(catches.values())
    if best == 0:
        return None
    return next(c for c in tied if catches[c] == best)
