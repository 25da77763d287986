"""Kalah's presentation face (:mod:`spielwerk.core.presentation`).

Tensor (perfect information): the ``2m + 2`` cells of the board in our layout
(South's pits, South's store, North's pits, North's store), then the player to
move, one-hot (South, North).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spielwerk.core.game import Game, InfoState, PerfectInfoState, State
from spielwerk.core.presentation import LobbyField, Presentation, Sizes
from spielwerk.games.kalah import table as kalah_table
from spielwerk.games.kalah.plugin import PLUGIN
from spielwerk.games.kalah.rules import KalahState


class KalahPresentation(Presentation):
    table = True
    title = PLUGIN.title
    default_opponents = PLUGIN.default_opponents  # the record's: the terminal's too
    # the number fields' ranges follow the chosen opponent (lobby_limits), in kalah.js
    lobby_rank = 2
    lobby_fields = (LobbyField("pits", "pits", low=1, high=6),
                    LobbyField("seeds", "seeds", low=1, high=4),
                    LobbyField("empty_capture", "empty capture", kind="check"))
    spec_example = "perfect:egdb=16"
    web_scripts = ("kalah.js",)
    web_styles = ("kalah.css",)

    def sizes(self) -> Sizes:
        # a game length of 1000 as OpenSpiel's own mancala; no Kalah(6,4) game comes near it
        return Sizes(int(self.game.params["pits"]), 0, 1000, 2, 2)

    def tensor_size(self) -> int:
        return 2 * int(self.game.params["pits"]) + 4

    def tensor_high(self) -> float:
        return float(2 * int(self.game.params["pits"]) * int(self.game.params["seeds"]))

    def encode_into(self, info: InfoState, out: np.ndarray) -> None:
        assert isinstance(info, PerfectInfoState)
        state = info.state
        assert isinstance(state, KalahState)
        board = state.board
        n = len(board)
        out[:n] = board
        mover = state.current_player
        if mover >= 0:
            out[n + mover] = 1.0


    # ----- the web table
    def table_view(self, info: InfoState) -> dict[str, Any]:
        assert isinstance(info, PerfectInfoState)
        st: Any = info.state
        g = st.kgame
        return {
            "pits": g.pits,
            "seeds": g.seeds,
            "empty_capture": g.empty_capture,
            "south": st.pits_of(0),
            "north": st.pits_of(1),
            "stores": [st.store(0), st.store(1)],
            "legal": [{"id": a, "label": str(a + 1), "kind": "pit"}
                      for a in info.legal_actions()],
        }

    def action_label(self, state: State, action: int) -> str:
        return f"pit {action + 1}"

    def review_label(self, state: State, action: int) -> str:
        return f"pit {action + 1}"

    def refused_name(self, state: State, seat: int, action: int) -> str:
        return f"pit {action + 1}" if 0 <= action < 64 else f"action {action}"

    def summary(self, state: State, seat: int) -> str:
        assert isinstance(state, KalahState)
        d = state.margin()
        if d == 0:
            return "draw"
        winner = 0 if d > 0 else 1
        who = "you" if winner == seat else "the opponent"
        return f"{('South', 'North')[winner]} ({who}) wins by {abs(d)}"

    def lobby_limits(self) -> dict[str, Any] | None:
        return kalah_table.lobby_limits(self.game.name)

    def review(self, spec: str, history: list[int]) -> list[dict[str, Any]]:
        return kalah_table.review(spec, history)


def presentation(game: Game) -> Presentation:
    return KalahPresentation(game)
