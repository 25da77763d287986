"""Fixed-size tensors and strings of an :class:`InfoState`, shared by both adapters.

The tensors and sizes are each game's own (its presentation face,
``game.presentation()``: :mod:`spielwerk.core.presentation`, one module per game
package, which documents its tensor layout). Every encoder reads only the
player's ``InfoState`` (never the full State), so whatever a host library shows
a player is, by construction, what that player may know. Seats are encoded
relative to the viewer (index 0 is the viewer).

The information-state string is the player's seat plus a 128-bit digest of the
InfoState's fingerprint (equal exactly when the knowledge is equal, up to hash
collisions); the observation string is the readable ``str(info_state)``.
"""

from __future__ import annotations

import hashlib

import numpy as np

from spielwerk.core.game import CHANCE, TERMINAL, Game, InfoState


def num_actions(game: Game) -> int:
    """Player action ids are ``0 .. num_actions(game) - 1`` (chance outcomes excluded)."""
    return game.presentation().sizes().num_actions


def tensor_high(game: Game) -> float:
    """Largest value any entry of the tensor takes (seed counts in Kalah, else 1)."""
    return game.presentation().tensor_high()


def tensor_size(game: Game) -> int:
    """Length of the information-state tensor of ``game``."""
    return game.presentation().tensor_size()


def encode_into(info: InfoState, out: np.ndarray) -> None:
    """Write the tensor of ``info`` into ``out`` (zeroed here; length :func:`tensor_size`)."""
    out.fill(0.0)
    info.game.presentation().encode_into(info, out)


def encode(info: InfoState) -> np.ndarray:
    """The information-state tensor of ``info`` as a new float32 array."""
    out = np.zeros(tensor_size(info.game), np.float32)
    encode_into(info, out)
    return out


def info_string(info: InfoState) -> str:
    """Seat plus a digest of the fingerprint: equal exactly for equal knowledge."""
    digest = hashlib.blake2b(repr(info.fingerprint()).encode(), digest_size=16).hexdigest()
    return f"seat {info.player} knows {digest}"


def observation_string(info: InfoState) -> str:
    """Readable text of what the player knows."""
    return str(info)


def mover_name(player: int) -> str:
    if player == CHANCE:
        return "chance"
    if player == TERMINAL:
        return "terminal"
    return f"seat {player}"
