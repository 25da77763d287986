"""Skat baseline agents: ``random`` (legal moves, never gives up) and ``rule``.

These are baselines to measure the real AI against, not the AI itself. The
rule-based agent bids by a hand-strength count, always picks up the skat,
puts the two cards it needs least, declares its longest trump suit (grand
with three jacks and two aces) and plays "highest-lowest": win a trick as
cheaply as possible, give points to a partner who is winning, else throw the
cheapest card. Neither agent claims or resigns; both decline such offers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from spielwerk.core.agent import (
    Agent,
    check_declared,
    make_agent,
    param,
    register_agent,
    register_declared,
)
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import CHANCE, Game, InfoState
from spielwerk.games.skat import kernel
from spielwerk.games.skat.bidding import BID_VALUES
from spielwerk.games.skat.cards import ACE, CARD_POINTS, GRAND, JACK, NULL, TEN, popcount
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.rules import (
    BID_BASE,
    CLAIM,
    DECLARATIONS,
    DECLARE_BASE,
    HOLD,
    PASS,
    PICKUP,
    PLAY,
    PLAY_ON,
    RESIGN,
    SkatState,
)
from spielwerk.games.skat.scoring import suit_game_value
from spielwerk.games.skat_ai.knowledge.features import hand_count

_GIVE_UP = (CLAIM, RESIGN)


def _skat_info(info: InfoState) -> SkatInfoState:
    if not isinstance(info, SkatInfoState):
        raise SpielwerkError("this agent plays Skat only")
    return info


class SkatRandomAgent(Agent):
    """Uniformly random legal moves, except that it never claims or resigns."""

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if not legal:
            raise SpielwerkError("random agent asked to act with no legal actions")
        if PLAY_ON in legal:
            return PLAY_ON
        choices = [a for a in legal if a not in _GIVE_UP] or legal
        return int(choices[int(self.rng.integers(len(choices)))])


def _side_aces(hand: int, game: int) -> int:
    trumps = kernel.trump_mask(game)
    aces = [s * 8 + ACE for s in range(4)]
    return sum(1 for a in aces if (hand >> a) & 1 and not (trumps >> a) & 1)


def best_suit_game(hand: int) -> tuple[int, float]:
    """The game a hand suits best and a strength count (trumps + side aces + jack bonus)."""
    best, best_score = 0, -1.0
    jacks = popcount(hand & int(kernel.JACKS))
    for game in range(4):
        score = hand_count(hand, game)
        if score > best_score or (score == best_score and game > best):
            best, best_score = game, score
    grand_score = 2.0 * jacks + 1.5 * _side_aces(hand, GRAND) + (1 if (hand >> 31) & 1 else 0)
    if jacks >= 3 and _side_aces(hand, GRAND) >= 2 and grand_score >= best_score:
        return GRAND, grand_score
    return best, best_score


def keep_value(hand: int, card: int, trumps: int) -> float:
    """How much the rule agent wants to keep ``card`` (the lowest is put): trumps and jacks
    most, then aces, then by the length of the suit; a blank ten is put first."""
    if (trumps >> card) & 1 or (card & 7) == JACK:
        return 100.0 + card
    suit_cards = hand & (0xFF << (card & ~7)) & ~trumps
    length = popcount(suit_cards)
    rank = card & 7
    if rank == ACE:
        return 50.0
    if rank == TEN and not (suit_cards >> ((card & ~7) + ACE)) & 1:
        return -10.0 + length  # a blank ten: put it, it is 10 safe points
    return 10.0 * length + rank - CARD_POINTS[rank] * 0.1


def put_one(hand: int, game: int, cards: list[int]) -> int:
    """The card of ``cards`` the rule agent puts from ``hand`` for ``game``."""
    trumps = int(kernel.trump_mask(game))
    return min(cards, key=lambda c: (keep_value(hand, c, trumps), c))


def rule_put(twelve: int, game: int) -> int:
    """The two cards (a mask) the rule agent's putting would put for ``game``: one card at
    a time, as it puts them (``putting=rule`` of the knn bot)."""
    first = put_one(twelve, game, [c for c in range(32) if twelve >> c & 1])
    rest = twelve & ~(1 << first)
    second = put_one(rest, game, [c for c in range(32) if rest >> c & 1])
    return (1 << first) | (1 << second)


@dataclass(frozen=True)
class RuleParams:
    """``rule``: its parameter declared once."""

    threshold: float = param(7.0, "hand-strength count needed to bid")

    def __post_init__(self) -> None:
        check_declared("rule", self)


class SkatRuleAgent(Agent):
    """A simple rule-based baseline for every decision (see the module docstring)."""

    def __init__(self, game: Game, seed: int | None = None, **params: Any) -> None:
        super().__init__(game, seed)
        self.threshold = RuleParams(**params).threshold

    def decides_deterministically(self, info_state: InfoState) -> bool:
        return True  # no random choice anywhere

    def act(self, info_state: InfoState) -> int:
        info = _skat_info(info_state)
        legal = info.legal_actions()
        if not legal:
            raise SpielwerkError("rule agent asked to act with no legal actions")
        if PLAY_ON in legal:
            return PLAY_ON
        if PASS in legal:
            return self._bid(info, legal)
        if PICKUP in legal:
            return PICKUP
        if legal[0] >= DECLARE_BASE:
            return self._declare(info, legal)
        if info.contract is None:  # putting two cards
            return self._put(info, legal)
        return self._play(info, [a for a in legal if a < 32])

    # ----- bidding and the skat --------------------------------------------------------------
    def _bid(self, info: SkatInfoState, legal: list[int]) -> int:
        game, strength = best_suit_game(info.hand)
        if strength < self.threshold:
            return PASS
        limit = suit_game_value(info.hand, game)
        if HOLD in legal:
            return HOLD if info.bid <= limit else PASS
        bids = [a for a in legal if BID_BASE <= a < HOLD and BID_VALUES[a - BID_BASE] <= limit]
        return min(bids) if bids else PASS

    def _put(self, info: SkatInfoState, legal: list[int]) -> int:
        game, _ = best_suit_game(info.hand)
        return put_one(info.hand, game, legal)

    def _declare(self, info: SkatInfoState, legal: list[int]) -> int:
        hand = info.hand
        matador_cards = hand | (info.put or 0) | (info.skat or 0)
        game, _ = best_suit_game(hand)
        options = {}
        for a in legal:
            c = DECLARATIONS[a - DECLARE_BASE]
            if not (c.schneider_announced or c.ouvert) and c.game != NULL:
                options[c.game] = a
        order = [game] + [g for g in (GRAND, 3, 2, 1, 0) if g != game]
        for g in order:
            if g in options and suit_game_value(matador_cards, g) >= info.bid:
                return options[g]
        return options.get(game, legal[0])

    # ----- card play ----------------------------------------------------------------------
    def _play(self, info: SkatInfoState, cards: list[int]) -> int:
        game = info.game_code
        declarer = info.declarer
        me = info.player
        if not info.trick:
            return self._lead(info, cards, game)
        led = info.trick[0]
        powers = [kernel.card_power(c, led, game) for c in info.trick]
        best_pos = max(range(len(powers)), key=lambda i: powers[i])
        seat = info.leader
        seats = [seat]
        for _ in range(2):
            seat = info.sgame.positions[(info.sgame.positions.index(seat) + 1) % 3]
            seats.append(seat)
        winner_seat = seats[best_pos]
        partner_wins = me != declarer and winner_seat != declarer
        if info.is_ramsch:  # take no points: stay under the winning card if possible
            under = [c for c in cards if kernel.card_power(c, led, game) < powers[best_pos]]
            if under:
                return max(
                    under, key=lambda c: (kernel.card_power(c, led, game), CARD_POINTS[c & 7])
                )
            return max(cards, key=lambda c: kernel.card_power(c, led, game))
        if game == NULL:
            if me == declarer:  # stay under the winning card, as high as possible
                under = [c for c in cards if kernel.card_power(c, led, game) < powers[best_pos]]
                pick = under or cards
                return max(pick, key=lambda c: kernel.card_power(c, led, game))
            return min(cards, key=lambda c: kernel.card_power(c, led, game))
        if partner_wins:
            return max(cards, key=lambda c: (CARD_POINTS[c & 7] * ((c & 7) != JACK), -c))
        winning = [c for c in cards if kernel.card_power(c, led, game) > powers[best_pos]]
        if winning:
            return min(winning, key=lambda c: kernel.card_power(c, led, game))
        return min(cards, key=lambda c: (CARD_POINTS[c & 7], kernel.card_power(c, led, game)))

    def _lead(self, info: SkatInfoState, cards: list[int], game: int) -> int:
        trumps = kernel.trump_mask(game)
        me_declarer = info.player == info.declarer
        if game == NULL or info.is_ramsch:
            return min(cards, key=lambda c: (kernel.card_power(c, c, game), c))
        own_trumps = [c for c in cards if (trumps >> c) & 1]
        if me_declarer and own_trumps:
            return max(own_trumps, key=lambda c: kernel.card_power(c, c, game))
        aces = [c for c in cards if (c & 7) == ACE and not (trumps >> c) & 1]
        if aces:
            return aces[0]
        side = [c for c in cards if not (trumps >> c) & 1] or cards
        return min(side, key=lambda c: (CARD_POINTS[c & 7], c))


register_agent(
    "random", SkatRandomAgent, {}, "uniformly random legal Skat moves (never gives up)",
    games=("skat",),
)
register_declared("rule", SkatRuleAgent, RuleParams,
                  "rule-based Skat baseline: strength-count bidding, highest-lowest play",
                  ("skat",))


def rule_deal_until(seed: int, tricks_left: int) -> SkatState | None:
    """A seeded deal bid and played by :class:`SkatRuleAgent` on every seat until the start
    of a trick with ``tricks_left`` tricks to go (None when it was passed in or ended before):
    endgame positions for tests and benchmarks."""
    from spielwerk.core.registry import load_game  # the registry loads this module

    game = load_game("skat")
    state = game.new_initial_state()
    assert isinstance(state, SkatState)
    rule = make_agent("rule", game, seed=seed)
    rng = np.random.default_rng(seed)
    while not state.is_terminal() and not (
        state.phase == PLAY and 10 - state.tricks_done == tricks_left and not state.trick
    ):
        if state.current_player == CHANCE:
            outcomes = state.chance_outcomes()
            state.apply(outcomes[int(rng.integers(len(outcomes)))][0])
        else:
            state.apply(rule.act(state.info_state(state.current_player)))
    return None if state.is_terminal() else state
