"""Determinizations weighted by what the other players' moves suggest.

:mod:`evidence` lists, from the public history, sets of cards a seat probably
(or, for a skip, certainly) did not hold when it moved. Here each row becomes a
weight on every still unseen card of that set, for that seat:

    weight *= f + (1 - f) * eps

``eps`` is the chance that the seat holds such a card anyway: ``0`` for a skip
(the rules showed it); for a choice read through the model, ``1 - trust``
(``trust`` is the agent's parameter ``infer``) or, if larger, the seat's
observed error rate of the model (rows where a card known to be in its hand
was one the model says it would have played, over rows where it had known
cards, plus one); a row the known cards contradict counts for nothing. ``f`` is the share of the
seat's hidden cards drawn since that move (a card drawn later is no evidence
against it): ``min(1, draws since / hidden cards now)``.

A world is then dealt seat by seat: each seat's hidden places get a weighted
sample without replacement of the cards still unseen (Efraimidis-Spirakis
keys ``log(u) / weight`` in :func:`worlds.weighted_order` - one pass, sampling
never stalls, and weights of 1 everywhere give the uniform deal), the stock the rest in
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
from spielwerk.games.durak.worlds import weighted_order

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
    # the model's observed error rate per seat: rows where a card known to be in the hand
    # was one the model says the seat would have played (certain mistakes of the model)
    tested = np.bincount(seats, rows[:, 4], minlength=n)
    wrong = np.bincount(seats, rows[:, 5], minlength=n)
    miss = np.maximum(1.0 - trust, wrong / (tested + 1.0))
    eps = np.where(rows[:, 1] == SKIP, 0.0, np.where(rows[:, 5] != 0, 1.0, miss[seats]))
    log_factor = np.log(np.maximum(f + (1.0 - f) * eps, FLOOR))
    bits = ((rows[:, 2][:, None] >> _BITS[None, :]) & 1).astype(np.float64)  # rows x 52
    W = np.ones((n, 52))
    for q in np.unique(seats):
        sel = seats == q
        W[q] = np.exp(log_factor[sel] @ bits[sel])
    np.maximum(W, FLOOR, out=W)
    return W


def hidden_places(info: DurakInfoState,
                  W: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What a world deal of ``info`` fills: the unseen cards, the number of hidden cards of
    each other seat (in seat order) and, for weights ``W[seat, card]``, one row of weights
    per such seat and unseen card (no rows when ``W`` is None: a uniform deal)."""
    unseen = np.array(mask_to_cards(info.unseen()), np.int64)
    order = [q for q in range(info.dgame.players) if q != info.player]
    counts = np.array([info.hand_sizes[q] - K.popcount(info.known[q]) for q in order],
                      np.int64)
    weights = (np.empty((0, len(unseen))) if W is None
               else np.ascontiguousarray(W[order][:, unseen], dtype=np.float64))
    return unseen, counts, weights


def weighted_sampler(info: DurakInfoState,
                     W: np.ndarray) -> Callable[[InfoState, np.random.Generator], State]:
    """A sampler for the searches (:data:`spielwerk.mc.determinize.Sampler`) that deals
    ``info``'s unseen cards with the weights ``W``; it samples only this info state."""
    unseen, counts, weights = hidden_places(info, W)

    def sample(info_state: InfoState, rng: np.random.Generator) -> State:
        if info_state is not info:
            raise ValueError("this sampler draws worlds of one info state only")
        seed = int(rng.integers(2**31 - 1))
        return info.world_with(weighted_order(unseen, counts, weights, seed))

    return sample
