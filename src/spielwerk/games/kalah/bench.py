"""Kalah's ``spielwerk bench`` workload: the solver (:mod:`spielwerk.games.kalah.solver`) on
Kalah(6,4), the three signature positions of ``tests/test_kalah_solver.py`` and two
middle-game positions, solved with the signature test's settings."""

from __future__ import annotations

import time

from spielwerk.games.kalah.notation import parse_position
from spielwerk.games.kalah.solver import Solver
from spielwerk.plugins import BenchPositions, BenchWorkload

KALAH_POSITIONS: tuple[tuple[str, bool], ...] = (
    ("3,0,2,1,2,0|2,1,0,3,1,0|20-13 S", False),
    ("0,1,3,0,2,2|2,0,1,1,1,1|15-18 N", True),
    ("1,1,1,1,1,1|1,1,1,1,1,1|18-18 S", False),
    ("1,7,9,0,3,0|1,2,2,0,6,2|8-7 N", False),
    ("3,5,11,1,0,11|3,1,1,0,0,1|4-7 N", False),
)
"""(position in Kalah notation, empty capture) for Kalah(6,4)."""


def kalah_nodes() -> BenchPositions:
    """(label, nodes, seconds) of every Kalah(6,4) position, each with a fresh solver."""
    for text, empty_capture in KALAH_POSITIONS:
        board, player = parse_position(text)
        solver = Solver(6, empty_capture, max_seeds=48, tt_log2=16, depth_step=0)
        start = time.perf_counter()
        solver.value(solver.relative(board, player))
        yield text, solver.stats.nodes, time.perf_counter() - start


def warm_up() -> None:
    """Load (or compile) the solver's kernels on a small position with a small table."""
    board, player = parse_position(KALAH_POSITIONS[2][0])
    solver = Solver(6, False, max_seeds=48, tt_log2=10, depth_step=0)
    solver.value(solver.relative(board, player))


WORKLOAD = BenchWorkload(positions=kalah_nodes, warm_up=warm_up)
