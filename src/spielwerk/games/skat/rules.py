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
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from spielwerk.core.errors import GameParameterError, SpielwerkError
from spielwerk.core.game import CHANCE, TERMINAL, Game, GameType, InfoState, State
from spielwerk.core.registry import register_game
from spielwerk.games.skat import kernel
from spielwerk.games.skat.bidding import BID_VALUES, POSITION_NAMES, Auction
from spielwerk.games.skat.cards import (
    ALL_CARDS_MASK,
    card_to_string,
    cards_of,
    mask_to_string,
    popcount,
)
from spielwerk.games.skat.scoring import (
    NULL,
    Contract,
    GameResult,
    evaluate,
    passed_in,
)

# ----- action encoding ---------------------------------------------------------------
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


def _cards_of(mask: int) -> list[int]:
    """:func:`cards.cards_of` by bytes (the State's hot path): the cards of a mask, ascending."""
    out: list[int] = []
    for k in range(4):
        b = mask >> (8 * k) & 255
        if b:
            out.extend(_BYTE_CARDS[k][b])
    return out


_BID_INDEX = {v: i for i, v in enumerate(BID_VALUES)}


def _bid_actions(values: list[int]) -> list[int]:
    """``[bid_action(v) for v in values]`` for the ascending tail of BID_VALUES that
    :meth:`Auction.bid_values` returns (a range of actions)."""
    if not values:
        return []
    first = _BID_INDEX.get(values[0])
    if first is None or len(values) != len(BID_VALUES) - first or values[-1] != BID_VALUES[-1]:
        return [bid_action(v) for v in values]
    return list(range(BID_BASE + first, BID_BASE + len(BID_VALUES)))


def bid_action(value: int) -> int:
    if value not in BID_VALUES:
        raise SkatRuleError(f"{value} is not a valid bid")
    return BID_BASE + BID_VALUES.index(value)


def declaration_action(contract: Contract) -> int:
    return DECLARE_BASE + DECLARATIONS.index(contract)


class SkatRuleError(SpielwerkError, ValueError):
    """Something the Skat rules do not allow (bad parameters, impossible setups)."""


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

    def next_deal(self) -> SkatGame:
        """The same table with the deal passed to the left (dealer + 1), for series."""
        return SkatGame({**self.params, "dealer": (self.dealer + 1) % self.players})

    def seat_of(self, position: int) -> int:
        """Seat of position 0 (forehand), 1 (middlehand) or 2 (rearhand)."""
        return self.positions[position]

    def position_of(self, seat: int) -> int:
        """0 forehand, 1 middlehand, 2 rearhand, -1 for a 4-table dealer."""
        return self.positions.index(seat) if seat in self.positions else -1


class SkatState(State):
    """A full Skat position (all hands, the skat) with its history."""

    def __init__(self, game: SkatGame) -> None:
        super().__init__(game)
        self.sgame = game
        n = game.players
        self.phase = DEAL
        self.deal_index = 0
        self.dealt = [0] * n  # hands as dealt
        self.hands = [0] * n  # current hands
        self.skat = 0  # the skat as dealt
        self.put = 0  # the two cards put by the declarer
        self.picked_up = False
        self.auction = Auction()
        self.declarer = -1
        self.contract: Contract | None = None
        self.leader = game.positions[0]
        self.trick: list[int] = []  # cards of the current trick, from the leader
        self.tricks_done = 0
        self.won = [0] * n  # cards won in tricks per seat
        self.trick_count = [0] * n
        self.played = [0] * n  # cards each seat has played
        self.voids = [0] * n  # cards a seat has shown it cannot hold (not following)
        self.revealed = 0  # the declarer's hand as shown (ouvert or a claim)
        self.offers: dict[int, int] = {}  # party (0 declarer, 1 defenders) -> trick of last offer
        self.responders: list[int] = []
        self.resume = -1
        self.end_reason = ""
        self.result: GameResult | None = None
        self.ramsch_result: RamschResult | None = None
        self.ramsch_started = False
        self.log: list[tuple[int, bool]] = []  # (non-chance action, is a put)
        self.trick_history: list[tuple[int, tuple[int, ...], int]] = []  # leader, cards, winner

    # ----- helpers -------------------------------------------------------------------------
    @property
    def game_code(self) -> int:
        if self.contract is None:
            return kernel.GRAND if self.phase in (PLAY, OVER) and self.is_ramsch else -1
        return self.contract.game

    @property
    def is_ramsch(self) -> bool:
        return self.ramsch_started

    def seat_of(self, position: int) -> int:
        return self.sgame.positions[position]

    def _next_seat(self, seat: int) -> int:
        pos = self.sgame.positions
        return pos[(pos.index(seat) + 1) % 3]

    def to_play(self) -> int:
        """Seat whose card is next in the current trick."""
        pos = self.sgame.positions
        return pos[(pos.index(self.leader) + len(self.trick)) % 3]

    def defenders(self) -> list[int]:
        return [s for s in self.sgame.positions if s != self.declarer]

    # ----- the State protocol ------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self.phase == DEAL:
            return CHANCE
        if self.phase == BIDDING:
            return self.seat_of(self.auction.to_move())
        if self.phase in (SKAT, PUT, DECLARE):
            return self.declarer
        if self.phase == PLAY:
            return self.to_play()
        if self.phase == RESPONSE:
            return self.responders[0]
        return TERMINAL

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_chance_node(self) -> bool:
        return self.phase == DEAL

    def legal_actions(self) -> list[int]:
        if self.phase == OVER:
            return []
        return self._legal_actions()

    def _is_legal(self, action: int) -> bool:
        ph = self.phase
        if ph == DEAL:
            return 0 <= action < 32 and not self._dealt_mask() >> action & 1
        if ph == PLAY and 0 <= action < 32:
            led = self.trick[0] if self.trick else -1
            hand = self.hands[self.to_play()]
            return bool(kernel.legal_cards(hand, led, self.game_code) >> action & 1)
        return ph != OVER and action in self._legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase != DEAL:
            return []
        cards = _cards_of(ALL_CARDS_MASK & ~(self._dealt_mask()))
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _dealt_mask(self) -> int:
        m = self.skat
        for h in self.dealt:
            m |= h
        return m

    def _legal_actions(self) -> list[int]:
        ph = self.phase
        if ph == DEAL:
            return _cards_of(ALL_CARDS_MASK & ~(self._dealt_mask()))
        if ph == BIDDING:
            acts = _bid_actions(self.auction.bid_values())
            if self.auction.can_hold():
                acts.append(HOLD)
            acts.append(PASS)
            return acts
        if ph == SKAT:
            return [PICKUP, *HAND_DECLARATIONS]
        if ph == PUT:
            return _cards_of(self.hands[self.declarer])
        if ph == DECLARE:
            return list(PICKUP_DECLARATIONS)
        if ph == PLAY:
            seat = self.to_play()
            led = self.trick[0] if self.trick else -1
            acts = _cards_of(kernel.legal_cards(self.hands[seat], led, self.game_code))
            party = 0 if seat == self.declarer else 1
            if not self.is_ramsch and self.offers.get(party, -1) != self.tricks_done:
                if seat == self.declarer:
                    acts.append(CLAIM)
                acts.append(RESIGN)
            return acts
        if ph == RESPONSE:
            return [RESIGN, PLAY_ON]
        return []

    def _apply_action(self, action: int) -> None:
        ph = self.phase
        if ph == DEAL:
            self._deal(action)
            return
        self.log.append((action, ph == PUT))
        if ph == BIDDING:
            if action == PASS:
                self.auction.pass_()
            elif action == HOLD:
                self.auction.hold()
            else:
                self.auction.bid(BID_VALUES[action - BID_BASE])
            if self.auction.done:
                if self.auction.declarer < 0 and self.sgame.ramsch:
                    self.ramsch_started = True
                    self.phase = PLAY
                    self.leader = self.seat_of(0)
                elif self.auction.declarer < 0:
                    self._finish("passed")
                else:
                    self.declarer = self.seat_of(self.auction.declarer)
                    self.phase = SKAT
        elif ph == SKAT:
            if action == PICKUP:
                self.picked_up = True
                self.hands[self.declarer] |= self.skat
                self.phase = PUT
            else:
                self._declare(DECLARATIONS[action - DECLARE_BASE])
        elif ph == PUT:
            self.hands[self.declarer] &= ~(1 << action)
            self.put |= 1 << action
            if popcount(self.put) == 2:
                self.phase = DECLARE
        elif ph == DECLARE:
            self._declare(DECLARATIONS[action - DECLARE_BASE])
        elif ph == PLAY:
            if action == CLAIM:
                self.offers[0] = self.tricks_done
                self.revealed |= self.hands[self.declarer]
                self.resume = self.to_play()
                self.responders = self.defenders()
                self._order_responders()
                self.phase = RESPONSE
            elif action == RESIGN:
                seat = self.to_play()
                if seat == self.declarer:
                    self.offers[0] = self.tricks_done
                    self._finish("declarer resigned")
                else:
                    self.offers[1] = self.tricks_done
                    self.resume = seat
                    self.responders = [s for s in self.defenders() if s != seat]
                    self.phase = RESPONSE
            else:
                self._play_card(action)
        elif ph == RESPONSE:
            if action == RESIGN:
                self.responders.pop(0)
                if not self.responders:
                    self._finish("defenders resigned")
            else:
                self.responders = []
                self.phase = PLAY

    def _order_responders(self) -> None:
        first = self._next_seat(self.declarer)
        self.responders.sort(key=lambda s: 0 if s == first else 1)

    def _deal(self, card: int) -> None:
        place = DEAL_ORDER[self.deal_index]
        bit = 1 << card
        if place == SKAT_PLACE:
            self.skat |= bit
        else:
            seat = self.seat_of(place)
            self.dealt[seat] |= bit
            self.hands[seat] |= bit
        self.deal_index += 1
        if self.deal_index == 32:
            self.phase = BIDDING

    def _declare(self, contract: Contract) -> None:
        self.contract = contract
        if contract.ouvert:
            self.revealed = self.hands[self.declarer]
        self.phase = PLAY
        self.leader = self.seat_of(0)

    def _play_card(self, card: int) -> None:
        seat = self.to_play()
        bit = 1 << card
        game = self.game_code
        if self.trick and not (kernel.class_mask(game, self.trick[0]) >> card) & 1:
            self.voids[seat] |= kernel.class_mask(game, self.trick[0])
        self.hands[seat] &= ~bit
        self.played[seat] |= bit
        self.trick.append(card)
        if len(self.trick) < 3:
            return
        w = kernel.trick_winner(self.trick[0], self.trick[1], self.trick[2], game)
        winner = self.leader
        for _ in range(w):
            winner = self._next_seat(winner)
        for c in self.trick:
            self.won[winner] |= 1 << c
        self.trick_count[winner] += 1
        self.trick_history.append((self.leader, tuple(self.trick), winner))
        self.trick = []
        self.tricks_done += 1
        self.leader = winner
        if self.contract is None:  # Ramsch
            if self.tricks_done == 10:
                self.won[winner] |= self.skat  # the skat goes to the last trick
                self._finish("all tricks played")
            return
        if game == NULL and winner == self.declarer:
            self._finish("null: declarer took a trick")
        elif self.contract.schwarz_announced and winner != self.declarer:
            self._finish("schwarz announced: defenders took a trick")
        elif self.tricks_done == 10:
            self._finish("all tricks played")

    def _finish(self, reason: str) -> None:
        self.end_reason = reason
        self.phase = OVER
        self.responders = []
        if reason == "passed":
            self.result = passed_in()
            return
        if self.is_ramsch:
            self.ramsch_result = ramsch_result(
                {s: int(kernel.points(self.won[s])) for s in self.sgame.positions},
                {s: self.trick_count[s] for s in self.sgame.positions},
            )
            return
        d = self.declarer
        assert self.contract is not None
        if reason == "defenders resigned" and self.contract.game != NULL:
            rest = 0  # the cards still in play: every hand and the open trick
            for s in self.sgame.positions:
                rest |= self.hands[s]
            for c in self.trick:
                rest |= 1 << c
            self.won[d] |= rest
            self.trick_count[d] += 10 - self.tricks_done
            for s in self.sgame.positions:
                self.hands[s] = 0
            self.trick = []
        skat_points = kernel.points(self.put if self.picked_up else self.skat)
        self.result = evaluate(
            self.contract,
            self.auction.value,
            int(kernel.matadors(self.dealt[d] | self.skat, self.contract.game)),
            int(kernel.points(self.won[d])) + int(skat_points),
            self.trick_count[d],
            declarer=d,
            declarer_conceded=reason == "declarer resigned",
        )

    def _clone(self) -> SkatState:
        c = SkatState.__new__(SkatState)
        c.__dict__.update(self.__dict__)
        c.dealt = list(self.dealt)
        c.hands = list(self.hands)
        c.auction = self.auction.copy()
        c.trick = list(self.trick)
        c.won = list(self.won)
        c.trick_count = list(self.trick_count)
        c.played = list(self.played)
        c.voids = list(self.voids)
        c.offers = dict(self.offers)
        c.responders = list(self.responders)
        c.log = list(self.log)
        c.trick_history = list(self.trick_history)
        return c

    def returns(self) -> list[float]:
        out = [0.0] * self.sgame.players
        if self.phase == OVER and self.ramsch_result is not None:
            for s, v in self.ramsch_result.returns.items():
                out[s] = v
            return out
        if self.phase != OVER or self.result is None or self.result.passed:
            return out
        score = float(self.result.score)
        for s in self.sgame.positions:
            out[s] = score if s == self.declarer else -score / 2
        return out

    def fingerprint(self) -> Hashable:
        return (
            self.phase, self.deal_index, tuple(self.dealt), tuple(self.hands), self.skat,
            self.put, self.picked_up, self.auction.stage, self.auction.value,
            self.auction.answering, self.auction.listener, self.declarer, self.contract,
            self.leader, tuple(self.trick), tuple(self.won), tuple(self.trick_count),
            self.revealed, tuple(sorted(self.offers.items())), tuple(self.responders),
            self.resume, self.end_reason, self.ramsch_started,
        )

    def action_to_string(self, action: int) -> str:
        return action_to_string(action)

    def info_state(self, player: int) -> SkatInfoState:
        if not 0 <= player < self.sgame.players:
            raise SkatRuleError(f"seat {player} is not at this table")
        return SkatInfoState(self, player)

    def card_points(self) -> dict[str, int]:
        """Card points taken so far: declarer (tricks only), defenders, and the skat."""
        d = self.declarer
        dec = int(kernel.points(self.won[d])) if d >= 0 else 0
        dfn = sum(int(kernel.points(self.won[s])) for s in self.sgame.positions if s != d)
        return {"declarer": dec, "defenders": dfn}

    def __str__(self) -> str:
        g = self.sgame
        lines = [f"phase: {PHASE_NAMES[self.phase]}   dealer: seat {g.dealer}"]
        for s in range(g.players):
            pos = g.position_of(s)
            name = POSITION_NAMES[pos] if pos >= 0 else "dealer (sits out)"
            tag = " (declarer)" if s == self.declarer else ""
            lines.append(f"seat {s} {name}{tag}: {mask_to_string(self.hands[s])}")
        lines.append(f"skat: {mask_to_string(self.skat)}")
        if self.auction.value:
            lines.append(f"bid: {self.auction.value}")
        if self.contract is not None:
            lines.append(f"game: {self.contract}")
        if self.trick:
            lines.append("trick: " + " ".join(card_to_string(c) for c in self.trick))
        if self.result is not None:
            lines.append(f"result: {self.result.describe()}")
        if self.ramsch_result is not None:
            lines.append(f"result: {self.ramsch_result.describe()}")
        return "\n".join(lines)


# ----- information states -----------------------------------------------------------------
class SkatInfoState(InfoState):
    """What one seat knows: own cards, the public actions, ouvert/claimed cards, and
    (as declarer) the skat after picking it up and the two cards put."""

    def __init__(self, state: SkatState, player: int) -> None:
        super().__init__(state.game, player)
        self.sgame: SkatGame = state.sgame
        self.phase = state.phase
        self._current = state.current_player
        self._legal = state.legal_actions() if self._current == player else []
        self.deal_index = state.deal_index
        self.declarer = state.declarer
        self.contract = state.contract
        self.is_ramsch = state.is_ramsch
        self.game_code = state.game_code
        self.bid = state.auction.value
        self.picked_up = state.picked_up
        self.own_dealt = state.dealt[player]
        self.hand = state.hands[player]
        knows_skat = (player == state.declarer and state.picked_up) or (
            state.is_ramsch and state.phase == OVER  # the skat is counted openly
        )
        self.skat: int | None = state.skat if knows_skat else None
        self.put: int | None = state.put if player == state.declarer else None
        self.played = list(state.played)
        self.voids = list(state.voids)
        self.revealed = state.revealed
        self.trick = list(state.trick)
        self.leader = state.leader
        self.trick_history = list(state.trick_history)
        self.won = list(state.won)
        self.trick_count = list(state.trick_count)
        self.result = state.result
        self.public = tuple(
            -1 if (is_put and player != state.declarer) else a for a, is_put in state.log
        )
        self.puts_done = popcount(state.put)

    @property
    def current_player(self) -> int:
        return self._current

    def legal_actions(self) -> list[int]:
        return list(self._legal)

    def action_to_string(self, action: int) -> str:
        return action_to_string(action)

    @property
    def position(self) -> int:
        """0 forehand, 1 middlehand, 2 rearhand, -1 a 4-table dealer."""
        return self.sgame.position_of(self.player)

    def fingerprint(self) -> Hashable:
        return (
            self.player, self.deal_index, self.own_dealt, self.skat, self.put,
            self.revealed if self.phase != DEAL else 0, self.public,
        )

    def declarer_hand_known(self) -> int | None:
        """The declarer's current hand if it is public (ouvert or claimed), else None."""
        if self.revealed == 0 or self.declarer < 0:
            return None
        return self.revealed & ~self.played[self.declarer]

    def unseen(self) -> int:
        """Cards whose place this player does not know."""
        known = self.own_dealt | self.hand
        for m in self.played:
            known |= m
        if self.skat is not None:
            known |= self.skat
        if self.put is not None:
            known |= self.put
        shown = self.declarer_hand_known()
        if shown is not None:
            known |= shown
        return ALL_CARDS_MASK & ~known

    # ----- determinization ------------------------------------------------------------------
    def sample_world(self, rng: np.random.Generator) -> SkatState:
        """A full state consistent with this knowledge; hidden cards uniform over the
        hidden places subject to the voids shown (exact, by counting)."""
        game = self.sgame
        p = self.player
        if self.phase == DEAL and self.deal_index < 32:
            return self._sample_during_deal(rng)
        d = self.declarer
        shown = self.declarer_hand_known()
        places: list[tuple[str, int, int, int]] = []  # (kind, seat, count, forbidden)
        for s in game.positions:
            if s == p or (s == d and shown is not None):
                continue
            count = 10 - popcount(self.played[s])
            if s == d and self.picked_up:
                count = 12 - self.puts_done - popcount(self.played[s])
            places.append(("hand", s, count, self.voids[s]))
        if self.skat is None and not (p == d and self.picked_up):
            count = self.puts_done if self.picked_up else 2
            if count:
                places.append(("skat", -1, count, 0))
        unseen = self.unseen()
        fill = _sample_places(cards_of(unseen), [(c, f) for _, _, c, f in places], rng)
        hands_now: dict[int, int] = {}
        skat_place = 0
        for (kind, seat, _, _), cards in zip(places, fill, strict=True):
            m = 0
            for c in cards:
                m |= 1 << c
            if kind == "hand":
                hands_now[seat] = m
            else:
                skat_place = m
        if shown is not None:
            hands_now[d] = shown
        hands_now[p] = self.hand
        # rebuild the deal
        dealt: dict[int, int] = {}
        for s in game.positions:
            dealt[s] = hands_now[s] | self.played[s]
        if p == d and self.picked_up:
            assert self.skat is not None and self.put is not None
            original_skat = self.skat
            dealt[d] = self.own_dealt
            put_cards: list[int] = []  # the declarer's own puts are in ``public``
        elif self.picked_up:
            twelve = dealt[d] | skat_place
            cards12 = cards_of(twelve)
            pick = rng.choice(len(cards12), size=2, replace=False)
            original_skat = (1 << cards12[int(pick[0])]) | (1 << cards12[int(pick[1])])
            dealt[d] = twelve & ~original_skat
            put_cards = cards_of(skat_place)
            rng.shuffle(put_cards)
        else:
            original_skat = skat_place if self.skat is None else self.skat
            put_cards = []
        if p != d or not self.picked_up:
            dealt[p] = self.own_dealt
        history = _deal_actions(game, dealt, original_skat, rng)
        state = game.new_initial_state()
        for a in history:
            state.apply(a)
        put_iter = iter(put_cards)
        for a in self.public:
            state.apply(next(put_iter) if a == -1 else a)
        return state

    def _sample_during_deal(self, rng: np.random.Generator) -> SkatState:
        # only possible while dealing: replay what this seat saw of the deal so far
        state = self.sgame.new_initial_state()
        own = cards_of(self.own_dealt)
        rng.shuffle(own)
        pool = cards_of(ALL_CARDS_MASK & ~self.own_dealt)
        rng.shuffle(pool)
        for i in range(self.deal_index):
            place = DEAL_ORDER[i]
            if place != SKAT_PLACE and self.sgame.seat_of(place) == self.player:
                state.apply(own.pop())
            else:
                state.apply(pool.pop())
        return state

    def __str__(self) -> str:
        lines = [f"seat {self.player}, phase {PHASE_NAMES[self.phase]}"]
        lines.append(f"hand: {mask_to_string(self.hand)}")
        if self.contract is not None:
            lines.append(f"game: {self.contract} by seat {self.declarer}, bid {self.bid}")
        if self.trick:
            lines.append("trick: " + " ".join(card_to_string(c) for c in self.trick))
        return "\n".join(lines)


def _deal_actions(game: SkatGame, dealt: dict[int, int], skat: int,
                  rng: np.random.Generator) -> list[int]:
    """Chance actions that deal ``dealt`` and ``skat`` in the dealing order."""
    pools: dict[int, list[int]] = {}
    for pos in range(3):
        cards = cards_of(dealt[game.seat_of(pos)])
        rng.shuffle(cards)
        pools[pos] = cards
    pools[SKAT_PLACE] = cards_of(skat)
    return [pools[place].pop() for place in DEAL_ORDER]


def _sample_places(
    cards: list[int], places: list[tuple[int, int]], rng: np.random.Generator
) -> list[list[int]]:
    """Distribute ``cards`` over places ``(count, forbidden mask)`` uniformly among all
    assignments that respect the forbidden masks (exact, by counting)."""
    k = len(places)
    if sum(c for c, _ in places) != len(cards):
        raise SkatRuleError("inconsistent information state: hidden card count mismatch")
    groups: dict[int, list[int]] = {}
    for c in cards:
        allowed = 0
        for i, (_, forbidden) in enumerate(places):
            if not (forbidden >> c) & 1:
                allowed |= 1 << i
        groups.setdefault(allowed, []).append(c)
    keys = sorted(groups)
    sizes = [len(groups[g]) for g in keys]
    from functools import cache
    from math import comb

    def compositions(n: int, allowed: int, caps: tuple[int, ...]) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = []

        def rec(i: int, left: int, acc: list[int]) -> None:
            if i == k:
                if left == 0:
                    out.append(tuple(acc))
                return
            top = min(left, caps[i]) if (allowed >> i) & 1 else 0
            for x in range(top + 1):
                acc.append(x)
                rec(i + 1, left - x, acc)
                acc.pop()

        rec(0, n, [])
        return out

    def ways(n: int, comp: tuple[int, ...]) -> int:
        total, left = 1, n
        for x in comp:
            total *= comb(left, x)
            left -= x
        return total

    @cache
    def count(gi: int, caps: tuple[int, ...]) -> int:
        if gi == len(keys):
            return 1 if not any(caps) else 0
        total = 0
        for comp in compositions(sizes[gi], keys[gi], caps):
            rest = tuple(c - x for c, x in zip(caps, comp, strict=True))
            sub = count(gi + 1, rest)
            if sub:
                total += ways(sizes[gi], comp) * sub
        return total

    caps = tuple(c for c, _ in places)
    if count(0, caps) == 0:
        raise SkatRuleError("inconsistent information state: no deal fits the known voids")
    out: list[list[int]] = [[] for _ in range(k)]
    for gi, g in enumerate(keys):
        options = []
        weights = []
        for comp in compositions(sizes[gi], g, caps):
            rest = tuple(c - x for c, x in zip(caps, comp, strict=True))
            w = ways(sizes[gi], comp) * count(gi + 1, rest)
            if w:
                options.append((comp, rest))
                weights.append(w)
        total = sum(weights)
        r = _big_rand(rng, total)
        acc = 0
        chosen = options[-1]
        for option, w in zip(options, weights, strict=True):
            acc += w
            if r < acc:
                chosen = option
                break
        comp, rest = chosen
        cards_g = list(groups[g])
        rng.shuffle(cards_g)
        pos = 0
        for i, x in enumerate(comp):
            out[i].extend(cards_g[pos : pos + x])
            pos += x
        caps = rest
    return out


def _big_rand(rng: np.random.Generator, total: int) -> int:
    value = 0
    bits = total.bit_length() + 64
    while bits > 0:
        value = (value << 62) | int(rng.integers(0, 2**62))
        bits -= 62
    return value % total


@dataclass(frozen=True)
class RamschResult:
    """The outcome of a Ramsch: card points, losers, and zero-sum returns by seat."""

    points: dict[int, int]
    losers: tuple[int, ...]
    durchmarsch: int  # seat that took every trick, else -1
    jungfrau: bool  # someone took no trick: the loss is doubled
    returns: dict[int, float]

    def describe(self) -> str:
        if self.durchmarsch >= 0:
            return f"Ramsch: seat {self.durchmarsch} took every trick (Durchmarsch, +120)"
        pts = ", ".join(f"seat {s} {p}" for s, p in sorted(self.points.items()))
        who = " and ".join(f"seat {s}" for s in self.losers)
        return f"Ramsch ({pts}): {who} lose{'s' if len(self.losers) == 1 else ''}" + (
            " (Jungfrau: doubled)" if self.jungfrau else ""
        )


def ramsch_result(points: dict[int, int], tricks: dict[int, int]) -> RamschResult:
    """Score a Ramsch from each seat's card points (skat included) and tricks."""
    seats = sorted(points)
    for s in seats:
        if tricks[s] == 10:
            rets = {t: (120.0 if t == s else -60.0) for t in seats}
            return RamschResult(dict(points), (), s, False, rets)
    top = max(points.values())
    losers = tuple(s for s in seats if points[s] == top)
    jungfrau = any(tricks[s] == 0 for s in seats)
    loss = top * (2 if jungfrau else 1)
    winners = [s for s in seats if s not in losers]
    rets = {s: 0.0 for s in seats}
    if winners:  # three-way ties (40-40-40) cost nobody anything
        for s in losers:
            rets[s] = -float(loss)
        for s in winners:
            rets[s] = loss * len(losers) / len(winners)
    return RamschResult(dict(points), losers, -1, jungfrau, rets)


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
