"""Durak's records (:mod:`spielwerk.core.record_format`): JSON only (the spec and the
moves; there is no text record format of its own)."""

from __future__ import annotations

from spielwerk.core.game import Game
from spielwerk.core.record_format import RecordFormat


def record_format(game: Game) -> RecordFormat:
    return RecordFormat(game)
