"""``spielwerk bench``: a fixed set of solver positions per game, Stockfish's habit.

Each game's exact solver runs on the same positions every time with a fresh
table; the total node count per game is its **signature**: a change to move
generation, ordering, pruning or the table shows up as a different number,
which must then be made on purpose (and recorded in :data:`SIGNATURE` and in
the commit). Nodes per second measure the machine and the build.

* **Skat** (double-dummy solver, :mod:`spielwerk.games.skat.dds`): the eight
  full deals of ``tests/test_skat_dds.py``'s node-count signature (seeded
  deals, one query each: 61 / exact / 90 / null / schwarz).
* **Kalah(6,4)** (:mod:`spielwerk.games.kalah.solver`): the three signature
  positions of ``tests/test_kalah_solver.py`` and two middle-game positions,
  solved with the signature test's settings.
* **Durak** (2 players, :mod:`spielwerk.games.durak.endgame`): endgames
  reached by seeded random games (stock empty), every root move solved.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from spielwerk.core.errors import SpielwerkError

SIGNATURE = {"skat": 764_055, "kalah": 921_390, "durak": 835_677}
"""Total nodes per game; ``tests/test_bench.py`` checks them."""

GAMES = tuple(SIGNATURE)

SKAT_POSITIONS: tuple[tuple[str, int, int], ...] = (
    ("61", 0, 3), ("61", 5, 4), ("exact", 1, 4), ("exact", 7, 2),
    ("90", 4, 1), ("null", 2, 5), ("null", 6, 5), ("schwarz", 3, 0),
)
"""(query, deal seed, game code): the deals of :func:`skat_deal`."""

KALAH_POSITIONS: tuple[tuple[str, bool], ...] = (
    ("3,0,2,1,2,0|2,1,0,3,1,0|20-13 S", False),
    ("0,1,3,0,2,2|2,0,1,1,1,1|15-18 N", True),
    ("1,1,1,1,1,1|1,1,1,1,1,1|18-18 S", False),
    ("1,7,9,0,3,0|1,2,2,0,6,2|8-7 N", False),
    ("3,5,11,1,0,11|3,1,1,0,0,1|4-7 N", False),
)
"""(position in Kalah notation, empty capture) for Kalah(6,4)."""

DURAK_SEEDS: tuple[int, ...] = (2, 5, 7)
"""Seeds of the random games whose first position with an empty stock is solved."""

DURAK_BUDGET = 10**9
DURAK_TT_BITS = 20


@dataclass(frozen=True)
class BenchRow:
    """One game's bench: positions solved, total nodes, seconds of search."""

    game: str
    positions: int
    nodes: int
    seconds: float

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def signature_ok(self) -> bool:
        return self.nodes == SIGNATURE[self.game]


Progress = Callable[[str], None]


def skat_deal(seed: int, game: int) -> object:
    """The full deal of a signature position: seat 0 declares, cards by a seeded permutation."""
    from spielwerk.games.skat import kernel
    from spielwerk.games.skat.dds import DealPosition

    perm = [int(c) for c in np.random.default_rng(seed).permutation(32)]
    hands = tuple(sum(1 << c for c in perm[i * 10:(i + 1) * 10]) for i in range(3))
    skat = (1 << perm[30]) | (1 << perm[31])
    points = int(kernel.points(skat)) if game != kernel.NULL else 0
    return DealPosition(game=game, declarer=0, hands=hands,  # type: ignore[arg-type]
                        declarer_points=points)


def skat_nodes() -> Iterable[tuple[str, int, float]]:
    """(label, nodes, seconds) of every Skat position, each with a fresh solver."""
    from spielwerk.games.skat.dds import Solver

    for query, seed, game in SKAT_POSITIONS:
        deal = skat_deal(seed, game)
        solver = Solver()
        start = time.perf_counter()
        solver.query(deal, query)  # type: ignore[arg-type]
        yield f"{query} seed {seed} game {game}", solver.nodes, time.perf_counter() - start


def kalah_nodes() -> Iterable[tuple[str, int, float]]:
    """(label, nodes, seconds) of every Kalah(6,4) position, each with a fresh solver."""
    from spielwerk.games.kalah.notation import parse_position
    from spielwerk.games.kalah.solver import Solver

    for text, empty_capture in KALAH_POSITIONS:
        board, player = parse_position(text)
        solver = Solver(6, empty_capture, max_seeds=48, tt_log2=16, depth_step=0)
        start = time.perf_counter()
        solver.value(solver.relative(board, player))
        yield text, solver.stats.nodes, time.perf_counter() - start


def durak_endgame(seed: int) -> object:
    """The first position of a seeded random 2-player Durak game with the stock empty."""
    from spielwerk.core.registry import load_game

    rng = random.Random(seed)
    state = load_game("durak").new_initial_state()
    while not state.is_terminal():
        if not state.is_chance_node() and state.info_state(0).stock == 0:  # type: ignore[attr-defined]
            return state
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    raise RuntimeError(f"durak bench game {seed} ended before the stock was empty")


def durak_nodes() -> Iterable[tuple[str, int, float]]:
    """(label, nodes, seconds) of every Durak endgame, all root moves solved."""
    from spielwerk.games.durak.endgame import solve_root_counted

    for seed in DURAK_SEEDS:
        state = durak_endgame(seed)
        start = time.perf_counter()
        _, nodes = solve_root_counted(state.S, DURAK_BUDGET, DURAK_TT_BITS)  # type: ignore[attr-defined]
        yield f"game {seed}, ply {len(state.history)}", nodes, time.perf_counter() - start  # type: ignore[attr-defined]


POSITIONS: dict[str, Callable[[], Iterable[tuple[str, int, float]]]] = {
    "skat": skat_nodes, "kalah": kalah_nodes, "durak": durak_nodes,
}


def warm_up(game: str) -> None:
    """Load (or compile) ``game``'s solver kernels on a tiny search, outside the timing."""
    if game == "skat":
        from spielwerk.games.skat.dds import Solver as SkatSolver

        query, seed, code = SKAT_POSITIONS[-1]
        SkatSolver().query(skat_deal(seed, code), query)  # type: ignore[arg-type]
    elif game == "kalah":
        from spielwerk.games.kalah.notation import parse_position
        from spielwerk.games.kalah.solver import Solver as KalahSolver

        board, player = parse_position(KALAH_POSITIONS[2][0])
        solver = KalahSolver(6, False, max_seeds=48, tt_log2=10, depth_step=0)
        solver.value(solver.relative(board, player))
    elif game == "durak":
        from spielwerk.games.durak.endgame import solve_root_counted

        solve_root_counted(durak_endgame(DURAK_SEEDS[0]).S, 1, 4)  # type: ignore[attr-defined]


def run_bench(games: Iterable[str] = GAMES, progress: Progress | None = None) -> list[BenchRow]:
    """Solve every position of ``games``; ``progress`` gets one line per position.

    Each game's kernels are loaded (compiled on a fresh cache) before its timing.
    """
    rows = []
    for game in games:
        if game not in POSITIONS:
            raise SpielwerkError(f"no bench for {game!r} (games: {', '.join(GAMES)})")
        warm_up(game)
        count = nodes = 0
        seconds = 0.0
        for label, n, took in POSITIONS[game]():
            count += 1
            nodes += n
            seconds += took
            if progress is not None:
                progress(f"{game:6s} {label:36s} {n:>11,} nodes {took:7.2f} s")
        rows.append(BenchRow(game, count, nodes, seconds))
    return rows
