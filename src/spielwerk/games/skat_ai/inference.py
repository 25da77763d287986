"""Inference for Skat card play: worlds weighted by how likely the auction makes them.

Plain PIMC draws the hidden cards uniformly among the deals consistent with the voids
shown. But the auction says much about the hands: a player who passed at 18 holds no
biddable game, a declarer who bid 36 and declared clubs holds clubs and matadors. This
module weights each candidate world by the likelihood of every seat's observed auction
given that seat's ten dealt cards in the world, and resamples worlds by weight
(sampling-importance-resampling, :func:`weighted_deals`).

The likelihood comes from the ``knn`` bot's own bidding made soft: :class:`BidModel`, a
small neural network (one hidden layer, numpy) fitted to the bot's :func:`decide_bid` on
random hands, gives for ten cards and a position the probability of each highest bid and
of each declaration (pass, or a game by hand or with the skat). A seat that bid or held
``Y`` has its highest bid at least ``Y``; one that refused ``R`` below ``R``; the declarer
declared its game by hand or after picking up (the game after the skat may differ from the
one before; ``switch`` is the chance of that). The model is refitted by
``experiments/skat_bid_model.py`` whenever the bidding changes, so the inference follows
whatever the bidding becomes. Every term is mixed with a floor (``floor``) so that an
opponent who bids unlike our bot (a person, another program) costs accuracy, not worlds.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat.actions import BID_BASE, DECLARE_BASE, HOLD, PASS, PICKUP
from spielwerk.games.skat.bidding import Auction
from spielwerk.games.skat.cards import BID_VALUES, NULL, cards_of, points_of
from spielwerk.games.skat.dds import DealPosition
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.kernel import class_mask
from spielwerk.games.skat.kernel_deal import first_bid
from spielwerk.games.skat.rules import PLAY
from spielwerk.games.skat_ai.knowledge.features import card_bits, suit_features_from_bits

BID_CLASSES = np.array([0, 18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50,
                        54, 55, 59, 60, 63, 66, 70, 72], dtype=np.int64)
"""Highest-bid classes of the model: each bid value down to the nearest listed one (72 and
above are one class)."""
DECLARATIONS = 13
"""Declaration classes: 0 pass, then ``1 + 2 * game + hand`` for games 0..5 (5 null)."""
N_FEATURES = 32 + 40 + 3
MODEL_FILE = "bid_model.npz"


class InferenceError(SpielwerkError, ValueError):
    """A bid model that cannot be read or does not fit."""


def default_model_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "data" / "skat_bid_model"


def bid_class(max_bid: np.ndarray) -> np.ndarray:
    """Class index of each highest bid (0 for no bid)."""
    return np.searchsorted(BID_CLASSES, np.asarray(max_bid, dtype=np.int64), side="right") - 1


def declaration_class(game: np.ndarray, hand: np.ndarray) -> np.ndarray:
    g = np.asarray(game, dtype=np.int64)
    return np.where(g < 0, 0, 1 + 2 * np.maximum(g, 0) + np.asarray(hand, dtype=np.int64))


def hand_features(hands: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """(n,) ten-card masks and positions (0..2) -> (n, N_FEATURES) model inputs: the card
    bits, the knowledge base's per-game features (scaled to about unit size) and the
    position one-hot."""
    bits = card_bits(hands)
    suit = suit_features_from_bits(bits).reshape(len(bits), -1) / 10.0
    pos = np.zeros((len(bits), 3))
    pos[np.arange(len(bits)), np.asarray(positions, dtype=np.int64)] = 1.0
    return np.concatenate([bits.astype(np.float64), suit, pos], axis=1)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return out


@dataclass
class BidModel:
    """One hidden layer (ReLU) and two softmax heads: highest-bid class and declaration."""

    w1: np.ndarray
    b1: np.ndarray
    wb: np.ndarray
    bb: np.ndarray
    wd: np.ndarray
    bd: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    def predict(self, hands: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(bid class probabilities (n, 25), declaration probabilities (n, 13))."""
        x = hand_features(hands, positions)
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        return _softmax(h @ self.wb + self.bb), _softmax(h @ self.wd + self.bd)

    def save(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / MODEL_FILE
        tmp = directory / (MODEL_FILE + ".tmp.npz")
        np.savez_compressed(tmp, w1=self.w1, b1=self.b1, wb=self.wb, bb=self.bb, wd=self.wd,
                            bd=self.bd, meta=np.array(json.dumps(self.meta, sort_keys=True)))
        tmp.replace(path)
        return path

    @staticmethod
    def load(directory: Path | None = None) -> BidModel:
        path = (directory or default_model_dir()) / MODEL_FILE
        try:
            with np.load(path) as z:
                model = BidModel(z["w1"], z["b1"], z["wb"], z["bb"], z["wd"], z["bd"],
                                 json.loads(str(z["meta"])))
        except (OSError, KeyError, ValueError) as e:
            raise InferenceError(f"cannot read the bid model {path}: {e}") from e
        if model.w1.shape[0] != N_FEATURES or model.wb.shape[1] != len(BID_CLASSES) \
                or model.wd.shape[1] != DECLARATIONS:
            raise InferenceError(f"the bid model {path} does not fit this version's features")
        return model


@cache
def shared_bid_model(directory: str = "") -> BidModel:
    """One loaded model per directory and process (empty: the shipped one)."""
    return BidModel.load(Path(directory) if directory else None)


def fit_bid_model(hands: np.ndarray, positions: np.ndarray, max_bid: np.ndarray,
                  declaration: np.ndarray, *, hidden: int = 64, epochs: int = 30,
                  batch: int = 1024, lr: float = 0.003, l2: float = 1e-5, seed: int = 0,
                  log: Any = None) -> BidModel:
    """Fit :class:`BidModel` by mini-batch Adam on the cross-entropy of both heads
    (``epochs`` passes over the data in a seeded order; the step size halves over the last
    third)."""
    rng = np.random.default_rng(seed)
    x_all = hand_features(hands, positions)
    yb_all = bid_class(max_bid)
    yd_all = np.asarray(declaration, dtype=np.int64)
    n = len(x_all)
    params = {
        "w1": rng.normal(0, math.sqrt(2.0 / N_FEATURES), (N_FEATURES, hidden)),
        "b1": np.zeros(hidden),
        "wb": rng.normal(0, math.sqrt(1.0 / hidden), (hidden, len(BID_CLASSES))),
        "bb": np.zeros(len(BID_CLASSES)),
        "wd": rng.normal(0, math.sqrt(1.0 / hidden), (hidden, DECLARATIONS)),
        "bd": np.zeros(DECLARATIONS),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    step = 0
    for epoch in range(1, epochs + 1):
        rate = lr if epoch <= 2 * epochs // 3 else lr / 2
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            x, yb, yd = x_all[idx], yb_all[idx], yd_all[idx]
            rows = np.arange(len(idx))
            pre = x @ params["w1"] + params["b1"]
            h = np.maximum(pre, 0.0)
            pb = _softmax(h @ params["wb"] + params["bb"])
            pd = _softmax(h @ params["wd"] + params["bd"])
            total -= float(np.log(pb[rows, yb] + 1e-12).sum() + np.log(pd[rows, yd] + 1e-12)
                           .sum())
            gb = pb.copy()
            gb[rows, yb] -= 1.0
            gb /= len(idx)
            gd = pd.copy()
            gd[rows, yd] -= 1.0
            gd /= len(idx)
            grads = {"wb": h.T @ gb, "bb": gb.sum(0), "wd": h.T @ gd, "bd": gd.sum(0)}
            gh = (gb @ params["wb"].T + gd @ params["wd"].T) * (pre > 0)
            grads["w1"] = x.T @ gh
            grads["b1"] = gh.sum(0)
            step += 1
            for k, p in params.items():
                g = grads[k] + (l2 * p if k.startswith("w") else 0.0)
                m[k] = 0.9 * m[k] + 0.1 * g
                v[k] = 0.999 * v[k] + 0.001 * g * g
                p -= rate * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step))
                                                          + 1e-8)
        if log is not None:
            log(f"epoch {epoch}/{epochs}: training loss {total / n:.4f}")
    return BidModel(params["w1"], params["b1"], params["wb"], params["bb"], params["wd"],
                    params["bd"])


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


def candidate_worlds(info: SkatInfoState, rng: np.random.Generator, count: int
                     ) -> list[Candidate]:
    """``count`` worlds drawn uniformly as :meth:`SkatInfoState.sample_world` draws them,
    with the ten cards each other seat was dealt (a declarer who picked up: two of its
    twelve cards drawn as the skat it found)."""
    p, d = info.player, info.declarer
    shown = info.declarer_hand_known()
    places = info.hidden_places()
    sampler = info.place_sampler()
    out = []
    for _ in range(count):
        fill = sampler.draw(rng)
        hands = {p: info.hand}
        skat = 0
        for (seat, _, _), drawn in zip(places, fill, strict=True):
            m = sum(1 << c for c in drawn)
            if seat >= 0:
                hands[seat] = m
            else:
                skat = m
        if shown is not None:
            hands[d] = shown
        if p == d:
            skat = (info.put if info.picked_up else info.skat) or 0
        dealt: dict[int, int] = {}
        for s in hands:
            if s == p:
                continue
            cards = hands[s] | info.played[s]
            if s == d and info.picked_up:
                twelve = cards_of(cards | skat)
                pick = rng.choice(len(twelve), size=2, replace=False)
                cards = sum(1 << c for i, c in enumerate(twelve) if i not in pick)
            dealt[s] = cards
        out.append(Candidate(hands, skat, dealt))
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


def auction_weights(info: SkatInfoState, candidates: list[Candidate], model: BidModel,
                    settings: InferenceSettings) -> np.ndarray:
    """Normalised weights of the candidates: the product over the other seats of their
    auction's likelihood given their dealt cards (tempered by ``settings.power``)."""
    return normalised(auction_log_likelihood(info, candidates, model, settings))


def to_position(info: SkatInfoState, c: Candidate) -> DealPosition:
    """A candidate as the solver's position (as :func:`deal_from_state` builds one)."""
    assert info.contract is not None
    g = info.sgame
    d = info.declarer
    game = info.contract.game
    defenders = [s for s in g.positions if s != d]
    skat_points = points_of(c.skat) if game != NULL else 0
    return DealPosition(
        game=game,
        declarer=g.position_of(d),
        hands=(c.hands[g.seat_of(0)], c.hands[g.seat_of(1)], c.hands[g.seat_of(2)]),
        trick=tuple(info.trick),
        leader=g.position_of(info.leader),
        declarer_points=points_of(info.won[d]) + skat_points,
        defender_points=sum(points_of(info.won[s]) for s in defenders),
        declarer_tricks=info.trick_count[d],
        defender_tricks=sum(info.trick_count[s] for s in defenders),
    )


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
    p = info.player
    hidden = info.unseen()
    cands = []
    for pos in positions:
        hands = {g.seat_of(i): pos.hands[i] for i in range(3)}
        skat = hidden
        for seat, m in hands.items():
            if seat != p:
                skat &= ~m
        if p == info.declarer:
            skat = (info.put if info.picked_up else info.skat) or 0
        dealt = {}
        for seat, m in hands.items():
            if seat == p:
                continue
            cards = m | info.played[seat]
            if seat == info.declarer and info.picked_up:
                twelve = cards_of(cards | skat)
                pick = rng.choice(len(twelve), size=2, replace=False)
                cards = sum(1 << c for i, c in enumerate(twelve) if i not in pick)
            dealt[seat] = cards
        cands.append(Candidate(hands, skat, dealt))
    w = inference.weights(info, cands)
    return [positions[i] for i in resample(w, count, rng)]


# ----- inference from the play --------------------------------------------------------------
PLAY_MODEL_FILE = "play_model.npz"
RECORD_FIELDS = ("game", "role", "trick_position", "trick0", "trick1", "hand", "played_decl",
                 "played_def1", "played_def2", "leader_role", "tricks_done", "declarer_points",
                 "defender_points", "legal", "card")
"""One card decision (:func:`decision_record`): the game, the mover's role (0 declarer, 1 the
defender after the declarer, 2 the other), its place in the trick, the trick's cards so far
(-1 none), the mover's hand, the cards each role played in the tricks before, the leader's
role, tricks done, card points taken so far (the skat not counted), the legal cards and the
card played."""
N_PLAY_FEATURES = 32 * 6 + 3 * 5


def _canon_table() -> np.ndarray:
    """``CANON[game, card]``: the card in the model's order - in a suit game the trump suit's
    plain cards take the clubs slot and the other suits the three below in their order; the
    jacks and the grand and null games keep their places."""
    table = np.tile(np.arange(32, dtype=np.int64), (6, 1))
    for t in range(4):
        others = [s for s in range(4) if s != t]
        slot = {t: 3, **{s: i for i, s in enumerate(others)}}
        for c in range(32):
            suit, rank = c >> 3, c & 7
            table[t, c] = c if rank == 7 else slot[suit] * 8 + rank
    return table


CANON = _canon_table()


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


def _canon_bits(masks: np.ndarray, games: np.ndarray) -> np.ndarray:
    bits = card_bits(masks).astype(np.float64)
    out = np.zeros_like(bits)
    out[np.arange(len(bits))[:, None], CANON[games]] = bits
    return out


def _one_hot(values: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros((len(values), size))
    ok = values >= 0
    out[np.arange(len(values))[ok], values[ok]] = 1.0
    return out


def play_context(rows: np.ndarray) -> np.ndarray:
    """The features of the records' public part (all but the hand and the legal cards)."""
    r = np.asarray(rows, dtype=np.int64)
    games = r[:, 0]
    kind = np.where(games < 4, 0, np.where(games == 4, 1, 2))
    trick0 = np.where(r[:, 3] >= 0, CANON[games, np.maximum(r[:, 3], 0)], -1)
    trick1 = np.where(r[:, 4] >= 0, CANON[games, np.maximum(r[:, 4], 0)], -1)
    return np.concatenate([
        _canon_bits(r[:, 6], games), _canon_bits(r[:, 7], games), _canon_bits(r[:, 8], games),
        _one_hot(trick0, 32), _one_hot(trick1, 32),
        _one_hot(r[:, 1], 3), _one_hot(r[:, 2], 3), _one_hot(kind, 3), _one_hot(r[:, 9], 3),
        np.stack([r[:, 10] / 10.0, r[:, 11] / 120.0, r[:, 12] / 120.0], axis=1),
    ], axis=1)


def play_features(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(features (n, N_PLAY_FEATURES), legal cards in the model's order (n, 32) of 0/1)."""
    r = np.asarray(rows, dtype=np.int64)
    games = r[:, 0]
    x = np.concatenate([_canon_bits(r[:, 5], games), play_context(r)], axis=1)
    return x, _canon_bits(r[:, 13], games)


@dataclass
class PlayModel:
    """One hidden layer (ReLU) and a softmax over the legal cards (in the model's order)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    def card_probabilities(self, x: np.ndarray, legal: np.ndarray) -> np.ndarray:
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        z = np.where(legal > 0, h @ self.w2 + self.b2, -1e9)
        return _softmax(z)

    def save(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / PLAY_MODEL_FILE
        tmp = directory / (PLAY_MODEL_FILE + ".tmp.npz")
        np.savez_compressed(tmp, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2,
                            meta=np.array(json.dumps(self.meta, sort_keys=True)))
        tmp.replace(path)
        return path

    @staticmethod
    def load(directory: Path | None = None) -> PlayModel:
        path = (directory or default_play_model_dir()) / PLAY_MODEL_FILE
        try:
            with np.load(path) as z:
                model = PlayModel(z["w1"], z["b1"], z["w2"], z["b2"], json.loads(str(z["meta"])))
        except (OSError, KeyError, ValueError) as e:
            raise InferenceError(f"cannot read the play model {path}: {e}") from e
        if model.w1.shape[0] != N_PLAY_FEATURES or model.w2.shape[1] != 32:
            raise InferenceError(f"the play model {path} does not fit this version's features")
        return model


def default_play_model_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "data" / "skat_play_model"


@cache
def shared_play_model(directory: str = "") -> PlayModel:
    return PlayModel.load(Path(directory) if directory else None)


def fit_play_model(rows: np.ndarray, *, hidden: int = 128, epochs: int = 30,
                   batch: int = 512, lr: float = 0.002, l2: float = 1e-5, seed: int = 0,
                   log: Any = None) -> PlayModel:
    """Fit :class:`PlayModel` on decision records by mini-batch Adam (cross-entropy of the
    card played among the legal cards)."""
    rng = np.random.default_rng(seed)
    x_all, legal_all = play_features(rows)
    games = np.asarray(rows, dtype=np.int64)[:, 0]
    y_all = CANON[games, np.asarray(rows, dtype=np.int64)[:, -1]]
    n = len(x_all)
    params = {
        "w1": rng.normal(0, math.sqrt(2.0 / N_PLAY_FEATURES), (N_PLAY_FEATURES, hidden)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0, math.sqrt(1.0 / hidden), (hidden, 32)),
        "b2": np.zeros(32),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    step = 0
    for epoch in range(1, epochs + 1):
        rate = lr if epoch <= 2 * epochs // 3 else lr / 2
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            x, legal, y = x_all[idx], legal_all[idx], y_all[idx]
            rows_i = np.arange(len(idx))
            pre = x @ params["w1"] + params["b1"]
            h = np.maximum(pre, 0.0)
            p = _softmax(np.where(legal > 0, h @ params["w2"] + params["b2"], -1e9))
            total -= float(np.log(p[rows_i, y] + 1e-12).sum())
            g2 = p.copy()
            g2[rows_i, y] -= 1.0
            g2 /= len(idx)
            grads = {"w2": h.T @ g2, "b2": g2.sum(0)}
            gh = (g2 @ params["w2"].T) * (pre > 0)
            grads["w1"] = x.T @ gh
            grads["b1"] = gh.sum(0)
            step += 1
            for k, p_ in params.items():
                g = grads[k] + (l2 * p_ if k.startswith("w") else 0.0)
                m[k] = 0.9 * m[k] + 0.1 * g
                v[k] = 0.999 * v[k] + 0.001 * g * g
                p_ -= rate * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step))
                                                           + 1e-8)
        if log is not None:
            log(f"epoch {epoch}/{epochs}: training loss {total / n:.4f}")
    return PlayModel(params["w1"], params["b1"], params["w2"], params["b2"])


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


def play_log_likelihood(info: SkatInfoState, candidates: list[Candidate], model: PlayModel,
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
    x, legal = play_features(rows)
    p = model.card_probabilities(x, legal)
    chosen = CANON[game, rows[:, 14]]
    f = settings.play_floor
    lik = f + (1 - f) * p[np.arange(len(rows)), chosen]
    out: np.ndarray = settings.play_power * np.log(lik).reshape(k, n).sum(axis=0)
    return out


# ----- the declarer's put -------------------------------------------------------------------
PUT_MODEL_FILE = "put_model.npz"
N_PUT_FEATURES = 32 + 3


def default_put_model_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "data" / "skat_put_model"


def put_features(twelves: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Twelve cards (in the model's order of the game) and the game kind (suit, grand,
    null)."""
    g = np.asarray(games, dtype=np.int64)
    kind = np.where(g < 4, 0, np.where(g == 4, 1, 2))
    return np.concatenate([_canon_bits(np.asarray(twelves, dtype=np.int64), g),
                           _one_hot(kind, 3)], axis=1)


@dataclass
class PutModel:
    """A score per card of the twelve (one hidden layer); the two cards put are a pair drawn
    with probability proportional to ``exp(score_a + score_b)``."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    def scores(self, x: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.maximum(x @ self.w1 + self.b1, 0.0) @ self.w2 + self.b2
        return out

    def save(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / PUT_MODEL_FILE
        tmp = directory / (PUT_MODEL_FILE + ".tmp.npz")
        np.savez_compressed(tmp, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2,
                            meta=np.array(json.dumps(self.meta, sort_keys=True)))
        tmp.replace(path)
        return path

    @staticmethod
    def load(directory: Path | None = None) -> PutModel:
        path = (directory or default_put_model_dir()) / PUT_MODEL_FILE
        try:
            with np.load(path) as z:
                model = PutModel(z["w1"], z["b1"], z["w2"], z["b2"], json.loads(str(z["meta"])))
        except (OSError, KeyError, ValueError) as e:
            raise InferenceError(f"cannot read the put model {path}: {e}") from e
        if model.w1.shape[0] != N_PUT_FEATURES or model.w2.shape[1] != 32:
            raise InferenceError(f"the put model {path} does not fit this version's features")
        return model


@cache
def shared_put_model(directory: str = "") -> PutModel:
    return PutModel.load(Path(directory) if directory else None)


def _twelve_indices(twelves: np.ndarray, games: np.ndarray) -> np.ndarray:
    """(n, 12) the twelve cards of each row in the model's order."""
    bits = _canon_bits(np.asarray(twelves, dtype=np.int64), np.asarray(games, dtype=np.int64))
    idx = np.nonzero(bits)[1].reshape(len(bits), -1)
    if idx.shape[1] != 12:
        raise InferenceError("a put needs twelve cards")
    return idx


_UPPER = np.triu(np.ones((12, 12), dtype=bool), 1)


def _pair_table(s12: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log-probability of every pair (n, 12, 12), upper triangle valid; log Z (n,))."""
    pair = s12[:, :, None] + s12[:, None, :]
    masked = np.where(_UPPER, pair, -np.inf)
    top = masked.reshape(len(s12), -1).max(axis=1)
    log_z = top + np.log(np.exp(masked - top[:, None, None]).reshape(len(s12), -1).sum(1))
    return pair - log_z[:, None, None], log_z


def put_pair_log_probabilities(model: PutModel, twelves: np.ndarray, games: np.ndarray,
                               puts: np.ndarray) -> np.ndarray:
    """Log-probability that the bot puts exactly ``puts`` from ``twelves`` for ``games``."""
    twelves = np.asarray(twelves, dtype=np.int64)
    games = np.asarray(games, dtype=np.int64)
    idx = _twelve_indices(twelves, games)
    rows = np.arange(len(idx))
    s12 = model.scores(put_features(twelves, games))[rows[:, None], idx]
    logp, _ = _pair_table(s12)
    put_bits = _canon_bits(np.asarray(puts, dtype=np.int64), games)[rows[:, None], idx]
    where = np.argsort(-put_bits, axis=1, kind="stable")[:, :2]
    a, b = np.minimum(where[:, 0], where[:, 1]), np.maximum(where[:, 0], where[:, 1])
    out: np.ndarray = logp[rows, a, b]
    return out


def fit_put_model(rows: np.ndarray, *, hidden: int = 64, epochs: int = 20, batch: int = 256,
                  lr: float = 0.003, l2: float = 1e-4, seed: int = 0,
                  log: Any = None) -> PutModel:
    """Fit :class:`PutModel` on (twelve cards, game, put) rows by mini-batch Adam on the
    pair's log-likelihood."""
    rng = np.random.default_rng(seed)
    r = np.asarray(rows, dtype=np.int64)
    x_all = put_features(r[:, 0], r[:, 1])
    idx_all = _twelve_indices(r[:, 0], r[:, 1])
    put_all = _canon_bits(r[:, 2], r[:, 1])[np.arange(len(r))[:, None], idx_all]
    n = len(r)
    params = {
        "w1": rng.normal(0, math.sqrt(2.0 / N_PUT_FEATURES), (N_PUT_FEATURES, hidden)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0, math.sqrt(1.0 / hidden), (hidden, 32)),
        "b2": np.zeros(32),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    step = 0
    for epoch in range(1, epochs + 1):
        rate = lr if epoch <= 2 * epochs // 3 else lr / 2
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch):
            b = order[start:start + batch]
            x, idx, put = x_all[b], idx_all[b], put_all[b]
            rows_b = np.arange(len(b))
            pre = x @ params["w1"] + params["b1"]
            h = np.maximum(pre, 0.0)
            s = h @ params["w2"] + params["b2"]
            s12 = s[rows_b[:, None], idx]
            logp, _ = _pair_table(s12)
            prob = np.where(_UPPER, np.exp(logp), 0.0)
            marginal = prob.sum(axis=2) + prob.sum(axis=1)  # chance each card is put
            total -= float((s12 * put).sum() - (_pair_table(s12)[1]).sum())
            g12 = (marginal - put) / len(b)
            g = np.zeros_like(s)
            np.add.at(g, (np.repeat(rows_b, 12), idx.ravel()), g12.ravel())
            grads = {"w2": h.T @ g, "b2": g.sum(0)}
            gh = (g @ params["w2"].T) * (pre > 0)
            grads["w1"] = x.T @ gh
            grads["b1"] = gh.sum(0)
            step += 1
            for k, p_ in params.items():
                gk = grads[k] + (l2 * p_ if k.startswith("w") else 0.0)
                m[k] = 0.9 * m[k] + 0.1 * gk
                v[k] = 0.999 * v[k] + 0.001 * gk * gk
                p_ -= rate * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step))
                                                           + 1e-8)
        if log is not None:
            log(f"epoch {epoch}/{epochs}: training loss {total / n:.4f}")
    return PutModel(params["w1"], params["b1"], params["w2"], params["b2"])


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
    p = np.exp(put_pair_log_probabilities(model, twelves, games, puts))
    f = settings.floor
    out: np.ndarray = np.log(f / 66 + (1 - f) * p)
    return out


@cache
def _follow_table() -> np.ndarray:
    """``[game, led card]``: the cards that follow it (:func:`kernel.class_mask`)."""
    return np.array([[class_mask(g, c) for c in range(32)] for g in range(6)], dtype=np.int64)


INFERENCES = ("none", "auction", "play", "both")
"""What weights the worlds: nothing (uniform), the auction (the bids, the declaration and the
put), the play, or both."""


@dataclass
class Inference:
    """The likelihoods that weight the worlds, and how strongly."""

    bid_model: BidModel | None
    play_model: PlayModel | None
    put_model: PutModel | None = None
    settings: InferenceSettings = field(default_factory=InferenceSettings)

    @staticmethod
    def of(kind: str, settings: InferenceSettings | None = None) -> Inference | None:
        """The shipped models for an :data:`INFERENCES` name (None for ``none``)."""
        if kind not in INFERENCES:
            raise InferenceError(f"inference is one of {', '.join(INFERENCES)}, not {kind!r}")
        if kind == "none":
            return None
        auction = kind in ("auction", "both")
        return Inference(shared_bid_model() if auction else None,
                         shared_play_model() if kind in ("play", "both") else None,
                         shared_put_model() if auction else None,
                         settings or InferenceSettings())

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
