"""Durak's observation face (:mod:`spielwerk.core.observation`).

Tensor: 52-card planes (own hand; the cards known to lie in each other hand, by
seat relative to the viewer; attack cards not yet beaten; attack cards of the
bout; defending cards; discard pile; the trump card; cards seen while dealing),
then the trump suit one-hot, hand sizes and the stock size (divided by the deck
size), attacker, defender and player to move one-hot by relative seat, and the
phase one-hot.
"""

from __future__ import annotations

import numpy as np

from spielwerk.core.game import Game, InfoState
from spielwerk.core.observation import ObservationFace, Sizes, bits_into
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.rules import DurakInfoState


class DurakObservation(ObservationFace):
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


def observation_face(game: Game) -> ObservationFace:
    return DurakObservation(game)
