"""Durak's part of ``spielwerk warmup``: the first calls of its kernels (the API's moves,
playouts, legal-action masks and the endgame solver on a position with the stock empty)."""

from __future__ import annotations

import random

import numpy as np

from spielwerk.core.registry import load_game
from spielwerk.core.testing import api_playouts
from spielwerk.games.durak import kernel as K


def warm_up() -> None:
    api_playouts("durak", 1)
    game = load_game("durak")
    game.random_playouts(2, 0)
    game.legal_action_masks([game.new_initial_state()])  # type: ignore[attr-defined]
    state = game.new_dealt_state(np.random.default_rng(0))  # type: ignore[attr-defined]
    rng = random.Random(1)
    while not state.is_terminal() and not (state.stock_size() == 0 and len(state.history) > 40):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    if not state.is_terminal():
        K.solve_best(state.S.copy(), 20_000, 20)
