"""Hand-strength counts for suit and grand games: Walter von Stegen's and Thomas Kinback's.

The seed (Edelkamp, "On the Power of Refined Skat Selection") names both
systems but prints neither; the ``search`` tool found no published
description of either (no book page, no rules page, one third-party
"simplified von Stegen" in a hobby repository, not used). What follows is
**our reading of the seed's sentences**, with every number chosen by us and
written here, so it can be checked and changed in one place:

**von Stegen** (seed: "counts the number of Js with 2 points, and the number
of trump and high-cards (As or 10s) with 1 point (high trump cards are
counted twice). Additionally, strong Js and low bids are awarded.")

* 2 points per jack;
* 1 point per non-jack trump (suit games; in grand the jacks are the only trumps);
* 1 point per ace or ten - so a trump ace or trump ten counts twice (trump + high card);
* strong jacks: +1 for the club jack, +1 more when the spade jack is held with it;
* low bid: +1 when the bid to reach is at most 20 (:data:`STEGEN_LOW_BID`).

**Kinback** (seed: "The hand strength value differs in grand and suit games,
and includes a measure for tricks going home. Moreover, different
configurations of cards in a suit as well as being in forehand get a
surplus.") counts *tricks going home* (Stiche, die nach Hause gehen):

* trump tricks: the top sequence of trumps held from the club jack down
  counts 1 each; below it the trump ace 1, every other jack and the trump ten
  0.5 each; suit games add 1 for every trump beyond the fifth (long trumps);
* side suits (suit games: the three others; grand: all four, jacks apart):
  ace 1, ace + ten 2, ace + ten + king 2.5, ten + king without the ace 0.5;
  grand adds 1 per card beyond the fourth in a suit headed by ace + ten
  (a long suit runs home once the jacks are out);
* configuration surplus: in a suit game with at least five trumps +0.5 per
  void side suit (at most 1: the declarer ruffs);
* forehand surplus: +0.5 in suit games, +1 in grand (the declarer leads).

Both take the ten cards the player will play (or twelve: the counts then
see the skat too) and refuse anything else with :class:`HandError`.
The thresholds used by the ``stegen`` / ``kinback`` bidding options are
:data:`STEGEN_THRESHOLD` and :data:`KINBACK_THRESHOLD` (our choice too).
"""

from __future__ import annotations

from collections.abc import Iterable

from spielwerk.games.skat.cards import (
    ACE,
    CLUBS,
    GAME_NAMES,
    GRAND,
    JACK,
    JACK_ORDER,
    KING,
    PLAIN_ORDER,
    SPADES,
    TEN,
    HandError,
    as_hand,
    has_card,
    side_suits,
)

STEGEN_LOW_BID = 20
STEGEN_THRESHOLD = {"suit": 10.0, "grand": 11.0}
"""Points from which the ``stegen`` bidding option plays a game (our choice)."""
KINBACK_THRESHOLD = {"suit": 6.0, "grand": 6.0}
"""Tricks going home from which the ``kinback`` bidding option plays a game (our choice)."""


def _check_game(game: int) -> None:
    if game not in range(5):
        raise HandError(f"hand strength is for suit games 0..3 and grand 4, not game {game}")


def _trump_order(game: int) -> list[int]:
    order = list(JACK_ORDER)
    if game < GRAND:
        order += [game * 8 + r for r in PLAIN_ORDER]
    return order


def _suit_length(mask: int, suit: int) -> int:
    return (mask >> (suit * 8) & 0x7F).bit_count()  # jacks (bit 7) apart


def stegen(cards: int | Iterable[int | str], game: int, bid: int = 18) -> float:
    """von Stegen's points for ``game`` (0..3 a suit, 4 grand); see the module docstring."""
    mask = as_hand(cards)
    _check_game(game)
    jacks = sum(has_card(mask, s, JACK) for s in range(4))
    points = 2.0 * jacks
    if game < 4:
        points += _suit_length(mask, game)  # non-jack trumps
    points += sum(has_card(mask, s, ACE) + has_card(mask, s, TEN) for s in range(4))
    if has_card(mask, CLUBS, JACK):
        points += 1
        if has_card(mask, SPADES, JACK):
            points += 1
    if bid <= STEGEN_LOW_BID:
        points += 1
    return points


def kinback(cards: int | Iterable[int | str], game: int, position: int = 0) -> float:
    """Kinback's tricks going home for ``game`` (0..3 a suit, 4 grand); ``position`` 0 forehand."""
    mask = as_hand(cards)
    _check_game(game)
    if position not in (0, 1, 2):
        raise HandError(f"position is 0 forehand, 1 middlehand or 2 rearhand, not {position}")
    order = _trump_order(game)
    held = [c for c in order if mask >> c & 1]
    top = 0
    for c in order:
        if not mask >> c & 1:
            break
        top += 1
    tricks = float(top)
    for c in held[top:]:
        if c & 7 == ACE:
            tricks += 1.0
        elif c & 7 in (JACK, TEN):
            tricks += 0.5
    if game < 4:
        tricks += max(0, len(held) - 5)
    for s in side_suits(game):
        a, t, k = has_card(mask, s, ACE), has_card(mask, s, TEN), has_card(mask, s, KING)
        if a and t and k:
            tricks += 2.5
        elif a and t:
            tricks += 2
        elif a:
            tricks += 1
        elif t and k:
            tricks += 0.5
        if game == GRAND and a and t:
            tricks += max(0, _suit_length(mask, s) - 4)
    if game < 4 and len(held) >= 5:
        voids = sum(_suit_length(mask, s) == 0 for s in side_suits(game))
        tricks += min(1.0, 0.5 * voids)
    if position == 0:
        tricks += 1.0 if game == GRAND else 0.5
    return tricks


def strength(cards: int | Iterable[int | str], position: int = 0, bid: int = 18
             ) -> dict[str, dict[str, float]]:
    """Both counts for every suit game and grand: ``{"stegen": {...}, "kinback": {...}}``."""
    mask = as_hand(cards)
    return {
        "stegen": {GAME_NAMES[g]: stegen(mask, g, bid) for g in range(5)},
        "kinback": {GAME_NAMES[g]: kinback(mask, g, position) for g in range(5)},
    }


def strength_bid(cards: int | Iterable[int | str], system: str, position: int = 0,
                 bid: int = 18) -> int:
    """The game (0..4) the ``stegen`` or ``kinback`` system would play, or -1 (pass).

    The strongest game over its threshold; ties go to the game with the higher base
    value (grand, then clubs .. diamonds).
    """
    mask = as_hand(cards)
    if system == "stegen":
        scores = [stegen(mask, g, bid) for g in range(5)]
        limits = STEGEN_THRESHOLD
    elif system == "kinback":
        scores = [kinback(mask, g, position) for g in range(5)]
        limits = KINBACK_THRESHOLD
    else:
        raise HandError(f"unknown hand-strength system {system!r} (stegen or kinback)")
    best, best_key = -1, (float("-inf"), -1)
    for g in range(5):
        if scores[g] >= limits["grand" if g == GRAND else "suit"] and (scores[g], g) > best_key:
            best, best_key = g, (scores[g], g)
    return best
