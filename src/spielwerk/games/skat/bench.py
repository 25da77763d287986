"""Skat's ``spielwerk bench`` workload: the double-dummy solver (:mod:`spielwerk.games.skat.dds`)
on the eight full deals of ``tests/test_skat_dds.py``'s node-count signature (seeded deals,
one query each: 61 / exact / 90 / null / schwarz)."""

from __future__ import annotations

import time

import numpy as np

from spielwerk.games.skat import kernel
from spielwerk.games.skat.dds import DealPosition, Solver
from spielwerk.plugins import BenchPositions, BenchWorkload

SKAT_POSITIONS: tuple[tuple[str, int, int], ...] = (
    ("61", 0, 3), ("61", 5, 4), ("exact", 1, 4), ("exact", 7, 2),
    ("90", 4, 1), ("null", 2, 5), ("null", 6, 5), ("schwarz", 3, 0),
)
"""(query, deal seed, game code): the deals of :func:`skat_deal`."""


def skat_deal(seed: int, game: int) -> DealPosition:
    """The full deal of a signature position: seat 0 declares, cards by a seeded permutation."""
    perm = [int(c) for c in np.random.default_rng(seed).permutation(32)]
    hands = tuple(sum(1 << c for c in perm[i * 10:(i + 1) * 10]) for i in range(3))
    skat = (1 << perm[30]) | (1 << perm[31])
    points = int(kernel.points(skat)) if game != kernel.NULL else 0
    return DealPosition(game=game, declarer=0, hands=hands,  # type: ignore[arg-type]
                        declarer_points=points)


def skat_nodes() -> BenchPositions:
    """(label, nodes, seconds) of every Skat position, each with a fresh solver."""
    for query, seed, game in SKAT_POSITIONS:
        deal = skat_deal(seed, game)
        solver = Solver()
        start = time.perf_counter()
        solver.query(deal, query)
        yield f"{query} seed {seed} game {game}", solver.nodes, time.perf_counter() - start


def warm_up() -> None:
    """Load (or compile) the solver's kernels on the smallest position."""
    query, seed, code = SKAT_POSITIONS[-1]
    Solver().query(skat_deal(seed, code), query)


WORKLOAD = BenchWorkload(positions=skat_nodes, warm_up=warm_up)
