"""Skat under the International Skat Order: rules, scoring, ISS records, baseline agents."""

from spielwerk.games.skat import agents, rules  # noqa: F401
