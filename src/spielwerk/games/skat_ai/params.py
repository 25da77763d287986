"""The ``knn`` bot's tuning parameters, declared once: defaults, allowed values, the win-chance
calibrations, and :class:`KnnParams`, which declares the decision parameters (default, help,
limits) and holds one setting of them. The ``knn`` agent's parameters are these and its own
(:class:`knn_agent.KnnSettings` extends this class); its frozen bots pin values of them.

Where each default was tuned is said beside it (docs/skat-bidding.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from spielwerk.core.agent import declared, param
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError

# k tuned on held-out deals; thresholds and the contest margin on 600 duplicate deals against
# rule (seed 21, docs/skat-bidding.md, "Why knn lost to rule").
DEFAULT_K = 12
DEFAULT_HAND_THRESHOLD = 64.0
DEFAULT_PICKUP_THRESHOLD = 52.0
DEFAULT_CONTEST_MARGIN = 6.0
DEFAULT_NULL_THRESHOLD = 0.8
DEFAULT_SCALING = "std"
DEFAULT_PUT_RULES = "seed"
DEFAULT_DECISION = "score"
"""Every choice before the first card by expected score: the shipped ``knn`` agent's rule since
E5 (docs/skat-bot.md); ``ev`` was the library's default before it took the agent's."""
DEFAULT_LOSS_BONUS = 40.0
# ev_margin and contest_shift tuned on 600 duplicate deals each of seeds 21 and 22 against
# rule with rule's card play (docs/skat-bidding.md, "Expected-score bidding").
DEFAULT_EV_MARGIN = 0.0
DEFAULT_GAME_CHOICE = "value"
DEFAULT_CONTEST_SHIFT = 1.0
DEFAULT_CAUTION = 0.0
DEFAULT_BID_CAUTION = 0.0
DEFAULT_PUT_GRAND_SHIFT = 0.85
DEFAULT_PUT_NULL_SHIFT = -0.15
DEFAULT_NULL_MODEL = "features"
"""A plain null's chance after picking up from the shipped logistic model of the cards
(``docs/evaluations/skat-null-model.md``)."""
DEFAULT_NULL_FLOOR = 0.0
"""No floor: a weak null after picking up lost less than the games played instead
(``docs/evaluations/skat-declared-mix.md``)."""
NULL_MODELS = ("knn", "features")
"""The shipped choice after picking up weighs grand at its chance less 0.85 in log-odds, and
null at its chance plus 0.15: the shifts of ``docs/evaluations/skat-put-shift.md`` (0.5 and
-0.5) moved by the 0.35 ``played_suit_knn7`` takes off a suit game's chance, so the choice
between the games stays where it was measured (``docs/evaluations/skat-suit-chances.md``)."""
OPEN_MAP = "open-bound"
"""The file (``data/skat_calibration/open-bound.json``) that maps a calibration's win chance
to the chance of the same declaration against the open-hand defence, per game type
(:func:`open_bound_z`): what ``caution`` moves the chances towards."""
SCALINGS = ("none", "std")
PUT_RULES = ("seed", "hard")
DECISIONS = ("ev", "threshold", "score")
GAME_CHOICES = ("value", "ev")
"""How a game is called winnable: ``ev`` - its expected Seeger-Fabian score (a calibrated
win probability, :data:`WIN_CALIBRATION`) beats passing by ``ev_margin``; ``threshold`` -
its value reaches ``hand_threshold`` / ``pickup_threshold`` (the seed's rule); ``score`` -
every choice before the first card by expected score: the game (null included) with the
highest expected score when bidding, hand or pick-up, and again after picking up (a win
chance per game type, :func:`win_probability`)."""
WIN_CALIBRATION: dict[str, tuple[float, ...]] = {
    "pickup": (0.0402, 0.4449, 0.8438, 0.3791, 0.7041, 0.8192),
    "hand": (0.0393, 0.7461, 1.8413, -0.5843, -0.4452, -0.2775),
}
"""P(win) = 1 / (1 + exp(-z)), z = w_value (value - 55) + w_count (count - 7) + w_grand
[grand] + bias[position], the weights (w_value, w_count, w_grand, bias forehand,
middlehand, rearhand) per stage: value = the game's KNN value (card points), count =
:func:`features.hand_count` of the ten cards (trumps + side aces + jacks / 2). Fitted by
logistic regression on forced declarations under the rule agent's card play, the seat
hands of tuning seeds 21 and 22 (``experiments/skat_kb_calibrate.py --summary``,
docs/skat-bidding.md): the neighbours' results are double-dummy, the cards are not played
so well, the count adds to the neighbours' value, and a forehand declarer wins less."""
PIMC_WIN_CALIBRATION: dict[str, tuple[float, ...]] = {
    "pickup": (0.0458, 0.4157, 1.5954, 1.2504, 1.3695, 1.6764),
    "hand": (0.0739, 0.8443, 1.9976, 0.0657, 0.0862, 0.2769),
}
"""The same fit with the knn declarer playing the cards by PIMC (4 worlds) against the
rule agent's defence (``experiments/skat_kb_calibrate.py --worlds 4``, seeds 21 and 22,
``--summary --knn-only``: the pick-up stage from the knn agent's own pick-up games, since
rule's keep rule's play). PIMC wins more of the games it declares, so the same value is
worth more: the ``knn`` agent uses these weights when it plays the cards with PIMC."""
CALIBRATIONS: dict[str, dict[str, tuple[float, ...]]] = {
    "pimc": PIMC_WIN_CALIBRATION, "rule": WIN_CALIBRATION,
}
"""The win-chance calibrations by the declarer's card play (``KnnParams.calibration``)."""
TYPED_CALIBRATIONS = ("strong", "defended", "played", "played_null", "played_infer",
                      "played_grand_hand", "played_pickup", "played_put", "played_null_knn6",
                      "played_suit_knn7", "played_suit_knn10", "played_put_knn10")
"""Calibrations with weights per stage and game type, shipped as data
(``spielwerk/data/skat_calibration/NAME.json`` with how they were made): ``strong`` - the
knn declarer and both defenders play by PIMC (:func:`typed_calibration`); ``defended`` -
``strong`` with the null and null ouvert weights refitted against defenders who break the
ties of their vote as ``knn``'s ``null_defence`` does; ``played`` - ``strong``'s weights
with a per-type map fitted on the ``knn`` bot's own declarations played against ``knn``'s
defence, the decision taking the lower of the two chances (:func:`played_z`);
``played_null`` - the same map on the null types only; ``played_infer`` - ``played_null``'s
map on the null types, and on the trump types a map fitted against defenders who weight
their worlds by the auction (``play=infer``, the default's defence);
``played_grand_hand`` - ``played_infer`` on grand hand only; ``played_pickup`` -
``played_grand_hand`` with a map of its own for suit games at the stage ``pickup``, fitted
on the chance the bidding gave the suit game it planned (:data:`PICKUP_MAP_KINDS`);
``played_put`` - ``played_grand_hand`` with ``played_infer``'s suit map after the skat is seen
only (the bidding keeps ``played_grand_hand``'s chances: ``suit_pickup`` the identity);
``played_null_knn6`` - ``played_grand_hand`` with the null maps refitted on the nulls of
``knn6`` (the default then) against its own defence; ``played_suit_knn7`` -
``played_null_knn6`` with the suit and suit hand maps refitted on ``knn7``'s own games against
its own defence; ``played_suit_knn10`` - ``played_suit_knn7`` with the suit, suit hand and
grand hand maps refitted on ``knn10``'s own games against its own defence (the defenders
breaking their ties by the declarer's margin, ``suit_margin``); ``played_put_knn10`` -
``played_suit_knn7`` with ``played_suit_knn10``'s suit and suit hand maps, the suit map after
the skat is seen only (the bidding keeps ``played_suit_knn7``'s suit chance as its
``suit_pickup`` map). A calibration
may also carry the type ``ouvert`` (null ouvert, fitted on forced null ouvert games of its
own: ``skat_kb_calibrate.py --modes nullhand,nullouvert,nullouverthand``); then
``decision=score`` offers null ouvert by those win chances."""
CALIBRATION_NAMES = (*CALIBRATIONS, *TYPED_CALIBRATIONS)
CARD_PLAY = ("infer", "pimc", "rule")
"""The ``knn`` agent's card play: ``infer`` - PIMC over worlds weighted by the auction's
likelihood (:mod:`inference`), plain PIMC (``worlds`` per decision), or the ``rule`` agent's
highest-lowest play - cheap, and identical to ``rule``'s, so a match against ``rule``
compares the decisions before the first card alone. With a calibration named, the decisions
before the first card are the same under every card play, so a match between two compares
the card play alone; ``auto`` gives each its own (:func:`auto_calibration`)."""
DEFAULT_PLAY = "infer"
"""The shipped agent's card play; ``auto`` chances are this play's unless the agent's
settings name another."""
AUTO = "auto"
"""The calibration of the decision rule under the card play (:func:`auto_calibration`):
``played_suit_knn7`` for ``score`` with ``infer`` card play, the shipped setting."""
AGENT_CALIBRATIONS = (AUTO, *CALIBRATION_NAMES)
"""Win-chance calibration of the ``ev`` / ``score`` decisions: that of the card play (auto) or
a named one (``strong``: PIMC card play on every side)."""
DEFAULT_CALIBRATION = AUTO
CALIBRATION_DIR = Path(__file__).resolve().parents[2] / "data" / "skat_calibration"
CALIBRATION_FORMAT = "spielwerk-skat-calibration"
GAME_TYPES = ("suit", "grand", "null")
OUVERT = "ouvert"
"""The optional game type of null ouvert: a calibration that has it offers null ouvert to
``decision=score``."""
MAP_KINDS = ("suit", "suit_hand", "grand", "grand_hand", "null", "null_hand", "null_ouvert")
"""The keys of a per-type map (:func:`map_kind`; ``calibration.GAME_TYPES``)."""
PICKUP_MAP_KINDS = ("suit_pickup", "grand_pickup", "null_pickup")
"""Optional keys of a per-type map: a map of its own for the stage ``pickup`` (bidding, and
choosing hand or pick-up, before the skat is seen), fitted on the chance the bidding gave
the game it bid on (``experiments/skat_bid_stage.py``); without one that stage takes the
type's map."""
STAGES = ("pickup", "hand", "put")
"""Where a win chance is asked: ``pickup`` / ``hand`` - bidding on the ten cards (the
neighbours' value of a game with or without the skat); ``put`` - after picking up, the
value of each game's put."""
_TYPED: dict[str, dict[str, Any]] = {}
_BASING: set[str] = set()
"""The calibrations whose base is being read (a chain of bases that loops is refused)."""


def game_type(game: int) -> str:
    """``suit``, ``grand`` or ``null`` of a game code."""
    return "null" if game == NULL else "grand" if game == GRAND else "suit"


def typed_calibration(name: str) -> dict[str, Any]:
    """The per-type calibration ``name`` (:data:`TYPED_CALIBRATIONS`), read once: ``stages``
    maps stage -> type -> (w_value, w_count, bias forehand, middlehand, rearhand) and
    ``centers`` type -> the value the weights are centred on. A calibration made from
    another (``base``, with a ``map``: ``played``) takes its base's weights."""
    if name not in _TYPED:
        path = CALIBRATION_DIR / f"{name}.json"
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise KnowledgeBaseError(
                f"cannot read the win-chance calibration {path}: {e}; it is made by "
                f"experiments/skat_kb_calibrate.py --summary ... --write {path}") from None
        base = data.get("base")
        if base is not None and "stages" not in data:
            if base in _BASING or base == name:
                raise KnowledgeBaseError(f"{path}: its base {base!r} leads back to itself")
            _BASING.add(name)
            try:
                weights = typed_calibration(base)
            finally:
                _BASING.discard(name)
            data = {"stages": weights["stages"], "centers": weights["centers"], **data}
        if data.get("format") != CALIBRATION_FORMAT or set(data.get("stages", {})) != set(
                STAGES) or any(set(data["stages"][s]) - {OUVERT} != set(GAME_TYPES)
                               for s in STAGES):
            raise KnowledgeBaseError(f"{path} is not a {CALIBRATION_FORMAT} file with the "
                                     f"stages {', '.join(STAGES)} per game type")
        own = data.get("map")
        if own is not None and (
                not isinstance(own, dict) or not set(MAP_KINDS) <= set(own)
                or set(own) - set(MAP_KINDS) - set(PICKUP_MAP_KINDS)
                or any(not isinstance(w, list) or len(w) != 2 for w in own.values())):
            raise KnowledgeBaseError(f"{path}: its map must give [a, b] for each of "
                                     f"{', '.join(MAP_KINDS)} (and may for "
                                     f"{', '.join(PICKUP_MAP_KINDS)})")
        _TYPED[name] = data
    return _TYPED[name]

"""Puts the KNN putting classifies: ``seed`` - no jacks, no trumps (the seed's pruning);
``hard`` - those left by refined selection's hard rules (:func:`selection.hard_candidates`:
no trumps, blank tens first, no aces in low-trump games, equivalent low cards, ...), from the
declarer's position."""
"""Feature scaling: ``none`` is the seed's plain Euclidean distance; ``std`` divides each
feature by its standard deviation in the base (the card points, 0-92, otherwise outweigh
the jacks, 0-4)."""


@dataclass(frozen=True)
class KnnParams:
    """The decisions before the first card (bidding, hand or pick-up, putting, declaring),
    each parameter declared once with :func:`param` (default, help, limits): the ``knn``
    agent's spec parameters come from here (:class:`knn_agent.KnnSettings` adds its own), and
    the defaults are the shipped agent's. Built directly, only the named choices and ``k``
    are checked (:class:`KnowledgeBaseError`); the agent checks every limit."""

    k: int = param(DEFAULT_K, "neighbours per classification", (1, None))
    hand_threshold: float = param(DEFAULT_HAND_THRESHOLD, "hand-game value (card points) "
                                  "needed to call a game winnable", (0, 120))
    pickup_threshold: float = param(DEFAULT_PICKUP_THRESHOLD, "pick-up value (card points) "
                                    "needed to call a game winnable", (0, 120))
    null_threshold: float = param(DEFAULT_NULL_THRESHOLD, "share of neighbours without a "
                                  "trick needed to bid null", (0, 1))
    extensions: bool = param(True, "null, schneider/schwarz/ouvert announcements beyond the "
                                   "seed")
    put_rules: str = param(DEFAULT_PUT_RULES, "puts the KNN putting classifies: seed (no "
                           "jacks/trumps) or hard (refined selection's hard rules)", PUT_RULES)
    switch_margin: float = param(0.0, "keep the game bid on unless another is this many "
                                      "points better")
    contest_margin: float = param(DEFAULT_CONTEST_MARGIN, "points above the threshold a hand "
                                  "needs to bid beyond 18")
    """A suit/grand hand whose value is below its threshold + this bids and holds only 18:
    it plays when nobody else wants to, but does not compete in the auction (an opponent
    bidding on signals strength against it). With ``decision="ev"``: whose value less this
    margin would not be winnable."""
    decision: str = param(DEFAULT_DECISION, "when a game is winnable: ev (calibrated expected "
                          "Seeger-Fabian score, by position), threshold (hand_threshold / "
                          "pickup_threshold), or score (every choice by expected score, null "
                          "included)", DECISIONS)
    loss_bonus: float = param(DEFAULT_LOSS_BONUS, "ev/score: extra cost of a lost game (the "
                              "opponents' 40 each)", (0, 1000))
    """Expected score of a game: p (v + 50) - (1 - p) (2 v + 50 + loss_bonus): a lost game
    also gives each opponent 40, so relative to them it costs that much more."""
    ev_margin: float = param(DEFAULT_EV_MARGIN, "ev/score: expected score a game needs over "
                             "passing", (-1000, 1000))
    game_choice: str = param(DEFAULT_GAME_CHOICE, "after picking up, the game with the best put "
                             "value (value) or the best calibrated expected score (ev)",
                             GAME_CHOICES)
    contest_shift: float = param(DEFAULT_CONTEST_SHIFT, "ev/score: log-odds a game must spare "
                                 "to bid beyond 18 (contested)")
    """``ev``: a game bids beyond 18 only when it stays winnable with its log-odds lowered
    by this much (an opponent who bids on holds cards against it)."""
    calibration: str = param(DEFAULT_CALIBRATION, "ev/score: win chances measured under rule's "
                             "or PIMC's card play against rule's defence, or strong: PIMC on "
                             "every side, per game type, or defended: strong with the nulls "
                             "fitted against the null defence, or played: strong, lowered "
                             "per type where the bot's own games against knn's defence "
                             "were won less often, or played_null: that on the nulls "
                             "only, or played_infer: played_null with the trump games "
                             "fitted against the infer defence, or played_grand_hand: "
                             "that on grand hand only, or played_pickup: that with the "
                             "suit games' chances when bidding fitted on their own, "
                             "or played_put: played_grand_hand with played_infer's "
                             "suit chances after the skat is seen, or "
                             "played_null_knn6: played_grand_hand with the nulls refitted "
                             "on knn6's own nulls, or played_suit_knn7: that with the suit "
                             "games refitted on knn7's own, or played_suit_knn10: "
                             "that with the suit games and grand hand refitted on knn10's "
                             "own "
                             "(auto: played_suit_knn7 for "
                             "score with infer "
                             "play, strong with pimc play, else those of play)",
                             AGENT_CALIBRATIONS)
    caution: float = param(DEFAULT_CAUTION, "ev/score: how far every win chance moves (in "
                           "log-odds) towards that of the same game against the open-hand "
                           "defence: 0 the calibration's, 1 the open-hand bound's", (0, 1))
    """The calibrations were fitted against PIMC defenders, who defend nulls and hand games
    badly; a strong defence lies between them and the open-hand bound
    (:func:`open_bound_z`). ``caution`` decides by the chance that far towards the bound."""
    bid_caution: float = param(DEFAULT_BID_CAUTION, "ev/score: how much further the chances "
                               "of the bidding decisions (the game bid on, hand or with the "
                               "skat) move towards the open-hand bound; the game chosen "
                               "after picking up keeps caution's", (0, 1))
    """The bid is where the bot takes on a hand the skat may not save: after picking up,
    every game left may be weak, and the least bad one is the best choice
    (``docs/evaluations/skat-declared-mix.md``). ``bid_caution`` moves only the chances
    the bidding compares (stages ``hand`` and ``pickup``), by ``caution + bid_caution``
    (at most 1)."""
    put_grand_shift: float = param(DEFAULT_PUT_GRAND_SHIFT, "score: log-odds taken off a "
                                   "grand's win chance when "
                                   "choosing the game after picking up (the choice only; "
                                   "the chance told stays the calibration's)", (-3, 3))
    put_null_shift: float = param(DEFAULT_PUT_NULL_SHIFT, "score: the same for null "
                                  "(negative: null is chosen more readily over a weak suit "
                                  "or grand)", (-3, 3))
    """After picking up, the game is chosen by expected score among suit, grand and null; the
    chances are fitted on all games of a type, not on the close choices between two types.
    The shifts move that choice alone (:meth:`put_shift`); bidding and the chance reported
    (:meth:`SkatKnnAgent.declaration_chance`) keep the calibration's."""
    null_model: str = param(DEFAULT_NULL_MODEL, "score: a plain null's win chance after "
                            "picking up: knn (the calibration's, from the neighbours) or "
                            "features (a logistic model of the ten cards kept and the put, "
                            "which also chooses the put, and gives null ouvert the same "
                            "chance where every suit is safe; null_model.py)", NULL_MODELS)
    null_floor: float = param(DEFAULT_NULL_FLOOR, "score: after picking up, a null whose win "
                              "chance is below this is not declared", (0, 1))
    """After picking up, a weak null is most often a rescue: the hand was bid on a suit game
    the skat did not help. The expected score may still prefer the null (every game is
    weak), but against a strong defence a weak null loses far more often than the chance
    fitted against our own (``docs/evaluations/skat-declared-mix.md``); the floor leaves such
    hands to the best suit or grand game (grand's value, 48 at least, reaches any bid a null
    can reach)."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise KnowledgeBaseError(f"k must be at least 1, not {self.k}")
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise KnowledgeBaseError(f"{name} must be one of {', '.join(allowed)}, "
                                         f"not {value!r}")
        if (self.caution > 0.0 or self.bid_caution > 0.0) and (
                self.win_chances not in TYPED_CALIBRATIONS):
            raise KnowledgeBaseError(f"caution needs a per-type calibration "
                                     f"({', '.join(TYPED_CALIBRATIONS)}), not "
                                     f"{self.win_chances!r}")

    @property
    def card_play(self) -> str:
        """The card play the ``auto`` calibration is that of: the shipped agent's
        (:data:`DEFAULT_PLAY`; the agent's settings answer with theirs)."""
        return DEFAULT_PLAY

    @property
    def win_chances(self) -> str:
        """The calibration the decisions use: the one named, or ``auto``'s
        (:func:`auto_calibration` of the decision rule and :attr:`card_play`)."""
        if self.calibration == AUTO:
            return auto_calibration(self.decision, self.card_play)
        return self.calibration

    def chance(self, value: float, stage: str, position: int, count: float = 7.0,
               game: int = 0, shift: float = 0.0, ouvert: bool = False) -> float:
        """The win chance the decisions use (:func:`win_probability` with this setting's
        calibration and ``caution``; the bidding's stages ``hand`` and ``pickup`` with
        ``bid_caution`` added)."""
        caution = self.caution if stage == "put" else min(1.0,
                                                           self.caution + self.bid_caution)
        return win_probability(value, stage, position, count, game, shift, self.win_chances,
                               ouvert, caution)

    def put_shift(self, game: int) -> float:
        """The log-odds the choice of the game after picking up takes off ``game``'s chance."""
        return (self.put_grand_shift if game == GRAND
                else self.put_null_shift if game == NULL else 0.0)

    def resolved(self) -> KnnParams:
        """Just the decision parameters, with ``auto`` replaced by the calibration it means."""
        values = {f.name: getattr(self, f.name) for f in fields(KnnParams)}
        return KnnParams(**{**values, "calibration": self.win_chances})


_CHOICES: dict[str, tuple[str, ...]] = {
    name: tuple(map(str, limit)) for name, limit in declared(KnnParams)[2].items()
    if isinstance(limit[0], str)}
"""The decision parameters with named values, and those values."""


AGENT_DECISION = DEFAULT_DECISION
"""The ``knn`` agent's decision rule (E5 in docs/skat-bot.md), the default of
:class:`KnnParams`."""


def auto_calibration(decision: str, play: str) -> str:
    """The win chances a decision rule uses unless one is named: ``score`` with ``infer``
    card play (the ``knn`` default) ``played_suit_knn7`` - those measured with PIMC on every
    side, the nulls', grand hand's and the suit games' lowered to what the bot's own defence
    lets through (the nulls' refitted on the nulls of ``knn6``, the suit games' on the games
    of ``knn7``, the defaults before);
    ``score`` with plain
    PIMC ``strong``; else those of the card play (``rule`` or ``pimc``, against rule's
    defence; ``infer`` is PIMC over weighted worlds and takes ``pimc``'s)."""
    if play == "rule":
        return play
    if decision != "score":
        return "pimc"
    return "played_suit_knn7" if play == "infer" else "strong"


def has_ouvert(calibration: str) -> bool:
    """Whether ``calibration`` has win chances of null ouvert of its own."""
    return calibration in TYPED_CALIBRATIONS and all(
        OUVERT in stages for stages in typed_calibration(calibration)["stages"].values())


def map_kind(game: int, stage: str, ouvert: bool) -> str:
    """The game type a per-type map is keyed by (:data:`calibration.GAME_TYPES`): suit,
    grand or null, ``_hand`` at the stage ``hand``, null ouvert its own (``null_ouvert``)."""
    kind = game_type(game)
    if kind == "null" and ouvert:
        return "null_ouvert"
    return kind + "_hand" if stage == "hand" else kind


def played_z(z: float, table: dict[str, Any], game: int, stage: str, ouvert: bool) -> float:
    """A calibration's log-odds ``z`` after its own ``map`` (a calibration without one: ``z``):
    ``min(z, a + b z)`` with the (a, b) of the type (:func:`map_kind`), fitted by logistic
    regression of the outcome on ``z`` over the bot's own declarations against its own
    defence (``experiments/skat_open_map.py --own``); at the stage ``pickup`` the type's
    ``_pickup`` map where the calibration has one (:data:`PICKUP_MAP_KINDS`). Only the
    pessimistic side is taken:
    where the fit says the game is won more often than the weights do, the weights stay."""
    own = table.get("map")
    if not own:
        return z
    kind = map_kind(game, stage, ouvert)
    if stage == "pickup" and f"{kind}_pickup" in own:
        kind = f"{kind}_pickup"
    a, b = own[kind]
    return min(z, float(a + b * z))


def open_bound_z(z: float, calibration: str, game: int, stage: str, ouvert: bool) -> float:
    """The log-odds against the open-hand defence of a game ``calibration`` gives log-odds
    ``z``: ``a + b z`` with the (a, b) of its type (suit, grand, null; ``_hand`` at the
    stage ``hand``; null ouvert its own), fitted on the calibration's own declarations
    played against open hands (:data:`OPEN_MAP`, ``experiments/skat_open_map.py``). A
    calibration made from another (``base``: ``played`` from ``strong``) without a map of its
    own takes its base's, applied to its own (already lowered) log-odds."""
    if OPEN_MAP not in _TYPED:
        path = CALIBRATION_DIR / f"{OPEN_MAP}.json"
        try:
            _TYPED[OPEN_MAP] = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise KnowledgeBaseError(f"cannot read the open-hand map {path}: {e}; it is "
                                     f"made by experiments/skat_open_map.py") from None
    maps = _TYPED[OPEN_MAP].get("maps", {})
    if calibration not in maps and calibration in TYPED_CALIBRATIONS:
        calibration = typed_calibration(calibration).get("base", calibration)
    if calibration not in maps:
        raise KnowledgeBaseError(f"caution needs a calibration with an open-hand map "
                                 f"({', '.join(sorted(maps))}), not {calibration!r}")
    a, b = maps[calibration][map_kind(game, stage, ouvert)]
    return float(a + b * z)


def win_probability(value: float, stage: str, position: int, count: float = 7.0,
                    game: int = 0, shift: float = 0.0, calibration: str = "rule",
                    ouvert: bool = False, caution: float = 0.0) -> float:
    """Calibrated chance that a game of this KNN value and hand count is won
    (:data:`WIN_CALIBRATION`, or another of :data:`CALIBRATION_NAMES`); ``shift`` lowers the
    log-odds (a contested auction). The per-type calibrations answer each game type and the
    ``put`` stage with weights of their own; the others use the ``pickup`` weights there.
    ``caution`` (0-1) moves the log-odds that far towards the open-hand bound's
    (:func:`open_bound_z`)."""
    if calibration in TYPED_CALIBRATIONS:
        table = typed_calibration(calibration)
        kind = game_type(game)
        if ouvert and kind == "null" and OUVERT in table["stages"][stage]:
            kind = OUVERT
        w_value, w_count, *bias = table["stages"][stage][kind]
        z = (w_value * (value - table["centers"][kind]) + w_count * (count - 7.0)
             + bias[max(0, min(2, position))] - shift)
        z = played_z(z, table, game, stage, ouvert)
        if caution > 0.0:
            z += caution * (open_bound_z(z, calibration, game, stage, ouvert) - z)
        return float(1.0 / (1.0 + np.exp(-z)))
    if caution > 0.0:
        raise KnowledgeBaseError(f"caution needs a per-type calibration "
                                 f"({', '.join(TYPED_CALIBRATIONS)}), not {calibration!r}")
    weights = CALIBRATIONS[calibration]
    if game == NULL:  # fitted on trump games only: null's risk count means nothing to them
        count = 7.0
    w_value, w_count, w_grand, *bias = weights["pickup" if stage == "put" else stage]
    z = (w_value * (value - 55.0) + w_count * (count - 7.0) + w_grand * (game == GRAND)
         + bias[max(0, min(2, position))] - shift)
    return float(1.0 / (1.0 + np.exp(-z)))


def expected_score(p_win: float, game_value: int, loss_bonus: float = DEFAULT_LOSS_BONUS
                   ) -> float:
    """Seeger-Fabian expectation of declaring: won v + 50, lost -2 v - 50 - loss_bonus."""
    return p_win * (game_value + 50) - (1.0 - p_win) * (2 * game_value + 50 + loss_bonus)


