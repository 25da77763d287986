"""Nim's records: JSON only (no text record format of its own)."""

from __future__ import annotations

from spielwerk.core.game import Game
from spielwerk.core.record_format import RecordFormat


def record_format(game: Game) -> RecordFormat:
    return RecordFormat(game)
