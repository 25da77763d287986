"""Nim's observation face: sizes and a tensor for host libraries."""

from __future__ import annotations

import numpy as np

from spielwerk.core.game import Game, InfoState, PerfectInfoState
from spielwerk.core.observation import ObservationFace, Sizes
from spielwerk_nim.rules import NimGame, NimState


class NimObservation(ObservationFace):
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


def observation_face(game: Game) -> ObservationFace:
    return NimObservation(game)
