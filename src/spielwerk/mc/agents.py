"""Generic search agents for any registered game (``games=None``).

- ``mcts``: determinized UCT (one world for perfect-information games), random rollouts.
- ``ismcts``: SO-ISMCTS, random rollouts.
- ``minimax``: determinized alpha-beta, evaluation = mean of random playouts.

Budgets: ``iters`` per world (or per search for ISMCTS) and/or ``time`` seconds
per move (``time > 0`` replaces the iteration budget). ``minimax``'s ``time``
caps its ``worlds`` x ``depth``: iterative deepening on the first world, then
more worlds while time is left (:func:`determinized_alphabeta_timed`). Games may register
stronger versions under the same names (Durak does, with greedy rollouts and
an exact endgame solver).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from spielwerk.core.agent import Agent, check_declared, param, register_declared
from spielwerk.core.game import Game, InfoState, State
from spielwerk.mc.determinize import Sampler, determinized_mcts
from spielwerk.mc.ismcts import ismcts_search
from spielwerk.mc.mcts import Rollout, random_rollout
from spielwerk.search.alphabeta import (
    best_action,
    determinized_alphabeta,
    determinized_alphabeta_timed,
)

log = logging.getLogger(__name__)


def worlds_param(help: str = "sampled worlds per move (1 for perfect information)") -> Any:
    """The ``worlds`` parameter of the determinizing agents (and the games' versions)."""
    return param(30, help, (1, None))


def minimax_time_param() -> Any:
    """The ``time`` parameter of the ``minimax`` agents (the generic one and games' own)."""
    return param(0.0, "seconds per move (0: all worlds to full depth); if > 0 the first world "
                      "deepens iteratively and worlds stop when it is spent", (0, None))


def time_param() -> Any:
    """The ``time`` parameter of the search agents."""
    return param(0.0, "seconds per move (replaces iters if > 0)", (0, None))


@dataclass(frozen=True)
class MCTSParams:
    """``mcts``: each parameter declared once (default, help, limits)."""

    worlds: int = worlds_param()
    iters: int = param(30, "UCT iterations per world", (1, None))
    time: float = time_param()
    c: float = param(1.4, "UCT exploration constant")
    final: str = param("visits", "visits (robust child) or mean", ("visits", "mean"))

    def __post_init__(self) -> None:
        check_declared("mcts", self)


@dataclass(frozen=True)
class ISMCTSParams:
    """``ismcts``: each parameter declared once."""

    iters: int = param(900, "iterations per move", (1, None))
    time: float = time_param()
    c: float = param(0.7, "exploration constant")

    def __post_init__(self) -> None:
        check_declared("ismcts", self)


@dataclass(frozen=True)
class MinimaxParams:
    """``minimax``: each parameter declared once."""

    worlds: int = worlds_param("sampled worlds per move")
    depth: int = param(3, "plies searched", (1, 64))
    playouts: int = param(1, "random playouts per leaf", (1, None))
    time: float = minimax_time_param()

    def __post_init__(self) -> None:
        check_declared("minimax", self)


class SearchBudget(TypedDict):
    iterations: int | None
    time_limit: float | None


def search_budget(iters: int, time: float) -> SearchBudget:
    """The search budget: ``time`` seconds if set, else ``iters`` iterations."""
    return {"iterations": None if time > 0 else iters, "time_limit": time if time > 0 else None}


def search_clock() -> float:
    """The clock a move's time budget is counted on (``time.perf_counter``)."""
    return time.perf_counter()


class MCTSAgent(Agent):
    """Determinized UCT: ``worlds`` samples x ``iters`` iterations, plurality vote."""

    Params: type[MCTSParams] = MCTSParams

    def __init__(self, game: Game, seed: int | None = None, **params: Any) -> None:
        super().__init__(game, seed)
        p = self.params = self.Params(**params)
        worlds = 1 if game.game_type.perfect_information else p.worlds
        self.worlds, self.iters, self.time, self.c, self.final = (worlds, p.iters, p.time, p.c,
                                                                  p.final)

    def rollout(self) -> Rollout:
        return random_rollout

    def sampler(self, info_state: InfoState) -> Sampler | None:
        """How this move's worlds are drawn (None: uniformly, ``sample_world``)."""
        return None

    def act(self, info_state: InfoState) -> int:
        start = search_clock()
        legal = info_state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.search_action(info_state, start)

    def search_action(self, info_state: InfoState, start: float) -> int:
        """The searched move; a time budget counts from ``start`` (``search_clock()``)."""
        res = determinized_mcts(
            info_state,
            worlds=self.worlds,
            **search_budget(self.iters, self.time),
            c=self.c,
            rollout=self.rollout(),
            final=self.final,
            rng=self.rng,
            sampler=self.sampler(info_state),
            start=start,
        )
        return res.best()


class ISMCTSAgent(Agent):
    """SO-ISMCTS with ``iters`` iterations or ``time`` seconds per move."""

    Params: type[ISMCTSParams] = ISMCTSParams

    def __init__(self, game: Game, seed: int | None = None, **params: Any) -> None:
        super().__init__(game, seed)
        p = self.params = self.Params(**params)
        self.iters, self.time, self.c = p.iters, p.time, p.c

    def rollout(self) -> Rollout:
        return random_rollout

    def sampler(self, info_state: InfoState) -> Sampler | None:
        """How each iteration's world is drawn (None: uniformly, ``sample_world``)."""
        return None

    def act(self, info_state: InfoState) -> int:
        start = search_clock()
        legal = info_state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.search_action(info_state, start)

    def search_action(self, info_state: InfoState, start: float) -> int:
        """The searched move; a time budget counts from ``start`` (``search_clock()``)."""
        res = ismcts_search(
            info_state,
            **search_budget(self.iters, self.time),
            c=self.c,
            rollout=self.rollout(),
            rng=self.rng,
            sampler=self.sampler(info_state),
            start=start,
        )
        return res.best("visits")


class MinimaxAgent(Agent):
    """Determinized alpha-beta: ``worlds`` samples x ``depth`` plies, mean root values;
    with ``time`` > 0 at most that, within the time (at least one world, depth 1)."""

    Params: type[MinimaxParams] = MinimaxParams

    def __init__(self, game: Game, seed: int | None = None, **params: Any) -> None:
        super().__init__(game, seed)
        p = self.params = self.Params(**params)
        worlds = 1 if game.game_type.perfect_information else p.worlds
        self.worlds, self.depth, self.playouts = worlds, p.depth, getattr(p, "playouts", 1)
        self.time = float(getattr(p, "time", 0.0))
        self.searched: tuple[int, int] | None = None
        """(depth, worlds) of the last timed search, for logs and tests."""

    def evaluate(self, state: State, player: int) -> float:
        total = 0.0
        for _ in range(self.playouts):
            ret: Sequence[float] = random_rollout(state.clone(), self.rng)
            total += ret[player]
        return total / self.playouts

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.search_action(info_state, search_clock())

    def search_action(self, info_state: InfoState, start: float) -> int:
        """The searched move; a time budget counts from ``start`` (``search_clock()``)."""
        if self.time <= 0:
            values = determinized_alphabeta(info_state, worlds=self.worlds, depth=self.depth,
                                            evaluate=self.evaluate, rng=self.rng)
            return best_action(values)
        timed = determinized_alphabeta_timed(
            info_state, worlds=self.worlds, depth=self.depth, seconds=self.time,
            evaluate=self.evaluate, rng=self.rng, start=start)
        self.searched = (timed.depth, timed.worlds)
        if timed.depth < self.depth:
            log.info("minimax: %g s allowed depth %d of %d (one world)", self.time, timed.depth,
                     self.depth)
        return best_action(timed.values)


register_declared(
    "mcts", MCTSAgent, MCTSParams,
    "determinized UCT (k worlds x n iterations, plurality vote), random rollouts")
register_declared("ismcts", ISMCTSAgent, ISMCTSParams,
                  "single-observer information-set MCTS, random rollouts")
register_declared("minimax", MinimaxAgent, MinimaxParams,
                  "determinized alpha-beta, evaluation by random playouts")
