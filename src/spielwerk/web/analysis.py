"""The reviews of a finished game that each game does its own way, run in engine
workers: the engine's verdict on every move, and a seat's review from what it knew then,
each through the game's table face (:mod:`spielwerk.core.table_face`).

Each task rebuilds the game from its spec and the action history (plain data in, plain
data out).
"""

from __future__ import annotations

from typing import Any

from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.tasks import task


@task
def review(spec: str, history: list[int]) -> list[dict[str, Any]]:
    """The engine's verdict on every move of the record (the game's own review)."""
    return table_face(load_game(spec)).review(spec, history)


@task
def seat_review(spec: str, history: list[int], seat: int) -> list[dict[str, Any]]:
    """The review of ``seat``'s decisions from what it knew then."""
    return table_face(load_game(spec)).seat_review(spec, history, seat)
