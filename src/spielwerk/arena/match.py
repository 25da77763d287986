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
import dataclasses
import functools
import json
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter_ns
from typing import Any

from spielwerk.arena.seeds import AGENT_SALT
from spielwerk.core.agent import Agent, is_reusable, make_agent
from spielwerk.core.errors import IllegalActionError, SpielwerkError
from spielwerk.core.game import Game, LazyGenerator, State, UniformSource
from spielwerk.core.play import Seating, play
from spielwerk.core.registry import load_game, parse_game_spec
from spielwerk.core.seeds import SeedError
from spielwerk.core.seeds import derive_seed as core_derive_seed
from spielwerk.plugins import game_plugin, load_object


class ArenaError(SpielwerkError):
    """A tournament or match that cannot be set up or run as asked."""


class AgentFailedError(ArenaError):
    """An agent returned an illegal action or raised during a game."""


def derive_seed(*parts: int) -> int:
    """A 63-bit seed derived from integer parts (stable across runs and machines;
    :func:`spielwerk.core.seeds.derive_seed`, a bad part an :class:`ArenaError` here)."""
    try:
        return core_derive_seed(*parts)
    except SeedError as exc:
        raise ArenaError(str(exc)) from None


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

    @classmethod
    def make(
        cls, task_id: str, game: str, agents: tuple[str, ...], labels: tuple[str, ...],
        seed: int, chance_seed: int, deal: int, seating: int, agent_seeds: tuple[int, ...],
    ) -> GameTask:
        """``GameTask(...)`` without the frozen dataclass's per-field ``object.__setattr__``,
        for schedules of many thousand games; the values are taken as they are."""
        task = object.__new__(cls)
        object.__setattr__(task, "__dict__", {
            "task_id": task_id, "game": game, "agents": agents, "labels": labels,
            "seed": seed, "chance_seed": chance_seed, "deal": deal, "seating": seating,
            "agent_seeds": agent_seeds,
        })
        return task


@dataclass(frozen=True)
class GameResult:
    """The outcome of one :class:`GameTask`.

    ``returns`` and ``labels`` are by seat; ``moves`` counts player actions
    (chance outcomes excluded); ``duration_s`` is wall time and is the only
    field that may differ between two runs of the same task (:func:`run_task`
    keeps it to 0.1 µs: a float of a few digits is written several times
    faster than one of seventeen).
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

    @classmethod
    def make(
        cls, task_id: str, game: str, agents: tuple[str, ...], labels: tuple[str, ...],
        seed: int, chance_seed: int, deal: int, seating: int, returns: tuple[float, ...],
        moves: int, duration_s: float,
    ) -> GameResult:
        """``GameResult(...)`` with ``details`` None, without the frozen dataclass's
        per-field ``object.__setattr__`` (a few µs, which a random Kalah game of about
        100 µs notices); the values are taken as they are."""
        result = object.__new__(cls)
        object.__setattr__(result, "__dict__", {
            "task_id": task_id, "game": game, "agents": agents, "labels": labels,
            "seed": seed, "chance_seed": chance_seed, "deal": deal, "seating": seating,
            "returns": returns, "moves": moves, "duration_s": duration_s, "details": None,
        })
        return result

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

    def to_json_line(self) -> str:
        """``json.dumps(self.to_record(), separators=(",", ":"))``, the results file's line.

        Built from a cached encoding of the game, agents and labels (the same
        for every game of a group) and the numbers' own ``repr``, which is what
        ``json.dumps`` writes for ints and finite floats; anything else (details,
        a non-finite number, a number that is not a float among the returns, an int
        subclass) goes through ``json.dumps``.
        """
        seed, chance_seed, deal, seating, moves = (
            self.seed, self.chance_seed, self.deal, self.seating, self.moves)
        returns, duration = self.returns, self.duration_s
        if (self.details is None
                and type(seed) is type(chance_seed) is type(deal) is type(seating)
                is type(moves) is int and type(duration) is float):
            try:  # float.__repr__ refuses anything but a float (json writes an int as "1")
                text = ",".join(map(float.__repr__, returns))
                # a sum of floats is finite only if every one is (an overflow: the slow way)
                finite = math.isfinite(sum(returns, duration))
            except TypeError:
                finite = False
            if finite:
                return _LINE % (_encode(self.task_id),
                                _group_json(self.game, self.agents, self.labels), seed,
                                chance_seed, deal, seating, text, moves, duration)
        return json.dumps(self.to_record(), separators=(",", ":"))

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


_encode = json.encoder.encode_basestring_ascii  # json.dumps's own string encoder
_LINE = ('{"task_id":%s,%s,"seed":%d,"chance_seed":%d,"deal":%d,"seating":%d,"returns":[%s],'
         '"moves":%d,"duration_s":%r}')


@functools.lru_cache(maxsize=256)
def _group_json(game: str, agents: tuple[str, ...], labels: tuple[str, ...]) -> str:
    text = json.dumps({"game": game, "agents": list(agents), "labels": list(labels)},
                      separators=(",", ":"))
    return text[1:-1]


def _details(value: Any) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value
    raise TypeError(f"details must be an object, not {type(value).__name__}")


def play_game(
    game: Game,
    agents: Sequence[Agent],
    chance_rng: UniformSource,
    names: Sequence[str] | None = None,
    seating: Seating | None = None,
) -> tuple[list[float], int, list[int]]:
    """Play one game to the end; returns ``(returns, player moves, action history)``.

    ``agents[s]`` plays seat ``s``; agents must already be reset. Chance nodes
    are sampled with ``chance_rng``. The loop is :func:`spielwerk.core.play.play`;
    this adds the arena's checks and names the agent behind an illegal action.
    ``seating``: the agents' :class:`~spielwerk.core.play.Seating`, when the
    caller keeps one across games.
    """
    state, moves = _play(game, agents, chance_rng, names, seating)
    return [float(r) for r in state.returns()], moves, list(state.history)


def _play(
    game: Game,
    agents: Sequence[Agent],
    chance_rng: UniformSource,
    names: Sequence[str] | None,
    seating: Seating | None,
) -> tuple[State, int]:
    """:func:`play_game`'s work: the final state and the number of player moves."""
    if seating is None and len(agents) != game.num_players:  # a Seating was checked when made
        raise ArenaError(f"{game.spec()} needs {game.num_players} agents, got {len(agents)}")
    try:
        played = play(game.new_initial_state(), seating or agents, chance_rng)
    except IllegalActionError as exc:
        raise _failed(exc, game, names, len(agents)) from exc
    return played.state, played.moves


def _failed(exc: IllegalActionError, game: Game, names: Sequence[str] | None,
            seats: int) -> AgentFailedError:
    """The arena's error for an agent's illegal action: which agent, where."""
    labels = list(names) if names is not None else [f"seat {s}" for s in range(seats)]
    at = exc.state if isinstance(exc.state, State) else None
    player = at.current_player if at is not None else -1
    label = labels[player] if 0 <= player < len(labels) else "?"
    after = f" after {len(at.history)} actions" if at is not None else ""
    return AgentFailedError(
        f"agent {label} (seat {player}) played an illegal action "
        f"{exc.action!r}{after} of {game.spec()}: {exc.reason}"
    )


@functools.lru_cache(maxsize=32)
def _game(spec: str) -> Game:
    return load_game(spec)


def build_agents(task: GameTask, game: Game) -> list[Agent]:
    """The task's agents by seat, each built and reset with its derived seed."""
    seeds = task.agent_seeds or [agent_seed(task.seed, s) for s in range(len(task.agents))]
    return _build(task.agents, game, seeds)


def _build(specs: Sequence[str], game: Game, seeds: Sequence[int]) -> list[Agent]:
    agents = []
    for spec, seed in zip(specs, seeds, strict=True):
        agent = make_agent(spec, game, seed=seed)
        agent.reset(seed)
        agents.append(agent)
    return agents


_tables = threading.local()  # per thread: Dask runs tasks in threads of one process
_MAX_TABLES = 64
_Kept = tuple[list[Agent], Seating, list[Callable[[int | None], None]]]
"""Kept agents by seat, their Seating and their bound ``reset`` methods."""


def _kept(game_spec: str, specs: tuple[str, ...], game: Game) -> _Kept | None:
    """This thread's kept agents for ``specs`` (by seat), or None when they are not reusable.

    Agents whose ``reset(seed)`` equals building them anew (``Agent.reusable``,
    e.g. the random agent) are built once per game spec, agent specs and
    thread, with their :class:`Seating`, and reset before every game; others
    are built for every game (None here, remembered too).
    """
    try:
        tables: dict[tuple[str, tuple[str, ...]], _Kept | None] = _tables.tables
    except AttributeError:
        tables = _tables.tables = {}
    key = (game_spec, specs)
    if key in tables:
        return tables[key]
    if len(tables) >= _MAX_TABLES:
        tables.clear()
    agents = _build(specs, game, [0] * len(specs))
    kept: _Kept | None = None
    if len(agents) == game.num_players and all(is_reusable(a) for a in agents):
        kept = (agents, Seating(agents, game.num_players), [a.reset for a in agents])
    tables[key] = kept
    return kept


def _table(task: GameTask, game: Game) -> tuple[list[Agent], Seating | None]:
    """The task's agents, reset with its seeds: kept across games when they are reusable
    (:func:`_kept`), else built for this game."""
    kept = _kept(task.game, task.agents, game)
    if kept is None:
        return build_agents(task, game), None
    agents, seating, resets = kept
    seeds = task.agent_seeds or [agent_seed(task.seed, s) for s in range(len(task.agents))]
    for reset, seed in zip(resets, seeds, strict=True):
        reset(seed)
    return agents, seating


def play_task(task: GameTask) -> tuple[GameResult, list[int]]:
    """Play the game a task describes; its result (timed) and the action history."""
    result, state = _play_task(task)
    return result, list(state.history)


def _play_task(task: GameTask) -> tuple[GameResult, State]:
    game = _game(task.game)
    start = perf_counter_ns()
    agents, seating = _table(task, game)
    chance_rng = LazyGenerator(task.chance_seed)  # Kalah never draws: no generator made
    state, moves = _play(game, agents, chance_rng, task.labels, seating)
    returns = tuple(map(float, state.returns()))
    result = GameResult.make(task.task_id, task.game, task.agents, task.labels, task.seed,
                             task.chance_seed, task.deal, task.seating, returns, moves,
                             (perf_counter_ns() - start) // 100 / 1e7)
    return result, state


def run_task(task: GameTask) -> GameResult:
    """Play the game a task describes (top-level, so process pools and Dask can pickle it)."""
    return _play_task(task)[0]


def game_name(spec: str) -> str:
    """The registered name of a game spec (``"skat"`` for ``"skat(players=3)"``)."""
    return parse_game_spec(spec)[0]


@functools.cache
def _details_hook(name: str) -> Callable[[State], dict[str, Any]] | None:
    record = game_plugin(name)
    if record is None or record.final_details is None:
        return None
    hook: Callable[[State], dict[str, Any]] = load_object(record.final_details)
    return hook


def run_detailed_task(task: GameTask) -> GameResult:
    """:func:`run_task`, keeping the game's outcome in ``details``: its plug-in record's
    ``final_details`` hook applied to the final state (nothing replayed); a game without
    the hook keeps none."""
    result, state = _play_task(task)
    hook = _details_hook(game_name(task.game))
    if hook is None:
        return result
    return dataclasses.replace(result, details=hook(state))


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
