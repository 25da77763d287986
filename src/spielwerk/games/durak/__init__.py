"""Durak: rules with presets (classic, zarlykov2023, perevodnoy) and agents."""

from spielwerk.games.durak import agents, rules  # noqa: F401
