"""Inference for Skat card play: worlds weighted by how likely the others' actions make them.

Plain PIMC draws the hidden cards uniformly among the deals consistent with the voids
shown. But the auction says much about the hands: a player who passed at 18 holds no
biddable game, a declarer who bid 36 and declared clubs holds clubs and matadors and never
put a trump. Here each candidate world is weighted by the likelihood of what the other seats
did given their cards in it, and worlds are resampled by weight (sampling-importance-
resampling, :func:`weighted_deals`).

The likelihoods come from small models of our own bot (:mod:`infer_models`): its bidding
made soft (:class:`BidModel`: a seat that bid or held ``Y`` has its highest bid at least
``Y``; one that refused ``R`` below ``R``; the declarer declared its game by hand or after
picking up, where the game after the skat may differ from the one before with chance
``switch``), its putting (:class:`PutModel`) and its card play (:class:`PlayModel`). They
are refitted by ``experiments/skat_{bid,put,play}_model.py`` whenever the bot changes, so
the inference follows whatever the bidding becomes. Every term is mixed with a floor so
that an opponent who acts unlike our bot (a person, another program) costs accuracy, not
worlds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from spielwerk.games.skat.actions import BID_BASE, DECLARE_BASE, HOLD, PASS, PICKUP
from spielwerk.games.skat.bidding import Auction
from spielwerk.games.skat.cards import BID_VALUES, cards_of, points_of
from spielwerk.games.skat.dds import DealPosition
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.kernel import class_mask
from spielwerk.games.skat.kernel_deal import first_bid
from spielwerk.games.skat.position import deal_position
from spielwerk.games.skat.rules import PLAY
from spielwerk.games.skat_ai.infer_models import (
    BID_CLASSES,
    DEFAULT_BID_MODEL,
    RECORD_FIELDS,
    BidModel,
    HeuristicPlayModel,
    InferenceError,
    PlayModel,
    PutModel,
    shared_bid_model,
    shared_play_model,
    shared_put_model,
)


# ----- what the auction showed ----------------------------------------------------------------
@dataclass(frozen=True)
class SeatAuction:
    """What one seat's auction moves say about its ten dealt cards."""

    seat: int
    position: int
    said_yes: int = 0
    """The highest value this seat bid or held (0: none)."""
    refused: int = 0
    """The value this seat passed at (0: did not pass)."""
    declared: int = -1
    """The declarer's declaration class (:data:`DECLARATIONS`), else -1."""


def auction_observations(info: SkatInfoState) -> dict[int, SeatAuction]:
    """Each active seat's auction moves, from the public actions of ``info``."""
    g = info.sgame
    auction = Auction()
    said = {s: 0 for s in g.positions}
    refused = {s: 0 for s in g.positions}
    picked_up = False
    declared = -1
    for a in info.public:
        if not auction.done:
            if not BID_BASE <= a <= PASS:
                break
            seat = g.seat_of(auction.to_move())
            if a == PASS:
                refused[seat] = auction.value if auction.answering else int(
                    BID_VALUES[first_bid(auction.value, auction.answering, auction.stage)])
            elif a == HOLD:
                said[seat] = auction.value
            else:
                said[seat] = int(BID_VALUES[a - BID_BASE])
            if not auction.move(a - BID_BASE):
                break
        elif a == PICKUP:
            picked_up = True
        elif a >= DECLARE_BASE and info.contract is not None:
            declared = 1 + 2 * info.contract.game + int(not picked_up)
            break
    out = {}
    for s in g.positions:
        out[s] = SeatAuction(s, g.position_of(s), said[s], refused[s],
                             declared if s == info.declarer else -1)
    return out


@dataclass(frozen=True)
class InferenceSettings:
    """How strongly the auction weights the worlds."""

    floor: float = 0.05
    """Mixed into every likelihood term: the chance an opponent bids unlike the model."""
    switch: float = 0.3
    """After picking up: the chance the declared game is another than the one before."""
    candidates: int = 4
    """Candidate worlds drawn uniformly per world returned."""
    power: float = 1.0
    """Exponent of the auction's likelihood (1: Bayes; below 1 tempers it)."""
    play_power: float = 0.5
    """Exponent of the play's likelihood (each card's probability under the play model)."""
    play_floor: float = 0.05
    """Mixed into each card's probability: a card the model did not expect."""
    play_model: str = "net"
    """The play's likelihood: ``net`` (:class:`PlayModel`, fitted to our bot's self-play) or
    ``heuristic`` (:class:`HeuristicPlayModel`, the table's rule of thumb)."""
    bid_model: str = DEFAULT_BID_MODEL
    """The auction's likelihood: the model of that bidder's bidding
    (``infer_models.BID_MODELS``)."""


def seat_likelihood(obs: SeatAuction, pb: np.ndarray, pd: np.ndarray,
                    settings: InferenceSettings) -> np.ndarray:
    """Likelihood of one seat's auction for each candidate hand (rows of the model's
    probabilities ``pb``, ``pd``)."""
    lik = np.ones(len(pb))
    f = settings.floor
    if obs.said_yes:
        lik *= f + (1 - f) * pb[:, BID_CLASSES >= obs.said_yes].sum(axis=1)
    if obs.refused:
        lik *= f + (1 - f) * pb[:, BID_CLASSES < obs.refused].sum(axis=1)
    if obs.declared > 0:
        if obs.declared % 2 == 0:  # by hand: 1 + 2g + 1
            term = pd[:, obs.declared]
        else:  # picked up: any pick-up game before, another game after with ``switch``
            pickup = pd[:, 1::2]
            game = (obs.declared - 1) // 2
            term = (1 - settings.switch) * pickup[:, game] + settings.switch * pickup.sum(
                axis=1) / pickup.shape[1]
        lik *= f + (1 - f) * term
    return lik


# ----- weighted worlds -------------------------------------------------------------------------
@dataclass
class Candidate:
    hands: dict[int, int]
    """Each seat's current hand."""
    skat: int
    """The skat cards in the solver's sense: the cards put (after a pick-up) or the skat."""
    dealt: dict[int, int]
    """The ten cards each observed seat was dealt."""


def _candidate(info: SkatInfoState, hands: dict[int, int], skat: int,
               rng: np.random.Generator) -> Candidate:
    """A world's hands and skat with the ten cards each other seat was dealt (a declarer who
    picked up: two of its twelve cards drawn as the skat it found)."""
    p, d = info.player, info.declarer
    if p == d:
        skat = (info.put if info.picked_up else info.skat) or 0
    dealt: dict[int, int] = {}
    for s, hand in hands.items():
        if s == p:
            continue
        cards = hand | info.played[s]
        if s == d and info.picked_up:
            twelve = cards_of(cards | skat)
            a, b = (int(i) for i in rng.choice(len(twelve), size=2, replace=False))
            cards = (cards | skat) & ~(1 << twelve[a]) & ~(1 << twelve[b])
        dealt[s] = cards
    return Candidate(hands, skat, dealt)


def candidate_worlds(info: SkatInfoState, rng: np.random.Generator, count: int
                     ) -> list[Candidate]:
    """``count`` worlds drawn uniformly as :meth:`SkatInfoState.sample_world` draws them."""
    shown = info.declarer_hand_known()
    places = info.hidden_places()
    sampler = info.place_sampler()
    out = []
    for _ in range(count):
        hands = {info.player: info.hand}
        skat = 0
        for (seat, _, _), drawn in zip(places, sampler.draw(rng), strict=True):
            m = sum(1 << c for c in drawn)
            if seat >= 0:
                hands[seat] = m
            else:
                skat = m
        if shown is not None:
            hands[info.declarer] = shown
        out.append(_candidate(info, hands, skat, rng))
    return out


def auction_log_likelihood(info: SkatInfoState, candidates: list[Candidate],
                           model: BidModel, settings: InferenceSettings) -> np.ndarray:
    """Log-likelihood of the other seats' auction moves in each candidate world, tempered
    by ``settings.power``."""
    obs = auction_observations(info)
    n = len(candidates)
    log_w = np.zeros(n)
    seats = [s for s in candidates[0].dealt] if candidates else []
    for s in seats:
        o = obs.get(s)
        if o is None or (not o.said_yes and not o.refused and o.declared < 0):
            continue
        hands = np.array([c.dealt[s] for c in candidates], dtype=np.int64)
        pb, pd = model.predict(hands, np.full(n, o.position))
        log_w += np.log(seat_likelihood(o, pb, pd, settings))
    return settings.power * log_w


def normalised(log_w: np.ndarray) -> np.ndarray:
    if not len(log_w):
        return log_w
    w = np.exp(log_w - log_w.max())
    out: np.ndarray = w / w.sum()
    return out


def to_position(info: SkatInfoState, c: Candidate) -> DealPosition:
    """A candidate as the solver's position."""
    return deal_position(info, c.hands, c.skat)


def resample(weights: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` indices drawn by weight (systematic resampling: each index about
    ``count * weight`` times), in random order."""
    positions = (rng.random() + np.arange(count)) / count
    idx = np.searchsorted(np.cumsum(weights), positions, side="right")
    idx = np.minimum(idx, len(weights) - 1)
    rng.shuffle(idx)
    return idx


def weighted_deals(info: SkatInfoState, rng: np.random.Generator, count: int,
                   inference: Inference) -> list[DealPosition]:
    """``count`` worlds for PIMC, drawn by likelihood: ``candidates`` uniform candidates per
    world, weighted (:meth:`Inference.weights`) and resampled (a world may come more than
    once; never fewer than ``count``)."""
    if info.phase != PLAY or info.contract is None:
        raise InferenceError("weighted worlds need a declared game in the play phase")
    cands = candidate_worlds(info, rng, max(count, count * inference.settings.candidates))
    w = inference.weights(info, cands)
    return [to_position(info, cands[i]) for i in resample(w, count, rng)]


def weighted_listed(info: SkatInfoState, positions: list[DealPosition], count: int,
                    rng: np.random.Generator, inference: Inference) -> list[DealPosition]:
    """Every consistent world listed (PIMC's enumeration), resampled ``count`` times by
    likelihood."""
    if not positions:
        return positions
    g = info.sgame
    cands = []
    for pos in positions:
        hands = {g.seat_of(i): pos.hands[i] for i in range(3)}
        skat = info.unseen()  # the hidden cards in no hand
        for seat, m in hands.items():
            if seat != info.player:
                skat &= ~m
        cands.append(_candidate(info, hands, skat, rng))
    w = inference.weights(info, cands)
    return [positions[i] for i in resample(w, count, rng)]


# ----- inference from the play --------------------------------------------------------------
def decision_record(state: Any, player: int, card: int) -> tuple[int, ...]:
    """The :data:`RECORD_FIELDS` of ``player`` choosing ``card`` in ``state`` (before it is
    played)."""
    g = state.sgame
    d = state.declarer
    role = {s: (g.position_of(s) - g.position_of(d)) % 3 for s in g.positions}
    by_role = {role[s]: s for s in g.positions}
    trick = list(state.trick)
    on_table = sum(1 << c for c in trick)
    legal = sum(1 << a for a in state.legal_actions() if a < 32)
    defenders = [s for s in g.positions if s != d]
    return (state.contract.game, role[player], len(trick),
            trick[0] if trick else -1, trick[1] if len(trick) > 1 else -1,
            state.hands[player],
            *(state.played[by_role[r]] & ~on_table for r in range(3)),
            role[state.leader], len(state.trick_history), points_of(state.won[d]),
            sum(points_of(state.won[s]) for s in defenders), legal, card)


def record_card_decisions(task: tuple[int, int, int, int]) -> tuple[int, np.ndarray]:
    """The play model's training data: the deals ``first .. first+count-1`` of ``seed``
    (``task`` is ``(seed, first, count, worlds)``) played by ``knn:worlds=WORLDS`` in all
    three seats, PIMC card play with no time limit (the records do not depend on the
    machine's load), and every card decision with more than one legal card as a
    :func:`decision_record` row: ``first`` and the rows (int64). Seeded per deal (the agents
    from ``(seed, deal, seat)``, the chance from ``(seed, deal, 9)``); a task of plain data,
    for a process pool or a Dask cluster."""
    from spielwerk.core.agent import make_agent
    from spielwerk.core.play import play
    from spielwerk.core.registry import load_game
    from spielwerk.core.seeds import derive_seed

    seed, first, count, worlds = task
    game = load_game("skat")
    agents = [make_agent(f"knn:worlds={worlds}", game, 0) for _ in range(3)]
    rows: list[tuple[int, ...]] = []

    def record(state: Any, player: int, action: int) -> None:
        if player < 0 or state.phase != PLAY or state.contract is None or action >= 32:
            return
        if sum(1 for a in state.legal_actions() if a < 32) > 1:
            rows.append(decision_record(state, player, action))

    for deal in range(first, first + count):
        for i, a in enumerate(agents):
            a.reset(derive_seed(seed, deal, i))
        play(game.new_initial_state(), agents,
             np.random.default_rng(derive_seed(seed, deal, 9)), before=record)
    return first, np.array(rows, dtype=np.int64).reshape(-1, len(RECORD_FIELDS))


@dataclass(frozen=True)
class PastDecision:
    """A card another seat played, with what was public when it chose."""

    seat: int
    record: tuple[int, ...]
    """:data:`RECORD_FIELDS` with the hand and the legal cards 0."""
    card: int
    later: int
    """The cards this seat played from this decision on (its hand then: these and its hand
    now)."""


def past_decisions(info: SkatInfoState, seats: set[int]) -> list[PastDecision]:
    """The card decisions of ``seats`` so far, replayed from the public tricks."""
    assert info.contract is not None
    g = info.sgame
    d = info.declarer
    game = info.contract.game
    role = {s: (g.position_of(s) - g.position_of(d)) % 3 for s in g.positions}
    played = [0, 0, 0]  # by role, tricks before
    points = [0, 0]  # declarer, defenders
    done = 0
    raw: list[tuple[int, tuple[int, ...], int]] = []
    rec: tuple[int, ...]
    tricks: list[tuple[int, tuple[int, ...], int]] = [*info.trick_history,
                                                      (info.leader, tuple(info.trick), -1)]
    for leader, cards, winner in tricks:
        for i, card in enumerate(cards):
            mover = g.turns[leader][i]
            if mover in seats:
                rec = (game, role[mover], i, cards[0] if i > 0 else -1,
                       cards[1] if i > 1 else -1, 0, played[0], played[1], played[2],
                       role[leader], done, points[0], points[1], 0, card)
                raw.append((mover, rec, card))
        if winner >= 0:
            for i, card in enumerate(cards):
                played[role[g.turns[leader][i]]] |= 1 << card
            points[0 if winner == d else 1] += points_of(sum(1 << c for c in cards))
            done += 1
    out = []
    later = dict.fromkeys(seats, 0)
    for mover, rec, card in reversed(raw):
        later[mover] |= 1 << card
        out.append(PastDecision(mover, rec, card, later[mover]))
    out.reverse()
    return out


def play_log_likelihood(info: SkatInfoState, candidates: list[Candidate],
                        model: PlayModel | HeuristicPlayModel,
                        settings: InferenceSettings) -> np.ndarray:
    """Log-likelihood of the cards the other seats played in each candidate world (their
    hands then are their hands in the world and the cards they played since), tempered by
    ``settings.play_power``."""
    n = len(candidates)
    if not n or info.contract is None:
        return np.zeros(n)
    seats = {s for s in candidates[0].hands if s != info.player}
    if info.declarer_hand_known() is not None:
        seats.discard(info.declarer)
    decisions = past_decisions(info, seats)
    if not decisions:
        return np.zeros(n)
    game = info.contract.game
    k = len(decisions)
    rows = np.array([dec.record for dec in decisions for _ in range(n)], dtype=np.int64)
    hands = np.array([c.hands[dec.seat] | dec.later for dec in decisions for c in candidates],
                     dtype=np.int64)
    rows[:, 5] = hands
    led = rows[:, 3]
    follow = np.where(led >= 0, hands & _follow_table()[game, np.maximum(led, 0)], 0)
    rows[:, 13] = np.where(follow != 0, follow, hands)
    f = settings.play_floor
    lik = f + (1 - f) * model.chosen_probability(rows)
    out: np.ndarray = settings.play_power * np.log(lik).reshape(k, n).sum(axis=0)
    return out


# ----- the declarer's put -------------------------------------------------------------------
def put_log_likelihood(info: SkatInfoState, candidates: list[Candidate], model: PutModel,
                       settings: InferenceSettings) -> np.ndarray:
    """Log-likelihood of the declarer's put in each candidate world, seen by a defender
    after a pick-up: the two cards the world has in the skat, put from the declarer's
    twelve (mixed with ``settings.floor``)."""
    n = len(candidates)
    d = info.declarer
    if (not n or info.contract is None or not info.picked_up or info.player == d
            or info.declarer_hand_known() is not None):
        return np.zeros(n)
    twelves = np.array([c.hands[d] | info.played[d] | c.skat for c in candidates],
                       dtype=np.int64)
    puts = np.array([c.skat for c in candidates], dtype=np.int64)
    games = np.full(n, info.contract.game)
    p = np.exp(model.pair_log_probability(twelves, games, puts))
    f = settings.floor
    out: np.ndarray = np.log(f / 66 + (1 - f) * p)
    return out


@cache
def _follow_table() -> np.ndarray:
    """``[game, led card]``: the cards that follow it (:func:`kernel.class_mask`)."""
    return np.array([[class_mask(g, c) for c in range(32)] for g in range(6)], dtype=np.int64)


PLAY_MODELS = ("net", "heuristic")
"""The likelihoods of the cards played (:attr:`InferenceSettings.play_model`)."""

INFERENCES = ("none", "auction", "play", "both")
"""What weights the worlds: nothing (uniform), the auction (the bids, the declaration and the
put), the play, or both."""


@dataclass
class Inference:
    """The likelihoods that weight the worlds, and how strongly."""

    bid_model: BidModel | None
    play_model: PlayModel | HeuristicPlayModel | None
    put_model: PutModel | None = None
    settings: InferenceSettings = field(default_factory=InferenceSettings)

    @staticmethod
    def of(kind: str, settings: InferenceSettings | None = None) -> Inference | None:
        """The shipped models for an :data:`INFERENCES` name (None for ``none``)."""
        if kind not in INFERENCES:
            raise InferenceError(f"inference is one of {', '.join(INFERENCES)}, not {kind!r}")
        if kind == "none":
            return None
        settings = settings or InferenceSettings()
        if settings.play_model not in PLAY_MODELS:
            raise InferenceError(f"the play model is one of {', '.join(PLAY_MODELS)}, not "
                                 f"{settings.play_model!r}")
        auction = kind in ("auction", "both")
        play_model: PlayModel | HeuristicPlayModel | None = None
        if kind in ("play", "both"):
            play_model = (shared_play_model() if settings.play_model == "net"
                          else HeuristicPlayModel())
        return Inference(shared_bid_model(settings.bid_model) if auction else None, play_model,
                         shared_put_model() if auction else None, settings)

    def log_likelihood(self, info: SkatInfoState, candidates: list[Candidate]) -> np.ndarray:
        log_w = np.zeros(len(candidates))
        if self.bid_model is not None:
            log_w += auction_log_likelihood(info, candidates, self.bid_model, self.settings)
        if self.put_model is not None:
            log_w += self.settings.power * put_log_likelihood(info, candidates, self.put_model,
                                                              self.settings)
        if self.play_model is not None:
            log_w += play_log_likelihood(info, candidates, self.play_model, self.settings)
        return log_w

    def weights(self, info: SkatInfoState, candidates: list[Candidate]) -> np.ndarray:
        return normalised(self.log_likelihood(info, candidates))
