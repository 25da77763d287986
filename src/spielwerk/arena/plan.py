"""A tournament's schedule, computed as it is played: :class:`Plan`.

Every game of a tournament is fixed by its position in the schedule: position ``k`` is
deal ``k // (groups x seatings)``, group ``k // seatings % groups`` and seating
``k % seatings``, and its seeds are derived from those numbers. So the schedule is never
built whole: a :class:`Plan` knows how many games there are and computes any run of them
when asked, in one vectorised pass (``plan[i:j]`` is a
:class:`~spielwerk.arena.batch.Schedule` of those games, which is what an executor hands a
worker). A tournament of 10**12 games costs no more memory to start than one of ten, and
its first game is played at once. Iterating a plan gives its
:class:`~spielwerk.arena.match.GameTask` objects a chunk at a time.

:class:`Plan` also serves schedules that are lists of tasks (a configuration that lists its
own games): the same interface over a :class:`Schedule` built from the list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from spielwerk.arena.batch import Arrangement, Schedule
from spielwerk.arena.match import ArenaError, GameTask
from spielwerk.arena.seeds import AGENT_SALT, derive_seed_array

CHUNK = 4096
"""Games computed at a time when a plan is iterated."""

_GENERATED_ID = re.compile(r"(.*d)(\d+)(-s\d+)")
"""A generated task id: the arrangement's text before and after the deal number."""


class _Source(Protocol):
    """Where a plan's games come from: their number, any of them by position, and the
    position of a task id."""

    def __len__(self) -> int: ...

    def rows(self, positions: np.ndarray) -> Schedule: ...

    def position(self, task_id: str) -> int | None: ...


class SeededGames:
    """The games of a tournament computed from their positions (see the module docstring).

    ``arrangements`` lists, for each group and seating (group-major), the agent specs and
    labels by seat and the id template (one ``%d`` for the deal). A game's seed is
    ``derive_seed(seed, 2, group, deal, seating)``, or ``derive_seed(seed, 2, deal,
    seating)`` with ``seed_by_group=False`` (a Skat duplicate match, which has one group);
    its chance seed ``derive_seed(seed, 1, deal)`` and its agents' seeds
    ``derive_seed(game_seed, AGENT_SALT, seat)``.
    """

    def __init__(self, game: str, arrangements: Sequence[Arrangement], seatings: int,
                 deals: int, seed: int, seats: int, seed_by_group: bool = True) -> None:
        if seed < 0:
            raise ArenaError(f"seeds must be non-negative integers, not {seed}")
        self.game, self.arrangements = game, tuple(arrangements)
        self.seatings, self.deals, self.seed, self.seats = seatings, deals, seed, seats
        self.groups = len(self.arrangements) // seatings
        self.seed_by_group = seed_by_group
        self._templates: dict[tuple[str, str], int] | None = None

    def __len__(self) -> int:
        return self.deals * len(self.arrangements)

    def rows(self, positions: np.ndarray) -> Schedule:
        """The games at ``positions`` (an int64 array), as a :class:`Schedule`."""
        index = np.asarray(positions, dtype=np.int64)
        per_deal = len(self.arrangements)
        deals, arrangement = index // per_deal, index % per_deal
        seating = index % self.seatings
        columns = [np.full_like(index, 2)]
        if self.seed_by_group:
            columns.append(index // self.seatings % self.groups)
        keys = np.stack([*columns, deals, seating], axis=1)
        if self.seed < 2**63:
            game_rows: Any = np.concatenate([np.full_like(index, self.seed)[:, None], keys],
                                            axis=1)
        else:  # too large for an int64 column: row by row
            game_rows = [(self.seed, *row) for row in keys.tolist()]
        game_seeds = derive_seed_array(game_rows)
        chance_seeds = np.empty(0, np.int64)
        if len(index):
            low, high = int(deals.min()), int(deals.max())
            if high - low < 2 * len(index):  # a run of the schedule: every deal in it
                by_deal = derive_seed_array([(self.seed, 1, d) for d in range(low, high + 1)])
                chance_seeds = by_deal[deals - low]
            else:  # scattered games (a resumed run's gaps): their deals only
                unique, inverse = np.unique(deals, return_inverse=True)
                by_deal = derive_seed_array([(self.seed, 1, d) for d in unique.tolist()])
                chance_seeds = by_deal[inverse]
        agent_rows = np.empty((len(game_seeds) * self.seats, 3), np.int64)
        agent_rows[:, 0] = np.repeat(game_seeds, self.seats)
        agent_rows[:, 1] = AGENT_SALT
        agent_rows[:, 2] = np.tile(np.arange(self.seats), len(game_seeds))
        agent_seeds = derive_seed_array(agent_rows).reshape(len(game_seeds), self.seats)
        return Schedule(self.game, self.arrangements, arrangement, game_seeds, chance_seeds,
                        deals, seating, agent_seeds, index)

    def position(self, task_id: str) -> int | None:
        """The position of the game ``task_id`` names (None: no game of this schedule)."""
        if self._templates is None:
            self._templates = {}
            for a, (_, _, template) in enumerate(self.arrangements):
                head, tail = template.split("%d")
                self._templates[(head, tail)] = a
        match = _GENERATED_ID.fullmatch(task_id)
        if match is None:
            return None
        head, number, tail = match.groups()
        found = self._templates.get((head, tail))
        deal = int(number)
        if found is None or deal >= self.deals or f"{head}{deal}{tail}" != task_id:
            return None
        return deal * len(self.arrangements) + found


class ListedGames:
    """The games of a schedule given as a list of tasks (:meth:`Schedule.from_tasks`)."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self._position: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self.schedule)

    def rows(self, positions: np.ndarray) -> Schedule:
        return self.schedule.take(np.asarray(positions, dtype=np.int64))

    def position(self, task_id: str) -> int | None:
        if self._position is None:
            self._position = {t: k for k, t in enumerate(self.schedule.task_ids())}
        return self._position.get(task_id)


class Plan:
    """A schedule's games, computed when asked for (see the module docstring).

    ``len(plan)`` games; ``plan[i:j]`` and ``plan.take(positions)`` are
    :class:`Schedule` s of those games (each keeps its position in the whole schedule in
    ``row``); ``plan.subset(positions)`` is a plan of those games only (a resumed run's
    missing games); ``plan.position(task_id)`` finds a game in the whole schedule;
    ``iter(plan)`` gives the :class:`GameTask` objects, :data:`CHUNK` at a time.
    """

    def __init__(self, source: _Source, positions: np.ndarray | None = None) -> None:
        self.source = source
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions) if self.positions is not None else len(self.source)

    def __getitem__(self, index: slice) -> Schedule:
        start, stop, step = index.indices(len(self))
        if self.positions is not None:
            return self.source.rows(self.positions[start:stop:step])
        return self.source.rows(np.arange(start, stop, step, dtype=np.int64))

    def take(self, positions: Sequence[int] | np.ndarray) -> Schedule:
        """The games at ``positions`` of this plan, as a :class:`Schedule`."""
        at = np.asarray(positions, dtype=np.int64)
        return self.source.rows(at if self.positions is None else self.positions[at])

    def subset(self, positions: Sequence[int] | np.ndarray) -> Plan:
        """A plan of the games at ``positions`` of this plan, computed when asked for."""
        at = np.asarray(positions, dtype=np.int64)
        return Plan(self.source, at if self.positions is None else self.positions[at])

    def position(self, task_id: str) -> int | None:
        """The position of game ``task_id`` in the whole schedule (None: not in it)."""
        return self.source.position(task_id)

    def __iter__(self) -> Iterator[GameTask]:
        for start in range(0, len(self), CHUNK):
            yield from self[start : start + CHUNK].tasks()
