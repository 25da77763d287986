"""Determinizations weighted by what the other players' moves suggest.

:mod:`evidence` lists, from the public history, sets of cards a seat probably
(or, for a skip, certainly) did not hold when it moved. Here each row becomes a
weight on every still unseen card of that set, for that seat:

    weight *= f + (1 - f) * eps

``eps`` is the chance that the seat holds such a card anyway: ``0`` for a skip
(the rules showed it), ``1 - trust`` for a choice read through the greedy model
(``trust`` is the agent's parameter ``infer``). ``f`` is the share of the
seat's hidden cards drawn since that move (a card drawn later is no evidence
against it): ``min(1, draws since / hidden cards now)``.

A world is then dealt seat by seat: each seat's hidden places get a weighted
sample without replacement of the cards still unseen (Efraimidis-Spirakis
keys ``log(u) / weight``, one vectorized draw - sampling never stalls, and
weights of 1 everywhere give exactly the uniform deal), the stock the rest in
random order. Weights never reach 0 (``FLOOR``), so every consistent world can
still be drawn.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from spielwerk.core.game import InfoState, State
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.cards import mask_to_cards
from spielwerk.games.durak.evidence import SKIP
from spielwerk.games.durak.rules import DurakInfoState

FLOOR = 1e-6
_BITS = np.arange(52, dtype=np.int64)


def card_weights(info: DurakInfoState, trust: float) -> np.ndarray | None:
    """Weights ``W[seat, card]`` (1 = no evidence) from the info state's evidence, or
    None when there is none to use (no history, open world, nothing observed)."""
    if not 0.0 <= trust <= 1.0:
        raise ValueError(f"trust must lie in [0, 1], not {trust}")
    if info.evidence is None or info.open_state is not None:
        return None
    rows, draws = info.evidence
    if len(rows) == 0:
        return None
    n = info.dgame.players
    seats = rows[:, 0]
    hidden = np.array([info.hand_sizes[q] - K.popcount(info.known[q]) for q in range(n)],
                      np.float64)
    since = draws[seats] - rows[:, 3]
    h = hidden[seats]
    f = np.where(h > 0, np.minimum(1.0, since / np.maximum(h, 1.0)), 1.0)
    eps = np.where(rows[:, 1] == SKIP, 0.0, 1.0 - trust)
    log_factor = np.log(np.maximum(f + (1.0 - f) * eps, FLOOR))
    bits = ((rows[:, 2][:, None] >> _BITS[None, :]) & 1).astype(np.float64)  # rows x 52
    W = np.ones((n, 52))
    for q in np.unique(seats):
        sel = seats == q
        W[q] = np.exp(log_factor[sel] @ bits[sel])
    np.maximum(W, FLOOR, out=W)
    return W


def weighted_sampler(info: DurakInfoState,
                     W: np.ndarray) -> Callable[[InfoState, np.random.Generator], State]:
    """A sampler for the searches (:data:`spielwerk.mc.determinize.Sampler`) that deals
    ``info``'s unseen cards with the weights ``W``; it samples only this info state."""
    unseen = np.array(mask_to_cards(info.unseen()), np.int64)
    order = [q for q in range(info.dgame.players) if q != info.player]
    counts = [info.hand_sizes[q] - K.popcount(info.known[q]) for q in order]
    weights = [W[q, unseen] for q in order]

    def sample(info_state: InfoState, rng: np.random.Generator) -> State:
        if info_state is not info:
            raise ValueError("this sampler draws worlds of one info state only")
        left = np.ones(len(unseen), bool)
        parts = []
        for hidden, w in zip(counts, weights, strict=True):
            if hidden == 0:
                continue
            idx = np.flatnonzero(left)
            keys = np.log(rng.random(len(idx))) / w[idx]
            take = idx[np.argpartition(-keys, hidden - 1)[:hidden]]
            left[take] = False
            parts.append(unseen[take])
        rest = unseen[left]
        parts.append(rest[rng.permutation(len(rest))])
        return info.world_with(np.concatenate(parts))

    return sample
