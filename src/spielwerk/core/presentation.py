"""The presentation face of a game: how it shows itself outside its rules.

Host libraries (OpenSpiel, PettingZoo) need a game's sizes and a fixed-size
tensor of what a player knows; a table for people (the web) needs a view of
an info state and the names of its actions. Each game answers these through
one :class:`Presentation`, kept in its own package (``presentation.py`` beside
its rules), so the adapters in ``interop/`` and the web table hold no game
names: they ask ``game.presentation()``.

Every method reads only the player's :class:`~spielwerk.core.game.InfoState`,
never the full State, so what a host library or a browser shows a player is,
by construction, what that player may know.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spielwerk.core.errors import SpielwerkError

if TYPE_CHECKING:
    import numpy as np

    from spielwerk.core.game import Game, InfoState


class NoPresentationError(SpielwerkError):
    """A game that has no presentation (no tensors, no sizes for host libraries)."""


@dataclass(frozen=True)
class Sizes:
    """What a host library must know up front (OpenSpiel's ``GameInfo``)."""

    num_actions: int
    """Player action ids are ``0 .. num_actions - 1`` (chance outcomes excluded)."""
    max_chance_outcomes: int
    max_game_length: int
    min_players: int
    max_players: int


class Presentation(ABC):
    """A game's face to host libraries and people; built once per game
    (:meth:`spielwerk.core.game.Game.presentation`)."""

    def __init__(self, game: Game) -> None:
        self.game = game

    @abstractmethod
    def sizes(self) -> Sizes:
        """Action count, chance outcomes, game length and player counts."""

    @abstractmethod
    def tensor_size(self) -> int:
        """Length of the information-state tensor."""

    def tensor_high(self) -> float:
        """Largest value any entry of the tensor takes (1 unless counts are encoded)."""
        return 1.0

    @abstractmethod
    def encode_into(self, info: InfoState, out: np.ndarray) -> None:
        """Write the tensor of ``info`` into ``out``, which the caller has zeroed."""

    def view(self, info: InfoState) -> dict[str, Any]:
        """What ``info``'s player sees, JSON-ready, for a table of people: the seat, the
        player to move, the legal actions with their names and the readable text. A game
        adds its own fields (a board, hands, the trick) by overriding this."""
        legal = info.legal_actions() if not info.is_terminal() else []
        return {
            "game": self.game.spec(),
            "seat": info.player,
            "to_move": info.current_player,
            "over": info.is_terminal(),
            "legal": [{"action": a, "name": info.action_to_string(a)} for a in legal],
            "text": str(info),
        }


def bits_into(out: np.ndarray, offset: int, mask: int, width: int) -> None:
    """Ones at ``out[offset + i]`` for the set bits ``i < width`` of ``mask`` (card planes)."""
    for i in range(width):
        if mask >> i & 1:
            out[offset + i] = 1.0


def presentation_of(game: Game) -> Presentation:
    """The presentation of ``game``: the ``presentation(game)`` factory of the module
    ``presentation`` in the package of the game's class (the plugin convention, no game
    names here). Raises :class:`NoPresentationError` when there is none."""
    package = type(game).__module__.rpartition(".")[0]
    try:
        if not package:
            raise ModuleNotFoundError(name=".presentation")
        module = importlib.import_module(f"{package}.presentation")
    except ModuleNotFoundError as exc:
        if exc.name not in (f"{package}.presentation", ".presentation"):
            raise
        raise NoPresentationError(
            f"{game.name} has no presentation (no tensors or sizes for host libraries): "
            f"add {package}.presentation with a presentation(game) factory") from None
    made: Presentation = module.presentation(game)
    return made
