"""The observation face of a game: what host libraries (OpenSpiel, PettingZoo) need.

Its sizes up front (action count, chance outcomes, game length, player counts), a
fixed-size tensor of what a player knows, and the information-state and observation
strings. Each game answers these in ``observation.py`` of its own package (an
``observation_face(game)`` factory, found by :func:`observation_face`; the module
documents the tensor layout), so the adapters in ``interop/`` hold no game names.

Every method reads only the player's :class:`~spielwerk.core.game.InfoState`, never the
full State, so what a host library shows a player is, by construction, what that player
may know.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spielwerk.core.faces import find_face

if TYPE_CHECKING:
    import numpy as np

    from spielwerk.core.game import Game, InfoState


@dataclass(frozen=True)
class Sizes:
    """What a host library must know up front (OpenSpiel's ``GameInfo``)."""

    num_actions: int
    """Player action ids are ``0 .. num_actions - 1`` (chance outcomes excluded)."""
    max_chance_outcomes: int
    max_game_length: int
    min_players: int
    max_players: int


class ObservationFace(ABC):
    """A game's face to host libraries; built once per game (:func:`observation_face`)."""

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

    def info_string(self, info: InfoState) -> str:
        """The information-state string: the seat plus a 128-bit digest of the info
        state's fingerprint, equal exactly when the knowledge is equal (up to hash
        collisions)."""
        digest = hashlib.blake2b(repr(info.fingerprint()).encode(), digest_size=16).hexdigest()
        return f"seat {info.player} knows {digest}"

    def observation_string(self, info: InfoState) -> str:
        """Readable text of what the player knows (``str(info)``)."""
        return str(info)


def bits_into(out: np.ndarray, offset: int, mask: int, width: int) -> None:
    """Ones at ``out[offset + i]`` for the set bits ``i < width`` of ``mask`` (card planes)."""
    for i in range(width):
        if mask >> i & 1:
            out[offset + i] = 1.0


def observation_face(game: Game) -> ObservationFace:
    """The observation face of ``game``: ``observation_face(game)`` of the module
    ``observation`` in the package of the game's class. Raises
    :class:`~spielwerk.core.faces.NoFaceError` when there is none."""
    face: ObservationFace = find_face(game, "observation", "observation_face", ObservationFace,
                                      "observation face (no tensors or sizes for host libraries)")
    return face
