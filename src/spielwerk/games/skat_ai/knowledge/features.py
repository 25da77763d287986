"""Hand features for the k-nearest-neighbour bidding (seed table, Keller & Kupferschmid).

For a suit or grand game the ten cards become the seed's eight numbers, in
this order:

1. jacks (0-4);
2. trumps without the jacks (0-7; grand 0);
3. side aces and the tens with them: +1 per non-trump ace, +1 more when the
   ten of that suit is held too (0-6; grand counts all four suits);
4. card points of all cards (0-92);
5. missing suits: non-trump suits with no (non-jack) card (0-3);
6. side tens without their ace (0-3; grand 0-4);
7. jack score: CJ 4, SJ 3, HJ 2, DJ 1 (0-10);
8. trump score of the non-jack trumps: A 5, T 10, K 3, Q 2, 9/8/7 1 (the
   values as the issue and the seed's text give them; the seed's range
   "0-17" would fit T 4, see docs/skat-bidding.md; grand 0).

Null (not in the seed) uses per-suit *exposure*: a suit's cards in null order
(7 8 9 T J Q K A) are safe when the i-th lowest card (0-based) sits at most
at null rank 2i - then each time the suit is played the opponents hold enough
cards below it to stay under, in the worst case. ``risk`` is the largest
excess ``rank - 2i`` (0 = safe). The vector lists (risk, length) for the four
suits sorted by risk then length, descending, so hands that differ only by
suit names are the same point (the null result does not depend on suit names
either), which multiplies the effective base size by up to 24.

Everything works on arrays of hand masks at once, which keeps the putting
search (66 x 5 classifications) to a few numpy calls.
"""

from __future__ import annotations

import numpy as np

from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import ACE, CARD_POINTS, JACKS_MASK, NULL_RANK

N_FEATURES = 8
SUIT_GAMES = 5
"""Game codes 0..3 (diamonds, hearts, spades, clubs) and 4 (grand)."""
FEATURE_NAMES = (
    "jacks",
    "trumps without jacks",
    "side aces and their tens",
    "card points",
    "missing suits",
    "side tens without ace",
    "jack score",
    "trump score",
)
NULL_FEATURE_NAMES = tuple(
    f"{what} {i}" for i in range(1, 5) for what in ("risk", "length")
)
TRUMP_SCORE = (1, 1, 1, 2, 3, 10, 5, 0)
"""Trump score by rank index 7 8 9 Q K T A J (jacks are counted in the jack score)."""
JACK_SCORE = (1, 2, 3, 4)
"""Jack score by suit index (DJ 1, HJ 2, SJ 3, CJ 4)."""
_NULL_RANK = np.array(NULL_RANK, dtype=np.int64)
"""Null order position of rank index 7 8 9 Q K T A J (7 lowest .. A highest)."""
_POINTS = np.array([CARD_POINTS[c & 7] for c in range(32)], dtype=np.int64)


def card_bits(hands: np.ndarray | list[int] | int) -> np.ndarray:
    """Hand masks -> an (n, 32) int array of 0/1 (card ``c`` at column ``c``)."""
    h = np.atleast_1d(np.asarray(hands, dtype=np.int64))
    return ((h[:, None] >> np.arange(32, dtype=np.int64)) & 1).astype(np.int64)


def suit_features_from_bits(bits: np.ndarray) -> np.ndarray:
    """(n, 32) card bits -> (n, 5, 8) features for games 0..4 (float64)."""
    n = bits.shape[0]
    out = np.zeros((n, SUIT_GAMES, N_FEATURES), dtype=np.float64)
    b = bits.reshape(n, 4, 8)  # suit, rank
    jacks = b[:, :, 7]
    n_jacks = jacks.sum(axis=1)
    jack_score = jacks @ np.array(JACK_SCORE, dtype=np.int64)
    points = bits @ _POINTS
    aces = b[:, :, 6]
    tens = b[:, :, 5]
    plain_len = b[:, :, :7].sum(axis=2)  # non-jack cards per suit
    trump_score = b[:, :, :7] @ np.array(TRUMP_SCORE[:7], dtype=np.int64)  # per suit
    ace_tens = aces + aces * tens  # per suit
    tens_alone = tens * (1 - aces)
    missing = (plain_len == 0).astype(np.int64)
    all_ace_tens = ace_tens.sum(axis=1)
    all_tens_alone = tens_alone.sum(axis=1)
    all_missing = missing.sum(axis=1)
    for g in range(4):
        out[:, g, 0] = n_jacks
        out[:, g, 1] = plain_len[:, g]
        out[:, g, 2] = all_ace_tens - ace_tens[:, g]
        out[:, g, 3] = points
        out[:, g, 4] = all_missing - missing[:, g]
        out[:, g, 5] = all_tens_alone - tens_alone[:, g]
        out[:, g, 6] = jack_score
        out[:, g, 7] = trump_score[:, g]
    out[:, 4, 0] = n_jacks
    out[:, 4, 2] = all_ace_tens
    out[:, 4, 3] = points
    out[:, 4, 4] = all_missing
    out[:, 4, 5] = all_tens_alone
    out[:, 4, 6] = jack_score
    return out


def suit_features(hands: np.ndarray | list[int] | int) -> np.ndarray:
    """Hand masks -> (n, 5, 8) features per trump choice (diamonds .. clubs, grand)."""
    return suit_features_from_bits(card_bits(hands))


def null_exposure(bits: np.ndarray, gone: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(risk, length), each (n, 4) by suit, of (n, 32) card bits: a suit's risk is the largest
    exposure of its cards (module docstring), counting the cards of ``gone`` (n, 32: out of
    play, the put) below a card as below it; 0 = safe."""
    n = bits.shape[0]
    order = np.argsort(_NULL_RANK)  # rank index at each null position 7 8 9 T J Q K A
    nb = bits.reshape(n, 4, 8)[:, :, order]  # (n, 4, 8) by null position
    below = np.cumsum(nb, axis=2) - nb  # own cards below each position
    rank = np.arange(8)[None, None, :]
    if gone is not None:
        rank = rank - np.cumsum(gone.reshape(n, 4, 8)[:, :, order], axis=2)
    excess = np.where(nb == 1, rank - 2 * below, -99)
    risk: np.ndarray = np.maximum(excess.max(axis=2), 0)
    length: np.ndarray = nb.sum(axis=2)
    return risk, length


def null_features_from_bits(bits: np.ndarray) -> np.ndarray:
    """(n, 32) card bits -> (n, 8) null exposure features (see the module docstring)."""
    n = bits.shape[0]
    risk, length = null_exposure(bits)
    key = risk * 16 + length
    idx = np.argsort(-key, axis=1, kind="stable")
    risk_s = np.take_along_axis(risk, idx, axis=1)
    len_s = np.take_along_axis(length, idx, axis=1)
    out = np.empty((n, 8), dtype=np.float64)
    out[:, 0::2] = risk_s
    out[:, 1::2] = len_s
    return out


def null_features(hands: np.ndarray | list[int] | int) -> np.ndarray:
    """Hand masks -> (n, 8) null features."""
    return null_features_from_bits(card_bits(hands))


NULL_RISK_CAP = 4
"""A suit's null risk counts at most this much in :func:`null_count`: a suit that is lost
once it is led is lost however high its top card sits."""


def null_count(hands: np.ndarray | list[int] | int) -> np.ndarray:
    """The null risk of whole hands: the per-suit risk (module docstring) capped at
    :data:`NULL_RISK_CAP`, summed over the four suits (0 = every suit safe). The ``count``
    feature of null's calibrated win chance, where :func:`hand_count` is that of the
    trump games."""
    risk = null_features_from_bits(card_bits(hands))[:, 0::2]
    total: np.ndarray = np.minimum(risk, NULL_RISK_CAP).sum(axis=1)
    return total


def null_pickup_count(hand: int) -> float:
    """:func:`null_count` of ten cards once the two that reduce it most are put - the risk a
    null with the skat can reach before the skat's own two cards are known."""
    cards = [c for c in range(32) if hand >> c & 1]
    rests = [hand & ~(1 << a) & ~(1 << b) for i, a in enumerate(cards) for b in cards[i + 1:]]
    return float(null_count(rests).min()) if rests else float(null_count(hand)[0])


def hand_count(hand: int, game: int) -> float:
    """A plain strength count for a suit or grand game: trumps (jacks included) + side
    aces + half a point per jack - the ``rule`` agent's game choice, and a feature of
    the calibrated win chance (knowledge/knn.py), where it adds to the KNN value."""
    trumps = int(kernel.trump_mask(game))
    aces = sum(1 for s in range(4) if hand >> (s * 8 + ACE) & 1 and not trumps >> (s * 8 + ACE) & 1)
    jacks = bin(hand & JACKS_MASK).count("1")
    return bin(hand & trumps).count("1") + aces + 0.5 * jacks
