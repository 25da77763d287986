"""Durak: rules with presets (classic, zarlykov2023, perevodnoy) and agents.

Importing the package loads nothing (its plug-in record, ``plugin.py``, is read without the
rules); the registry imports the modules the record names on first use of the game.
"""
