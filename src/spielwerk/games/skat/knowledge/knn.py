"""k-nearest-neighbour bidding, game choice and skat putting over a knowledge base.

A hand's value for a trump choice is the mean result of its ``k`` nearest
neighbours (Euclidean distance over :mod:`features`, scipy ``cKDTree``) in
that choice's base: the declarer's final card points for suit and grand, the
share of neighbours that took no trick for null.

* **Bidding** (:func:`decide_bid`): the pick-up values for a game with the
  skat, the hand values for a hand game. A choice is *winnable* when its value
  reaches the threshold (``hand_threshold`` / ``pickup_threshold``;
  ``null_threshold`` for the null share). The highest winnable value wins
  (ties: the game that allows the higher bid); a hand game is chosen when it
  is winnable and its value is at least the best pick-up value. The maximum
  bid is that game's value with the matadors of the ten cards (the skat is
  unknown: a "with n" can only grow, a "without n" may shrink if the skat
  holds a missing top jack - that risk is taken, as a player does).
* **Putting** (:func:`decide_put`): every put of 2 of the 12 cards per game,
  pruned as the seed allows (no jacks, no trumps; all 66 for null or when
  fewer than two cards are left), classified in the hand base with the skat's
  points taken out of each neighbour's result and the put cards' points
  added (seed, "Drücken mit KNN"). The best pair of (game, put) is declared;
  a game that is certainly overbid (even schneider and schwarz would not
  reach the bid) is never declared while another game is not.
* **Beyond the seed** (``extensions``): null when the share of neighbours
  without a trick reaches ``null_threshold``; in a hand game, schneider
  announced when every neighbour reached 90 points, schwarz announced when
  every neighbour took every trick, ouvert when every one of ``2k``
  neighbours did.

The ``putting`` argument selects the putting strategy by name
(:data:`PUTTING_STRATEGIES`): ``knn`` here; ``refined``, ``random`` and ``pimc``
from :mod:`spielwerk.games.skat.selection` (docs/skat-selection.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from spielwerk.games.skat import kernel
from spielwerk.games.skat.bidding import BID_VALUES
from spielwerk.games.skat.cards import GRAND, JACKS_MASK, NULL, POINTS_BY_CARD, points_of
from spielwerk.games.skat.knowledge.features import (
    card_bits,
    hand_count,
    null_features_from_bits,
    suit_features_from_bits,
)
from spielwerk.games.skat.knowledge.store import BaseData, KnowledgeBaseError, load_base
from spielwerk.games.skat.scoring import BASE_VALUES, NULL_VALUES

GAME_KEYS = ("diamonds", "hearts", "spades", "clubs", "grand", "null")

# k tuned on held-out deals; thresholds and the contest margin on 600 duplicate deals against
# rule (seed 21, docs/skat-bidding.md, "Why knn lost to rule").
DEFAULT_K = 12
DEFAULT_HAND_THRESHOLD = 64.0
DEFAULT_PICKUP_THRESHOLD = 52.0
DEFAULT_CONTEST_MARGIN = 6.0
DEFAULT_NULL_THRESHOLD = 0.8
DEFAULT_SCALING = "std"
DEFAULT_PUT_RULES = "seed"
DEFAULT_DECISION = "ev"
DEFAULT_LOSS_BONUS = 40.0
# ev_margin and contest_shift tuned on 600 duplicate deals each of seeds 21 and 22 against
# rule with rule's card play (docs/skat-bidding.md, "Expected-score bidding").
DEFAULT_EV_MARGIN = 0.0
DEFAULT_GAME_CHOICE = "value"
DEFAULT_CONTEST_SHIFT = 1.0
SCALINGS = ("none", "std")
PUT_RULES = ("seed", "hard")
DECISIONS = ("ev", "threshold")
GAME_CHOICES = ("value", "ev")
"""How a game is called winnable: ``ev`` - its expected Seeger-Fabian score (a calibrated
win probability, :data:`WIN_CALIBRATION`) beats passing by ``ev_margin``; ``threshold`` -
its value reaches ``hand_threshold`` / ``pickup_threshold`` (the seed's rule)."""
WIN_CALIBRATION: dict[str, tuple[float, ...]] = {
    "pickup": (0.0402, 0.4449, 0.8438, 0.3791, 0.7041, 0.8192),
    "hand": (0.0393, 0.7461, 1.8413, -0.5843, -0.4452, -0.2775),
}
"""P(win) = 1 / (1 + exp(-z)), z = w_value (value - 55) + w_count (count - 7) + w_grand
[grand] + bias[position], the weights (w_value, w_count, w_grand, bias forehand,
middlehand, rearhand) per stage: value = the game's KNN value (card points), count =
:func:`features.hand_count` of the ten cards (trumps + side aces + jacks / 2). Fitted by
logistic regression on forced declarations under the rule agent's card play, the seat
hands of tuning seeds 21 and 22 (``benchmarks/skat_kb_calibrate.py --summary``,
docs/skat-bidding.md): the neighbours' results are double-dummy, the cards are not played
so well, the count adds to the neighbours' value, and a forehand declarer wins less."""
PIMC_WIN_CALIBRATION: dict[str, tuple[float, ...]] = {
    "pickup": (0.0458, 0.4157, 1.5954, 1.2504, 1.3695, 1.6764),
    "hand": (0.0739, 0.8443, 1.9976, 0.0657, 0.0862, 0.2769),
}
"""The same fit with the knn declarer playing the cards by PIMC (4 worlds) against the
rule agent's defence (``benchmarks/skat_kb_calibrate.py --worlds 4``, seeds 21 and 22,
``--summary --knn-only``: the pick-up stage from the knn agent's own pick-up games, since
rule's keep rule's play). PIMC wins more of the games it declares, so the same value is
worth more: the ``knn`` agent uses these weights when it plays the cards with PIMC."""
CALIBRATIONS: dict[str, dict[str, tuple[float, ...]]] = {
    "pimc": PIMC_WIN_CALIBRATION, "rule": WIN_CALIBRATION,
}
"""The win-chance calibrations by the declarer's card play (``KnnParams.calibration``)."""

"""Puts the KNN putting classifies: ``seed`` - no jacks, no trumps (the seed's pruning);
``hard`` - those left by refined selection's hard rules (:func:`selection.hard_candidates`:
no trumps, blank tens first, no aces in low-trump games, equivalent low cards, ...), from the
declarer's position."""
"""Feature scaling: ``none`` is the seed's plain Euclidean distance; ``std`` divides each
feature by its standard deviation in the base (the card points, 0-92, otherwise outweigh
the jacks, 0-4)."""


def default_base_dir() -> Path:
    """The base shipped with the package (``spielwerk/data/skat_kb``)."""
    return Path(__file__).resolve().parents[3] / "data" / "skat_kb"


@dataclass(frozen=True)
class KnnParams:
    k: int = DEFAULT_K
    hand_threshold: float = DEFAULT_HAND_THRESHOLD
    pickup_threshold: float = DEFAULT_PICKUP_THRESHOLD
    null_threshold: float = DEFAULT_NULL_THRESHOLD
    extensions: bool = True
    put_rules: str = DEFAULT_PUT_RULES
    switch_margin: float = 0.0
    contest_margin: float = DEFAULT_CONTEST_MARGIN
    """A suit/grand hand whose value is below its threshold + this bids and holds only 18:
    it plays when nobody else wants to, but does not compete in the auction (an opponent
    bidding on signals strength against it). With ``decision="ev"``: whose value less this
    margin would not be winnable."""
    decision: str = DEFAULT_DECISION
    loss_bonus: float = DEFAULT_LOSS_BONUS
    """Expected score of a game: p (v + 50) - (1 - p) (2 v + 50 + loss_bonus): a lost game
    also gives each opponent 40, so relative to them it costs that much more."""
    ev_margin: float = DEFAULT_EV_MARGIN
    """Expected score a game needs to be declared (passing scores 0)."""
    contest_shift: float = DEFAULT_CONTEST_SHIFT
    """``ev``: a game bids beyond 18 only when it stays winnable with its log-odds lowered
    by this much (an opponent who bids on holds cards against it)."""
    game_choice: str = DEFAULT_GAME_CHOICE
    """After picking up: the game with the best put ``value``, or the best expected score
    (``ev``: the put value's calibrated win chance and the game's value)."""
    calibration: str = "rule"
    """``ev``: the win chances of :data:`CALIBRATIONS` for this card play (rule / pimc)."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise KnowledgeBaseError(f"k must be at least 1, not {self.k}")
        if self.decision not in DECISIONS:
            raise KnowledgeBaseError(f"decision must be one of {', '.join(DECISIONS)}, "
                                     f"not {self.decision!r}")
        if self.game_choice not in GAME_CHOICES:
            raise KnowledgeBaseError(f"game_choice must be one of {', '.join(GAME_CHOICES)}, "
                                     f"not {self.game_choice!r}")
        if self.put_rules not in PUT_RULES:
            raise KnowledgeBaseError(f"put_rules must be one of {', '.join(PUT_RULES)}, "
                                     f"not {self.put_rules!r}")
        if self.calibration not in CALIBRATIONS:
            raise KnowledgeBaseError(f"calibration must be one of {', '.join(CALIBRATIONS)}, "
                                     f"not {self.calibration!r}")


class KnnModel:
    """Trees over a loaded base; every query takes arrays of hand masks."""

    def __init__(self, base: BaseData, k: int = DEFAULT_K, scaling: str = DEFAULT_SCALING
                 ) -> None:
        self.base = base
        self.k = k
        hands = base.hand["hands"].astype(np.int64)
        pos = base.hand["position"].astype(np.int64)
        self.position = pos
        self.declarer_hand = hands[np.arange(len(pos)), pos]
        self.skat = base.hand["skat"].astype(np.int64)
        bits = card_bits(self.declarer_hand)
        self.features = suit_features_from_bits(bits)
        self.null_feats = null_features_from_bits(bits)
        if scaling not in SCALINGS:
            raise KnowledgeBaseError(f"scaling must be one of {', '.join(SCALINGS)}, "
                                     f"not {scaling!r}")
        self.scaling = scaling
        # per game, a factor per feature: 1 (the seed's plain distance) or 1 / std in the base
        self.scale = np.ones((6, 8))
        if scaling == "std":
            sd = self.features.std(axis=0)  # (5, 8)
            self.scale[:5] = np.where(sd > 0, 1.0 / np.where(sd > 0, sd, 1.0), 0.0)
            nsd = self.null_feats.std(axis=0)
            self.scale[5] = np.where(nsd > 0, 1.0 / np.where(nsd > 0, nsd, 1.0), 0.0)
        self.trees = [cKDTree(self.features[:, g, :] * self.scale[g]) for g in range(5)]
        self.null_tree = cKDTree(self.null_feats * self.scale[5])
        skat_points = (card_bits(self.skat) @ np.array(POINTS_BY_CARD))
        self.hand_points = base.hand["points"].astype(np.float64)
        self.trick_points = self.hand_points - skat_points[:, None]
        self.hand_schwarz = base.hand["schwarz"].astype(bool)
        self.hand_null = base.hand["null"].astype(np.float64)
        if base.pickup is not None:
            self.pickup_points: np.ndarray | None = base.pickup["points"].astype(np.float64)
            self.pickup_null: np.ndarray | None = base.pickup["null"].astype(np.float64)
        else:
            self.pickup_points = self.pickup_null = None

    @classmethod
    def load(cls, directory: Path | str | None = None, k: int = DEFAULT_K,
             need_pickup: bool = True, scaling: str = DEFAULT_SCALING) -> KnnModel:
        return cls(load_base(directory or default_base_dir(), need_pickup), k, scaling)

    @property
    def size(self) -> int:
        return len(self.declarer_hand)

    def _query(self, tree: cKDTree, x: np.ndarray, k: int,
               exclude: np.ndarray | None = None) -> np.ndarray:
        """Indices (m, k) of the nearest base rows; ``exclude[i]`` is left out of row i."""
        k = min(k, self.size - (1 if exclude is not None else 0))
        if exclude is None:
            _, idx = tree.query(x, k=k)
            return np.asarray(idx).reshape(len(x), k)
        _, idx = tree.query(x, k=k + 1)
        idx = np.asarray(idx).reshape(len(x), k + 1)
        keep = idx != exclude[:, None]
        # drop the excluded row, else the farthest one
        keep[keep.all(axis=1), -1] = False
        kept: np.ndarray = idx[keep].reshape(len(x), k)
        return kept

    def neighbours(self, hands: np.ndarray, game: int, k: int | None = None,
                   exclude: np.ndarray | None = None) -> np.ndarray:
        bits = card_bits(hands)
        k = k or self.k
        if game == NULL:
            return self._query(self.null_tree, null_features_from_bits(bits) * self.scale[5], k,
                               exclude)
        return self._query(self.trees[game],
                           suit_features_from_bits(bits)[:, game, :] * self.scale[game], k, exclude)

    def all_neighbours(self, hands: np.ndarray, k: int | None = None,
                       exclude: np.ndarray | None = None) -> list[np.ndarray]:
        """Neighbour indices for games 0..5 (the features computed once)."""
        bits = card_bits(hands)
        k = k or self.k
        feats = suit_features_from_bits(bits)
        out = [self._query(self.trees[g], feats[:, g, :] * self.scale[g], k, exclude)
               for g in range(5)]
        out.append(self._query(self.null_tree, null_features_from_bits(bits) * self.scale[5], k,
                               exclude))
        return out

    def labels(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """(points (n, 5), null wins (n,)) of the hand or pick-up stage."""
        if kind == "pickup":
            if self.pickup_points is None or self.pickup_null is None:
                raise KnowledgeBaseError("this knowledge base has no pick-up stage")
            return self.pickup_points, self.pickup_null
        if kind == "hand":
            return self.hand_points, self.hand_null
        raise KnowledgeBaseError(f"unknown base kind {kind!r} (hand or pickup)")

    def values_from(self, idx: list[np.ndarray], kind: str) -> np.ndarray:
        pts, nul = self.labels(kind)
        out = np.empty((len(idx[0]), 6))
        for g in range(5):
            out[:, g] = pts[idx[g], g].mean(axis=1)
        out[:, 5] = nul[idx[5]].mean(axis=1)
        return out

    def values(self, hands: np.ndarray | list[int], kind: str, k: int | None = None,
               exclude: np.ndarray | None = None) -> np.ndarray:
        """(m, 6) values: mean points for games 0..4, the share of null wins in column 5."""
        h = np.atleast_1d(np.asarray(hands, dtype=np.int64))
        self.labels(kind)
        return self.values_from(self.all_neighbours(h, k, exclude), kind)

    # ---- putting ------------------------------------------------------------------------
    def put_candidates(self, twelve: int, game: int, rules: str = "seed", position: int = 0
                       ) -> list[int]:
        """Two-card puts (masks) worth classifying for ``game`` (:data:`PUT_RULES`): no jacks,
        no trumps; or refined selection's hard rules from ``position``."""
        if rules == "hard" and game != NULL:
            from spielwerk.games.skat.selection import hard_candidates

            return hard_candidates(twelve, game, position)[0]
        cards = [c for c in range(32) if twelve >> c & 1]
        if game == NULL:
            allowed = cards
        else:
            trumps = int(kernel.trump_mask(game)) | JACKS_MASK
            allowed = [c for c in cards if not trumps >> c & 1]
            if len(allowed) < 2:
                allowed = cards
        return [(1 << a) | (1 << b) for a, b in itertools.combinations(allowed, 2)]

    def put_values(self, twelve: int, game: int, puts: list[int],
                   k: int | None = None) -> np.ndarray:
        """Value of each put for ``game``: suit/grand points with the put counted, null share."""
        rest = np.array([twelve & ~p for p in puts], dtype=np.int64)
        idx = self.neighbours(rest, game, k)
        if game == NULL:
            share = self.hand_null[idx].mean(axis=1)
            risk = null_features_from_bits(card_bits(rest))[:, 0::2].sum(axis=1)
            safer: np.ndarray = share - 1e-3 * risk  # ties: the safer hand
            return safer
        put_points = np.array([points_of(p) for p in puts], dtype=np.float64)
        expected: np.ndarray = self.trick_points[idx, game].mean(axis=1) + put_points
        return expected

    def best_put(self, twelve: int, game: int, k: int | None = None, rules: str = "seed",
                 position: int = 0) -> tuple[int, float, int]:
        """(put mask, value, candidates classified) for one game."""
        puts = self.put_candidates(twelve, game, rules, position)
        vals = self.put_values(twelve, game, puts, k)
        i = int(np.argmax(vals))
        return puts[i], float(vals[i]), len(puts)


# --------------------------------------------------------------------------- game values
def suit_game_value(cards: int, game: int, hand: bool = False, schneider: bool = False,
                    schwarz: bool = False, ouvert: bool = False) -> int:
    """Value of a won suit/grand game with the matadors of ``cards``, schneider etc. reached
    and announced as given (announcing schwarz implies schneider)."""
    m = abs(int(kernel.matadors(cards, game)))
    mult = m + 1 + int(hand) + 2 * int(schneider or schwarz) + 2 * int(schwarz) + int(ouvert)
    return BASE_VALUES[game] * mult


def highest_bid_at_most(value: int) -> int:
    """The highest valid bid not above ``value`` (0 if below 18)."""
    bids = [b for b in BID_VALUES if b <= value]
    return bids[-1] if bids else 0


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
        return "pass" if self.game < 0 else GAME_KEYS[self.game]

    @property
    def values(self) -> np.ndarray:
        """The values for the chosen kind (hand or pick-up)."""
        return self.hand_values if self.hand_game else self.pickup_values


def win_probability(value: float, stage: str, position: int, count: float = 7.0,
                    game: int = 0, shift: float = 0.0, calibration: str = "rule") -> float:
    """Calibrated chance that a game of this KNN value and hand count is won
    (:data:`WIN_CALIBRATION`, or another of :data:`CALIBRATIONS`); ``shift`` lowers the
    log-odds (a contested auction)."""
    w_value, w_count, w_grand, *bias = CALIBRATIONS[calibration][stage]
    z = (w_value * (value - 55.0) + w_count * (count - 7.0) + w_grand * (game == GRAND)
         + bias[max(0, min(2, position))] - shift)
    return float(1.0 / (1.0 + np.exp(-z)))


def expected_score(p_win: float, game_value: int, loss_bonus: float = DEFAULT_LOSS_BONUS
                   ) -> float:
    """Seeger-Fabian expectation of declaring: won v + 50, lost -2 v - 50 - loss_bonus."""
    return p_win * (game_value + 50) - (1.0 - p_win) * (2 * game_value + 50 + loss_bonus)


def _winnable(p: KnnParams, value: float, hand: int, game: int, is_hand: bool, position: int,
              shift: float = 0.0) -> tuple[bool, float]:
    """(winnable, merit) of one game: merit is the expected score (``ev``) or the value."""
    if p.decision == "threshold":
        return value >= (p.hand_threshold if is_hand else p.pickup_threshold), value
    chance = win_probability(value, "hand" if is_hand else "pickup", position,
                             hand_count(hand, game), game, shift, p.calibration)
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


def _announcements(model: KnnModel, hand: int, game: int, idx: np.ndarray, p: KnnParams,
                   decision: BidDecision) -> None:
    pts = model.hand_points[idx, game]
    if (pts >= 90).all():
        decision.schneider = True
    if model.hand_schwarz[idx, game].all():
        decision.schwarz = True
        wide = model.neighbours(np.array([hand]), game, 2 * p.k)[0]
        decision.ouvert = bool(model.hand_schwarz[wide, game].all())


@dataclass
class PutDecision:
    """What :func:`decide_put` found for twelve cards."""

    put: int  # 2-card mask
    game: int
    value: float
    candidates: int
    per_game: dict[int, tuple[int, float]] = field(default_factory=dict)
    ouvert: bool = False

    @property
    def game_name(self) -> str:
        return GAME_KEYS[self.game]


def knn_put(model: KnnModel, twelve: int, bid: int, params: KnnParams | None = None,
            position: int = 0, put_for: Callable[[int], int] | None = None,
            prefer: int = -1) -> PutDecision:
    """The seed's KNN putting with game choice (see the module docstring); ``position``
    matters only for ``put_rules="hard"``. ``put_for(game)``, when given, is the put of each
    suit/grand game (another strategy's), valued by the neighbours and compared the same way.
    ``prefer`` (the game the hand was bid on) is kept unless another game's value is higher
    by more than ``params.switch_margin``."""
    p = params or KnnParams()
    games = list(range(6)) if p.extensions else list(range(5))
    per_game: dict[int, tuple[int, float]] = {}
    candidates = 0
    for g in games:
        if put_for is not None and g != NULL:
            put = put_for(g)
            per_game[g] = (put, float(model.put_values(twelve, g, [put], p.k)[0]))
            candidates += 1
            continue
        put, value, n = model.best_put(twelve, g, p.k, p.put_rules, position)
        per_game[g] = (put, value)
        candidates += n
    choice, ouvert = choose_game(per_game, twelve, bid, p, prefer, position)
    put, value = per_game[choice]
    return PutDecision(put, choice, value, candidates, per_game, ouvert)


def choose_game(per_game: dict[int, tuple[int, float]], twelve: int, bid: int, p: KnnParams,
                prefer: int = -1, position: int = 0) -> tuple[int, bool]:
    """(game, null ouvert) from each game's (put, value) after picking up: the best value
    among the games whose plain value reaches the bid, else among those that could with
    schneider and schwarz; never a certainly overbid game while another is not."""
    def plain_value(g: int) -> int:
        return NULL_VALUES[(False, False)] if g == NULL else suit_game_value(twelve, g)

    def max_value(g: int) -> int:
        if g == NULL:
            return NULL_VALUES[(False, True)]
        return suit_game_value(twelve, g, schneider=True, schwarz=True)

    suits = [g for g in per_game if g != NULL]
    safe = [g for g in suits if plain_value(g) >= bid]
    possible = [g for g in suits if max_value(g) >= bid]
    null_ok = NULL in per_game and per_game[NULL][1] >= p.null_threshold
    choice: int
    pool = safe or possible
    def merit(g: int) -> tuple[float, int]:
        if p.game_choice == "ev":
            chance = win_probability(per_game[g][1], "pickup", position,
                                     hand_count(twelve & ~per_game[g][0], g), g,
                                     calibration=p.calibration)
            return expected_score(chance, max(plain_value(g), bid), p.loss_bonus), g
        return per_game[g][1], plain_value(g)

    if pool:
        choice = max(pool, key=merit)
        if (p.game_choice == "value" and prefer in pool
                and per_game[prefer][1] >= per_game[choice][1] - p.switch_margin):
            choice = prefer
        if null_ok and per_game[choice][1] < p.pickup_threshold and max_value(NULL) >= bid:
            choice = NULL
    elif null_ok and max_value(NULL) >= bid:
        choice = NULL
    else:  # every game is overbid: lose the least
        choice = min(suits, key=lambda g: (-(-bid // BASE_VALUES[g]) * BASE_VALUES[g],
                                           -per_game[g][1]))
    ouvert = choice == NULL and (plain_value(NULL) < bid or per_game[NULL][1] >= 1.0)
    return choice, ouvert


PUTTING_STRATEGIES: dict[str, Callable[[KnnModel, int, int, KnnParams | None], PutDecision]] = {
    "knn": knn_put,
}


def _named_strategy(name: str) -> Callable[[KnnModel, int, int, KnnParams | None], PutDecision]:
    """``refined``, ``random``, ``pimc``: the game chosen by KNN, the put by
    :func:`spielwerk.games.skat.putting.bot_put` (imported when called: no import cycle).
    This registry's signature carries no seat, so these assume forehand; the ``knn`` bot
    calls ``bot_put`` with its position."""
    def put(model: KnnModel, twelve: int, bid: int, params: KnnParams | None = None
            ) -> PutDecision:
        from spielwerk.games.skat.putting import bot_put

        return bot_put(model, twelve, bid, params, name, 0)

    return put


PUTTING_STRATEGIES.update({name: _named_strategy(name) for name in ("refined", "random", "pimc")})


def decide_put(model: KnnModel, twelve: int, bid: int = 18, params: KnnParams | None = None,
               putting: str = "knn") -> PutDecision:
    """Put two of twelve cards and choose the game, with the named strategy."""
    try:
        strategy = PUTTING_STRATEGIES[putting]
    except KeyError:
        raise KnowledgeBaseError(f"unknown putting strategy {putting!r}; known: "
                                 f"{', '.join(PUTTING_STRATEGIES)}") from None
    return strategy(model, twelve, bid, params)
