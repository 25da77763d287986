"""Fixed-size tensors and strings of an :class:`InfoState`, shared by both adapters.

The tensors, sizes and strings are each game's own (its observation face,
:func:`~spielwerk.core.observation.observation_face`: ``observation.py`` in the game's
package, which documents its tensor layout). Every encoder reads only the player's
``InfoState`` (never the full State), so whatever a host library shows a player is, by
construction, what that player may know. Seats are encoded relative to the viewer
(index 0 is the viewer).

By default the information-state string is the player's seat plus a 128-bit digest of
the InfoState's fingerprint (equal exactly when the knowledge is equal, up to hash
collisions) and the observation string is the readable ``str(info_state)``.
"""

from __future__ import annotations

import numpy as np

from spielwerk.core.game import CHANCE, TERMINAL, Game, InfoState
from spielwerk.core.observation import observation_face


def num_actions(game: Game) -> int:
    """Player action ids are ``0 .. num_actions(game) - 1`` (chance outcomes excluded)."""
    return observation_face(game).sizes().num_actions


def tensor_high(game: Game) -> float:
    """Largest value any entry of the tensor takes (seed counts in Kalah, else 1)."""
    return observation_face(game).tensor_high()


def tensor_size(game: Game) -> int:
    """Length of the information-state tensor of ``game``."""
    return observation_face(game).tensor_size()


def encode_into(info: InfoState, out: np.ndarray) -> None:
    """Write the tensor of ``info`` into ``out`` (zeroed here; length :func:`tensor_size`)."""
    out.fill(0.0)
    observation_face(info.game).encode_into(info, out)


def encode(info: InfoState) -> np.ndarray:
    """The information-state tensor of ``info`` as a new float32 array."""
    out = np.zeros(tensor_size(info.game), np.float32)
    encode_into(info, out)
    return out


def info_string(info: InfoState) -> str:
    """The information-state string (by default the seat plus a digest of the
    fingerprint: equal exactly for equal knowledge)."""
    return observation_face(info.game).info_string(info)


def observation_string(info: InfoState) -> str:
    """Readable text of what the player knows."""
    return observation_face(info.game).observation_string(info)


def mover_name(player: int) -> str:
    if player == CHANCE:
        return "chance"
    if player == TERMINAL:
        return "terminal"
    return f"seat {player}"
