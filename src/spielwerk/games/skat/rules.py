"""Skat under the International Skat Order: the ``Game``, ``State`` and ``InfoState``.

One deal, from the shuffle to the result (``load_game("skat")``):

* **Deal** - 32 chance actions, one card each, in the dealing order 3 - skat 2 -
  4 - 3 starting at the dealer's left (forehand, middlehand, rearhand).
* **Bidding** - :mod:`bidding` (ISkO 3.3); all pass = passed in (score 0).
* **Skat** - the declarer picks up the skat (``s``) or declares a hand game
  at once (ISS style: a declaration without ``s`` is a hand game). After
  picking up they put any two cards (two card actions), then declare.
* **Play** - ten tricks; forehand leads the first. Following suit and trick
  winners come from :mod:`kernel` (the only copy of those rules). Early ends:
  a null game when the declarer takes a trick, an announced schwarz (and suit
  or grand ouvert) when the defenders take one.
* **Claims and resignations** (recorded as actions): on their turn the
  declarer may claim the rest (``SC``, showing their cards) and any player
  may resign (``RE``). A declarer's resignation ends the game (lost, the rest
  goes to the defenders). A claim or a defender's resignation asks the
  defender(s) who have not yet agreed: ``RE`` agrees, ``PLAY`` plays on. When
  the defenders agree, the rest goes to the declarer (in null the declarer
  simply wins). Each party may offer once per trick, which keeps games finite.

**Ramsch** (``ramsch=true``, a house rule, not ISkO, off by default): when
all pass, the deal is played as Ramsch instead of being passed in - jacks are
the only trumps (as in grand), forehand leads, the skat goes to the winner of
the last trick, and the player with the most card points loses that many
(every player tied for most loses). A player without a trick (Jungfrau)
doubles the loss; a player who takes every trick (Durchmarsch) wins 120.
Returns stay zero-sum: the others share the loser's points (pagat.com, Skat:
Ramsch, the common club rules without "Schieben").

Seats: with ``players=3`` the dealer is rearhand; with ``players=4`` the dealer
sits the deal out. The default ``dealer=2`` makes seat 0 forehand, as ISS's P0.

Actions (ascending ints, strings in ISS notation): cards 0..31 (deal, put,
play: ``CJ``), bids 32..94 (``18`` .. ``264``), hold 95 (``y``), pass 96
(``p``), pick up 97 (``s``), declarations 98..126 (``D``, ``GH``, ``CHZ``,
``GO``, ``NOH`` ...), claim 127 (``SC``), resign 128 (``RE``), play on 129
(``PLAY``). Returns: the declarer's score (value or -2 x value), each
defender minus half of it; the dealer of a 4-table gets 0.

Modules: :mod:`actions` (action numbers, notation, phases), :mod:`state` (the
``State``), :mod:`info` (the ``InfoState`` with its sampling), :mod:`ramsch`;
this module has the ``Game`` and re-exports the others' names.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spielwerk.core.errors import GameParameterError
from spielwerk.core.game import Game, GameType, Playouts
from spielwerk.core.registry import register_game
from spielwerk.games.skat.actions import (
    BID_BASE,
    BIDDING,
    CLAIM,
    DEAL,
    DEAL_ORDER,
    DECLARATIONS,
    DECLARE,
    DECLARE_BASE,
    HAND_DECLARATIONS,
    HOLD,
    MAX_SCORE,
    NUM_ACTIONS,
    OVER,
    PASS,
    PHASE_NAMES,
    PICKUP,
    PICKUP_DECLARATIONS,
    PLAY,
    PLAY_ON,
    PUT,
    RESIGN,
    RESPONSE,
    SKAT,
    SKAT_PLACE,
    SkatRuleError,
    action_to_string,
    bid_action,
    declaration_action,
)
from spielwerk.games.skat.batch import legal_action_masks, random_playouts
from spielwerk.games.skat.bidding import BID_VALUES, POSITION_NAMES, Auction
from spielwerk.games.skat.cards import (
    GRAND,
    NULL,
)
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.ramsch import RamschResult, ramsch_result
from spielwerk.games.skat.scoring import Contract, DealResult, GameResult
from spielwerk.games.skat.state import SkatState

__all__ = [
    "BID_BASE", "BIDDING", "CLAIM", "DEAL", "DEAL_ORDER", "DECLARATIONS", "DECLARE",
    "DECLARE_BASE", "HAND_DECLARATIONS", "HOLD", "MAX_SCORE", "NUM_ACTIONS", "OVER", "PASS",
    "PHASE_NAMES", "PICKUP", "PICKUP_DECLARATIONS", "PLAY", "PLAY_ON", "PUT", "RESIGN",
    "RESPONSE", "SKAT", "SKAT_PLACE", "RamschResult", "SkatGame", "SkatInfoState",
    "SkatRuleError", "SkatState", "action_to_string", "bid_action", "declaration_action",
    "ramsch_result", "BID_VALUES", "POSITION_NAMES", "Auction", "GRAND", "NULL", "Contract",
    "DealResult",
    "GameResult",
]


# ----- the game -------------------------------------------------------------------------
class SkatGame(Game):
    """One deal of Skat at a table of 3 or 4 (the dealer of a 4-table sits out)."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.players = int(params["players"])
        self.dealer = int(params["dealer"])
        self.ramsch = bool(params.get("ramsch", False))
        if self.players not in (3, 4):
            raise GameParameterError(f"skat: players must be 3 or 4, not {self.players}")
        if not 0 <= self.dealer < self.players:
            raise GameParameterError(
                f"skat: dealer must be a seat 0..{self.players - 1}, not {self.dealer}"
            )
        self.positions = tuple((self.dealer + 1 + i) % self.players for i in range(3))
        """Seats of forehand, middlehand, rearhand."""
        pos = self.positions
        self.next_seats = tuple(
            pos[(pos.index(s) + 1) % 3] if s in pos else -1 for s in range(self.players)
        )
        """The seat after each seat in play order (-1 for a 4-table dealer)."""
        self.turns = tuple(
            tuple(pos[(pos.index(s) + k) % 3] for k in range(3)) if s in pos else ()
            for s in range(self.players)
        )
        """``turns[leader][k]``: the seat playing the ``k``-th card of a trick ``leader`` leads."""
        self.deal_seats = tuple(-1 if p == SKAT_PLACE else pos[p] for p in DEAL_ORDER)
        """The seat receiving each dealt card in order, -1 for the skat."""
        self._type = GameType(
            short_name="skat",
            long_name="Skat (International Skat Order)",
            num_players=self.players,
            chance=True,
            perfect_information=False,
            zero_sum=True,
            min_utility=-float(MAX_SCORE),
            max_utility=float(MAX_SCORE),
            utility_sum=0.0,
            parameters=dict(self.params),
        )

    @property
    def game_type(self) -> GameType:
        return self._type

    def new_initial_state(self) -> SkatState:
        return SkatState(self)

    def random_playouts(self, n: int, seed: int, state: SkatState | None = None) -> Playouts:
        """``n`` uniformly random games to the end, from the start or ``state`` (:mod:`batch`:
        all games in one numba loop over the rule kernels the State calls)."""
        return random_playouts(self, n, seed, state)

    def legal_action_masks(self, states: Sequence[SkatState]) -> np.ndarray:
        """``masks[i, a]`` is True when action ``a`` is legal in ``states[i]``."""
        return legal_action_masks(states)

    def next_deal(self) -> SkatGame:
        """The same table with the deal passed to the left (dealer + 1), for series."""
        return SkatGame({**self.params, "dealer": (self.dealer + 1) % self.players})

    def seat_of(self, position: int) -> int:
        """Seat of position 0 (forehand), 1 (middlehand) or 2 (rearhand)."""
        return self.positions[position]

    def position_of(self, seat: int) -> int:
        """0 forehand, 1 middlehand, 2 rearhand, -1 for a 4-table dealer."""
        return self.positions.index(seat) if seat in self.positions else -1


def _make(params: dict[str, Any]) -> SkatGame:
    return SkatGame(params)


register_game(
    "skat",
    _make,
    {"players": 3, "dealer": 2, "ramsch": False},
    "Skat under the International Skat Order (one deal; bidding, skat, play, result)",
    {
        "players": "3, or 4 with the dealer sitting out",
        "dealer": "dealer's seat (default 2: seat 0 is forehand, like ISS's P0)",
        "ramsch": "play Ramsch when all pass (house rule; default: passed in, score 0)",
    },
)
