"""What a browser sees: one seat's view, built from ``state.info_state(seat)`` only.

The game's own fields come from its table face (``table_face(game).table_view``,
:mod:`spielwerk.core.table_face`), which receives an ``InfoState`` and never the full
``State``, so a hidden card cannot reach a browser by construction. The one exception is
:func:`final_reveal`, called only for a finished game (the rules then show every hand),
which the review also uses.

Legal choices go out as ``{"id": action, "label": text, "kind": ...}``.
"""

from __future__ import annotations

from typing import Any

from spielwerk.core.game import TERMINAL, State
from spielwerk.core.table_face import table_face


def common_fields(state: State, cur: int) -> dict[str, Any]:
    """The fields every view has (``cur``: the player to move as the viewer knows it)."""
    game = state.game
    return {"game": game.name, "spec": game.spec(), "heading": table_face(game).heading(),
            "players": game.num_players,
            "to_move": cur if cur >= 0 else None, "over": cur == TERMINAL,
            "ply": len(state.history)}


def seat_view(state: State, seat: int) -> dict[str, Any]:
    """The whole message body for ``seat``: common fields plus the game's own view."""
    info = state.info_state(seat)
    game = state.game
    face = table_face(game)
    body = face.table_view(info)
    cur = info.current_player
    body.update(common_fields(state, cur), seat=seat)
    body.update(face.table_extras(state))  # public facts only (see each game's test)
    if cur == TERMINAL:
        body["returns"] = state.returns()
        body["reveal"] = final_reveal(state)
    return body


def public_view(state: State) -> dict[str, Any]:
    """A spectator's message body: the common fields, the game's public view
    (``TableFace.public_view``, no hand of anyone) and its public extras; no legal moves."""
    game = state.game
    face = table_face(game)
    body = face.public_view(state)
    cur = state.current_player
    body.update(common_fields(state, cur), seat=None, public=True, legal=[])
    body.update(face.table_extras(state))
    if cur == TERMINAL:
        body["returns"] = state.returns()
        body["reveal"] = final_reveal(state)
    return body


def final_reveal(state: State) -> dict[str, Any] | None:
    """Everything the rules show once a game is over (every hand as dealt, ...).

    Only for terminal states; the review and the end-of-game screen use it.
    """
    if not state.is_terminal():
        raise ValueError("final_reveal is only for finished games")
    return table_face(state.game).final_reveal(state)


def action_label(state: State, action: int) -> str:
    """Public label of an action just played (never a put card to others: see caller)."""
    return table_face(state.game).action_label(state, action)
