"""Nim's presentation face: a tensor for host libraries and the web table's view."""

from __future__ import annotations

from typing import Any

import numpy as np

from spielwerk.core.game import Game, InfoState, PerfectInfoState
from spielwerk.core.presentation import LobbyField, Presentation, Sizes
from spielwerk_nim.plugin import PLUGIN
from spielwerk_nim.rules import NimGame, NimState


class NimPresentation(Presentation):
    table = True
    title = PLUGIN.title
    default_opponents = PLUGIN.default_opponents
    lobby_fields = (LobbyField("stones", "stones", low=1, high=50),
                    LobbyField("take", "take at most", low=1, high=9))
    spec_example = "perfect"
    web_scripts = ("nim.js",)

    def sizes(self) -> Sizes:
        game = self.game
        assert isinstance(game, NimGame)
        return Sizes(game.take, 0, game.stones, 2, 2)

    def tensor_size(self) -> int:
        return 3

    def tensor_high(self) -> float:
        game = self.game
        assert isinstance(game, NimGame)
        return float(game.stones)

    def encode_into(self, info: InfoState, out: np.ndarray) -> None:
        assert isinstance(info, PerfectInfoState)
        state = info.state
        assert isinstance(state, NimState)
        out[0] = state.stones
        if state.stones:
            out[1 + state.mover] = 1.0

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


def presentation(game: Game) -> Presentation:
    return NimPresentation(game)
