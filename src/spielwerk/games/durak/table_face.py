"""Durak at the web table and in the terminal (:mod:`spielwerk.core.table_face`): the
seat's view, the cards on the table, the lobby's fields, the hands at the end and the
review (:mod:`spielwerk.games.durak.table`)."""

from __future__ import annotations

from typing import Any

from spielwerk.core.game import Game, InfoState, State
from spielwerk.core.table_face import LobbyField, TableFace, register_advice
from spielwerk.games.durak import hints as durak_hints
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak import table as durak_table
from spielwerk.games.durak.plugin import PLUGIN
from spielwerk.games.durak.rules import DurakInfoState, DurakState, action_cards


class DurakTable(TableFace):
    table = True
    title = PLUGIN.title
    default_opponents = PLUGIN.default_opponents  # the record's: the terminal's too
    lobby_rank = 1
    lobby_fields = (
        LobbyField("preset", "preset", kind="choice",
                   choices=(("classic", "classic (podkidnoy)"),
                            ("perevodnoy", "perevodnoy (transfers)"),
                            ("zarlykov2023", "Zarlykov 2023 (2 players, 36 cards)"))),
        LobbyField("players", "players", low=2, high=K.MAX_PLAYERS),
        LobbyField("deck", "deck", kind="choice",
                   choices=((36, "36 cards"), (24, "24 cards"), (52, "52 cards"))),
    )
    seats_param = "players"
    spec_example = "mcts:worlds=20"
    web_scripts = ("durak.js",)
    web_styles = ("durak.css",)

    def heading(self) -> str:
        params = self.game.params
        preset = dict(self.lobby_fields[0].choices).get(params["preset"], params["preset"])
        rules = [str(preset), f"{params['players']} players", f"{params['deck']} cards"]
        if params["open"]:
            rules.append("open hands")
        return f"{self.title}: " + ", ".join(rules)

    def table_view(self, info: InfoState) -> dict[str, Any]:
        assert isinstance(info, DurakInfoState)
        return durak_table.view(info)

    def public_view(self, state: State) -> dict[str, Any]:
        """What every player sees: the table, the stock, the trump, the hand sizes, who
        attacks and defends (seat 0's view without its hand, its known cards and moves)."""
        view = durak_table.view(state.info_state(0))  # type: ignore[arg-type]
        return {k: view[k] for k in durak_table.PUBLIC_FIELDS}

    def table_extras(self, state: State) -> dict[str, Any]:
        return {"pairs": durak_table.bout_pairs(state)}  # cards on the table only

    def refused_name(self, state: State, seat: int, action: int) -> str:
        info: Any = state.info_state(seat)
        try:
            cards = action_cards(action) if 0 <= action < 512 else 0
            if cards and cards & ~info.own_hand == 0:
                return state.action_to_string(action)
        except (IndexError, ValueError):
            pass
        return "that action"

    def summary(self, state: State, seat: int) -> str:
        assert isinstance(state, DurakState)
        loser = state.loser()
        return "draw" if loser is None or loser < 0 else f"player {loser} is the durak"

    def final_reveal(self, state: State) -> dict[str, Any] | None:
        return {"hands": durak_table.hands(state)}

    def all_hands(self, state: State) -> list[list[str]] | None:
        return durak_table.hands(state)

    def review(self, spec: str, history: list[int]) -> list[dict[str, Any]]:
        return durak_table.review(spec, history)


register_advice("durak", hint=durak_hints.hint)  # from the person's info state


def table_face(game: Game) -> TableFace:
    return DurakTable(game)
