"""Skat under the International Skat Order: the rules, scoring, ISS records, positions and the
double-dummy solver. The Skat AI (bidding, putting, win chances, knowledge bases, agents) is
:mod:`spielwerk.games.skat_ai`; the registry loads it with the game."""

from spielwerk.games.skat import rules  # noqa: F401 - registers the game
