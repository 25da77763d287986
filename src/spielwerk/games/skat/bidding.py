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

BID_VALUES: tuple[int, ...] = (
    18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60, 63,
    66, 70, 72, 77, 80, 81, 84, 88, 90, 96, 99, 100, 108, 110, 117, 120, 121, 126, 130,
    132, 135, 140, 143, 144, 150, 153, 154, 156, 160, 162, 165, 168, 170, 176, 180, 187,
    192, 198, 204, 216, 240, 264,
)
"""Every valid bid: the game values from 18 to 264 (the Reiztabelle)."""

FOREHAND, MIDDLEHAND, REARHAND = 0, 1, 2
POSITION_NAMES = ("forehand", "middlehand", "rearhand")

# stages
SAY_TO_FOREHAND = 0  # middlehand bids, forehand answers
SAY_TO_SURVIVOR = 1  # rearhand bids, the survivor answers
FOREHAND_OPENS = 2  # both others passed without a bid
DONE = 3


@dataclass
class Auction:
    """The state of the bidding between the three active positions."""

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
        if self.stage == SAY_TO_FOREHAND:
            return MIDDLEHAND
        if self.stage == SAY_TO_SURVIVOR:
            return REARHAND
        return FOREHAND

    def to_move(self) -> int:
        """Position whose decision it is."""
        if self.stage == DONE:
            raise ValueError("the bidding is over")
        return self.listener if self.answering else self.bidder

    def can_hold(self) -> bool:
        return self.answering

    def bid_values(self) -> list[int]:
        """Values the player to move may bid (empty when answering)."""
        if self.answering or self.stage == DONE:
            return []
        return [v for v in BID_VALUES if v > self.value]

    def bid(self, value: int) -> None:
        if value not in BID_VALUES or value <= self.value or self.answering:
            raise ValueError(f"{value} cannot be bid here")
        self.value = value
        if self.stage == FOREHAND_OPENS:
            self.declarer = FOREHAND
            self.stage = DONE
        else:
            self.answering = True

    def hold(self) -> None:
        if not self.answering:
            raise ValueError("nothing to hold")
        self.answering = False

    def pass_(self) -> None:
        """The player to move passes."""
        if self.stage == DONE:
            raise ValueError("the bidding is over")
        if self.stage == FOREHAND_OPENS:
            self.stage = DONE
            self.declarer = -1
            return
        if self.answering:  # the listener passes: the bidder survives
            survivor = self.bidder
        else:  # the bidder passes: the listener survives
            survivor = self.listener
        self.answering = False
        if self.stage == SAY_TO_FOREHAND:
            self.stage = SAY_TO_SURVIVOR
            self.listener = survivor
        elif self.value == 0:
            self.stage = FOREHAND_OPENS
        else:
            self.declarer = survivor
            self.stage = DONE
