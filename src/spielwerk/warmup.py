"""Compile (or load) the numba kernels ahead of a user's first command.

numba compiles a kernel on its first call; with ``cache=True`` the result is
kept in the user's cache folder (:mod:`spielwerk._jit`) and later processes
load it in milliseconds. :func:`warm_up` makes those first calls on tiny
inputs, with the same argument types the commands use, so that
``spielwerk kalah solve``, ``spielwerk skat solve`` or an arena run starts without a
compile wait (``tests/test_warmup.py`` checks that ``skat solve`` compiles nothing new).
``spielwerk warmup`` runs it; ``make install`` / ``make run`` call that.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable


def _play_api(spec: str, games: int) -> None:
    from spielwerk import load_game

    game = load_game(spec)
    rng = random.Random(0)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        state.returns()


def _kalah() -> None:
    from spielwerk import load_game
    from spielwerk.core.agent import make_agent
    from spielwerk.core.play import play
    from spielwerk.games.kalah import kernel
    from spielwerk.games.kalah.solver import Solver

    _play_api("kalah", 2)
    game = load_game("kalah")
    game.random_playouts(2, 0)
    # the random agent's uniforms kernel (core/splitmix.py), as the arena uses it
    play(game.new_initial_state(), [make_agent("random", game, seed=s) for s in (0, 1)],
         random.Random(0))
    game.legal_action_masks([game.new_initial_state()])  # type: ignore[attr-defined]
    from spielwerk.arena.seeds import derive_seeds

    derive_seeds([(0, 1, 2)])  # a tournament schedule's seeds (arena/_seedhash.py)
    for empty_capture in (False, True):  # as `spielwerk kalah solve` builds it
        solver = Solver(3, empty_capture, kernel.END_EITHER_EMPTY, max_seeds=12, egdb_seeds=0,
                        egdb_path=None, tt_log2=16, depth_step=3, depth_max=12)
        rel = solver.relative(kernel.initial_board(3, 2), 0)
        value = solver.value(rel)
        solver.best_move(rel, value)
        solver.principal_variation(rel, value)


def _durak() -> None:
    import numpy as np

    from spielwerk import load_game
    from spielwerk.games.durak import kernel as K

    _play_api("durak", 1)
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


def _skat() -> None:
    from spielwerk import load_game
    from spielwerk.bench import skat_deal
    from spielwerk.games.skat.actions import PLAY
    from spielwerk.games.skat.dds import Solver

    _play_api("skat", 3)
    game = load_game("skat")
    game.random_playouts(2, 0)
    state = game.new_initial_state()
    rng = random.Random(2)
    while not state.is_terminal() and state.phase != PLAY:  # type: ignore[attr-defined]
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    game.legal_action_masks([state])  # type: ignore[attr-defined]
    for query, seed, code in (("61", 3, 0), ("exact", 3, 0), ("null", 6, 5)):  # double dummy
        Solver().query(skat_deal(seed, code), query)  # type: ignore[arg-type]
    _skat_solve()


def _skat_solve() -> None:
    """What `spielwerk skat solve` runs: a position read from its JSON notation, then the
    value of every card (``Solver.solve``, whose kernels ``Solver.query`` does not use) for a
    card-point, a threshold and a null query."""
    from spielwerk.games.skat.dds import Solver
    from spielwerk.games.skat.position import parse_position

    grand = {"game": "grand", "declarer": 0, "hands": [["CJ", "SA"], ["HA", "H7"], ["DA", "S7"]],
             "to_move": 0, "declarer_tricks": 4, "defender_tricks": 4}
    null = {**grand, "game": "null", "declarer_tricks": 0, "defender_tricks": 8}
    for data, queries in ((grand, ("exact", "61")), (null, ("null",))):
        position = parse_position(data)
        position.describe()
        for query in queries:
            Solver().solve(position.deal, query)


STEPS: dict[str, Callable[[], None]] = {"kalah": _kalah, "durak": _durak, "skat": _skat}


def warm_up(progress: Callable[[str], None] | None = None) -> float:
    """Run every step once; returns the seconds taken. ``progress`` gets one line per step."""
    start = time.perf_counter()
    for name, step in STEPS.items():
        t0 = time.perf_counter()
        step()
        if progress is not None:
            progress(f"{name}: kernels ready in {time.perf_counter() - t0:.1f} s")
    return time.perf_counter() - start
