"""Helpers for Skat tests: deals played by registered agents up to the declaration."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.core.seeds import derive_seed
from spielwerk.games.skat_ai.calibration import play_to_declaration

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def experiment(name: str) -> ModuleType:
    """The script ``experiments/NAME.py``, imported as the experiments import each other
    (their folder on ``sys.path``)."""
    if str(EXPERIMENTS) not in sys.path:
        sys.path.insert(0, str(EXPERIMENTS))
    return importlib.import_module(name)


def declared_deals(spec: str, seed: int, deals: int) -> Iterator[tuple[list[Any], Any]]:
    """(the three agents, the state at the declaration) of each of ``deals`` seeded deals
    that ``spec`` in all three seats does not pass in (agents and chance seeded as
    ``skat calibration`` seeds them)."""
    game = load_game("skat")
    for deal in range(deals):
        agents = [make_agent(spec, game, 0) for _ in range(3)]
        for s, agent in enumerate(agents):
            agent.reset(derive_seed(seed, 2, deal, s))
        state = play_to_declaration(game.new_initial_state(), agents,
                                    np.random.default_rng(derive_seed(seed, 1, deal)))
        if state is not None:
            yield agents, state


def random_hands(n: int, seed: int, size: int = 10) -> list[int]:
    """``n`` random hands of ``size`` distinct cards (masks), seeded."""
    rng = np.random.default_rng(seed)
    return [int(sum(1 << int(c) for c in rng.choice(32, size, replace=False)))
            for _ in range(n)]


class WorkClock:
    """``perf_counter`` of a machine that searches ``rate(t)`` nodes a second at time t."""

    def __init__(self, solver: Any, rates: list[tuple[float, float]]) -> None:
        self.solver, self.rates = solver, rates  # (from this time on, nodes a second)
        self.t, self.nodes = 0.0, 0

    def perf_counter(self) -> float:
        new = self.solver.nodes - self.nodes
        self.nodes = self.solver.nodes
        while new > 0:  # spend the new nodes at the rate of each period
            rate = [r for since, r in self.rates if since <= self.t][-1]
            later = [since for since, _ in self.rates if since > self.t]
            room = (later[0] - self.t) * rate if later else float("inf")
            done = min(new, room)
            self.t += done / rate + (1e-9 if done == room else 0.0)
            new -= done
        return self.t
