"""Skat at the web table and in the terminal (:mod:`spielwerk.core.table_face`): the
seat's view, action labels, the list of a series, the deal's reveal, undoing a put card,
the engine warm-up's stages and the double-dummy review (:mod:`spielwerk.games.skat.table`)."""

from __future__ import annotations

from typing import Any

from spielwerk.core.game import Game, InfoState, State
from spielwerk.core.registry import load_game
from spielwerk.core.table_face import LobbyField, TableFace
from spielwerk.games.skat import rules as R
from spielwerk.games.skat import table as skat_table
from spielwerk.games.skat.cards import card_to_string
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.plugin import PLUGIN


class SkatTable(TableFace):
    table = True
    title = PLUGIN.title
    default_opponents = PLUGIN.default_opponents  # the record's: the terminal's too
    undo_refusal = ("nothing to take back: only a card put into the skat can be taken back, "
                    "until the game is declared")
    warm_stages = ("start", "put", "play")
    """Skat's bidding loads the knn model, its putting builds the refined put's win-chance
    table (tens of seconds once per process), its card play loads the double-dummy
    solver."""
    lobby_rank = 0
    lobby_fields = (LobbyField("ramsch", "Ramsch when all pass", kind="check"),)
    spec_example = "pimc:worlds=32"
    web_scripts = ("skat.js",)
    web_styles = ("skat.css",)

    def seat_labels(self) -> list[str]:
        """Forehand, middlehand, rearhand of the first deal (the dealer's left leads); at
        four, the dealer sits the deal out."""
        game: Any = self.game
        where = dict(zip(game.positions, ("forehand", "middlehand", "rearhand"), strict=True))
        return [f"seat {s}: " + where.get(s, "dealer, sits the first deal out")
                for s in range(game.num_players)]

    def heading(self) -> str:
        params = self.game.params
        rules = [] if params["players"] == 3 else [f"{params['players']} at the table"]
        if params["ramsch"]:
            rules.append("Ramsch when all pass")
        return self.title + (": " + ", ".join(rules) if rules else "")

    def table_view(self, info: InfoState) -> dict[str, Any]:
        assert isinstance(info, SkatInfoState)
        return skat_table.view(info)

    def public_view(self, state: State) -> dict[str, Any]:
        """What every player sees, from the view of a seat at the table that is not the
        declarer (so an ouvert declarer's open hand is in it), with that seat's own
        fields left out: its hand, the skat, the put cards, its card points, its moves."""
        for s in range(state.game.num_players):
            info: Any = state.info_state(s)
            if s in info.sgame.positions and info.declarer != s:
                view = skat_table.view(info)
                return {k: view[k] for k in skat_table.PUBLIC_FIELDS if k in view}
        return {}

    def action_label(self, state: State, action: int) -> str:
        return skat_table.label(action)[0]

    def refused_name(self, state: State, seat: int, action: int) -> str:
        if not 0 <= action < 32:
            return f"action {action}"
        info: Any = state.info_state(seat)
        if info.hand >> action & 1:
            return card_to_string(action)
        return "a card you do not hold"

    def deal_spec(self, deal_no: int) -> str:
        dealer = (int(self.game.params["dealer"]) + deal_no) % self.game.num_players
        return load_game(self.game.spec(), dealer=dealer).spec()

    def seat_refusal(self, seat: int) -> str | None:
        if seat in self.game.positions:  # type: ignore[attr-defined]
            return None
        return "at a 4-table the dealer of the first deal sits out: choose another seat"

    def hides_action(self, state: State) -> bool:
        return getattr(state, "phase", -1) == R.PUT  # a card put into the skat

    def can_undo(self, state: State, seat: int) -> bool:
        """A card the person put into the skat, as long as the game is not declared."""
        st: Any = state
        if st.current_player != seat or not st.log:
            return False
        return bool(st.phase in (R.PUT, R.DECLARE) and st.declarer == seat and st.log[-1][1])

    def series_entry(self, state: State) -> dict[str, Any] | None:
        return skat_table.series_entry(state)

    record_score = "Seeger-Fabian list"

    def record_row(self, state: State, seat: int) -> dict[str, Any]:
        return skat_table.record_row(state, seat)

    def summary(self, state: State, seat: int) -> str:
        st: Any = state
        if st.result is not None:
            return str(st.result.describe())
        if st.ramsch_result is not None:
            return str(st.ramsch_result.describe())
        return "over"

    def named_summary(self, state: State, seat: int, names: list[str]) -> str:
        return skat_table.named_summary(state, names)

    def review_label(self, state: State, action: int) -> str:
        return skat_table.label(action)[0]  # as the table's buttons say it ("hold (yes)")

    def final_reveal(self, state: State) -> dict[str, Any] | None:
        return skat_table.reveal(state)

    def all_hands(self, state: State) -> list[list[str]] | None:
        return [skat_table.cards(h) for h in state.hands]  # type: ignore[attr-defined]

    def warm_bot(self, stage: str) -> str | None:
        return None if stage == "start" else "rule"

    def at_stage(self, state: State, stage: str) -> bool:
        st: Any = state
        if stage == "put":
            return bool(st.phase == R.PUT)
        return bool(st.phase == R.PLAY and st.contract is not None
                    and len([a for a in st.legal_actions() if a < 32]) > 1)

    def review(self, spec: str, history: list[int]) -> list[dict[str, Any]]:
        return skat_table.review(spec, history)


def table_face(game: Game) -> TableFace:
    return SkatTable(game)
