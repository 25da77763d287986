"""Skat batch paths: many random games and many legal-action masks per call.

``SkatGame.random_playouts(n, seed)`` and ``SkatGame.legal_action_masks(states)``
(the Kalah and Durak games have the same two methods).

``random_playouts`` draws every game's deal at once (one seeded permutation
per game, numpy) and one SplitMix64 stream seed per game, then plays all
games in one numba call (:func:`kernel_playout.playouts`), whose rules are
the kernels the ``State`` calls (:mod:`kernel`, :mod:`kernel_deal`). The same
games can be played through the ``State`` (``engine="python"``): each
decision takes ``legal[int(u * len(legal))]`` of ``state.legal_actions()``
with the same uniform ``u``, so both engines give the same games, action for
action (tested). From a start state the deal's missing cards are drawn and
the actions after the deal are replayed. The card masks of many states come
from one numba call over :func:`kernel.legal_cards`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from spielwerk.core.game import Playouts, check_playouts
from spielwerk.core.splitmix import uniforms
from spielwerk.games.skat import kernel_playout
from spielwerk.games.skat.actions import (
    DEAL,
    DECLARATIONS,
    HAND_DECLARATIONS,
    NUM_ACTIONS,
    PICKUP_DECLARATIONS,
    PLAY,
)
from spielwerk.games.skat.kernel import legal_cards

if TYPE_CHECKING:
    from spielwerk.games.skat.rules import SkatGame
    from spielwerk.games.skat.state import SkatState

_DECLS = np.array(
    [[c.game, c.hand, c.schneider_announced, c.schwarz_announced, c.ouvert] for c in DECLARATIONS],
    np.int64,
)
"""Each declaration's game code, hand, schneider/schwarz announced and ouvert (0/1)."""
_HAND_DECLS = np.array(HAND_DECLARATIONS, np.int64)
_PICKUP_DECLS = np.array(PICKUP_DECLARATIONS, np.int64)


@njit(cache=True)
def legal_card_masks(hands: np.ndarray, led: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``kernel.legal_cards(hands[i], led[i], codes[i])`` for every ``i`` (one call)."""
    out = np.empty(hands.shape[0], np.int64)
    for i in range(hands.shape[0]):
        out[i] = legal_cards(hands[i], led[i], codes[i])
    return out


def _draw(game: SkatGame, n: int, seed: int, start: SkatState | None
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every game's 32 cards in dealing order, the actions to replay after the deal, and
    every game's stream seed (all from ``seed``)."""
    history = list(start.history) if start is not None else []
    dealing = start is None or start.phase == DEAL
    rng = np.random.default_rng(seed)
    deals = np.empty((n, 32), np.int64)
    if dealing:
        undealt = [c for c in range(32) if c not in history]
        deals[:, :len(history)] = history
        deals[:, len(history):] = rng.permuted(np.tile(np.array(undealt, np.int64), (n, 1)), axis=1)
        prefix = np.zeros(0, np.int64)
    else:
        deals[:] = history[:32]
        prefix = np.array(history[32:], np.int64)
    seeds = rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)
    return deals, prefix, seeds


def random_playouts(game: SkatGame, n: int, seed: int, state: SkatState | None = None,
                    engine: str = "numba") -> Playouts:
    """``n`` uniformly random games to the end (chance uniform), from the start or ``state``
    (left unchanged); the same ``seed`` gives the same games with either ``engine``
    (``"numba"``: one compiled loop; ``"python"``: through the ``State``)."""
    return playout_histories(game, n, seed, state, engine, histories=False)[0]


def playout_histories(game: SkatGame, n: int, seed: int, state: SkatState | None = None,
                      engine: str = "numba", histories: bool = True,
                      ) -> tuple[Playouts, list[list[int]]]:
    """:func:`random_playouts` and every game's actions (``histories=False``: none)."""
    n = check_playouts(n, seed)
    if engine not in ("numba", "python"):
        from spielwerk.core.errors import SpielwerkError

        raise SpielwerkError(f"random_playouts: engine must be numba or python, not {engine!r}")
    deals, prefix, seeds = _draw(game, n, seed, state)
    returns = np.zeros((n, game.players))
    moves = np.zeros(n, np.int64)
    if engine == "python":
        games = [_python_game(game, deals[i], prefix, int(seeds[i])) for i in range(n)]
        for i, s in enumerate(games):
            returns[i] = s.returns()
            moves[i] = len(s.history)
        played = [list(s.history) for s in games] if histories else []
    else:
        record = np.zeros((n if histories else 0, kernel_playout.MAX_ACTIONS), np.int64)
        kernel_playout.playouts(
            deals, prefix, seeds, game.ramsch, np.array(game.positions, np.int64),
            _turns(game), np.array(game.deal_seats, np.int64), _DECLS, _HAND_DECLS,
            _PICKUP_DECLS, returns, moves, record,
        )
        played = [record[i, :moves[i]].tolist() for i in range(record.shape[0])]
    return Playouts(returns, moves), played


def _turns(game: SkatGame) -> np.ndarray:
    """``turns[leader, k]`` of the game as an array (-1 rows for a 4-table's dealer)."""
    return np.array([t if t else (-1, -1, -1) for t in game.turns], np.int64)


def _python_game(game: SkatGame, deal: np.ndarray, prefix: np.ndarray, seed: int) -> SkatState:
    """One game of :func:`random_playouts` played through the ``State``."""
    s = game.new_initial_state()
    s.deal_cards(deal.tolist())
    for action in prefix.tolist():
        s.apply(action)
    draws = uniforms(seed, 0, kernel_playout.MAX_ACTIONS)
    k = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        s.apply(legal[int(draws[k] * len(legal))])
        k += 1
    return s


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
