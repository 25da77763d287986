"""The Skat ``State``: one deal from the shuffle to the result (see :mod:`rules`).

The rules of following suit, trick winners, card points and matadors are the
numba kernels in :mod:`kernel`; bidding is :class:`bidding.Auction`; scoring is
:func:`scoring.evaluate` (and :mod:`ramsch`). This module keeps the state
machine between them and makes the public API cheap per call: the cards not
yet dealt are kept as a list, the player to move's legal card mask is asked
of the kernel once per position, the bidding choices are memoised per
auction state, and the seat arithmetic is looked up in tables of the game.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from operator import itemgetter
from typing import TYPE_CHECKING

from spielwerk._jit import direct
from spielwerk.core.game import CHANCE, TERMINAL, State
from spielwerk.games.skat import kernel
from spielwerk.games.skat.actions import (
    BID_BASE,
    BIDDING,
    CLAIM,
    DEAL,
    DECLARATIONS,
    DECLARE,
    DECLARE_BASE,
    HAND_DECLARATIONS,
    HOLD,
    OVER,
    PASS,
    PICKUP,
    PICKUP_DECLARATIONS,
    PLAY,
    PLAY_ON,
    PUT,
    RESIGN,
    RESPONSE,
    SKAT,
    SkatRuleError,
    action_to_string,
    card_list,
)
from spielwerk.games.skat.bidding import Auction
from spielwerk.games.skat.ending import DealEnd
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.kernel_deal import (
    CLAIM_OR_RESIGN,
    END_ALL_TRICKS,
    END_NULL_TRICK,
    NO_OFFER,
    PLAYING,
    RESIGN_ONLY,
    auction_move,
    offers,
    trick_end,
)
from spielwerk.games.skat.kernel_deal import DONE as AUCTION_DONE
from spielwerk.games.skat.ramsch import RamschResult
from spielwerk.games.skat.scoring import (
    Contract,
    DealResult,
    ValueArgs,
    result_from,
)

if TYPE_CHECKING:
    from spielwerk.games.skat.rules import SkatGame

_SKAT_STEPS = (PICKUP, *HAND_DECLARATIONS)
_SKAT_SET = frozenset(_SKAT_STEPS)
_PICKUP_SET = frozenset(PICKUP_DECLARATIONS)
_OUTCOMES = tuple(tuple((c, 1.0 / n) for c in range(32)) if n else () for n in range(33))
"""``_OUTCOMES[n][c]``: the pair ``(c, 1/n)`` of a deal with ``n`` cards left."""
_BIDDING_MEMO: dict[tuple[int, int, bool], tuple[int, ...]] = {}
_OFFERS: dict[int, tuple[int, ...]] = {NO_OFFER: (), RESIGN_ONLY: (RESIGN,),
                                       CLAIM_OR_RESIGN: (CLAIM, RESIGN)}
"""The offer actions of each answer of :func:`kernel_deal.offers`."""
_END_REASONS = {END_ALL_TRICKS: "all tricks played", END_NULL_TRICK: "null: declarer took a trick"}
_trick_end = trick_end

# the kernels the State calls on every card, bound to their compiled entry points on
# first use (bind_kernels): the same functions, without numba's per-call type dispatch
def _binding(name: str) -> Callable[..., int]:
    def first_call(*args: int) -> int:
        bind_kernels()
        return globals()[name](*args)  # type: ignore[no-any-return]

    return first_call


_legal_cards: Callable[[int, int, int], int] = _binding("_legal_cards")
_class_mask: Callable[[int, int], int] = _binding("_class_mask")
_trick_winner: Callable[[int, int, int, int], int] = _binding("_trick_winner")
_points: Callable[[int], int] = _binding("_points")
_matadors: Callable[[int, int], int] = _binding("_matadors")
_bound = False


def bind_kernels() -> None:
    """Bind the per-card kernels to their entry points (once; compiles or loads them)."""
    global _legal_cards, _class_mask, _trick_winner, _points, _matadors, _bound
    if not _bound:
        _legal_cards = direct(kernel.legal_cards, 0, 0, 0)
        _class_mask = direct(kernel.class_mask, 0, 0)
        _trick_winner = direct(kernel.trick_winner, 0, 0, 0, 0)
        _points = direct(kernel.points, 0)
        _matadors = direct(kernel.matadors, 0, 0)
        _bound = True


def _bidding_actions(auction: Auction) -> tuple[int, ...]:
    """Legal actions of the bidding, asked of the auction once per (stage, value, answering)
    (everything :meth:`Auction.bid_values` and :meth:`Auction.can_hold` read)."""
    key = (auction.stage, auction.value, auction.answering)
    acts = _BIDDING_MEMO.get(key)
    if acts is None:
        count = len(auction.bid_values())
        out = list(range(HOLD - count, HOLD))
        if auction.can_hold():
            out.append(HOLD)
        out.append(PASS)
        acts = _BIDDING_MEMO[key] = tuple(out)
    return acts


class SkatState(DealEnd, State):
    """A full Skat position (all hands, the skat) with its history."""

    # Fields that start as an immutable value are class attributes until first assigned:
    # a new state (one per random game) sets only its lists, dicts and the auction.
    phase = DEAL
    deal_index = 0
    skat = 0  # the skat as dealt
    put = 0  # the two cards put by the declarer
    declarer = -1
    contract: Contract | None = None
    tricks_done = 0
    revealed = 0  # the declarer's hand as shown (ouvert or a claim)
    end_reason = ""
    _result: DealResult | tuple[int, Contract, ValueArgs] | None = None  # see result
    ramsch_result: RamschResult | None = None
    _code = -1  # game code of the card play (kernel.GRAND for Ramsch), -1 before
    _mask = -1  # legal card mask of the seat to play, -1 not yet asked
    game: SkatGame
    # (the derived fields below are properties: CPython keeps an instance's attributes
    # compactly only for up to 30 names per class, and attribute access slows past that)

    def __init__(self, game: SkatGame) -> None:
        super().__init__(game)
        n = game.players
        self.hands = [0] * n  # current hands
        self.dealt = self.hands  # hands as dealt (the same list until the deal is complete)
        self.auction = object.__new__(Auction)  # Auction(): its fields' defaults
        self.leader = game.positions[0]
        self.trick: list[int] = []  # cards of the current trick, from the leader
        self.won = [0] * n  # cards won in tricks per seat
        self.trick_count = [0] * n
        self.played = [0] * n  # cards each seat has played
        self.voids = [0] * n  # cards a seat has shown it cannot hold (not following)
        self.offers: dict[int, int] = {}  # party (0 declarer, 1 defenders) -> trick of last offer
        self.responders: list[int] = []
        self.log: list[tuple[int, bool]] = []  # (non-chance action, is a put)
        self.trick_history: list[tuple[int, tuple[int, ...], int]] = []  # leader, cards, winner
        self._undealt = list(range(32))  # cards not yet dealt, ascending (deal phase)
        # every field read on the hot paths is an instance value from the start, in one
        # order: a field still on the class in one state and in the instance in the next
        # defeats CPython's specialised attribute access (25% of a deal's time)
        self.phase = DEAL
        self.deal_index = 0
        self.skat = 0
        self.put = 0
        self.declarer = -1
        self.contract = None
        self.tricks_done = 0
        self._code = -1
        self._mask = -1

    # ----- helpers -------------------------------------------------------------------------
    @property
    def result(self) -> DealResult | None:
        """The result of a deal that was declared (or passed in); None before the end and in
        Ramsch (see ``ramsch_result``). Made on first reading."""
        r = self._result
        if isinstance(r, tuple):
            r = self._result = result_from(*r)
        return r

    @property
    def game_code(self) -> int:
        return self._code

    @property
    def is_ramsch(self) -> bool:
        return self.ramsch_started

    @property
    def sgame(self) -> SkatGame:
        return self.game

    @property
    def picked_up(self) -> bool:
        """Did the declarer pick up the skat (the put follows, or has been made)?"""
        return self.phase == PUT or self.put != 0

    @property
    def ramsch_started(self) -> bool:
        """All passed at a table playing Ramsch: the deal is played as a Ramsch."""
        a = self.auction
        return a.stage == AUCTION_DONE and a.declarer < 0 and self.game.ramsch

    @property
    def resume(self) -> int:
        """The seat that plays on if an offer is declined (-1 outside the answers)."""
        return self.to_play() if self.phase == RESPONSE else -1

    def seat_of(self, position: int) -> int:
        return self.game.positions[position]

    def _next_seat(self, seat: int) -> int:
        return self.game.next_seats[seat]

    def to_play(self) -> int:
        """Seat whose card is next in the current trick."""
        return self.game.turns[self.leader][len(self.trick)]

    def defenders(self) -> list[int]:
        return [s for s in self.game.positions if s != self.declarer]

    def _card_mask(self) -> int:
        """Legal cards of the seat to play (the kernel's answer, asked once per position)."""
        m = self._mask
        if m < 0:
            led = self.trick[0] if self.trick else -1
            m = self._mask = _legal_cards(self.hands[self.to_play()], led, self._code)
        return m

    # ----- the State protocol ------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        ph = self.phase
        if ph == DEAL:
            return CHANCE
        if ph == BIDDING:
            return self.game.positions[self.auction.to_move()]
        if ph == PLAY:
            return self.to_play()
        if ph == RESPONSE:
            return self.responders[0]
        if ph == OVER:
            return TERMINAL
        return self.declarer  # SKAT, PUT, DECLARE

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_chance_node(self) -> bool:
        return self.phase == DEAL

    def legal_actions(self) -> list[int]:
        ph = self.phase
        if ph == PLAY:  # _play_actions, written out
            trick = self.trick
            seat = self.game.turns[self.leader][len(trick)]
            m = self._mask
            if m < 0:
                m = self._mask = _legal_cards(
                    self.hands[seat], trick[0] if trick else -1, self._code
                )
            cards = card_list(m)
            mine = seat == self.declarer
            last = self.offers.get(0 if mine else 1, -1)
            cards += _OFFERS[offers(self.contract is None, mine, last, self.tricks_done)]
            return cards
        if ph == BIDDING:
            a = self.auction
            acts = _BIDDING_MEMO.get((a.stage, a.value, a.answering))
            return list(acts if acts is not None else _bidding_actions(a))
        if ph == DEAL:
            return list(self._undealt)
        return self._legal_actions()

    def apply(self, action: int) -> None:
        # the common case without State.apply's frame: a legal int action (a dealt card
        # is legal while undealt); everything else, errors included, goes through it
        if type(action) is int:
            ph = self.phase
            if ph == DEAL:  # _deal, written out: 32 of a game's ~46 actions
                try:
                    self._undealt.remove(action)  # ValueError, changing nothing, if dealt
                except ValueError:
                    pass
                else:
                    i = self.deal_index
                    seat = self.game.deal_seats[i]
                    if seat < 0:
                        self.skat |= 1 << action
                    else:
                        self.hands[seat] |= 1 << action  # (dealt is this list until the end)
                    self.deal_index = i + 1
                    if i == 31:
                        self.dealt = list(self.hands)
                        self.phase = BIDDING
                    self.history.append(action)
                    return
            elif ph == PLAY:
                trick = self.trick
                seat = self.game.turns[self.leader][len(trick)]
                hand = self.hands[seat]
                m = self._mask
                if m < 0:
                    m = _legal_cards(hand, trick[0] if trick else -1, self._code)
                if 0 <= action < 32 and m >> action & 1:
                    self._mask = -1
                    self.log.append((action, False))
                    self._play_card(action, seat, m == hand)
                    self.history.append(action)
                    return
                if action == RESIGN or action == CLAIM:  # an offer, if this seat may make it
                    mine = seat == self.declarer
                    last = self.offers.get(0 if mine else 1, -1)
                    if action in _OFFERS[offers(self.contract is None, mine, last,
                                                self.tricks_done)]:
                        self._mask = -1
                        self.log.append((action, False))
                        self._offer(action)
                        self.history.append(action)
                        return
            elif ph == BIDDING:  # Auction.move written out; the kernel refuses illegal moves
                a = self.auction
                after = auction_move(
                    a.stage, a.value, a.answering, a.listener, a.declarer, action - BID_BASE
                )
                if after[0] >= 0:
                    a.stage, a.value, a.answering, a.listener, a.declarer = after
                    self.log.append((action, False))
                    if after[0] == AUCTION_DONE:
                        self._after_bid()
                    self.history.append(action)
                    return
            elif ph == RESPONSE and (action == RESIGN or action == PLAY_ON) or (
                ph != OVER and self._is_legal(action)
            ):
                self._apply_action(action)
                self.history.append(action)
                return
        State.apply(self, action)

    def _is_legal(self, action: int) -> bool:
        ph = self.phase
        if ph == PLAY:  # the most common phase first
            if 0 <= action < 32:
                m = self._mask
                return bool((m if m >= 0 else self._card_mask()) >> action & 1)
            return action in self._play_actions()
        if ph == BIDDING:
            return action in _bidding_actions(self.auction)
        if ph == DEAL:
            return 0 <= action < 32 and action in self._undealt
        if ph == SKAT:  # the lists _legal_actions copies, as sets
            return action in _SKAT_SET
        if ph == DECLARE:
            return action in _PICKUP_SET
        return ph != OVER and action in self._legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase != DEAL:
            raise self.not_chance_node()
        undealt = self._undealt
        if len(undealt) > 1:  # one C call picks the n pairs (c, 1/n) of the undealt cards
            return list(itemgetter(*undealt)(_OUTCOMES[len(undealt)]))
        return [_OUTCOMES[1][undealt[0]]]

    chance_outcomes._checks_chance = True  # type: ignore[attr-defined]
    # (it raises NotChanceNodeError away from the deal itself: no wrapper from State)

    def _dealt_mask(self) -> int:
        m = self.skat
        for h in self.dealt:
            m |= h
        return m

    def _play_actions(self) -> list[int]:
        trick = self.trick
        seat = self.game.turns[self.leader][len(trick)]
        m = self._mask
        if m < 0:
            m = self._mask = _legal_cards(self.hands[seat], trick[0] if trick else -1, self._code)
        cards = card_list(m)
        mine = seat == self.declarer
        last = self.offers.get(0 if mine else 1, -1)
        cards += _OFFERS[offers(self.contract is None, mine, last, self.tricks_done)]
        return cards

    def _offer_actions(self, seat: int = -1) -> tuple[int, ...]:
        """The claim and resignation the seat to play may offer (once per trick and party)."""
        mine = (seat if seat >= 0 else self.to_play()) == self.declarer
        last = self.offers.get(0 if mine else 1, -1)
        return _OFFERS[offers(self.contract is None, mine, last, self.tricks_done)]

    def deal_cards(self, cards: list[int]) -> None:
        """Deal ``cards`` in order at once: the chance actions ``apply`` would take one by
        one (distinct cards, none dealt yet; the state is unchanged if not)."""
        wanted = set(cards)
        if self.phase != DEAL or len(wanted) != len(cards) or not wanted <= set(self._undealt):
            raise SkatRuleError("deal_cards: give distinct cards that are not dealt yet")
        for card in cards:
            self._undealt.remove(card)
            self._deal_to(card)
        self.history.extend(cards)

    def _legal_actions(self) -> list[int]:
        ph = self.phase
        if ph == DEAL:
            return list(self._undealt)
        if ph == BIDDING:
            return list(_bidding_actions(self.auction))
        if ph == SKAT:
            return list(_SKAT_STEPS)
        if ph == PUT:
            return card_list(self.hands[self.declarer])
        if ph == DECLARE:
            return list(PICKUP_DECLARATIONS)
        if ph == PLAY:
            return self._play_actions()
        if ph == RESPONSE:
            return [RESIGN, PLAY_ON]
        return []

    def _apply_action(self, action: int) -> None:
        ph = self.phase
        if ph == DEAL:
            self._deal(action)
            return
        self._mask = -1
        self.log.append((action, ph == PUT))
        if ph == PLAY and action < 32:  # the most common case first
            self._play_card(action)
        elif ph == BIDDING:
            self._bid(action)
        elif ph == SKAT:
            if action == PICKUP:  # picked_up: the phase is PUT, then put is not empty
                self.hands[self.declarer] |= self.skat
                self.phase = PUT
            else:
                self._declare(DECLARATIONS[action - DECLARE_BASE])
        elif ph == PUT:
            self.hands[self.declarer] &= ~(1 << action)
            self.put |= 1 << action
            if self.put & (self.put - 1):  # two cards put
                self.phase = DECLARE
        elif ph == DECLARE:
            self._declare(DECLARATIONS[action - DECLARE_BASE])
        elif ph == PLAY:
            self._offer(action)
        elif ph == RESPONSE:
            if action == RESIGN:
                self.responders.pop(0)
                if not self.responders:
                    self._finish("defenders resigned")
            else:
                self.responders = []
                self.phase = PLAY

    def _bid(self, action: int) -> None:
        if not self.auction.move(action - BID_BASE):
            raise SkatRuleError(f"{action_to_string(action)} is not allowed in the bidding here")
        self._after_bid()

    def _after_bid(self) -> None:
        auction = self.auction
        if auction.stage == AUCTION_DONE:
            if auction.declarer < 0 and self.game.ramsch:  # ramsch_started
                self._code = kernel.GRAND
                self.phase = PLAY
                self.leader = self.seat_of(0)
            elif auction.declarer < 0:
                self._finish("passed")
            else:
                self.declarer = self.seat_of(auction.declarer)
                self.phase = SKAT

    def _deal(self, card: int) -> None:
        self._undealt.remove(card)  # first: a card dealt already raises ValueError here
        self._deal_to(card)

    def _deal_to(self, card: int) -> None:
        """Give ``card`` (just taken from the undealt cards) to the next place of the deal
        (:meth:`apply` writes the same out)."""
        i = self.deal_index
        seat = self.game.deal_seats[i]
        if seat < 0:
            self.skat |= 1 << card
        else:
            self.hands[seat] |= 1 << card  # (dealt is the same list during the deal)
        self.deal_index = i + 1
        if i == 31:
            self.dealt = list(self.hands)
            self.phase = BIDDING

    def _declare(self, contract: Contract) -> None:
        self.contract = contract
        self._code = contract.game
        if contract.ouvert:
            self.revealed = self.hands[self.declarer]
        self.phase = PLAY
        self.leader = self.seat_of(0)

    def _play_card(self, card: int, seat: int = -1, may_not_follow: bool = True) -> None:
        """Play ``card`` of the seat to play (``seat`` if given). ``may_not_follow`` False:
        the legal cards were fewer than the hand, so the card follows the led suit class."""
        if seat < 0:
            seat = self.to_play()
        bit = 1 << card
        game = self._code
        trick = self.trick
        if trick and may_not_follow:
            follow = _class_mask(game, trick[0])
            if not (follow >> card) & 1:
                self.voids[seat] |= follow
        self.hands[seat] &= ~bit
        self.played[seat] |= bit
        trick.append(card)
        if len(trick) == 3:
            self._close_trick(_trick_winner(trick[0], trick[1], trick[2], game))

    def _close_trick(self, w: int) -> None:
        """The trick is complete; ``w`` (0 leader, 1, 2) won it."""
        trick = self.trick
        winner = self.game.turns[self.leader][w]
        self.won[winner] |= (1 << trick[0]) | (1 << trick[1]) | (1 << trick[2])
        self.trick_count[winner] += 1
        self.trick_history.append((self.leader, tuple(trick), winner))
        self.trick = []
        self.tricks_done += 1
        self.leader = winner
        contract = self.contract
        end = _trick_end(
            self._code, contract is not None and contract.schwarz_announced, contract is None,
            winner == self.declarer, self.tricks_done,
        )
        if end != PLAYING:
            if contract is None:  # Ramsch: the skat goes to the last trick
                self.won[winner] |= self.skat
            self._finish(_END_REASONS.get(end, "schwarz announced: defenders took a trick"))

    def _clone(self) -> SkatState:
        c = SkatState.__new__(SkatState)
        c.__dict__.update(self.__dict__)
        c.hands = list(self.hands)
        c.dealt = c.hands if self.dealt is self.hands else list(self.dealt)
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
        c._undealt = list(self._undealt)
        return c

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
        if not 0 <= player < self.game.players:
            raise SkatRuleError(f"seat {player} is not at this table")
        return SkatInfoState(self, player)
