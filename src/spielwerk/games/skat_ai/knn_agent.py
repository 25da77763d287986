"""The ``knn`` Skat agent: KNN bidding, hand/pick-up, putting and declaring; PIMC card play.

Bidding, the hand-or-pick-up choice, the skat putting and the declaration
come from :mod:`spielwerk.games.skat_ai.knn` over a knowledge base
(the one shipped in ``spielwerk/data/skat_kb`` unless ``base=DIR``); the
cards are played, as declarer and as defender, by the PIMC agent
(:mod:`pimc_agent`, ``worlds`` per decision), or with ``play=rule`` by the
rule agent (identical to ``rule``'s play, for matches that compare only the
decisions before the first card). The skat is put by refined selection and
the game compared by the KNN values of each game's refined put
(``putting=refined``, ``choose_by_put=true``; :mod:`putting`); a hand whose
value is within ``contest_margin`` of its threshold bids only 18.
``extensions=false`` keeps to
the seed (suit and grand games only, no announcements); the default also
bids null and announces schneider / schwarz / ouvert where the neighbours
say so. Decisions are deterministic for a given hand; the card play is
seeded like every agent.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from spielwerk.core.agent import (
    Agent,
    AgentSpecError,
    check_declared,
    declared,
    param,
    register_agent,
    register_declared,
)
from spielwerk.core.game import Game, InfoState
from spielwerk.games.skat.bidding import BID_VALUES
from spielwerk.games.skat.cards import NULL, cards_of
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.rules import (
    BID_BASE,
    DECLARE_BASE,
    HOLD,
    PASS,
    PICKUP,
    PLAY_ON,
    PUT,
    SKAT,
    SkatGame,
    declaration_action,
)
from spielwerk.games.skat.scoring import NULL_VALUES, Contract, suit_game_value
from spielwerk.games.skat_ai.baseline import SkatRuleAgent, rule_put
from spielwerk.games.skat_ai.bidding import BidDecision, apply_strength_bidding, decide_bid
from spielwerk.games.skat_ai.infer_models import BID_MODELS
from spielwerk.games.skat_ai.inference import PLAY_MODELS, InferenceSettings
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.features import hand_count, null_count
from spielwerk.games.skat_ai.knowledge.store import base_fingerprint, default_base_dir
from spielwerk.games.skat_ai.params import (
    CARD_PLAY,
    DEFAULT_PLAY,
    DEFAULT_SCALING,
    SCALINGS,
    KnnParams,
)
from spielwerk.games.skat_ai.pimc_agent import SkatPimcAgent
from spielwerk.games.skat_ai.putting import (
    PUTTINGS,
    PutDecision,
    bot_put,
    choose_game,
    knn_put,
    put_chance,
)

_MODELS: dict[tuple[str, int, str], KnnModel] = {}
AGENT_PUTTINGS = (*PUTTINGS, "rule")
"""The bot's putting: the strategies of :mod:`putting`, and ``rule`` - each game's put by the
rule agent's keep order (:func:`agents.rule_put`), the games compared by the neighbours'
values of those puts."""
BIDDING_SYSTEMS = ("knn", "stegen", "kinback")
INFER = "auction"
"""The inference of ``play=infer`` unless ``infer`` names another (:data:`INFER_KINDS`)."""
INFER_KINDS = ("auction", "play", "both")
"""What ``play=infer`` weights the worlds by (:data:`inference.INFERENCES` but none)."""


def shared_model(base: str, k: int, scaling: str = DEFAULT_SCALING) -> KnnModel:
    """One loaded model per (base directory, k, scaling) and process."""
    directory = str(Path(base).resolve()) if base else str(default_base_dir())
    key = (directory, k, scaling)
    if key not in _MODELS:
        _MODELS[key] = KnnModel.load(directory, k=k, scaling=scaling)
    return _MODELS[key]


@dataclass(frozen=True)
class KnnSettings(KnnParams):
    """The ``knn`` agent's parameters, each declared once (default, help, limits): the
    decisions before the first card (:class:`KnnParams`) and, here, the card play, the
    putting and the base. The registry's spec parsing, validation and help come from here
    (:func:`register_declared`), an agent built directly is checked the same way, and the
    frozen bots pin values of them (:data:`FROZEN`)."""

    worlds: int = param(32, "PIMC worlds per card decision (declarer and defence)", (1, None))
    time: float = param(0.0, "seconds per card decision: PIMC stops sampling worlds when they "
                             "are spent (at least one world; 0: all worlds); bidding and "
                             "putting take milliseconds", (0, None))
    deadline: bool = param(False, "time: also stop a world's search when the card decision's "
                                  "time is spent; a decision that finished no world plays the "
                                  "rule agent's card (pimc's deadline)")
    infer: str = param(INFER, "play=infer: worlds weighted by the auction (bids, declaration, "
                              "put), the cards played, or both", INFER_KINDS)
    play_model: str = param(InferenceSettings.play_model, "infer=play/both: the play's "
                            "likelihood, net or heuristic (pimc's play_model)", PLAY_MODELS)
    candidates: int = param(InferenceSettings.candidates, "play=infer: uniform candidates "
                            "drawn per weighted world (pimc's candidates)", (1, 64))
    power: float = param(InferenceSettings.power, "play=infer: exponent of the auction's "
                         "likelihood (pimc's power)", (0, 4))
    bid_model: str = param(InferenceSettings.bid_model, "play=infer: the bids' likelihood, "
                           "the model of knn2's or knn10's bidding (pimc's bid_model)",
                           tuple(BID_MODELS))
    endgame: int = param(0, "pimc/infer play: with this many tricks left or fewer, choose "
                            "the card by alpha-mu search over the worlds (pimc's endgame; 0: "
                            "off)", (0, 4))
    putting: str = param("refined", "skat putting strategy: knn, refined, random, pimc "
                                     "(docs/skat-selection.md), or rule (the rule agent's put "
                                     "for each game, compared by KNN values)", AGENT_PUTTINGS)
    base: str = param("", "knowledge base directory (empty: the shipped base)")
    scaling: str = param(DEFAULT_SCALING, "feature scaling of the distance: none (the seed) or "
                                          "std", SCALINGS)
    bidding: str = param("knn", "bidding: knn, or the hand-strength counts stegen / kinback",
                         BIDDING_SYSTEMS)
    play: str = param(DEFAULT_PLAY, "card play: infer (pimc over worlds weighted by the "
                               "auction), pimc (worlds per decision, unweighted) or rule (the "
                               "rule agent's play)", CARD_PLAY)
    null_ties: bool = param(True, "pimc play as null declarer: cards the worlds' vote ties are "
                                  "chosen as null declarers play (stay under, discard the "
                                  "most exposed card), not at random")
    null_lead: bool = param(False, "pimc play as null declarer leading: of the cards the "
                                   "worlds' vote ties, the one the defenders can least easily "
                                   "let win the trick, not at random")
    null_defence: bool = param(True, "pimc play as null defender: of the cards the worlds' vote "
                                      "ties, the one that makes the declarer take the current "
                                      "trick in the most worlds, not at random")
    suit_defence: bool = param(False, "pimc play as suit or grand defender: of the cards the "
                                      "worlds' vote ties, the one that brings the defenders "
                                      "the most card points in the current trick")
    suit_margin: int = param(10, "pimc play as suit or grand defender: of the cards the "
                                "worlds' vote ties, the one that holds the declarer furthest "
                                "from the goal (pimc's suit_margin; 0: off)", (0, 60))
    suit_slack: int = param(0, "suit_margin: also weigh the cards within this many worlds of "
                               "the vote's best count (pimc's suit_slack; 0: exact ties only)",
                            (0, 8))
    choose_by_put: bool = param(True, "after picking up, compare the games by the values of "
                                      "the refined put of each (putting=refined)")

    def __post_init__(self) -> None:
        check_declared("knn", self)

    @property
    def card_play(self) -> str:
        """``play``: the ``auto`` calibration is that of this card play."""
        return self.play

    def decision_params(self) -> KnnParams:
        """The parameters of the decisions before the first card (:class:`KnnParams`); the
        ``auto`` calibration is :func:`auto_calibration`'s for ``play``."""
        return self.resolved()


class SkatKnnAgent(Agent):
    """KNN for everything before the first card, PIMC for the cards."""

    def __init__(self, game: Game, seed: int | None = None, **settings: Any) -> None:
        super().__init__(game, seed)
        s = self.settings = KnnSettings(**settings)
        self.params = s.decision_params()
        self.bidding, self.choose_by_put, self.putting = s.bidding, s.choose_by_put, s.putting
        self.scaling, self.base, self.play = s.scaling, s.base, s.play
        self.player: Agent = (
            SkatPimcAgent(game, seed, worlds=s.worlds, time=s.time, null_ties=s.null_ties,
                          null_lead=s.null_lead,
                          null_defence=s.null_defence, suit_defence=s.suit_defence,
                          suit_margin=s.suit_margin, suit_slack=s.suit_slack,
                          infer=s.infer if s.play == "infer" else "none", deadline=s.deadline,
                          endgame=s.endgame, play_model=s.play_model,
                          candidates=s.candidates, power=s.power, bid_model=s.bid_model)
            if s.play != "rule" else SkatRuleAgent(game, seed))
        self._bid_cache: dict[tuple[int, int], BidDecision] = {}
        self._put: PutDecision | None = None
        self._put_key: tuple[int, int, int] = (0, 0, 0)
        self._model: KnnModel | None = None

    @property
    def model(self) -> KnnModel:
        if self._model is None:
            self._model = shared_model(self.base, self.params.k, self.scaling)
        return self._model

    def knowledge_base_info(self) -> dict[str, Any]:
        """The base this agent decides with (recorded in a match's results header)."""
        return base_fingerprint(Path(self.base) if self.base else default_base_dir())

    def provenance(self) -> dict[str, Any]:
        """What this agent is, whatever spec named it: every setting (``auto`` resolved to
        the calibration it means) and, in place of ``base``'s path, the SHA-256 of that
        base's manifest. ``knn`` and the frozen bot it equals give the same; a ``knn`` made
        after the default moved does not."""
        settings = {f.name: getattr(self.settings, f.name) for f in fields(KnnSettings)
                    if f.name != "base"}
        settings["calibration"] = self.params.calibration
        settings["base_manifest"] = self.knowledge_base_info()["manifest_sha256"]
        return settings

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.player.reset(seed)
        self._bid_cache.clear()
        self._put = None

    def inform(self, action: int) -> None:
        self.player.inform(action)

    def bid_decision(self, hand: int, position: int = 0) -> BidDecision:
        key = (hand, position)
        if key not in self._bid_cache:
            decision = decide_bid(self.model, hand, self.params, position)
            if self.bidding != "knn":  # hand-strength systems (skat/handstrength.py)
                apply_strength_bidding(decision, hand, self.bidding, position)
            self._bid_cache[key] = decision
        return self._bid_cache[key]

    def decides_deterministically(self, info_state: InfoState) -> bool:
        """Everything before the first card is decided from the hand alone; the cards as
        the card player decides them."""
        if (isinstance(info_state, SkatInfoState) and not info_state.is_ramsch
                and info_state.contract is None):
            return True
        return self.player.decides_deterministically(info_state)

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if not isinstance(info_state, SkatInfoState) or not legal or info_state.is_ramsch:
            return self.player.act(info_state)
        if PLAY_ON in legal:
            return PLAY_ON
        if PASS in legal:
            return self._bid(info_state, legal)
        if info_state.phase == SKAT and PICKUP in legal:
            return self._hand_or_pickup(info_state, legal)
        if info_state.phase == PUT:
            return self._put_card(info_state, legal)
        if legal[0] >= DECLARE_BASE and info_state.contract is None:
            return self._declare(info_state, legal)
        return self.player.act(info_state)

    def position(self, seat: int) -> int:
        """0 forehand, 1 middlehand, 2 rearhand of a seat at this table."""
        if isinstance(self.game, SkatGame):
            return max(0, self.game.position_of(seat))
        return seat % 3

    # ----- bidding ---------------------------------------------------------------------
    def _bid(self, info: SkatInfoState, legal: list[int]) -> int:
        limit = self.bid_decision(info.own_dealt,
                                  self.position(info.player)).max_bid
        if HOLD in legal:
            return HOLD if info.bid <= limit else PASS
        bids = [a for a in legal if BID_BASE <= a < HOLD and BID_VALUES[a - BID_BASE] <= limit]
        return min(bids) if bids else PASS

    # ----- the skat ----------------------------------------------------------------------
    def _hand_or_pickup(self, info: SkatInfoState, legal: list[int]) -> int:
        self._put = None
        d = self.bid_decision(info.own_dealt, self.position(info.player))
        if not d.hand_game or d.game < 0:
            return PICKUP
        hand = info.own_dealt
        if d.game == NULL:
            options = [Contract(NULL, hand=True, ouvert=d.ouvert), Contract(NULL, hand=True,
                                                                            ouvert=True)]
            for c in options:
                if NULL_VALUES[(True, c.ouvert)] >= info.bid:
                    return declaration_action(c)
            return PICKUP
        contract = Contract(d.game, True, d.schneider or d.schwarz or d.ouvert,
                            d.schwarz or d.ouvert, d.ouvert)
        value = suit_game_value(hand, d.game, True, contract.schneider_announced,
                                contract.schwarz_announced, contract.ouvert)
        if value < info.bid:  # won the auction on another game's value: look at the skat
            return PICKUP
        action = declaration_action(contract)
        return action if action in legal else PICKUP

    def put_decision(self, info: SkatInfoState) -> PutDecision:
        """The put and game for the declarer's twelve cards (the hand plus what was put so
        far), from the declarer's position. Worked out from the info state alone, so a fresh
        agent (the web table builds one per move) decides as the one that picked up; kept
        while the twelve cards and the bid are the same."""
        twelve = info.hand | (info.put or 0)
        position = self.position(info.player)
        key = (twelve, info.bid, position)
        if self._put is None or self._put_key != key:
            prefer = self.bid_decision(info.own_dealt, position).game
            if self.putting == "rule":
                self._put = knn_put(self.model, twelve, info.bid, self.params, position,
                                    put_for=lambda g: rule_put(twelve, g), prefer=prefer)
            else:
                self._put = bot_put(self.model, twelve, info.bid, self.params, self.putting,
                                    position, prefer, self.choose_by_put)
            self._put_key = key
        return self._put

    def _put_card(self, info: SkatInfoState, legal: list[int]) -> int:
        # the put is chosen from the twelve cards (hand and any card put already), so at
        # most one of its cards is gone: the other is in the hand
        return next(c for c in cards_of(self.put_decision(info).put) if c in legal)

    def _declare(self, info: SkatInfoState, legal: list[int]) -> int:
        if not info.picked_up:
            return self.player.act(info)
        decision = self.put_decision(info)
        game, ouvert = decision.game, decision.ouvert
        put = info.put or 0
        if put != decision.put:  # another put than ours: the game for the cards put
            twelve = info.hand | put
            games = range(6) if self.params.extensions else range(5)
            per_game = {g: (put, float(self.model.put_values(twelve, g, [put],
                                                             self.params.k)[0]))
                        for g in games}
            position = self.position(info.player)
            game, ouvert = choose_game(per_game, twelve, info.bid, self.params,
                                       self.bid_decision(info.own_dealt, position).game,
                                       position)
        contract = Contract(NULL, ouvert=ouvert) if game == NULL else Contract(game)
        action = declaration_action(contract)
        return action if action in legal else self.player.act(info)

    # ----- what it expected ------------------------------------------------------------
    def declaration_chance(self, info: SkatInfoState, cautious: bool = False) -> float | None:
        """The win chance this agent's calibration (``params.win_chances``) gives the game
        it declared, from the declarer's info state after the declaration: a hand game's
        from the ten dealt cards' neighbour value (stage ``hand``, as the bidding's
        :func:`bidding.options` compute it), a game after picking up from the neighbours'
        value of the ten cards kept (stage ``put``, as :func:`putting.choose_game` does).
        None before a declaration, for another seat's game or in Ramsch. It only reads (the
        caches it fills are the ones the decisions use): no decision changes. The chance is
        the calibration's; ``cautious``: the one the decisions compared (moved by
        ``caution`` towards the open-hand bound, :meth:`KnnParams.chance`, and after picking
        up by the game's :meth:`KnnParams.put_shift`)."""
        contract = info.contract
        if contract is None or info.is_ramsch or info.declarer != info.player:
            return None
        p, game, position = self.params, contract.game, self.position(info.player)
        if not cautious:
            p = replace(p, caution=0.0, bid_caution=0.0)
        ouvert = contract.ouvert and game == NULL
        if not info.picked_up:
            hand = info.own_dealt
            value = float(self.bid_decision(hand, position).hand_values[game])
            count = float(null_count(hand)[0]) if game == NULL else hand_count(hand, game)
            return p.chance(value, "hand", position, count, game, ouvert=ouvert)
        put = info.put or 0
        twelve = info.hand | put
        per_game = self.put_decision(info).per_game
        if game in per_game and per_game[game][0] == put:
            value = per_game[game][1]
        else:  # another put than the one valued for this game: value the put made
            value = float(self.model.put_values(twelve, game, [put], p.k)[0])
        return put_chance(p, (put, value), twelve, game, position, ouvert,
                          p.put_shift(game) if cautious else 0.0)


register_declared(
    "knn", SkatKnnAgent, KnnSettings,
    "KNN bidding, hand/pick-up, skat putting and declaring over solved deals; PIMC card play",
    games=("skat",),
)

FROZEN_FREE = ("worlds", "time", "base")
"""The parameters a frozen bot leaves to its spec (how long it thinks, where its base is)."""
_SHIPPED_BASE = "474dc2f6fc4fc5fa7463bd90505fbd7f18795fba6c551877283119244af3aa1d"
"""The SHA-256 of the shipped base's manifest the frozen bots decide with."""
_KNN2: dict[str, Any] = {
    "k": 12, "extensions": True, "putting": "refined",
    "hand_threshold": 64.0, "pickup_threshold": 52.0, "null_threshold": 0.8,
    "scaling": "std", "bidding": "knn", "play": "pimc", "put_rules": "seed",
    "choose_by_put": True, "switch_margin": 0.0, "contest_margin": 6.0,
    "decision": "score", "loss_bonus": 40.0, "ev_margin": 0.0, "game_choice": "value",
    "contest_shift": 1.0, "calibration": "strong", "null_ties": True, "null_lead": False,
    "deadline": False,
    "infer": "auction", "play_model": "net", "endgame": 0, "null_defence": False,
    "suit_defence": False, "caution": 0.0, "bid_caution": 0.0, "put_grand_shift": 0.0,
    "put_null_shift": 0.0,
    "null_model": "knn", "null_floor": 0.0, "suit_margin": 0, "suit_slack": 0,
    "candidates": 4, "power": 1.0, "bid_model": "knn2"}
FROZEN: dict[str, tuple[dict[str, Any], str]] = {
    "knn1": (
        {"k": 12, "extensions": True, "putting": "refined",
         "hand_threshold": 64.0, "pickup_threshold": 52.0, "null_threshold": 0.8,
         "scaling": "std", "bidding": "knn", "play": "pimc", "put_rules": "seed",
         "choose_by_put": True, "switch_margin": 0.0, "contest_margin": 6.0, "decision": "ev",
         "loss_bonus": 40.0, "ev_margin": 0.0, "game_choice": "value", "contest_shift": 1.0,
         "calibration": "pimc", "null_ties": False, "null_lead": False, "deadline": False,
         "infer": "auction",
         "play_model": "net", "endgame": 0, "null_defence": False, "suit_defence": False,
         "caution": 0.0, "bid_caution": 0.0, "put_grand_shift": 0.0, "put_null_shift": 0.0,
         "null_model": "knn", "null_floor": 0.0, "suit_margin": 0, "suit_slack": 0,
         "candidates": 4, "power": 1.0, "bid_model": "knn2"},
        _SHIPPED_BASE,
    ),
    "knn2": (_KNN2, _SHIPPED_BASE),
    "knn3": ({**_KNN2, "null_defence": True}, _SHIPPED_BASE),
    "knn4": ({**_KNN2, "null_defence": True, "play": "infer",
              "calibration": "played_grand_hand"}, _SHIPPED_BASE),
    "knn5": ({**_KNN2, "null_defence": True, "play": "infer",
              "calibration": "played_grand_hand", "put_grand_shift": 0.5}, _SHIPPED_BASE),
    "knn6": ({**_KNN2, "null_defence": True, "play": "infer",
              "calibration": "played_grand_hand", "put_grand_shift": 0.5,
              "put_null_shift": -0.5}, _SHIPPED_BASE),
    "knn7": ({**_KNN2, "null_defence": True, "play": "infer",
              "calibration": "played_null_knn6", "put_grand_shift": 0.5,
              "put_null_shift": -0.5}, _SHIPPED_BASE),
    "knn8": ({**_KNN2, "null_defence": True, "play": "infer",
              "calibration": "played_suit_knn7", "put_grand_shift": 0.85,
              "put_null_shift": -0.15}, _SHIPPED_BASE),
    "knn9": ({**_KNN2, "null_defence": True, "play": "infer",
              "calibration": "played_suit_knn7", "put_grand_shift": 0.85,
              "put_null_shift": -0.15, "null_model": "features"}, _SHIPPED_BASE),
    "knn10": ({**_KNN2, "null_defence": True, "play": "infer",
               "calibration": "played_suit_knn7", "put_grand_shift": 0.85,
               "put_null_shift": -0.15, "null_model": "features", "suit_margin": 10},
              _SHIPPED_BASE),
}
"""Frozen bots to measure against: the values they pin of :class:`KnnSettings` (every
parameter but :data:`FROZEN_FREE`), and the SHA-256 of the manifest of the knowledge base
they decide with (the shipped base at the time). ``knn1`` is the ``knn`` bot as it shipped
before expected-score decisions (``decision=ev``, game chosen by put value, win chances fitted
against rule's defence); ``knn2`` the expected-score bot as it shipped before its defence
read the null (``null_defence``), with the ``strong`` win chances fitted against its own PIMC
defence - the previous default that issue 42's changes are measured against; ``knn3``
``knn2`` with the null defence, before ``caution`` (its chances taken as they were
fitted against PIMC defenders); ``knn4`` the default with inference in the card play and
``played_grand_hand``; ``knn5`` that with ``put_grand_shift=0.5``; ``knn6`` that with
``put_null_shift=-0.5`` (``docs/evaluations/skat-put-shift.md``); ``knn7`` that with the
null chances refitted on ``knn6``'s own nulls (``played_null_knn6``,
``docs/evaluations/skat-null-declarer.md``); ``knn8`` that with the suit chances refitted on
``knn7``'s own games and both shifts moved by as much (``played_suit_knn7``,
``docs/evaluations/skat-suit-chances.md``); ``knn9`` that with a plain null's chance after
picking up from the cards (``null_model=features``,
``docs/evaluations/skat-null-model.md``); ``knn10`` that with the suit and grand defender's
ties broken by the declarer's margin (``suit_margin=10``), the default
(``docs/evaluations/skat-suit-margin.md``)."""


FROZEN_NOTES: dict[str, str] = {
    "knn1": "knn before expected-score decisions",
    "knn2": "the expected-score bot, win chances fitted against its own PIMC defence; the "
            "baseline the later bots are measured against",
    "knn3": "knn2 whose defence reads a null declaration",
    "knn4": "knn3 with inference in the card play and refitted grand-hand chances",
    "knn5": "knn4 choosing grand more readily after picking up",
    "knn6": "knn5 choosing null less readily after picking up",
    "knn7": "knn6 with the null chances refitted on its own nulls",
    "knn8": "knn7 with the suit chances refitted on its own games",
    "knn9": "knn8 with a plain null's chance after picking up read from the cards",
    "knn10": "knn9 whose suit and grand defenders break ties by the declarer's margin",
}
"""What each frozen bot is, in a line for the agent lists (the lobby, ``spielwerk games``);
:data:`FROZEN`'s notes say it with the evaluations."""


def pinned(name: str, pins: dict[str, Any]) -> dict[str, Any]:
    """``pins`` checked against the declaration of :class:`KnnSettings`: a value for every
    parameter but :data:`FROZEN_FREE` (a parameter added later cannot change a frozen bot
    unnoticed), each of its parameter's type and within its limits."""
    defaults = declared(KnnSettings)[0]
    expected = set(defaults) - set(FROZEN_FREE)
    if set(pins) != expected:
        missing, unknown = sorted(expected - set(pins)), sorted(set(pins) - expected)
        raise ValueError(f"frozen bot {name!r} must pin every knn parameter but "
                         f"{', '.join(FROZEN_FREE)}: missing {missing}, not pinnable {unknown}")
    for key, value in pins.items():
        kind = type(defaults[key])
        if not (isinstance(value, kind) or (kind is float and type(value) is int)) or (
                kind is not bool and isinstance(value, bool)):
            raise ValueError(f"frozen bot {name!r}: {key}={value!r} is not {kind.__name__}")
    KnnSettings(**pins)  # the declared limits (AgentSpecError naming the parameter)
    return dict(pins)


def _frozen(name: str) -> Any:
    params, manifest_sha = FROZEN[name]
    pins = pinned(name, params)
    free = declared(KnnSettings)[0]

    def make(game: Game, seed: int | None = None, worlds: int = free["worlds"],
             time: float = free["time"], base: str = free["base"]) -> SkatKnnAgent:
        directory = Path(base) if base else default_base_dir()
        found = base_fingerprint(directory)["manifest_sha256"]
        if found != manifest_sha:
            raise AgentSpecError(
                f"{name}: the knowledge base {directory} is not the one this frozen bot decides "
                f"with (manifest SHA-256 {manifest_sha[:12]}..., found {found[:12]}...); give "
                f"base=DIR of that base")
        return SkatKnnAgent(game, seed, worlds=worlds, time=time, base=base, **pins)

    return make


def _register_frozen() -> None:
    defaults, helps, limits = declared(KnnSettings)
    for name in FROZEN:
        register_agent(
            name, _frozen(name), {k: defaults[k] for k in FROZEN_FREE},
            f"frozen: {FROZEN_NOTES[name]} (decisions and knowledge base pinned, to measure "
            "against; a base whose manifest is not the pinned one is refused)",
            games=("skat",), parameter_help={k: helps[k] for k in FROZEN_FREE},
            limits={k: limits[k] for k in FROZEN_FREE if k in limits},
        )


_register_frozen()
