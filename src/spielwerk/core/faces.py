"""How a game's faces are found: by the plug-in convention, no game names here.

A game shows itself outside its rules through three small faces, each for one audience
and each in its own module of the package that holds the game's class (beside its
rules, as its agents and command line are):

- :mod:`~spielwerk.core.observation`: sizes, tensors and observation strings for host
  libraries (OpenSpiel, PettingZoo); module ``observation``, ``observation_face(game)``.
- :mod:`~spielwerk.core.table_face`: what people see at the web table and in its lobby,
  and the defaults the terminal shares (the default opponents); module ``table_face``,
  ``table_face(game)``.
- :mod:`~spielwerk.core.record_format`: the game's own text record format (ISS for Skat),
  beside the JSON records every game has; module ``records``, ``record_format(game)``.

Each face is built once per game (kept on the game object) by :func:`find_face`; a game
without the module gets a :class:`NoFaceError` that says what to add.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from spielwerk.core.errors import SpielwerkError

if TYPE_CHECKING:
    from spielwerk.core.game import Game

class NoFaceError(SpielwerkError):
    """A game without the face asked for (no tensors for host libraries, no table, ...)."""


def find_face(game: Game, module: str, factory: str, kind: type[Any], what: str) -> Any:
    """The face ``factory(game)`` of the module ``module`` in the package of the game's
    class, built once per game and checked to be a ``kind``. ``what`` names the face in
    the error of a game without that module (:class:`NoFaceError`)."""
    cache: dict[str, object] = game.__dict__.setdefault("_faces", {})
    made = cache.get(module)
    if made is None:
        package = type(game).__module__.rpartition(".")[0]
        wanted = f"{package}.{module}" if package else f".{module}"
        try:
            if not package:
                raise ModuleNotFoundError(name=wanted)
            loaded = importlib.import_module(wanted)
        except ModuleNotFoundError as exc:
            if exc.name != wanted:
                raise
            raise NoFaceError(f"{game.name} has no {what}: add {wanted} with the factory "
                              f"{factory}(game)") from None
        made = getattr(loaded, factory)(game)
        if not isinstance(made, kind):
            raise NoFaceError(f"{wanted}.{factory}(game) made a {type(made).__name__}, "
                              f"not a {kind.__name__}")
        cache[module] = made
    return made
