"""Skat's part of ``spielwerk warmup``: the first calls of its kernels (the API's moves,
playouts, legal-action masks, the double-dummy solver as ``spielwerk skat solve`` and the
bench run it); ``tests/test_warmup.py`` checks that ``skat solve`` then compiles nothing new."""

from __future__ import annotations

import random

from spielwerk.core.registry import load_game
from spielwerk.core.testing import api_playouts
from spielwerk.games.skat.actions import PLAY
from spielwerk.games.skat.bench import skat_deal
from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.position import parse_position


def warm_up() -> None:
    api_playouts("skat", 3)
    game = load_game("skat")
    game.random_playouts(2, 0)
    state = game.new_initial_state()
    rng = random.Random(2)
    while not state.is_terminal() and state.phase != PLAY:  # type: ignore[attr-defined]
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    game.legal_action_masks([state])  # type: ignore[attr-defined]
    for query, seed, code in (("61", 3, 0), ("exact", 3, 0), ("null", 6, 5)):  # double dummy
        Solver().query(skat_deal(seed, code), query)
    skat_solve()


def skat_solve() -> None:
    """What `spielwerk skat solve` runs: a position read from its JSON notation, then the
    value of every card (``Solver.solve``, whose kernels ``Solver.query`` does not use) for a
    card-point, a threshold and a null query."""
    grand = {"game": "grand", "declarer": 0, "hands": [["CJ", "SA"], ["HA", "H7"], ["DA", "S7"]],
             "to_move": 0, "declarer_tricks": 4, "defender_tricks": 4}
    null = {**grand, "game": "null", "declarer_tricks": 0, "defender_tricks": 8}
    for data, queries in ((grand, ("exact", "61")), (null, ("null",))):
        position = parse_position(data)
        position.describe()
        for query in queries:
            Solver().solve(position.deal, query)
