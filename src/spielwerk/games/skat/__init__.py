"""Skat under the International Skat Order: the rules, scoring, ISS records, positions and the
double-dummy solver. The Skat AI (bidding, putting, win chances, knowledge bases, agents) is
:mod:`spielwerk.games.skat_ai`; the registry loads it with the game (``plugin.py`` names
both), so importing this package itself loads nothing."""
