"""The hint for the person at a table, worked out in an engine worker from their info
state only, by the game's table face (:meth:`~spielwerk.core.table_face.TableFace.hint`:
an AI package beside the rules registers it)."""

from __future__ import annotations

from typing import Any

from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.tasks import task


@task
def hint(spec: str, history: list[int], seat: int, seed: int,
         time_s: float) -> dict[str, Any]:
    """The hint for ``seat`` after ``history`` (from its info state only)."""
    state = load_game(spec).new_initial_state()
    for a in history:
        state.apply(int(a))
    return table_face(state.game).hint(state.info_state(seat), seed, time_s)
