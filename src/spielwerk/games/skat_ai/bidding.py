"""The ``knn`` bot's bidding: which game ten cards are worth, how high to bid, hand or
pick-up, and the announcements (:func:`decide_bid`); or a hand-strength count's bid instead
(:func:`apply_strength_bidding`, :mod:`handstrength`).

A hand's value for a trump choice is the mean result of its ``k`` nearest neighbours in the
knowledge base (:class:`~spielwerk.games.skat_ai.knn.KnnModel`). A choice is *winnable* when
its calibrated expected Seeger-Fabian score beats passing (``decision="ev"``) or its value
reaches the threshold (``decision="threshold"``, the seed's rule). The maximum bid is that
game's value with the matadors of the ten cards. :func:`options` lists every game's
expected score, the numbers ``decision="score"`` compares (the web table's bidding hint
shows them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spielwerk.games.skat.bidding import BID_VALUES, highest_bid_at_most
from spielwerk.games.skat.cards import GAME_NAMES, NULL
from spielwerk.games.skat.scoring import NULL_VALUES, suit_game_value
from spielwerk.games.skat_ai.handstrength import strength_bid
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.features import (
    card_bits,
    hand_count,
    null_count,
    null_pickup_count,
    suit_features_from_bits,
)
from spielwerk.games.skat_ai.params import (
    KnnParams,
    expected_score,
    has_ouvert,
)


@dataclass
class BidDecision:
    """What :func:`decide_bid` found for ten cards."""

    features: np.ndarray  # (5, 8)
    hand_values: np.ndarray  # (6,)
    pickup_values: np.ndarray  # (6,)
    game: int  # 0..5, or -1 pass
    hand_game: bool
    max_bid: int
    schneider: bool = False
    schwarz: bool = False
    ouvert: bool = False
    null_bid: int = 0
    """When a suit game is chosen and null is winnable too: the null value one may bid to."""

    @property
    def game_name(self) -> str:
        return "pass" if self.game < 0 else GAME_NAMES[self.game]

    @property
    def values(self) -> np.ndarray:
        """The values for the chosen kind (hand or pick-up)."""
        return self.hand_values if self.hand_game else self.pickup_values


def _winnable(p: KnnParams, value: float, hand: int, game: int, is_hand: bool, position: int,
              shift: float = 0.0) -> tuple[bool, float]:
    """(winnable, merit) of one game: merit is the expected score (``ev``) or the value."""
    if p.decision == "threshold":
        return value >= (p.hand_threshold if is_hand else p.pickup_threshold), value
    chance = p.chance(value, "hand" if is_hand else "pickup", position, hand_count(hand, game),
                      game, shift)
    e = expected_score(chance, suit_game_value(hand, game, hand=is_hand), p.loss_bonus)
    return e > p.ev_margin, e


def decide_bid(model: KnnModel, hand: int, params: KnnParams | None = None,
               position: int = 0) -> BidDecision:
    """Bidding decision for ten cards from ``position`` (0 forehand, 1 middlehand, 2
    rearhand; see the module docstring)."""
    p = params or KnnParams()
    idx = model.all_neighbours(np.array([hand], dtype=np.int64), p.k)
    vh = model.values_from(idx, "hand")[0]
    vp = model.values_from(idx, "pickup")[0]
    feats = suit_features_from_bits(card_bits([hand]))[0]
    if p.decision == "score":
        return _score_bid(model, hand, p, position, idx, BidDecision(feats, vh, vp, -1, False, 0))

    def best(values: np.ndarray, is_hand: bool) -> tuple[int, float, int, float]:
        found = (-1, -1.0, 0, 0.0)
        for g in range(5):
            v = suit_game_value(hand, g, hand=is_hand)
            ok, merit = _winnable(p, float(values[g]), hand, g, is_hand, position)
            if not ok:
                continue
            if values[g] > found[1] or values[g] == found[1] and v > found[2]:
                found = (g, float(values[g]), v, merit)
        return found

    gp, valp, bidp, meritp = best(vp, False)
    gh, valh, bidh, merith = best(vh, True)
    decision = BidDecision(feats, vh, vp, -1, False, 0)
    if gh >= 0 and (gp < 0 or (merith >= meritp if p.decision == "ev" else valh >= valp)):
        decision.game, decision.hand_game = gh, True
        if p.extensions:
            _announcements(model, hand, gh, idx[gh][0], p, decision)
        decision.max_bid = highest_bid_at_most(suit_game_value(
            hand, gh, True, decision.schneider, decision.schwarz, decision.ouvert))
    elif gp >= 0:
        decision.game, decision.max_bid = gp, highest_bid_at_most(bidp)
    ev = p.decision == "ev"
    if decision.game >= 0 and (p.contest_shift if ev else p.contest_margin) > 0:
        value = valh if decision.hand_game else valp
        if not _winnable(p, value if ev else value - p.contest_margin, hand, decision.game,
                         decision.hand_game, position, p.contest_shift if ev else 0.0)[0]:
            decision.max_bid = min(decision.max_bid, BID_VALUES[0])
    if p.extensions:
        null_hand = vh[NULL] >= p.null_threshold
        null_pick = vp[NULL] >= p.null_threshold
        if null_hand or null_pick:
            ouvert = null_hand and vh[NULL] >= 1.0
            value = NULL_VALUES[(bool(null_hand), bool(ouvert))] if null_hand else NULL_VALUES[
                (False, False)]
            if decision.game < 0:
                decision.game, decision.hand_game, decision.ouvert = NULL, bool(null_hand), ouvert
                decision.max_bid = highest_bid_at_most(value)
            else:
                decision.null_bid = highest_bid_at_most(value)
                decision.max_bid = max(decision.max_bid, decision.null_bid)
    return decision


def options(hand: int, p: KnnParams, position: int, d: BidDecision, shift: float = 0.0
            ) -> list[tuple[float, int, bool, int, bool]]:
    """(expected score, game, hand game, game value, null ouvert) of every game with and
    without the skat, from the calibrated win chance of its neighbours' value; null ouvert
    too where the calibration has its own win chances (:func:`params.has_ouvert`). ``shift``
    lowers the trump games' log-odds only: an opponent who bids on holds jacks, aces and
    long trumps - cards a null declarer wants the opponents to hold."""
    ouverts = (False, True) if has_ouvert(p.win_chances) else (False,)
    out = []
    for is_hand, values, stage in ((False, d.pickup_values, "pickup"),
                                   (True, d.hand_values, "hand")):
        for g in range(6 if p.extensions else 5):
            for ouvert in ouverts if g == NULL else (False,):
                if g == NULL:
                    value = NULL_VALUES[(is_hand, ouvert)]
                    count = float(null_count(hand)[0]) if is_hand else null_pickup_count(hand)
                else:
                    value, count = suit_game_value(hand, g, hand=is_hand), hand_count(hand, g)
                chance = p.chance(float(values[g]), stage, position, count, g,
                                  0.0 if g == NULL else shift, ouvert)
                out.append((expected_score(chance, value, p.loss_bonus), g, is_hand, value,
                            ouvert))
    return out


def _score_bid(model: KnnModel, hand: int, p: KnnParams, position: int,
               idx: list[np.ndarray], decision: BidDecision) -> BidDecision:
    """``decision="score"``: the game with the highest expected score, hand or with the skat,
    null included; bid up to the highest value of a game whose expected score beats passing
    (by ``ev_margin``) - beyond 18 with the log-odds lowered by ``contest_shift`` (an
    opponent who bids on holds cards against it)."""
    good = [o for o in options(hand, p, position, decision) if o[0] > p.ev_margin]
    if not good:
        return decision
    _, game, is_hand, value, ouvert = max(good, key=lambda o: (o[0], o[3]))
    decision.game, decision.hand_game = game, is_hand
    if is_hand and game == NULL:
        decision.ouvert = ouvert or (not has_ouvert(p.win_chances)
                                     and bool(decision.hand_values[NULL] >= 1.0))
        value = NULL_VALUES[(True, decision.ouvert)]
    elif is_hand:
        _announcements(model, hand, game, idx[game][0], p, decision)
        value = suit_game_value(hand, game, True, decision.schneider, decision.schwarz,
                                decision.ouvert)
    contested = good
    if p.contest_shift > 0:
        contested = [o for o in options(hand, p, position, decision, p.contest_shift)
                     if o[0] > p.ev_margin]
    top = max([o[3] for o in contested] + ([value] if contested else []), default=0)
    decision.max_bid = highest_bid_at_most(top) if contested else BID_VALUES[0]
    return decision


def _announcements(model: KnnModel, hand: int, game: int, idx: np.ndarray, p: KnnParams,
                   decision: BidDecision) -> None:
    pts = model.hand_points[idx, game]
    if (pts >= 90).all():
        decision.schneider = True
    if model.hand_schwarz[idx, game].all():
        decision.schwarz = True
        wide = model.neighbours(np.array([hand]), game, 2 * p.k)[0]
        decision.ouvert = bool(model.hand_schwarz[wide, game].all())


def apply_strength_bidding(decision: BidDecision, hand: int, system: str, position: int = 0
                           ) -> None:
    """Replace a KNN :class:`BidDecision`'s game and
    highest bid by the ``stegen`` / ``kinback`` choice (always a game with the skat, no
    announcements, no null); the KNN values stay for display."""
    game = strength_bid(hand, system, position)
    decision.game = game
    decision.hand_game = False
    decision.schneider = decision.schwarz = decision.ouvert = False
    decision.null_bid = 0
    decision.max_bid = highest_bid_at_most(suit_game_value(hand, game)) if game >= 0 else 0
