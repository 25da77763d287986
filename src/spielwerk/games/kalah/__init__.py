"""Kalah(m,n): rules, agents (solver-backed agents live in ``solver``)."""

import spielwerk.games.kalah.solver  # noqa: F401  (registers the "perfect" agent)
from spielwerk.games.kalah import agents, rules  # noqa: F401
from spielwerk.games.kalah.rules import KalahGame, KalahState

__all__ = ["KalahGame", "KalahState"]
