"""Kalah at the web table and in the terminal (:mod:`spielwerk.core.table_face`): the
board view, pit labels, the lobby's fields and their limits, the solver's review
(:mod:`spielwerk.games.kalah.table`)."""

from __future__ import annotations

from typing import Any

from spielwerk.core.game import Game, InfoState, PerfectInfoState, State
from spielwerk.core.table_face import LobbyField, TableFace, register_advice
from spielwerk.games.kalah import table as kalah_table
from spielwerk.games.kalah.plugin import PLUGIN
from spielwerk.games.kalah.rules import KalahState


class KalahTable(TableFace):
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

    def table_view(self, info: InfoState) -> dict[str, Any]:
        assert isinstance(info, PerfectInfoState)
        return {**board(info.state),
                "legal": [{"id": a, "label": str(a + 1), "kind": "pit"}
                          for a in info.legal_actions()]}

    def public_view(self, state: State) -> dict[str, Any]:
        """The whole board: Kalah hides nothing (a spectator gets no legal moves)."""
        return board(state)

    def seat_labels(self) -> list[str]:
        return ["South (moves first)", "North"]

    def heading(self) -> str:
        g: Any = self.game
        rules = [f"{g.pits} pits", f"{g.seeds} seeds"]
        if g.empty_capture:
            rules.append("empty capture")
        if g.params["end_rule"] != "either_empty":
            rules.append("ends when the mover's pits are empty")
        return f"{self.title}: " + ", ".join(rules)

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


def board(state: State) -> dict[str, Any]:
    """The board of ``state`` as the page draws it: pits per side, stores, the rules."""
    st: Any = state
    g = st.kgame
    return {
        "pits": g.pits,
        "seeds": g.seeds,
        "empty_capture": g.empty_capture,
        "south": st.pits_of(0),
        "north": st.pits_of(1),
        "stores": [st.store(0), st.store(1)],
    }


register_advice("kalah", hint=kalah_table.hint)  # from the person's info state


def table_face(game: Game) -> TableFace:
    return KalahTable(game)
