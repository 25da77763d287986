"""Nim's bench workload (a plain negamax over every pile: its node count is the signature)
and its warm-up (nothing to compile: a few games through the API, and a line in a file
named by ``$SPIELWERK_NIM_WARMED`` so a test sees that it ran)."""

from __future__ import annotations

import os
import time

from spielwerk.core.testing import api_playouts
from spielwerk.plugins import BenchPositions, BenchWorkload

PILES = (8, 10, 12)
"""Piles solved with take 3, each by a fresh search."""


def _negamax(stones: int, take: int, counter: list[int]) -> int:
    counter[0] += 1
    if stones == 0:
        return -1  # the previous player took the last stone
    return max(-_negamax(stones - k, take, counter) for k in range(1, min(take, stones) + 1))


def positions() -> BenchPositions:
    for stones in PILES:
        counter = [0]
        start = time.perf_counter()
        _negamax(stones, 3, counter)
        yield f"pile {stones}, take 3", counter[0], time.perf_counter() - start


def _warm_bench() -> None:
    _negamax(3, 3, [0])


def warm_up() -> None:
    api_playouts("nim", 3)
    marker = os.environ.get("SPIELWERK_NIM_WARMED")
    if marker:
        with open(marker, "a", encoding="utf-8") as out:
            out.write("warmed\n")


WORKLOAD = BenchWorkload(positions=positions, warm_up=_warm_bench)
