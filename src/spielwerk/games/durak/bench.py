"""Durak's ``spielwerk bench`` workload: the 2-player endgame solver
(:mod:`spielwerk.games.durak.endgame`) on endgames reached by seeded random games (stock
empty), every root move solved."""

from __future__ import annotations

import random
import time

from spielwerk.core.game import State
from spielwerk.core.registry import load_game
from spielwerk.games.durak.endgame import solve_root_counted
from spielwerk.plugins import BenchPositions, BenchWorkload

DURAK_SEEDS: tuple[int, ...] = (2, 5, 7)
"""Seeds of the random games whose first position with an empty stock is solved."""

DURAK_BUDGET = 10**9
DURAK_TT_BITS = 20


def durak_endgame(seed: int) -> State:
    """The first position of a seeded random 2-player Durak game with the stock empty."""
    rng = random.Random(seed)
    state = load_game("durak").new_initial_state()
    while not state.is_terminal():
        if not state.is_chance_node() and state.info_state(0).stock == 0:  # type: ignore[attr-defined]
            return state
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    raise RuntimeError(f"durak bench game {seed} ended before the stock was empty")


def durak_nodes() -> BenchPositions:
    """(label, nodes, seconds) of every Durak endgame, all root moves solved."""
    for seed in DURAK_SEEDS:
        state = durak_endgame(seed)
        start = time.perf_counter()
        _, nodes = solve_root_counted(state.S, DURAK_BUDGET, DURAK_TT_BITS)  # type: ignore[attr-defined]
        yield f"game {seed}, ply {len(state.history)}", nodes, time.perf_counter() - start


def warm_up() -> None:
    """Load (or compile) the endgame kernels on a search of one node."""
    solve_root_counted(durak_endgame(DURAK_SEEDS[0]).S, 1, 4)  # type: ignore[attr-defined]


WORKLOAD = BenchWorkload(positions=durak_nodes, warm_up=warm_up)
