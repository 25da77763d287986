"""Skat batch paths: many random games and many legal-action masks per call.

``SkatGame.random_playouts(n, seed)`` and ``SkatGame.legal_action_masks(states)``
(the Kalah and Durak games have the same two methods).

What runs where, and why. The deal, 32 of a random game's ~46 actions, is
drawn for all ``n`` games at once (one seeded permutation per game, numpy)
and given to each state in one call (:meth:`SkatState.deal_cards`, which
applies the cards through the same ``_deal`` as ``apply``). The rest of each
game (bidding, skat, declaration, card play with claims and resignations)
is played through the State: the bidding (:class:`bidding.Auction`), the
offers and the scoring are Python rules, and a numba copy of them would be a
second copy of those rules. The card masks of many states come from one numba
call over :func:`kernel.legal_cards`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from spielwerk.core.game import Playouts, check_playouts
from spielwerk.games.skat.actions import DEAL, NUM_ACTIONS, PLAY
from spielwerk.games.skat.kernel import legal_cards

if TYPE_CHECKING:
    from spielwerk.games.skat.rules import SkatGame
    from spielwerk.games.skat.state import SkatState


@njit(cache=True)
def legal_card_masks(hands: np.ndarray, led: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``kernel.legal_cards(hands[i], led[i], codes[i])`` for every ``i`` (one call)."""
    out = np.empty(hands.shape[0], np.int64)
    for i in range(hands.shape[0]):
        out[i] = legal_cards(hands[i], led[i], codes[i])
    return out


def random_playouts(game: SkatGame, n: int, seed: int, state: SkatState | None = None) -> Playouts:
    """``n`` uniformly random games to the end (chance uniform), from the start or ``state``
    (left unchanged); the same ``seed`` gives the same games."""
    n = check_playouts(n, seed)
    start = state if state is not None else game.new_initial_state()
    returns = np.zeros((n, game.players))
    moves = np.zeros(n, np.int64)
    undealt = np.array(start._undealt if start.phase == DEAL else [], np.int64)
    deals = np.random.default_rng(seed).permuted(np.tile(undealt, (n, 1)), axis=1).tolist()
    draws = random.Random(seed)
    for g in range(n):
        s = start.clone() if state is not None else game.new_initial_state()
        if deals[g]:
            s.deal_cards(deals[g])  # type: ignore[attr-defined]
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply(legal[draws.randrange(len(legal))])
        returns[g] = s.returns()
        moves[g] = len(s.history)
    return Playouts(returns, moves)


def legal_action_masks(states: Sequence[SkatState]) -> np.ndarray:
    """``masks[i, a]``: action ``a`` is legal in ``states[i]`` (every action number).

    The card choices of the states in the card play come from one numba call;
    every other action from the state itself.
    """
    masks = np.zeros((len(states), NUM_ACTIONS), dtype=bool)
    playing = [i for i, s in enumerate(states) if s.phase == PLAY]
    if playing:
        hands = np.array([states[i].hands[states[i].to_play()] for i in playing], np.int64)
        led = np.array([states[i].trick[0] if states[i].trick else -1 for i in playing], np.int64)
        codes = np.array([states[i].game_code for i in playing], np.int64)
        cards = legal_card_masks(hands, led, codes)
        masks[playing, :32] = (cards[:, None] >> np.arange(32)) & 1 == 1
    for i, s in enumerate(states):
        masks[i, list(s._offer_actions()) if s.phase == PLAY else s.legal_actions()] = True
    return masks
