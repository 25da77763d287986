"""Bidding (Reizen) under the ISkO, 3.3.

Middlehand says bids to forehand, who holds ("yes", equalling the bid) or
passes; the survivor then hears rearhand the same way. Bids must be valid
values (the 63 game values 18..264) but need not be consecutive (jump bids,
3.3.2). If middlehand and rearhand both pass without a bid, forehand may open
with any value or pass; if all pass the deal is passed in (eingepasst).
Passes and holds cannot be taken back (3.3.8). Positions are 0 forehand
(Vorhand), 1 middlehand (Mittelhand), 2 rearhand (Hinterhand).
"""

from __future__ import annotations

from dataclasses import dataclass

from spielwerk.games.skat.cards import BID_VALUES
from spielwerk.games.skat.kernel_deal import (
    DONE,
    FOREHAND,
    FOREHAND_OPENS,
    HOLD_MOVE,
    MIDDLEHAND,
    PASS_MOVE,
    REARHAND,
    SAY_TO_FOREHAND,
    SAY_TO_SURVIVOR,
    auction_bidder,
    auction_move,
    first_bid,
)

__all__ = ["BID_VALUES", "FOREHAND", "MIDDLEHAND", "REARHAND", "POSITION_NAMES",
           "SAY_TO_FOREHAND", "SAY_TO_SURVIVOR", "FOREHAND_OPENS", "DONE", "Auction"]

POSITION_NAMES = ("forehand", "middlehand", "rearhand")
_move = auction_move


@dataclass
class Auction:
    """The state of the bidding between the three active positions (the rules are the
    kernels of :mod:`kernel_deal`, which the batch path compiles)."""

    stage: int = SAY_TO_FOREHAND
    value: int = 0
    answering: bool = False  # True: the listener must hold or pass
    listener: int = FOREHAND
    declarer: int = -1  # position of the winner once DONE; -1 passed in

    def copy(self) -> Auction:
        return Auction(self.stage, self.value, self.answering, self.listener, self.declarer)

    @property
    def done(self) -> bool:
        return self.stage == DONE

    @property
    def bidder(self) -> int:
        return auction_bidder(self.stage)

    def to_move(self) -> int:
        """Position whose decision it is."""
        if self.stage == DONE:
            raise ValueError("the bidding is over")
        return self.listener if self.answering else auction_bidder(self.stage)

    def can_hold(self) -> bool:
        return self.answering

    def bid_values(self) -> list[int]:
        """Values the player to move may bid (empty when answering)."""
        return list(BID_VALUES[first_bid(self.value, self.answering, self.stage):])

    def move(self, move: int) -> bool:
        """Apply an auction move (a bid's index in :data:`BID_VALUES`, ``HOLD_MOVE``,
        ``PASS_MOVE``); False, changing nothing, if it is not allowed here."""
        after = _move(self.stage, self.value, self.answering, self.listener, self.declarer, move)
        if after[0] < 0:
            return False
        self.stage, self.value, self.answering, self.listener, self.declarer = after
        return True

    def bid(self, value: int) -> None:
        if value not in BID_VALUES or not self.move(BID_VALUES.index(value)):
            raise ValueError(f"{value} cannot be bid here")

    def hold(self) -> None:
        if not self.move(HOLD_MOVE):
            raise ValueError("nothing to hold")

    def pass_(self) -> None:
        """The player to move passes."""
        if not self.move(PASS_MOVE):
            raise ValueError("the bidding is over")


def highest_bid_at_most(value: int) -> int:
    """The highest valid bid not above ``value`` (0 if below 18)."""
    bids = [b for b in BID_VALUES if b <= value]
    return bids[-1] if bids else 0
