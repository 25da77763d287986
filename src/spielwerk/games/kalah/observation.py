"""Kalah's observation face (:mod:`spielwerk.core.observation`).

Tensor (perfect information): the ``2m + 2`` cells of the board in our layout
(South's pits, South's store, North's pits, North's store), then the player to
move, one-hot (South, North).
"""

from __future__ import annotations

import numpy as np

from spielwerk.core.game import Game, InfoState, PerfectInfoState
from spielwerk.core.observation import ObservationFace, Sizes
from spielwerk.games.kalah.rules import KalahState


class KalahObservation(ObservationFace):
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


def observation_face(game: Game) -> ObservationFace:
    return KalahObservation(game)
