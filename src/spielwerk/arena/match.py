"""Playing games between agents: one game, one task, one match.

A :class:`GameTask` is everything needed to play one game (game spec, agent
specs by seat, seeds) as small picklable data, so the result never depends on
which executor or worker process played it. :func:`run_task` turns a task into
a :class:`GameResult`.

Seeding (same seed, same game):

- ``task.seed`` is the game seed; the agent in seat ``s`` is built and
  ``reset`` with :func:`agent_seed(task.seed, s) <agent_seed>`.
- ``task.chance_seed`` seeds the Generator that samples chance nodes from
  ``state.chance_outcomes()``. Duplicate deals share it: the same deal is
  replayed with the seats rotated.

Agents only ever receive ``state.info_state(player)`` and are informed of
every action applied (chance included).
"""

from __future__ import annotations

import copy
import functools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from spielwerk.arena.seeds import AGENT_SALT
from spielwerk.core.agent import Agent, make_agent
from spielwerk.core.errors import IllegalActionError, SpielwerkError
from spielwerk.core.game import Game, LazyGenerator, State, UniformSource
from spielwerk.core.play import play
from spielwerk.core.registry import load_game


class ArenaError(SpielwerkError):
    """A tournament or match that cannot be set up or run as asked."""


class AgentFailedError(ArenaError):
    """An agent returned an illegal action or raised during a game."""


def derive_seed(*parts: int) -> int:
    """A 63-bit seed derived from integer parts (stable across runs and machines)."""
    if any(p < 0 for p in parts):
        raise ArenaError(f"seeds must be non-negative integers, not {parts}")
    words = np.random.SeedSequence(list(parts)).generate_state(2, np.uint32)
    return (int(words[0]) << 31) ^ int(words[1])


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent in ``seat`` for a game with ``game_seed``."""
    return derive_seed(game_seed, AGENT_SALT, seat)


@dataclass(frozen=True)
class GameTask:
    """One scheduled game, as plain picklable data.

    ``agents`` and ``labels`` are indexed by seat: ``agents[s]`` is the spec
    of the agent in seat ``s`` and ``labels[s]`` its name in the standings.
    ``deal`` and ``seating`` say which deal (chance seed) and which seat
    order of the group this is.
    """

    task_id: str
    game: str
    agents: tuple[str, ...]
    labels: tuple[str, ...]
    seed: int
    chance_seed: int
    deal: int = 0
    seating: int = 0
    agent_seeds: tuple[int, ...] = ()
    """``agent_seed(seed, s)`` by seat, when the scheduler derived them in bulk; else empty."""


@dataclass(frozen=True)
class GameResult:
    """The outcome of one :class:`GameTask`.

    ``returns`` and ``labels`` are by seat; ``moves`` counts player actions
    (chance outcomes excluded); ``duration_s`` is wall time and is the only
    field that may differ between two runs of the same task.
    """

    task_id: str
    game: str
    agents: tuple[str, ...]
    labels: tuple[str, ...]
    seed: int
    chance_seed: int
    deal: int
    seating: int
    returns: tuple[float, ...]
    moves: int
    duration_s: float
    details: dict[str, Any] | None = None
    """Game-specific facts of the outcome (JSON-ready), e.g. a Skat deal's contract and
    Seeger-Fabian points (:mod:`spielwerk.arena.duplicate`); None for plain games."""

    def outcome(self) -> tuple[Any, ...]:
        """Everything but the duration: equal for equal tasks, whoever played them."""
        d = self.to_record()
        d.pop("duration_s")
        if d.get("details") is not None:
            d["details"] = json.dumps(d["details"], sort_keys=True)
        return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in sorted(d.items()))

    def return_of(self, label: str) -> float:
        return self.returns[self.labels.index(label)]

    def to_record(self) -> dict[str, Any]:
        """A JSON-ready dict (lists instead of tuples), fields in declaration order."""
        d: dict[str, Any] = {
            "task_id": self.task_id, "game": self.game, "agents": list(self.agents),
            "labels": list(self.labels), "seed": self.seed, "chance_seed": self.chance_seed,
            "deal": self.deal, "seating": self.seating, "returns": list(self.returns),
            "moves": self.moves, "duration_s": self.duration_s,
        }
        if self.details is not None:  # plain games keep the original record layout
            d["details"] = copy.deepcopy(self.details)
        return d

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> GameResult:
        """Inverse of :meth:`to_record`; raises KeyError/TypeError/ValueError on bad records."""
        return cls(
            task_id=str(record["task_id"]),
            game=str(record["game"]),
            agents=tuple(str(a) for a in record["agents"]),
            labels=tuple(str(a) for a in record["labels"]),
            seed=int(record["seed"]),
            chance_seed=int(record["chance_seed"]),
            deal=int(record["deal"]),
            seating=int(record["seating"]),
            returns=tuple(float(r) for r in record["returns"]),
            moves=int(record["moves"]),
            duration_s=float(record["duration_s"]),
            details=_details(record.get("details")),
        )


def _details(value: Any) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value
    raise TypeError(f"details must be an object, not {type(value).__name__}")


def play_game(
    game: Game,
    agents: Sequence[Agent],
    chance_rng: UniformSource,
    names: Sequence[str] | None = None,
) -> tuple[list[float], int, list[int]]:
    """Play one game to the end; returns ``(returns, player moves, action history)``.

    ``agents[s]`` plays seat ``s``; agents must already be reset. Chance nodes
    are sampled with ``chance_rng``. The loop is :func:`spielwerk.core.play.play`;
    this adds the arena's checks and names the agent behind an illegal action.
    """
    if len(agents) != game.num_players:
        raise ArenaError(f"{game.spec()} needs {game.num_players} agents, got {len(agents)}")
    try:
        played = play(game.new_initial_state(), agents, chance_rng)
    except IllegalActionError as exc:
        labels = list(names) if names is not None else [f"seat {s}" for s in range(len(agents))]
        at = exc.state if isinstance(exc.state, State) else None
        player = at.current_player if at is not None else -1
        label = labels[player] if 0 <= player < len(labels) else "?"
        after = f" after {len(at.history)} actions" if at is not None else ""
        raise AgentFailedError(
            f"agent {label} (seat {player}) played an illegal action "
            f"{exc.action!r}{after} of {game.spec()}: {exc.reason}"
        ) from exc
    state = played.state
    return [float(r) for r in state.returns()], played.moves, list(state.history)


@functools.lru_cache(maxsize=32)
def _game(spec: str) -> Game:
    return load_game(spec)


def build_agents(task: GameTask, game: Game) -> list[Agent]:
    """The task's agents by seat, each built and reset with its derived seed."""
    agents = []
    seeds = task.agent_seeds or [agent_seed(task.seed, s) for s in range(len(task.agents))]
    for seat, spec in enumerate(task.agents):
        seed = seeds[seat]
        agent = make_agent(spec, game, seed=seed)
        agent.reset(seed)
        agents.append(agent)
    return agents


def play_task(task: GameTask) -> tuple[GameResult, list[int]]:
    """Play the game a task describes; its result (timed) and the action history."""
    game = _game(task.game)
    start = time.perf_counter()
    agents = build_agents(task, game)
    chance_rng = LazyGenerator(task.chance_seed)  # Kalah never draws: no generator made
    returns, moves, history = play_game(game, agents, chance_rng, task.labels)
    result = GameResult(
        task_id=task.task_id,
        game=task.game,
        agents=task.agents,
        labels=task.labels,
        seed=task.seed,
        chance_seed=task.chance_seed,
        deal=task.deal,
        seating=task.seating,
        returns=tuple(returns),
        moves=moves,
        duration_s=time.perf_counter() - start,
    )
    return result, history


def run_task(task: GameTask) -> GameResult:
    """Play the game a task describes (top-level, so process pools and Dask can pickle it)."""
    return play_task(task)[0]


def play_one(game_spec: str, agent_specs: Sequence[str], seed: int = 0) -> GameResult:
    """Play a single game between ``agent_specs`` (by seat) with ``seed``.

    Convenience for scripts and tests; the chance seed is derived from ``seed``.
    """
    game = load_game(game_spec)
    if len(agent_specs) != game.num_players:
        raise ArenaError(f"{game.spec()} needs {game.num_players} agents, got {len(agent_specs)}")
    task = GameTask(
        task_id="single",
        game=game.spec(),
        agents=tuple(agent_specs),
        labels=tuple(agent_specs),
        seed=derive_seed(seed, 0),
        chance_seed=derive_seed(seed, 1),
    )
    return run_task(task)
