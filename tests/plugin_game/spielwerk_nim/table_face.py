"""Nim's table face: the web table's view, its lobby and the default opponent."""

from __future__ import annotations

from typing import Any

from spielwerk.core.game import Game, InfoState, PerfectInfoState
from spielwerk.core.table_face import LobbyField, TableFace
from spielwerk_nim.plugin import PLUGIN
from spielwerk_nim.rules import NimState


class NimTable(TableFace):
    table = True
    title = PLUGIN.title
    default_opponents = PLUGIN.default_opponents
    lobby_fields = (LobbyField("stones", "stones", low=1, high=50),
                    LobbyField("take", "take at most", low=1, high=9))
    spec_example = "perfect"
    web_scripts = ("nim.js",)

    def table_view(self, info: InfoState) -> dict[str, Any]:
        assert isinstance(info, PerfectInfoState)
        state = info.state
        assert isinstance(state, NimState)
        return {"stones": state.stones,
                "legal": [{"id": a, "label": f"take {a + 1}", "kind": "take"}
                          for a in info.legal_actions()]}

    def summary(self, state: Any, seat: int) -> str:
        return "you took the last stone" if state.returns()[seat] > 0 else \
            "your opponent took the last stone"


def table_face(game: Game) -> TableFace:
    return NimTable(game)
