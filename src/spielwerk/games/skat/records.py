"""Skat's records (:mod:`spielwerk.core.record_format`): ISS record lines, written and
read by :mod:`spielwerk.games.skat.table` (3-player Skat, not Ramsch)."""

from __future__ import annotations

from typing import Any

from spielwerk.core.game import Game, State
from spielwerk.core.record_format import RecordFormat
from spielwerk.games.skat import table as skat_table


class SkatRecords(RecordFormat):
    format_name = "ISS"
    record_line = "an ISS record line"

    def has_text_record(self, state: State) -> bool:
        """3-player Skat, not Ramsch."""
        st: Any = state
        return bool(st.is_terminal() and st.sgame.players == 3 and not st.is_ramsch)

    def write_text_record(self, state: State, players: list[str], game_id: str) -> str:
        return skat_table.write_iss(state, players, game_id)

    def read_text_record(self, text: str) -> tuple[State, list[str]] | None:
        return skat_table.read_iss(text)


def record_format(game: Game) -> RecordFormat:
    return SkatRecords(game)
