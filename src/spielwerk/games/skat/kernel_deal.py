"""The rules of a Skat deal around the tricks, as numba kernels: bidding, the end of the
card play, claims and resignations, the game value, Ramsch scoring.

With :mod:`kernel` (following suit, trick winners, points, matadors) these are
the single source of truth for a deal. Two callers use the same functions:

* the Python ``State`` (:mod:`state`, :mod:`bidding`, :mod:`scoring`,
  :mod:`ramsch`) calls them as the plain Python functions they are
  (``register_jitable`` leaves them so), which costs what any Python function
  costs and needs no compile;
* the batch path (:mod:`batch`) calls them from its numba loop over many
  games, where numba compiles them into that loop.

Everything is on ints and bools so that both agree bit for bit. Positions are
0 forehand, 1 middlehand, 2 rearhand.
"""

from __future__ import annotations

from numba.extending import register_jitable

from spielwerk.games.skat.cards import (
    BASE_VALUES,
    BID_VALUES,
    LOSE_SCHNEIDER_POINTS,
    NULL,
    NULL_BASE_VALUES,
    SCHNEIDER_POINTS,
    TRICKS,
    WIN_POINTS,
)

FOREHAND, MIDDLEHAND, REARHAND = 0, 1, 2
# auction stages
SAY_TO_FOREHAND = 0  # middlehand bids, forehand answers
SAY_TO_SURVIVOR = 1  # rearhand bids, the survivor answers
FOREHAND_OPENS = 2  # both others passed without a bid
DONE = 3
BIDS = len(BID_VALUES)
HOLD_MOVE = BIDS  # moves of the auction: a bid's index 0..62, hold, pass
PASS_MOVE = BIDS + 1
"""An auction move is ``action - BID_BASE`` of the Skat actions (bids, ``y``, ``p``)."""


@register_jitable
def auction_bidder(stage: int) -> int:
    """Position that says bids in this stage."""
    if stage == SAY_TO_FOREHAND:
        return MIDDLEHAND
    if stage == SAY_TO_SURVIVOR:
        return REARHAND
    return FOREHAND


@register_jitable
def first_bid(value: int, answering: bool, stage: int) -> int:
    """Index of the lowest bid the player to move may say (``BIDS``: none)."""
    if answering or stage == DONE:
        return BIDS
    i = 0
    while i < BIDS and BID_VALUES[i] <= value:
        i += 1
    return i


@register_jitable
def auction_move(
    stage: int, value: int, answering: bool, listener: int, declarer: int, move: int
) -> tuple[int, int, bool, int, int]:
    """The auction ``(stage, value, answering, listener, declarer)`` after ``move`` (a bid's
    index, ``HOLD_MOVE`` or ``PASS_MOVE``; ISkO 3.3); stage -1 if the move is not allowed.

    Middlehand bids to forehand, who holds or passes; the survivor hears
    rearhand the same way; if both pass without a bid forehand may open or
    pass (passed in: declarer -1).
    """
    if stage == DONE or move < 0 or move > PASS_MOVE:
        return -1, value, answering, listener, declarer
    if move < BIDS:
        bid = BID_VALUES[move]
        if answering or bid <= value:
            return -1, value, answering, listener, declarer
        if stage == FOREHAND_OPENS:
            return DONE, bid, answering, listener, FOREHAND
        return stage, bid, True, listener, declarer
    if move == HOLD_MOVE:
        if not answering:
            return -1, value, answering, listener, declarer
        return stage, value, False, listener, declarer
    if stage == FOREHAND_OPENS:  # all passed
        return DONE, value, answering, listener, -1
    # the listener passes: the bidder survives; the bidder passes: the listener survives
    survivor = auction_bidder(stage) if answering else listener
    if stage == SAY_TO_FOREHAND:
        return SAY_TO_SURVIVOR, value, False, survivor, declarer
    if value == 0:
        return FOREHAND_OPENS, value, False, listener, declarer
    return DONE, value, False, listener, survivor


# ----- card play: offers and the end ---------------------------------------------------
NO_OFFER, RESIGN_ONLY, CLAIM_OR_RESIGN = 0, 1, 2
PLAYING, END_ALL_TRICKS, END_NULL_TRICK, END_SCHWARZ_MISSED = 0, 1, 2, 3


@register_jitable
def offers(ramsch: bool, is_declarer: bool, last_offer: int, tricks_done: int) -> int:
    """What the player to move may offer: a claim (declarer) and a resignation, once per
    trick and party (``last_offer``: the trick of the party's last offer, -1 none)."""
    if ramsch or last_offer == tricks_done:
        return NO_OFFER
    return CLAIM_OR_RESIGN if is_declarer else RESIGN_ONLY


@register_jitable
def trick_end(
    game: int, schwarz_announced: bool, ramsch: bool, winner_is_declarer: bool, tricks_done: int
) -> int:
    """Does the deal end after a trick? ``PLAYING`` or the reason: every trick played, the
    null declarer took a trick, the defenders took one against an announced schwarz."""
    if not ramsch:
        if game == NULL and winner_is_declarer:
            return END_NULL_TRICK
        if schwarz_announced and not winner_is_declarer:
            return END_SCHWARZ_MISSED
    if tricks_done == TRICKS:
        return END_ALL_TRICKS
    return PLAYING


# ----- scoring ---------------------------------------------------------------------------
@register_jitable
def base_value(game: int, hand: bool, ouvert: bool) -> int:
    """Base value of a contract: suit/grand (ISkO 5.1) or the fixed null value."""
    if game == NULL:
        return NULL_BASE_VALUES[2 * int(hand) + int(ouvert)]
    return BASE_VALUES[game]


@register_jitable
def declarer_won(
    game: int, schneider_announced: bool, schwarz_announced: bool, points: int, tricks: int
) -> bool:
    """Did the declarer reach the contract's goal (no trick in null, every trick with
    schwarz announced, 90 with schneider announced, else 61) with these points and tricks?"""
    if game == NULL:
        return tricks == 0
    if schwarz_announced:
        return tricks == TRICKS
    if schneider_announced:
        return points >= SCHNEIDER_POINTS
    return points >= WIN_POINTS


@register_jitable
def game_value(
    game: int, hand: bool, schneider_announced: bool, schwarz_announced: bool, ouvert: bool,
    bid: int, matadors: int, points: int, tricks: int, conceded: bool,
) -> tuple[bool, int, bool, bool, bool]:
    """``(won, value, schneider, schwarz, overbid)`` of a finished game (ISkO 5.2-5.4).

    Multiplier: matadors + game + hand + schneider + announced + schwarz +
    announced + ouvert; null has its fixed value. An overbid game is lost at
    the smallest multiple of the base value not below the bid.
    """
    base = base_value(game, hand, ouvert)
    won = declarer_won(game, schneider_announced, schwarz_announced, points, tricks)
    won = won and not conceded
    if game == NULL:
        value = base
        schneider = schwarz = False
    else:
        schneider = points >= SCHNEIDER_POINTS or points <= LOSE_SCHNEIDER_POINTS
        schwarz = tricks == 0 or tricks == TRICKS
        multiplier = (
            abs(matadors) + 1 + int(hand) + int(schneider or schneider_announced)
            + int(schneider_announced) + int(schwarz or schwarz_announced)
            + int(schwarz_announced) + int(ouvert)
        )
        value = base * multiplier
    overbid = value < bid
    if overbid:
        won = False
        value = -(-bid // base) * base
    return won, value, schneider, schwarz, overbid


@register_jitable
def declarer_score(won: bool, value: int) -> int:
    """Points for the declarer's list: the value if won, -2 x value if lost."""
    return value if won else -2 * value


@register_jitable
def ramsch_outcome(
    p0: int, p1: int, p2: int, t0: int, t1: int, t2: int
) -> tuple[float, float, float, int, bool, int]:
    """Ramsch from the three players' card points (skat included) and tricks:
    ``(return 0, 1, 2, durchmarsch player or -1, jungfrau, losers as a bit mask)``.

    Whoever has most points loses them (all tied for most lose), doubled if
    someone took no trick (Jungfrau); the others share the loss. Taking every
    trick (Durchmarsch) wins 120 from the other two. A 40-40-40 tie costs nobody.
    """
    if t0 == TRICKS:
        return 120.0, -60.0, -60.0, 0, False, 0
    if t1 == TRICKS:
        return -60.0, 120.0, -60.0, 1, False, 0
    if t2 == TRICKS:
        return -60.0, -60.0, 120.0, 2, False, 0
    top = max(p0, max(p1, p2))
    losers = int(p0 == top) | int(p1 == top) << 1 | int(p2 == top) << 2
    jungfrau = t0 == 0 or t1 == 0 or t2 == 0
    loss = top * (2 if jungfrau else 1)
    n_losers = int(p0 == top) + int(p1 == top) + int(p2 == top)
    if n_losers == 3:
        return 0.0, 0.0, 0.0, -1, jungfrau, losers
    share = loss * n_losers / (3 - n_losers)
    r0 = -float(loss) if p0 == top else share
    r1 = -float(loss) if p1 == top else share
    r2 = -float(loss) if p2 == top else share
    return r0, r1, r2, -1, jungfrau, losers
