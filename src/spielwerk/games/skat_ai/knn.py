"""The k-nearest-neighbour model over a knowledge base (:class:`KnnModel`).

A hand's value for a trump choice is the mean result of its ``k`` nearest
neighbours (Euclidean distance over :mod:`knowledge.features`, scipy ``cKDTree``)
in that choice's base: the declarer's final card points for suit and grand, the
share of neighbours that took no trick for null. The model answers values of
hands and of puts; the decisions built on it are :mod:`bidding` (what to bid,
hand or pick-up, announcements) and :mod:`putting` (which cards to put, which
game to declare). The tuning parameters are :mod:`params`.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import JACKS_MASK, NULL, POINTS_BY_CARD, points_of
from spielwerk.games.skat_ai.knowledge.features import (
    card_bits,
    null_features_from_bits,
    suit_features_from_bits,
)
from spielwerk.games.skat_ai.knowledge.store import (
    BaseData,
    KnowledgeBaseError,
    default_base_dir,
    load_base,
)
from spielwerk.games.skat_ai.params import DEFAULT_K, DEFAULT_SCALING, SCALINGS
from spielwerk.games.skat_ai.selection import hard_candidates


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
