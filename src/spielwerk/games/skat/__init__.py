"""Skat under the International Skat Order: rules, scoring, ISS records, baseline agents."""

from spielwerk.games.skat import agents, knn_agent, pimc_agent, rules  # noqa: F401
