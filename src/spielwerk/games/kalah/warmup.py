"""Kalah's part of ``spielwerk warmup``: the first calls of its kernels, with the argument
types the commands use (the API's moves, the arena's random agent, ``spielwerk kalah
solve``'s solver and the check of a database file as it is loaded)."""

from __future__ import annotations

import random

import numpy as np

from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.core.testing import api_playouts
from spielwerk.games.kalah import egdb, kernel
from spielwerk.games.kalah.solver import Solver


def warm_up() -> None:
    api_playouts("kalah", 2)
    game = load_game("kalah")
    game.random_playouts(2, 0)
    # the random agent's uniforms kernel (core/splitmix.py), as the arena uses it
    play(game.new_initial_state(), [make_agent("random", game, seed=s) for s in (0, 1)],
         random.Random(0))
    game.legal_action_masks([game.new_initial_state()])  # type: ignore[attr-defined]
    for empty_capture in (False, True):  # as `spielwerk kalah solve` builds it
        solver = Solver(3, empty_capture, kernel.END_EITHER_EMPTY, max_seeds=12, egdb_seeds=0,
                        egdb_path=None, tt_log2=16, depth_step=3, depth_max=12)
        rel = solver.relative(kernel.initial_board(3, 2), 0)
        value = solver.value(rel)
        solver.best_move(rel, value)
        solver.principal_variation(rel, value)
    # a loaded database's check: a read-only array, as the file's mapping is
    egdb._block_sums(egdb.read_only(np.zeros(16, np.int8)), 0, 1, np.zeros(1, np.uint64))
