"""Skat baseline agents (filled in below)."""
