"""Durak's presentation face (:mod:`spielwerk.core.presentation`).

Tensor: 52-card planes (own hand; the cards known to lie in each other hand, by
seat relative to the viewer; attack cards not yet beaten; attack cards of the
bout; defending cards; discard pile; the trump card; cards seen while dealing),
then the trump suit one-hot, hand sizes and the stock size (divided by the deck
size), attacker, defender and player to move one-hot by relative seat, and the
phase one-hot.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spielwerk.core.game import Game, InfoState, State
from spielwerk.core.presentation import LobbyField, Presentation, Sizes, bits_into
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak import table as durak_table
from spielwerk.games.durak.plugin import PLUGIN
from spielwerk.games.durak.rules import DurakInfoState, DurakState, action_cards


class DurakPresentation(Presentation):
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

    def sizes(self) -> Sizes:
        return Sizes(K.PASS + 1, K.DEAL + 52, K.PLY_CAP, 2, K.MAX_PLAYERS)

    def tensor_size(self) -> int:
        n = int(self.game.params["players"])
        return 52 * (n + 6) + 4 + (n + 1) + 3 * n + 6

    def encode_into(self, info: InfoState, out: np.ndarray) -> None:
        assert isinstance(info, DurakInfoState)
        n = info.dgame.players
        p = info.player
        P = info.public
        at = 0
        bits_into(out, at, info.own_hand, 52)
        at += 52
        for r in range(1, n):
            bits_into(out, at, info.known[(p + r) % n], 52)
            at += 52
        for field in (K.OPEN, K.ATTACK, K.DEFENCE, K.DISCARD):
            bits_into(out, at, int(P[field]), 52)
            at += 52
        phase = int(P[K.PHASE])
        if phase != K.PH_DEAL:
            out[at + int(P[K.TRUMP_CARD])] = 1.0
        at += 52
        for _, card in info.deal_known:
            out[at + card] = 1.0
        at += 52
        if phase != K.PH_DEAL:
            out[at + int(P[K.TRUMP_SUIT])] = 1.0
        at += 4
        deck = float(info.dgame.deck)
        for r in range(n):
            out[at + r] = info.hand_sizes[(p + r) % n] / deck
        at += n
        out[at] = info.stock / deck
        at += 1
        for field in (K.ATTACKER, K.DEFENDER, K.TO_MOVE):
            seat = int(P[field])
            if seat >= 0 and phase not in (K.PH_DEAL, K.PH_OVER):
                out[at + (seat - p) % n] = 1.0
            at += n
        out[at + phase] = 1.0


    # ----- the web table
    def table_view(self, info: InfoState) -> dict[str, Any]:
        assert isinstance(info, DurakInfoState)
        return durak_table.view(info)

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


def presentation(game: Game) -> Presentation:
    return DurakPresentation(game)
