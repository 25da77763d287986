"""Building determinized Durak worlds fast (numba): the search agents draw one per
iteration, so this is on their hot path.

:func:`fill_world` places an ordering of the unseen cards into the hidden places (the
other seats' hidden cards in seat order, then the stock from the top, the trump card at
its bottom); :func:`weighted_order` draws such an ordering with per-seat card weights
(weighted sampling without replacement, Efraimidis-Spirakis keys ``log(u) / weight``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.durak.kernel import (
    HANDS,
    KNOWN,
    NPLAYERS,
    STOCK,
    STOCK_LEN,
    STOCK_TOP,
    TRUMP_CARD,
    popcount,
)


@njit(cache=True)
def fill_world(P: np.ndarray, player: int, own_hand: int, known: np.ndarray,
               sizes: np.ndarray, stock: int, cards: np.ndarray) -> np.ndarray:
    """The state with public part ``P`` whose hidden places get ``cards`` in order; an
    empty array if ``cards`` does not fill the hidden places exactly."""
    S = P.copy()
    n = S[NPLAYERS]
    k = 0
    for q in range(n):
        S[KNOWN + q] = known[q]
        if q == player:
            S[HANDS + q] = own_hand
            continue
        hidden = sizes[q] - popcount(known[q])
        m = known[q]
        for j in range(k, k + hidden):
            m |= 1 << cards[j]
        k += hidden
        S[HANDS + q] = m
    S[STOCK_TOP] = 0
    S[STOCK_LEN] = stock
    for i in range(52):
        S[STOCK + i] = -1
    rest = len(cards) - k
    if stock > 0:
        if rest != stock - 1:
            return np.empty(0, np.int64)
        for i in range(rest):
            S[STOCK + i] = cards[k + i]
        S[STOCK + stock - 1] = P[TRUMP_CARD]
    elif rest != 0:
        return np.empty(0, np.int64)
    return S


@njit(cache=True)
def weighted_order(unseen: np.ndarray, counts: np.ndarray, weights: np.ndarray,
                   seed: int) -> np.ndarray:
    """An ordering of ``unseen`` for :func:`fill_world`: ``counts[s]`` cards drawn with the
    weights ``weights[s]`` (one row per seat in the order of the hidden places, one column
    per unseen card), then the rest in random order. ``seed`` seeds numba's generator."""
    np.random.seed(seed)
    out = np.empty(len(unseen), np.int64)
    weighted_into(unseen, counts, weights, out)
    return out


@njit(cache=True)
def weighted_into(unseen: np.ndarray, counts: np.ndarray, weights: np.ndarray,
                  out: np.ndarray) -> None:
    """:func:`weighted_order` into ``out``, drawing from numba's generator as it stands."""
    m = len(unseen)
    left = np.ones(m, np.bool_)
    k = 0
    keys = np.empty(m)
    for s in range(len(counts)):
        h = counts[s]
        if h == 0:
            continue
        for i in range(m):
            keys[i] = np.log(np.random.random()) / weights[s, i] if left[i] else -np.inf
        best = np.argsort(-keys)[:h]
        for i in best:
            out[k] = unseen[i]
            left[i] = False
            k += 1
    rest = unseen[left]
    np.random.shuffle(rest)
    for c in rest:
        out[k] = c
        k += 1
