"""The small numpy networks behind the card play's inference (:mod:`inference`).

Each is one hidden layer (ReLU) with one linear head per output, fitted by mini-batch Adam
(:func:`train`) and stored as an ``.npz`` file with its metadata (:class:`Net`):

* :class:`BidModel` - ten cards and a position -> the highest bid and the declaration the
  ``knn`` bot's bidding would choose (two softmax heads);
* :class:`PutModel` - twelve cards and the game -> which two the bot puts (a score per card;
  a pair has probability proportional to ``exp(score_a + score_b)``);
* :class:`PlayModel` - a card decision (the mover's hand and what was public) -> the card
  played (a softmax over the legal cards).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat.cards import card_points
from spielwerk.games.skat.kernel import card_power
from spielwerk.games.skat_ai.knowledge.features import card_bits, suit_features_from_bits

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


class InferenceError(SpielwerkError, ValueError):
    """A model that cannot be read or does not fit, or an unknown inference."""


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return out


@dataclass
class Net:
    """``relu(x @ w1 + b1)`` and a linear head ``w_NAME``, ``b_NAME`` per output."""

    params: dict[str, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def create(inputs: int, hidden: int, heads: dict[str, int], rng: np.random.Generator
               ) -> Net:
        params = {"w1": rng.normal(0, math.sqrt(2.0 / inputs), (inputs, hidden)),
                  "b1": np.zeros(hidden)}
        for name, size in heads.items():
            params[f"w_{name}"] = rng.normal(0, math.sqrt(1.0 / hidden), (hidden, size))
            params[f"b_{name}"] = np.zeros(size)
        return Net(params)

    @property
    def heads(self) -> list[str]:
        return [k[2:] for k in self.params if k.startswith("w_")]

    def hidden(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(pre-activation, activation) of the hidden layer."""
        pre = x @ self.params["w1"] + self.params["b1"]
        return pre, np.maximum(pre, 0.0)

    def head(self, h: np.ndarray, name: str) -> np.ndarray:
        out: np.ndarray = h @ self.params[f"w_{name}"] + self.params[f"b_{name}"]
        return out

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        arrays: dict[str, Any] = {**self.params,
                                  "meta": np.array(json.dumps(self.meta, sort_keys=True))}
        np.savez_compressed(tmp, **arrays)
        tmp.replace(path)
        return path

    @staticmethod
    def load(path: Path, inputs: int, heads: dict[str, int]) -> Net:
        """The net in ``path``; refused unless it has these inputs and heads."""
        try:
            with np.load(path) as z:
                params = {k: z[k] for k in z.files if k != "meta"}
                meta = json.loads(str(z["meta"]))
        except (OSError, KeyError, ValueError) as e:
            raise InferenceError(f"cannot read the model {path}: {e}") from e
        w1 = params.get("w1")
        if w1 is None or w1.shape[0] != inputs or any(
                params.get(f"w_{n}") is None or params[f"w_{n}"].shape[1] != size
                for n, size in heads.items()):
            raise InferenceError(f"the model {path} does not fit this version's features")
        return Net(params, meta)


LossFn = Callable[[np.ndarray, dict[str, np.ndarray]], tuple[float, dict[str, np.ndarray]]]
"""``loss(rows, outputs by head)`` -> (summed loss, gradient of the mean loss by head)."""


def train(net: Net, x_all: np.ndarray, loss: LossFn, *, epochs: int, batch: int, lr: float,
          l2: float, rng: np.random.Generator, log: Callable[[str], Any] | None = None) -> Net:
    """Mini-batch Adam: ``epochs`` passes over the rows of ``x_all`` in a seeded order, the
    step size halved over the last third; ``l2`` on the weights."""
    p = net.params
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(a) for k, a in p.items()}
    step = 0
    n = len(x_all)
    for epoch in range(1, epochs + 1):
        rate = lr if epoch <= 2 * epochs // 3 else lr / 2
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch):
            rows = order[start:start + batch]
            x = x_all[rows]
            pre, h = net.hidden(x)
            lsum, douts = loss(rows, {name: net.head(h, name) for name in net.heads})
            total += lsum
            grads: dict[str, np.ndarray] = {}
            gh = np.zeros_like(h)
            for name, d in douts.items():
                grads[f"w_{name}"] = h.T @ d
                grads[f"b_{name}"] = d.sum(0)
                gh += d @ p[f"w_{name}"].T
            gh *= pre > 0
            grads["w1"] = x.T @ gh
            grads["b1"] = gh.sum(0)
            step += 1
            for k, a in p.items():
                g = grads[k] + (l2 * a if k.startswith("w") else 0.0)
                m[k] = 0.9 * m[k] + 0.1 * g
                v[k] = 0.999 * v[k] + 0.001 * g * g
                a -= rate * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step))
                                                          + 1e-8)
        if log is not None:
            log(f"epoch {epoch}/{epochs}: training loss {total / n:.4f}")
    return net


def _cross_entropy(p: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """(summed -log p of the labels, gradient of the mean loss wrt the logits)."""
    rows = np.arange(len(y))
    d = p.copy()
    d[rows, y] -= 1.0
    return -float(np.log(p[rows, y] + 1e-12).sum()), d / len(y)


# ----- cards in the models' order ---------------------------------------------------------------
def _canon_table() -> np.ndarray:
    """``CANON[game, card]``: the card in the models' order - in a suit game the trump suit's
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


def canon_bits(masks: np.ndarray, games: np.ndarray) -> np.ndarray:
    """(n, 32) 0/1 of card masks in the models' order of each row's game."""
    bits = card_bits(np.asarray(masks, dtype=np.int64)).astype(np.float64)
    out = np.zeros_like(bits)
    out[np.arange(len(bits))[:, None], CANON[np.asarray(games, dtype=np.int64)]] = bits
    return out


def one_hot(values: np.ndarray, size: int) -> np.ndarray:
    """Rows of ``size`` with a 1 at each value (none for a negative value)."""
    values = np.asarray(values, dtype=np.int64)
    out = np.zeros((len(values), size))
    ok = values >= 0
    out[np.arange(len(values))[ok], values[ok]] = 1.0
    return out


def game_kind(games: np.ndarray) -> np.ndarray:
    """0 suit, 1 grand, 2 null."""
    g = np.asarray(games, dtype=np.int64)
    out: np.ndarray = np.where(g < 4, 0, np.where(g == 4, 1, 2))
    return out


# ----- bidding -------------------------------------------------------------------------------
BID_CLASSES = np.array([0, 18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50,
                        54, 55, 59, 60, 63, 66, 70, 72], dtype=np.int64)
"""Highest-bid classes: each bid value down to the nearest listed one (72 and above are one
class)."""
DECLARATIONS = 13
"""Declaration classes: 0 pass, then ``1 + 2 * game + hand`` for games 0..5 (5 null)."""
BID_FEATURES = 32 + 40 + 3
BID_HEADS = {"bid": len(BID_CLASSES), "declaration": DECLARATIONS}


def bid_class(max_bid: np.ndarray) -> np.ndarray:
    """Class index of each highest bid (0 for no bid)."""
    out: np.ndarray = np.searchsorted(BID_CLASSES, np.asarray(max_bid, dtype=np.int64),
                                      side="right") - 1
    return out


def declaration_class(game: np.ndarray, hand: np.ndarray) -> np.ndarray:
    g = np.asarray(game, dtype=np.int64)
    out: np.ndarray = np.where(g < 0, 0, 1 + 2 * np.maximum(g, 0)
                               + np.asarray(hand, dtype=np.int64))
    return out


def hand_features(hands: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Ten-card masks and positions (0..2) -> the card bits, the knowledge base's per-game
    features (scaled to about unit size) and the position one-hot."""
    bits = card_bits(hands)
    suit = suit_features_from_bits(bits).reshape(len(bits), -1) / 10.0
    return np.concatenate([bits.astype(np.float64), suit, one_hot(positions, 3)], axis=1)


@dataclass
class BidModel:
    """The ``knn`` bot's bidding made soft."""

    net: Net
    FILE = DATA_DIR / "skat_bid_model" / "bid_model.npz"

    def predict(self, hands: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(bid class probabilities (n, 25), declaration probabilities (n, 13))."""
        _, h = self.net.hidden(hand_features(hands, positions))
        return softmax(self.net.head(h, "bid")), softmax(self.net.head(h, "declaration"))

    @staticmethod
    def load(path: Path | None = None) -> BidModel:
        return BidModel(Net.load(path or BidModel.FILE, BID_FEATURES, BID_HEADS))


def fit_bid_model(hands: np.ndarray, positions: np.ndarray, max_bid: np.ndarray,
                  declaration: np.ndarray, *, hidden: int = 64, epochs: int = 30,
                  batch: int = 1024, lr: float = 0.003, l2: float = 1e-5, seed: int = 0,
                  log: Callable[[str], Any] | None = None) -> BidModel:
    """Fit :class:`BidModel` on the cross-entropy of both heads."""
    rng = np.random.default_rng(seed)
    yb, yd = bid_class(max_bid), np.asarray(declaration, dtype=np.int64)

    def loss(rows: np.ndarray, out: dict[str, np.ndarray]
             ) -> tuple[float, dict[str, np.ndarray]]:
        lb, db = _cross_entropy(softmax(out["bid"]), yb[rows])
        ld, dd = _cross_entropy(softmax(out["declaration"]), yd[rows])
        return lb + ld, {"bid": db, "declaration": dd}

    net = train(Net.create(BID_FEATURES, hidden, BID_HEADS, rng),
                hand_features(hands, positions), loss, epochs=epochs, batch=batch, lr=lr,
                l2=l2, rng=rng, log=log)
    return BidModel(net)


BID_MODELS = {"knn2": BidModel.FILE,
              "knn10": DATA_DIR / "skat_bid_model_knn10" / "bid_model.npz"}
"""The shipped bid models by the bidder they model: ``knn2``'s bidding (fitted when it was
the default; the frozen bots and the default weigh their worlds with it) and ``knn10``'s
(refitted on the default's bidding once its chances had moved)."""
DEFAULT_BID_MODEL = "knn2"


@cache
def shared_bid_model(name: str = DEFAULT_BID_MODEL) -> BidModel:
    """The shipped model of :data:`BID_MODELS` ``name``, loaded once per process."""
    if name not in BID_MODELS:
        raise InferenceError(f"the bid model is one of {', '.join(BID_MODELS)}, not {name!r}")
    return BidModel.load(BID_MODELS[name])


# ----- the put -------------------------------------------------------------------------------
PUT_FEATURES = 32 + 3
PUT_HEADS = {"score": 32}
_UPPER = np.triu(np.ones((12, 12), dtype=bool), 1)


def put_features(twelves: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Twelve cards (in the models' order of the game) and the game kind."""
    return np.concatenate([canon_bits(twelves, games), one_hot(game_kind(games), 3)], axis=1)


def twelve_indices(twelves: np.ndarray, games: np.ndarray) -> np.ndarray:
    """(n, 12) the twelve cards of each row in the models' order."""
    bits = canon_bits(twelves, games)
    idx = np.nonzero(bits)[1]
    if len(idx) != 12 * len(bits):
        raise InferenceError("a put needs twelve cards")
    out: np.ndarray = idx.reshape(len(bits), 12)
    return out


def pair_log_probabilities(s12: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log-probability of every pair of the twelve (n, 12, 12), valid above the diagonal;
    log Z (n,)) from the twelve cards' scores."""
    pair = s12[:, :, None] + s12[:, None, :]
    masked = np.where(_UPPER, pair, -np.inf).reshape(len(s12), -1)
    top = masked.max(axis=1)
    log_z = top + np.log(np.exp(masked - top[:, None]).sum(axis=1))
    return pair - log_z[:, None, None], log_z


@dataclass
class PutModel:
    """Which two of its twelve cards the bot puts."""

    net: Net
    FILE = DATA_DIR / "skat_put_model" / "put_model.npz"

    def twelve_scores(self, twelves: np.ndarray, games: np.ndarray) -> np.ndarray:
        """(n, 12) the score of each of the twelve cards (in :func:`twelve_indices` order)."""
        _, h = self.net.hidden(put_features(twelves, games))
        s = self.net.head(h, "score")
        out: np.ndarray = s[np.arange(len(s))[:, None], twelve_indices(twelves, games)]
        return out

    def pair_log_probability(self, twelves: np.ndarray, games: np.ndarray, puts: np.ndarray
                             ) -> np.ndarray:
        """Log-probability that the bot puts exactly ``puts`` from ``twelves`` for ``games``."""
        twelves = np.asarray(twelves, dtype=np.int64)
        games = np.asarray(games, dtype=np.int64)
        logp, _ = pair_log_probabilities(self.twelve_scores(twelves, games))
        rows = np.arange(len(twelves))
        put = canon_bits(puts, games)[rows[:, None], twelve_indices(twelves, games)]
        where = np.argsort(-put, axis=1, kind="stable")[:, :2]
        a, b = where.min(axis=1), where.max(axis=1)
        out: np.ndarray = logp[rows, a, b]
        return out

    @staticmethod
    def load(path: Path | None = None) -> PutModel:
        return PutModel(Net.load(path or PutModel.FILE, PUT_FEATURES, PUT_HEADS))


def fit_put_model(rows: np.ndarray, *, hidden: int = 64, epochs: int = 20, batch: int = 256,
                  lr: float = 0.003, l2: float = 1e-4, seed: int = 0,
                  log: Callable[[str], Any] | None = None) -> PutModel:
    """Fit :class:`PutModel` on (twelve cards, game, put) rows: the put pair's
    log-likelihood."""
    rng = np.random.default_rng(seed)
    r = np.asarray(rows, dtype=np.int64)
    idx_all = twelve_indices(r[:, 0], r[:, 1])
    put_all = canon_bits(r[:, 2], r[:, 1])[np.arange(len(r))[:, None], idx_all]

    def loss(b: np.ndarray, out: dict[str, np.ndarray]) -> tuple[float, dict[str, np.ndarray]]:
        s, idx, put = out["score"], idx_all[b], put_all[b]
        rows_b = np.arange(len(b))
        s12 = s[rows_b[:, None], idx]
        logp, log_z = pair_log_probabilities(s12)
        prob = np.where(_UPPER, np.exp(logp), 0.0)
        marginal = prob.sum(axis=2) + prob.sum(axis=1)  # the chance each card is put
        d = np.zeros_like(s)
        np.add.at(d, (np.repeat(rows_b, 12), idx.ravel()), ((marginal - put) / len(b)).ravel())
        return -float((s12 * put).sum() - log_z.sum()), {"score": d}

    net = train(Net.create(PUT_FEATURES, hidden, PUT_HEADS, rng), put_features(r[:, 0], r[:, 1]),
                loss, epochs=epochs, batch=batch, lr=lr, l2=l2, rng=rng, log=log)
    return PutModel(net)


@cache
def shared_put_model() -> PutModel:
    return PutModel.load()


# ----- the play ------------------------------------------------------------------------------
RECORD_FIELDS = ("game", "role", "trick_position", "trick0", "trick1", "hand", "played_decl",
                 "played_def1", "played_def2", "leader_role", "tricks_done", "declarer_points",
                 "defender_points", "legal", "card")
"""One card decision: the game, the mover's role (0 declarer, 1 the defender after the
declarer, 2 the other), its place in the trick, the trick's cards so far (-1 none), the
mover's hand, the cards each role played in the tricks before, the leader's role, tricks
done, card points taken so far (the skat not counted), the legal cards and the card played."""
PLAY_FEATURES = 32 * 6 + 3 * 5
PLAY_HEADS = {"card": 32}


def play_features(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Decision records -> (features (n, PLAY_FEATURES), legal cards in the models' order
    (n, 32) of 0/1)."""
    r = np.asarray(rows, dtype=np.int64)
    games = r[:, 0]
    trick0 = np.where(r[:, 3] >= 0, CANON[games, np.maximum(r[:, 3], 0)], -1)
    trick1 = np.where(r[:, 4] >= 0, CANON[games, np.maximum(r[:, 4], 0)], -1)
    x = np.concatenate([
        canon_bits(r[:, 5], games),
        canon_bits(r[:, 6], games), canon_bits(r[:, 7], games), canon_bits(r[:, 8], games),
        one_hot(trick0, 32), one_hot(trick1, 32),
        one_hot(r[:, 1], 3), one_hot(r[:, 2], 3), one_hot(game_kind(games), 3),
        one_hot(r[:, 9], 3),
        np.stack([r[:, 10] / 10.0, r[:, 11] / 120.0, r[:, 12] / 120.0], axis=1),
    ], axis=1)
    return x, canon_bits(r[:, 13], games)


@dataclass
class PlayModel:
    """The card the bot plays, among the legal ones."""

    net: Net
    FILE = DATA_DIR / "skat_play_model" / "play_model.npz"

    def card_probabilities(self, x: np.ndarray, legal: np.ndarray) -> np.ndarray:
        _, h = self.net.hidden(x)
        return softmax(np.where(legal > 0, self.net.head(h, "card"), -1e9))

    def chosen_probability(self, rows: np.ndarray) -> np.ndarray:
        """The probability of each decision record's card (field 14) among its legal ones."""
        x, legal = play_features(rows)
        p = self.card_probabilities(x, legal)
        out: np.ndarray = p[np.arange(len(rows)), CANON[rows[:, 0], rows[:, 14]]]
        return out

    @staticmethod
    def load(path: Path | None = None) -> PlayModel:
        return PlayModel(Net.load(path or PlayModel.FILE, PLAY_FEATURES, PLAY_HEADS))


def fit_play_model(rows: np.ndarray, *, hidden: int = 64, epochs: int = 5, batch: int = 512,
                   lr: float = 0.002, l2: float = 1e-3, seed: int = 0,
                   log: Callable[[str], Any] | None = None) -> PlayModel:
    """Fit :class:`PlayModel` on decision records (cross-entropy of the card played among
    the legal cards)."""
    rng = np.random.default_rng(seed)
    r = np.asarray(rows, dtype=np.int64)
    x_all, legal_all = play_features(r)
    y_all = CANON[r[:, 0], r[:, -1]]

    def loss(b: np.ndarray, out: dict[str, np.ndarray]) -> tuple[float, dict[str, np.ndarray]]:
        lsum, d = _cross_entropy(softmax(np.where(legal_all[b] > 0, out["card"], -1e9)),
                                 y_all[b])
        return lsum, {"card": d}

    net = train(Net.create(PLAY_FEATURES, hidden, PLAY_HEADS, rng), x_all, loss,
                epochs=epochs, batch=batch, lr=lr, l2=l2, rng=rng, log=log)
    return PlayModel(net)


@cache
def shared_play_model() -> PlayModel:
    return PlayModel.load()


@dataclass(frozen=True)
class HeuristicPlayModel:
    """The card a player plays by the rule of thumb of every Skat table, as a soft choice:
    cards with points go onto the own side's tricks (schmieren) and cheap cards onto the
    opponents'; the side that takes the trick after the card also counts. A card's score is
    ``smear * points * (+1 own side winning / -1 not)`` plus ``take`` when its side then
    wins the trick; after the trick's second card the third may still turn it, so both
    count half there. Lead: uniform. No training: the same for any player's cards."""

    smear: float = 1.5
    take: float = 0.5

    def chosen_probability(self, rows: np.ndarray) -> np.ndarray:
        r = np.asarray(rows, dtype=np.int64)
        n = len(r)
        legal = card_bits(r[:, 13]).astype(bool)  # (n, 32) in card numbers
        games, pos = r[:, 0], r[:, 2]
        led, second = np.maximum(r[:, 3], 0), np.maximum(r[:, 4], 0)
        power = _power_table()[games, led]  # (n, 32): each card's power in this trick
        top = np.where(pos >= 1, power[np.arange(n), led], -1)
        top_at = np.zeros(n, dtype=np.int64)  # trick position of the winning card so far
        p2 = np.where(pos >= 2, power[np.arange(n), second], -1)
        top_at = np.where(p2 > top, 1, top_at)
        top = np.maximum(top, p2)
        beats = power > top[:, None]  # (n, 32): the card takes the lead of the trick
        winner_at = np.where(beats, pos[:, None], top_at[:, None])
        winner_role = (r[:, 9][:, None] + winner_at) % 3
        mine = (winner_role == 0) == (r[:, 1] == 0)[:, None]
        sign = np.where(mine, 1.0, -1.0) * np.where(pos == 1, 0.5, 1.0)[:, None]
        score = sign * (self.smear * _CARD_POINTS[None, :] + self.take)
        score = np.where(pos[:, None] == 0, 0.0, score)
        score = np.where(legal, score, -1e9)
        p = softmax(score)
        out: np.ndarray = p[np.arange(n), r[:, 14]]
        return out


_CARD_POINTS = np.array([card_points(c) for c in range(32)], dtype=np.float64)


@cache
def _power_table() -> np.ndarray:
    """``[game, led card, card]``: :func:`kernel.card_power` (0: cannot win the trick)."""
    return np.array([[[card_power(c, led, g) for c in range(32)] for led in range(32)]
                     for g in range(6)], dtype=np.int64)
