"""Nim's rules and its ``perfect`` agent; importing this module registers both."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from spielwerk.core.agent import Agent, register_agent
from spielwerk.core.errors import GameParameterError
from spielwerk.core.game import TERMINAL, Game, GameType, InfoState, PerfectInfoState, State
from spielwerk.core.registry import register_game


class NimGame(Game):
    """One pile of ``stones``; a move takes 1 to ``take`` stones (action ``k`` takes
    ``k + 1``); whoever takes the last stone wins."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.stones = int(params["stones"])
        self.take = int(params["take"])
        if self.stones < 1 or self.take < 1:
            raise GameParameterError("nim: stones and take must be at least 1")

    @property
    def game_type(self) -> GameType:
        return GameType("nim", "Nim", 2, chance=False, perfect_information=True,
                        zero_sum=True, min_utility=-1.0, max_utility=1.0, parameters=self.params)

    def new_initial_state(self) -> NimState:
        return NimState(self)


class NimState(State):
    game: NimGame

    def __init__(self, game: NimGame) -> None:
        super().__init__(game)
        self.stones = game.stones
        self.mover = 0

    @property
    def current_player(self) -> int:
        return TERMINAL if self.stones == 0 else self.mover

    def _legal_actions(self) -> list[int]:
        return list(range(min(self.game.take, self.stones))) if self.stones else []

    def _apply_action(self, action: int) -> None:
        self.stones -= action + 1
        if self.stones:
            self.mover = 1 - self.mover

    def _clone(self) -> NimState:
        made = NimState(self.game)
        made.stones, made.mover = self.stones, self.mover
        return made

    def returns(self) -> list[float]:
        if self.stones:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.mover == 0 else [-1.0, 1.0]

    def fingerprint(self) -> Hashable:
        return (self.stones, self.mover)

    def action_to_string(self, action: int) -> str:
        return str(action + 1)

    def info_state(self, player: int) -> InfoState:
        return PerfectInfoState(self, player)

    def info_view(self, player: int) -> InfoState:
        return PerfectInfoState.borrowed(self, player)

    def __str__(self) -> str:
        return f"{self.stones} stones, seat {self.mover} to take" if self.stones else \
            f"no stones left: seat {self.mover} took the last"


def winning_take(stones: int, take: int) -> int | None:
    """The action leaving a multiple of ``take + 1`` stones (None: every move loses)."""
    left = stones % (take + 1)
    return left - 1 if left else None


class PerfectNimAgent(Agent):
    """Leaves a multiple of ``take + 1`` stones when it can, else takes one stone."""

    def act(self, info_state: InfoState) -> int:
        assert isinstance(info_state, PerfectInfoState)
        state = info_state.state
        assert isinstance(state, NimState)
        best = winning_take(state.stones, state.game.take)
        return 0 if best is None else best

    def decides_deterministically(self, info_state: InfoState) -> bool:
        return True


def _nim(params: dict[str, Any]) -> NimGame:
    return NimGame(params)


register_game("nim", _nim, {"stones": 7, "take": 3},
              "Nim (the test plug-in game): take 1..take stones, the last stone wins",
              {"stones": "stones on the pile", "take": "most stones one move takes"})
register_agent("perfect", PerfectNimAgent, {}, "leaves a multiple of take+1 stones",
               games=("nim",))
