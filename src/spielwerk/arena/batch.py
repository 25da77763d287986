"""Games in batches: a schedule as columns, a run of consecutive games as one task.

A random Kalah game takes about 100 µs. Building a :class:`GameTask` and a
:class:`GameResult` per game, the game's id string, its results line and the
executor's and results file's bookkeeping cost a quarter of that again, and
the process pool's main process paid more per game in pickling than a worker
spent playing. So the arena moves games in batches:

- :class:`Schedule` holds every game of a tournament as numpy columns (seeds,
  deal, seating, which *arrangement* of agents sits down), built in one
  vectorised pass; a slice of it (``schedule[i:j]``, again a Schedule) is
  one executor task.
- :func:`run_batch` plays a slice with one set of kept agents per
  arrangement and returns a :class:`BatchResult`: per game only the returns,
  moves and duration, plus the results file's lines formatted in one pass
  (in the worker, when asked).
- :func:`run_each` does the same for a per-game runner (a function of one
  :class:`GameTask`, e.g. the Skat duplicate match's, which adds details).

Every game still carries its own seeds, so a game's outcome does not depend
on which batch or worker played it; the lines are exactly
:meth:`GameResult.to_json_line` of the games' results (tested).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter_ns
from typing import Any

import numpy as np

from spielwerk.arena.match import (
    _LINE,
    GameResult,
    GameTask,
    _build,
    _encode,
    _failed,
    _game,
    _group_json,
    _kept,
    _play,
)
from spielwerk.arena.seeds import AGENT_SALT, derive_seeds
from spielwerk.core.errors import IllegalActionError
from spielwerk.core.game import LazyGenerator
from spielwerk.core.play import play_out

Arrangement = tuple[tuple[str, ...], tuple[str, ...], str]
"""Agent specs by seat, labels by seat, and the games' id template: one ``%d`` for the
deal (``"g0-d%d-s1"``), or ``""`` when the schedule lists its ids."""


def _column(values: Sequence[Any]) -> np.ndarray:
    """An int64 column, or an object column for values outside int64."""
    try:
        return np.asarray(values, dtype=np.int64)
    except OverflowError:
        return np.asarray(values, dtype=object)


class Schedule:
    """Games as columns, one row per game, in schedule order.

    ``arrangements[arrangement[k]]`` seats game ``k``; ``seed``, ``chance_seed``,
    ``deal``, ``seating`` are its :class:`GameTask` fields, ``agent_seeds[k]``
    its agents' seeds by seat and ``row[k]`` its position in the whole schedule
    (kept by slices and subsets). ``ids`` lists the task ids where the
    arrangements have no id template. ``schedule[i:j]`` is a Schedule of those
    rows; :meth:`tasks` gives the :class:`GameTask` list.
    """

    __slots__ = ("game", "arrangements", "arrangement", "seed", "chance_seed", "deal",
                 "seating", "agent_seeds", "row", "ids")

    def __init__(
        self, game: str, arrangements: Sequence[Arrangement], arrangement: np.ndarray,
        seed: np.ndarray, chance_seed: np.ndarray, deal: np.ndarray, seating: np.ndarray,
        agent_seeds: np.ndarray, row: np.ndarray | None = None,
        ids: Sequence[str] | None = None,
    ) -> None:
        self.game = game
        self.arrangements = tuple(arrangements)
        self.arrangement, self.seed, self.chance_seed = arrangement, seed, chance_seed
        self.deal, self.seating, self.agent_seeds = deal, seating, agent_seeds
        self.row = row if row is not None else np.arange(len(seed), dtype=np.int64)
        self.ids = list(ids) if ids is not None else None

    def __len__(self) -> int:
        return len(self.seed)

    def __getitem__(self, index: slice) -> Schedule:
        return self._rows(index)

    def take(self, rows: np.ndarray) -> Schedule:
        """The games at positions ``rows`` of this schedule (an index array)."""
        return self._rows(rows)

    def _rows(self, index: slice | np.ndarray) -> Schedule:
        ids = None
        if self.ids is not None:
            ids = (self.ids[index] if isinstance(index, slice)
                   else [self.ids[i] for i in index.tolist()])
        return Schedule(self.game, self.arrangements, self.arrangement[index], self.seed[index],
                        self.chance_seed[index], self.deal[index], self.seating[index],
                        self.agent_seeds[index], self.row[index], ids)

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self.__slots__, state, strict=True):
            setattr(self, name, value)

    def task_ids(self) -> list[str]:
        if self.ids is not None:
            return list(self.ids)
        templates = [a[2] for a in self.arrangements]
        return [templates[a] % d for a, d in zip(self.arrangement.tolist(), self.deal.tolist(),
                                                   strict=True)]

    def tasks(self) -> list[GameTask]:
        """The games as :class:`GameTask` objects."""
        make, game, arrangements = GameTask.make, self.game, self.arrangements
        seeds = [tuple(s) for s in self.agent_seeds.tolist()]
        return [make(task_id, game, arrangements[a][0], arrangements[a][1], seed, chance, deal,
                     seating, agent_seeds)
                for task_id, a, seed, chance, deal, seating, agent_seeds in zip(
                    self.task_ids(), self.arrangement.tolist(), self.seed.tolist(),
                    self.chance_seed.tolist(), self.deal.tolist(), self.seating.tolist(), seeds,
                    strict=True)]

    @classmethod
    def from_tasks(cls, tasks: Sequence[GameTask]) -> Schedule:
        """The columns of a list of tasks of one game (agent seeds derived where a task has
        none, as :func:`~spielwerk.arena.match.agent_seed` does)."""
        game = tasks[0].game if tasks else ""
        index: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}
        arrangement = []
        for task in tasks:
            if task.game != game:
                raise ValueError(f"a schedule holds one game: {task.game} is not {game}")
            key = (tuple(task.agents), tuple(task.labels))
            arrangement.append(index.setdefault(key, len(index)))
        seats = max((len(t.agents) for t in tasks), default=0)
        missing = [(t.seed, AGENT_SALT, s) for t in tasks if not t.agent_seeds
                   for s in range(seats)]
        derived = iter(derive_seeds(missing))
        agent_seeds = [t.agent_seeds or tuple(next(derived) for _ in range(seats))
                       for t in tasks]
        return cls(game, [(a, labels, "") for a, labels in index],
                   np.asarray(arrangement, dtype=np.int64), _column([t.seed for t in tasks]),
                   _column([t.chance_seed for t in tasks]), _column([t.deal for t in tasks]),
                   _column([t.seating for t in tasks]),
                   _column(agent_seeds).reshape(len(tasks), seats),
                   ids=[t.task_id for t in tasks])

    def results(self, outcome: BatchResult) -> list[GameResult]:
        """The :class:`GameResult` of each game of ``outcome``, whose games are this
        schedule's first ``len(outcome.moves)`` games, in order."""
        if outcome.results is not None:
            return list(outcome.results)
        game, arrangements, mine = self.game, self.arrangements, self[: len(outcome.moves)]
        new, set_fields, cls = object.__new__, object.__setattr__, GameResult
        out = []
        for task_id, a, seed, chance, deal, seating, returns, moves, duration in zip(
                mine.task_ids(), mine.arrangement.tolist(), mine.seed.tolist(),
                mine.chance_seed.tolist(), mine.deal.tolist(), mine.seating.tolist(),
                outcome.returns, outcome.moves, outcome.durations, strict=True):
            agents, labels, _ = arrangements[a]
            result = new(cls)  # as GameResult.make, without its call
            set_fields(result, "__dict__", {
                "task_id": task_id, "game": game, "agents": agents, "labels": labels,
                "seed": seed, "chance_seed": chance, "deal": deal, "seating": seating,
                "returns": returns, "moves": moves, "duration_s": duration, "details": None})
            out.append(result)
        return out


@dataclass
class BatchResult:
    """The outcome of a slice of a :class:`Schedule`, compact.

    Per game (in the slice's order, for the schedule rows ``rows``): ``returns``,
    ``moves`` and ``durations``; ``results`` holds whole :class:`GameResult`
    objects instead when a per-game runner made them (:func:`run_each`).
    ``lines`` is the games' results-file lines (newline-separated, no final
    newline; empty if not asked for). ``error``: the exception that stopped
    the batch after these games (the executor's caller raises it once the
    games before it are saved).
    """

    rows: list[int]
    returns: list[tuple[float, ...]]
    moves: list[int]
    durations: list[float]
    lines: str = ""
    results: list[GameResult] | None = None
    error: Exception | None = None


def run_batch(batch: Schedule, lines: bool = False) -> BatchResult:
    """Play every game of ``batch`` (top-level, so process pools and Dask can pickle it).

    Agents whose ``reset(seed)`` equals building them anew (``Agent.reusable``)
    are kept per arrangement and thread and reset for each game; others are
    built for each game. ``lines``: also format the results file's lines.
    """
    game = _game(batch.game)
    kept = [_kept(batch.game, agents, game) for agents, _, _ in batch.arrangements]
    quick = [table is not None and table[1].legal_only for table in kept]
    names = [labels for _, labels, _ in batch.arrangements]
    new_state = game.new_initial_state
    returns: list[tuple[float, ...]] = []
    moves: list[int] = []
    durations: list[float] = []
    error: Exception | None = None
    add_returns, add_moves, add_duration = returns.append, moves.append, durations.append
    a = 0
    try:
        for a, chance_seed, agent_seeds in zip(batch.arrangement.tolist(),
                                               batch.chance_seed.tolist(),
                                               batch.agent_seeds.tolist(), strict=True):
            start = perf_counter_ns()
            table = kept[a]
            if table is not None:
                agents, seating, resets = table
                for reset, seed in zip(resets, agent_seeds, strict=True):
                    reset(seed)
                if quick[a]:  # random agents: the play loop's tight path, called directly
                    state = new_state()
                    played = play_out(state, seating, LazyGenerator(chance_seed))
                else:
                    state, played = _play(game, agents, LazyGenerator(chance_seed), names[a],
                                          seating)
            else:
                agents = _build(batch.arrangements[a][0], game, agent_seeds)
                state, played = _play(game, agents, LazyGenerator(chance_seed), names[a], None)
            add_returns(tuple(map(float, state.returns())))
            add_moves(played)
            add_duration((perf_counter_ns() - start) // 100 / 1e7)
    except IllegalActionError as exc:  # from play_out: name the agent as _play does
        error = _failed(exc, game, names[a], game.num_players)
        error.__cause__ = exc
    except Exception as exc:  # the games before it are kept; the caller raises it
        error = exc
    rows = batch.row[: len(returns)].tolist()
    outcome = BatchResult(rows, returns, moves, durations, error=error)
    if lines and returns:
        outcome.lines = format_lines(batch[: len(returns)], outcome)
    return outcome


def run_each(
    runner: Callable[[GameTask], GameResult], batch: Schedule, lines: bool = False
) -> BatchResult:
    """:func:`run_batch` for a per-game ``runner`` (a top-level function of one task)."""
    results: list[GameResult] = []
    error = None
    try:
        for task in batch.tasks():
            results.append(runner(task))
    except Exception as exc:
        error = exc
    text = ""
    if lines:
        try:  # json refuses a value: the lines before it are kept, the error raised after
            text_lines = []
            for result in results:
                text_lines.append(result.to_json_line())
        except (TypeError, ValueError) as exc:
            results, error = results[: len(text_lines)], exc
        text = "\n".join(text_lines)
    return BatchResult(batch.row[: len(results)].tolist(), [r.returns for r in results],
                       [r.moves for r in results], [r.duration_s for r in results], text,
                       results, error)


def format_lines(batch: Schedule, outcome: BatchResult) -> str:
    """The results-file lines of ``outcome`` (games of ``batch``, in order), one pass.

    Each is ``GameResult.to_json_line()`` of the game's result: one ``%`` format
    per game with the game, agents, labels and id template written into the
    format once per arrangement, and each distinct returns tuple encoded once.
    A game whose returns are not finite floats goes through ``json.dumps``.
    """
    formats = []
    line = _LINE.replace('"duration_s":%r', '"duration_s":%s')  # its text comes ready
    head, middle, tail = line.split("%s", 2)  # task id, then game, agents and labels
    for agents, labels, template in batch.arrangements:
        group = _group_json(batch.game, agents, labels).replace("%", "%%")
        task_id = _encode(template) if template else "%s"
        formats.append(head + task_id + middle + group + tail)
    # each distinct returns tuple and duration is written once (games repeat them); zero is
    # written every time, since -0.0 == 0.0 would share one text
    by_returns: dict[tuple[float, ...], str | None] = {}
    by_duration: dict[float, str | None] = {}
    ids = batch.ids
    keys = [_encode(i) for i in ids] if ids is not None else batch.deal.tolist()
    out = []
    for k, (a, seed, chance, deal, seating, returns, moves, duration) in enumerate(zip(
            batch.arrangement.tolist(), batch.seed.tolist(), batch.chance_seed.tolist(),
            batch.deal.tolist(), batch.seating.tolist(), outcome.returns, outcome.moves,
            outcome.durations, strict=True)):
        text = by_returns.get(returns, "")
        if text == "":
            text = _returns_text(returns)
            if 0.0 not in returns:
                by_returns[returns] = text
        seconds = by_duration.get(duration, "")
        if seconds == "":
            seconds = _returns_text((duration,))
            if duration != 0.0:
                by_duration[duration] = seconds
        if text is None or seconds is None or type(seed) is not int \
                or type(chance) is not int:
            out.append(batch[k : k + 1].results(_one(outcome, k))[0].to_json_line())
        else:
            out.append(formats[a] % (keys[k], seed, chance, deal, seating, text, moves,
                                     seconds))
    return "\n".join(out)


def _returns_text(returns: tuple[float, ...]) -> str | None:
    """The returns as ``json.dumps`` writes them, or None where that is not plain ``repr``."""
    try:
        text = ",".join(map(float.__repr__, returns))
    except TypeError:  # not a float
        return None
    return text if math.isfinite(sum(returns)) else None


def _one(outcome: BatchResult, k: int) -> BatchResult:
    return BatchResult([outcome.rows[k]], [outcome.returns[k]], [outcome.moves[k]],
                       [outcome.durations[k]])


