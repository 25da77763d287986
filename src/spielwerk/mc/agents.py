"""Generic search agents for any registered game (``games=None``).

- ``mcts``: determinized UCT (one world for perfect-information games), random rollouts.
- ``ismcts``: SO-ISMCTS, random rollouts.
- ``minimax``: determinized alpha-beta, evaluation = mean of random playouts.

Budgets: ``iters`` per world (or per search for ISMCTS) and/or ``time`` seconds
per move (``time > 0`` replaces the iteration budget). Games may register
stronger versions under the same names (Durak does, with greedy rollouts and
an exact endgame solver).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from spielwerk.core.agent import Agent, AgentSpecError, register_agent
from spielwerk.core.game import Game, InfoState, State
from spielwerk.mc.determinize import determinized_mcts
from spielwerk.mc.ismcts import ismcts_search
from spielwerk.mc.mcts import Rollout, random_rollout
from spielwerk.search.alphabeta import best_action, determinized_alphabeta


def _positive(name: str, key: str, value: float) -> None:
    if value <= 0:
        raise AgentSpecError(f"agent {name!r}: {key} must be positive, not {value}")


class _Budget(TypedDict):
    iterations: int | None
    time_limit: float | None


def _budget(iters: int, time: float) -> _Budget:
    """The search budget: ``time`` seconds if set, else ``iters`` iterations."""
    return {"iterations": None if time > 0 else iters, "time_limit": time if time > 0 else None}


class MCTSAgent(Agent):
    """Determinized UCT: ``worlds`` samples x ``iters`` iterations, plurality vote."""

    def __init__(
        self,
        game: Game,
        seed: int | None = None,
        worlds: int = 30,
        iters: int = 30,
        time: float = 0.0,
        c: float = 1.4,
        final: str = "visits",
    ) -> None:
        super().__init__(game, seed)
        if game.game_type.perfect_information:
            worlds = 1
        _positive("mcts", "worlds", worlds)
        _positive("mcts", "iters", iters)
        if time < 0:
            raise AgentSpecError(f"agent 'mcts': time must be >= 0, not {time}")
        if final not in ("visits", "mean"):
            raise AgentSpecError("agent 'mcts': final must be visits or mean")
        self.worlds, self.iters, self.time, self.c, self.final = worlds, iters, time, c, final

    def rollout(self) -> Rollout:
        return random_rollout

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        res = determinized_mcts(
            info_state,
            worlds=self.worlds,
            **_budget(self.iters, self.time),
            c=self.c,
            rollout=self.rollout(),
            final=self.final,
            rng=self.rng,
        )
        return res.best()


class ISMCTSAgent(Agent):
    """SO-ISMCTS with ``iters`` iterations or ``time`` seconds per move."""

    def __init__(
        self,
        game: Game,
        seed: int | None = None,
        iters: int = 900,
        time: float = 0.0,
        c: float = 0.7,
    ) -> None:
        super().__init__(game, seed)
        _positive("ismcts", "iters", iters)
        if time < 0:
            raise AgentSpecError(f"agent 'ismcts': time must be >= 0, not {time}")
        self.iters, self.time, self.c = iters, time, c

    def rollout(self) -> Rollout:
        return random_rollout

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        res = ismcts_search(
            info_state,
            **_budget(self.iters, self.time),
            c=self.c,
            rollout=self.rollout(),
            rng=self.rng,
        )
        return res.best("visits")


class MinimaxAgent(Agent):
    """Determinized alpha-beta: ``worlds`` samples x ``depth`` plies, mean root values."""

    def __init__(
        self,
        game: Game,
        seed: int | None = None,
        worlds: int = 30,
        depth: int = 3,
        playouts: int = 1,
    ) -> None:
        super().__init__(game, seed)
        if game.game_type.perfect_information:
            worlds = 1
        _positive("minimax", "worlds", worlds)
        _positive("minimax", "depth", depth)
        _positive("minimax", "playouts", playouts)
        self.worlds, self.depth, self.playouts = worlds, depth, playouts

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
        values = determinized_alphabeta(
            info_state, worlds=self.worlds, depth=self.depth, evaluate=self.evaluate, rng=self.rng
        )
        return best_action(values)


register_agent(
    "mcts", MCTSAgent,
    {"worlds": 30, "iters": 30, "time": 0.0, "c": 1.4, "final": "visits"},
    "determinized UCT (k worlds x n iterations, plurality vote), random rollouts",
    None,
    {"worlds": "sampled worlds per move (1 for perfect information)",
     "iters": "UCT iterations per world", "time": "seconds per move (replaces iters if > 0)",
     "c": "UCT exploration constant", "final": "visits (robust child) or mean"},
    {"worlds": (1, None), "iters": (1, None), "final": ("visits", "mean")},
)
register_agent(
    "ismcts", ISMCTSAgent, {"iters": 900, "time": 0.0, "c": 0.7},
    "single-observer information-set MCTS, random rollouts", None,
    {"iters": "iterations per move", "time": "seconds per move (replaces iters if > 0)",
     "c": "exploration constant"},
    {"iters": (1, None)},
)
register_agent(
    "minimax", MinimaxAgent, {"worlds": 30, "depth": 3, "playouts": 1},
    "determinized alpha-beta, evaluation by random playouts", None,
    {"worlds": "sampled worlds per move", "depth": "plies searched",
     "playouts": "random playouts per leaf"},
    {"worlds": (1, None), "depth": (1, 64), "playouts": (1, None)},
)
