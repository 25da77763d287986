"""Skat's presentation face (:mod:`spielwerk.core.presentation`).

Tensor: 32-card planes (own hand; own hand as dealt; the skat and the two cards
put when this seat knows them; the declarer's cards shown (ouvert or a claim);
each seat's played cards, shown voids and tricks won, by seat relative to the
viewer; the current trick by position), then the declarer by relative seat, the
contract (game type one-hot and the hand/schneider/schwarz/ouvert flags), the
bid divided by 264, the phase, this seat's position and the player to move
one-hot.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spielwerk.core.game import Game, InfoState, State
from spielwerk.core.presentation import LobbyField, Presentation, Sizes, bits_into
from spielwerk.core.registry import load_game
from spielwerk.games.skat import rules as R
from spielwerk.games.skat import table as skat_table
from spielwerk.games.skat.actions import NUM_ACTIONS
from spielwerk.games.skat.cards import card_to_string
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.plugin import PLUGIN


class SkatPresentation(Presentation):
    table = True
    title = PLUGIN.title
    default_opponents = PLUGIN.default_opponents  # the record's: the terminal's too
    record_format = "ISS"
    record_line = "an ISS record line"
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

    def sizes(self) -> Sizes:
        # 32 deal + at most 63 bids, 63 holds and 3 passes + pick up, 2 puts, declaration
        # + 30 cards + give-up offers and answers (per trick at most a claim answered by
        # both defenders and a defender's resignation answered by the other: 5)
        return Sizes(NUM_ACTIONS, 32, 32 + 129 + 4 + 30 + 50, 3, 4)

    def tensor_size(self) -> int:
        n = int(self.game.params["players"])
        return 32 * (5 + 3 * n + 3) + (n + 1) + 6 + 4 + 1 + 8 + 4 + (n + 1)

    def encode_into(self, info: InfoState, out: np.ndarray) -> None:
        assert isinstance(info, SkatInfoState)
        n = info.sgame.players
        p = info.player
        at = 0
        for mask in (info.hand, info.own_dealt, info.skat or 0, info.put or 0):
            bits_into(out, at, mask, 32)
            at += 32
        shown = info.declarer_hand_known()
        bits_into(out, at, shown or 0, 32)
        at += 32
        for per_seat in (info.played, info.voids, info.won):
            for r in range(n):
                bits_into(out, at, per_seat[(p + r) % n], 32)
                at += 32
        for i in range(3):
            if i < len(info.trick):
                out[at + info.trick[i]] = 1.0
            at += 32
        if info.declarer >= 0:
            out[at + (info.declarer - p) % n] = 1.0
        else:
            out[at + n] = 1.0
        at += n + 1
        contract = info.contract
        if contract is not None:
            out[at + contract.game] = 1.0
            flags = (contract.hand, contract.schneider_announced, contract.schwarz_announced,
                     contract.ouvert)
            for i, flag in enumerate(flags):
                out[at + 6 + i] = float(flag)
        at += 10
        out[at] = info.bid / 264.0
        at += 1
        out[at + info.phase] = 1.0
        at += 8
        out[at + (info.position if info.position >= 0 else 3)] = 1.0
        at += 4
        mover = info.current_player
        if mover >= 0:
            out[at + (mover - p) % n] = 1.0
        else:
            out[at + n] = 1.0  # chance or over


    # ----- the web table
    def table_view(self, info: InfoState) -> dict[str, Any]:
        assert isinstance(info, SkatInfoState)
        return skat_table.view(info)

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

    def summary(self, state: State, seat: int) -> str:
        st: Any = state
        if st.result is not None:
            return str(st.result.describe())
        if st.ramsch_result is not None:
            return str(st.ramsch_result.describe())
        return "over"

    def final_reveal(self, state: State) -> dict[str, Any] | None:
        return skat_table.reveal(state)

    def all_hands(self, state: State) -> list[list[str]] | None:
        return [skat_table.cards(h) for h in state.hands]  # type: ignore[attr-defined]

    def has_text_record(self, state: State) -> bool:
        """3-player Skat, not Ramsch."""
        st: Any = state
        return bool(st.is_terminal() and st.sgame.players == 3 and not st.is_ramsch)

    def write_text_record(self, state: State, players: list[str], game_id: str) -> str:
        return skat_table.write_iss(state, players, game_id)

    def read_text_record(self, text: str) -> tuple[State, list[str]] | None:
        return skat_table.read_iss(text)

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


def presentation(game: Game) -> Presentation:
    return SkatPresentation(game)
