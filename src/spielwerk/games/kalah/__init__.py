"""Kalah(m,n): rules, agents (the solver-backed ``perfect`` agent lives in ``perfect``)."""

import spielwerk.games.kalah.perfect  # noqa: F401  (registers the "perfect" agent)
from spielwerk.games.kalah import agents, rules  # noqa: F401
from spielwerk.games.kalah.rules import KalahGame, KalahState

__all__ = ["KalahGame", "KalahState"]
