"""The record format face of a game: its own text record format, beside JSON.

Every game has JSON records (``State.serialize``: the spec and the action history). A
game may also read and write records in a text format of its own (ISS for Skat), which
the web table offers as downloads and reads from uploads. Each game says so in
``records.py`` of its own package (a ``record_format(game)`` factory, found by
:func:`record_format`); the plain :class:`RecordFormat` is JSON only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.faces import find_face

if TYPE_CHECKING:
    from spielwerk.core.game import Game, State


class RecordFormatError(SpielwerkError, ValueError):
    """A text record in a game's own format that cannot be read (its message says why)."""


class RecordFormat:
    """A game's text records; built once per game (:func:`record_format`). The defaults
    are those of a game with JSON records only."""

    format_name: str | None = None
    """The name of the game's own text record format (None: JSON records only)."""
    record_line: str = ""
    """What an upload in that format holds, for a message (e.g. "an ISS record line")."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def has_text_record(self, state: State) -> bool:
        """Whether :meth:`write_text_record` can write the finished ``state``."""
        return False

    def write_text_record(self, state: State, players: list[str], game_id: str) -> str:
        """The finished ``state`` as a record in :attr:`format_name`."""
        raise RecordFormatError(f"{self.game.name} has no text record format")

    def read_text_record(self, text: str) -> tuple[State, list[str]] | None:
        """The game of a text record in :attr:`format_name` and notes for the person;
        None when ``text`` holds no such record, :class:`RecordFormatError` when it does
        but cannot be read."""
        return None


def record_format(game: Game) -> RecordFormat:
    """The record format face of ``game``: ``record_format(game)`` of the module
    ``records`` in the package of the game's class. Raises
    :class:`~spielwerk.core.faces.NoFaceError` when there is none."""
    face: RecordFormat = find_face(game, "records", "record_format", RecordFormat,
                                   "record format face (which text records it reads and writes)")
    return face
