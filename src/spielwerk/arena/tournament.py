"""Round-robin tournaments, matches and duplicate deals.

Agents meet in *groups* of ``num_players`` (every pairing for two-player
games, every combination of three for Skat). Each group plays *deals*: a
deal is one chance seed (one shuffle), replayed under every *seating* of the
group, so luck of the deal cancels out:

- ``rotations`` (default): the group rotated through the seats; for two
  players this is seat alternation (A-B, then B-A). Three-player Skat uses
  the three rotations.
- ``permutations``: every order of the group (``n!`` seatings).

The same deal seeds are used for every group (deal ``d`` is the same shuffle
in every pairing), which makes results across pairings comparable. Kalah has
no chance nodes; there a deal is just a pair of games with the seats swapped.

Each game is a :class:`GameTask` with a stable id ``g{group}-d{deal}-s{seating}``;
results can be written as they finish and a stopped run resumed (see
:mod:`spielwerk.arena.results`).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import numpy as np

from spielwerk._signals import interrupts_deferred
from spielwerk.arena.batch import BatchResult, Schedule, run_batch, run_each
from spielwerk.arena.match import ArenaError, GameResult, GameTask, run_detailed_task
from spielwerk.arena.plan import ListedGames, Plan, SeededGames
from spielwerk.arena.results import ResultsFile, written_config
from spielwerk.arena.stats import Standings, standings
from spielwerk.core.agent import make_agent
from spielwerk.core.estimate import physical_memory, size
from spielwerk.core.parallel import Executor, LocalProcessExecutor
from spielwerk.core.registry import load_game

SEATINGS = ("rotations", "permutations")
FORMAT_VERSION = 1


def seatings(num_players: int, mode: str = "rotations") -> list[tuple[int, ...]]:
    """Seat orders of a group: ``order[s]`` is the group member sitting in seat ``s``."""
    if mode == "rotations":
        n = num_players
        return [tuple((s + r) % n for s in range(n)) for r in range(n)]
    if mode == "permutations":
        return list(itertools.permutations(range(num_players)))
    raise ArenaError(f"seating must be one of {', '.join(SEATINGS)}, not {mode!r}")


def unique_labels(specs: Sequence[str]) -> tuple[str, ...]:
    """Names for the standings: the spec, with ``#2``, ``#3`` ... for repeated specs."""
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(labels)


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that determines a tournament's games (not how they are executed).

    ``games_per_group`` is the number of games each group (each pairing in a
    two-player game) plays; it must be a multiple of the number of seatings.
    """

    game: str
    agents: tuple[str, ...]
    games_per_group: int
    seed: int = 0
    seating: str = "rotations"
    labels: tuple[str, ...] = field(default=())

    @classmethod
    def create(
        cls,
        game: str,
        agents: Sequence[str],
        games_per_group: int,
        seed: int = 0,
        seating: str = "rotations",
        check_agents: bool = True,
    ) -> TournamentConfig:
        """Validate the game, agent specs and counts; canonicalise the game spec.

        Raises :class:`UnknownGameError`, :class:`GameParameterError`,
        :class:`AgentSpecError` or :class:`ArenaError` with a one-line message.
        """
        g = load_game(game)
        specs = tuple(a.strip() for a in agents)
        if len(specs) < g.num_players:
            raise ArenaError(
                f"{g.spec()} is a {g.num_players}-player game: give at least {g.num_players} "
                f"agents (repeat a spec to seat it twice), got {len(specs)}"
            )
        if check_agents:
            for spec in specs:
                make_agent(spec, g, seed=0)
        if seed < 0:
            raise ArenaError(f"the seed must be a non-negative integer, not {seed}")
        n_seatings = len(seatings(g.num_players, seating))
        if games_per_group < 1 or games_per_group % n_seatings:
            raise ArenaError(
                f"games per pairing must be a positive multiple of {n_seatings} (each deal is "
                f"played with the seats {seating!s}), not {games_per_group}"
            )
        return cls(g.spec(), specs, games_per_group, seed, seating, unique_labels(specs))

    def __post_init__(self) -> None:
        if not self.labels:
            object.__setattr__(self, "labels", unique_labels(self.agents))

    @property
    def num_players(self) -> int:
        return load_game(self.game).num_players

    def groups(self) -> list[tuple[int, ...]]:
        """Agent indices of each group, in a fixed order."""
        return list(itertools.combinations(range(len(self.agents)), self.num_players))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "game": self.game,
            "agents": list(self.agents),
            "labels": list(self.labels),
            "games_per_group": self.games_per_group,
            "seed": self.seed,
            "seating": self.seating,
        }

    def as_written(self, written: dict[str, Any] | None) -> Self:
        """This configuration in the form of the file ``--resume`` continues, whose header
        holds ``written`` (None: none to read): itself, unless a newer field the file
        predates is left out (:meth:`DuplicateConfig.as_written`)."""
        return self

    def config_hash(self) -> str:
        """SHA-256 of the canonical JSON of :meth:`to_dict` (identifies a results file)."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def schedule(self) -> list[GameTask]:
        """All games, ordered deal by deal (so a partial run covers every group evenly)."""
        return self.plan().tasks()

    def plan(self) -> Schedule:
        """:meth:`schedule` as columns (:class:`~spielwerk.arena.batch.Schedule`), built
        whole in one vectorised pass; :meth:`lazy_plan` computes them as they are needed."""
        return self.lazy_plan()[:]

    def total_games(self) -> int:
        """The number of games scheduled (without listing them)."""
        if type(self).schedule is not TournamentConfig.schedule:
            return len(self.schedule())
        return len(self.groups()) * self.games_per_group

    def lazy_plan(self) -> Plan:
        """Every game, computed when asked for (:class:`~spielwerk.arena.plan.Plan`): a run
        of any size starts at once. A subclass that lists its own games in :meth:`schedule`
        gets those."""
        if type(self).schedule is not TournamentConfig.schedule:
            return Plan(ListedGames(Schedule.from_tasks(self.schedule())))
        orders = self._orders()
        arrangements = []  # (group, seating) -> agent specs and labels by seat, id template
        for gi, group in enumerate(self.groups()):
            for si, order in enumerate(orders):
                members = [group[m] for m in order]
                arrangements.append((tuple(self.agents[m] for m in members),
                                     tuple(self.labels[m] for m in members),
                                     self._task_template(gi, si)))
        return Plan(SeededGames(self.game, arrangements, len(orders),
                                self.games_per_group // len(orders), self.seed,
                                self.num_players, self.SEED_BY_GROUP))

    SEED_BY_GROUP = True
    RECORDS_DETAILS = False
    """Whether each game's record keeps the game's outcome (its ``final_details`` hook)."""
    """Whether a game's seed is derived from its group too (see
    :class:`~spielwerk.arena.plan.SeededGames`)."""
    RESULT_BYTES = 1000
    """Memory a finished game's result takes while the run keeps it for the standings
    (measured: about 840 bytes for Kalah, 1000 for Durak, 1100 for a Skat match's)."""

    def _orders(self) -> list[tuple[int, ...]]:
        """The seatings of a group: ``order[s]`` is the group member in seat ``s``."""
        return seatings(self.num_players, self.seating)

    def _task_template(self, group: int, seating: int) -> str:
        return f"g{group}-d%d-s{seating}"

    def _size_text(self, games_per_group: int) -> str:
        """The run's size in the user's terms (a subclass: in deals)."""
        return f"{games_per_group:,} games per pairing"

    def check_fits(self) -> None:
        """Refuse, with the estimate, a run whose results do not fit in this machine's memory
        (the run keeps every game's result for the standings): one line, before anything
        is played or written."""
        memory = physical_memory()
        total = self.total_games()
        need = total * self.RESULT_BYTES
        if memory is None or need <= memory:
            return
        per_group = total // self.games_per_group
        orders = len(self._orders())
        fit = memory // self.RESULT_BYTES // max(1, per_group)
        fit -= fit % orders
        raise ArenaError(
            f"{self._size_text(self.games_per_group)} cannot be played here: the {total:,} "
            f"games' results need about {size(need)} of memory for the standings (this machine "
            f"has {size(memory)}); at most about {self._size_text(max(fit, orders))} fit")


def match_config(
    game: str, agents: Sequence[str], games: int, seed: int = 0, seating: str = "rotations"
) -> TournamentConfig:
    """A match: exactly ``num_players`` agents playing ``games`` games (seats rotated)."""
    config = TournamentConfig.create(game, agents, games, seed, seating)
    if len(config.agents) != config.num_players:
        raise ArenaError(
            f"a match of {config.game} has exactly {config.num_players} agents, "
            f"got {len(config.agents)}"
        )
    return config


def duplicate_deals(
    game: str, agents: Sequence[str], deals: int, seed: int = 0, seating: str = "permutations"
) -> TournamentConfig:
    """Duplicate play: each of ``deals`` deals replayed under every seating of the agents."""
    g = load_game(game)
    n = len(seatings(g.num_players, seating))
    return TournamentConfig.create(game, agents, deals * n, seed, seating)


@dataclass
class TournamentResult:
    """A tournament's configuration and its results in schedule order."""

    config: TournamentConfig
    results: list[GameResult]
    resumed: int = 0  # results read back from the file instead of played

    @property
    def complete(self) -> bool:
        return len(self.results) == self.config.total_games()

    def standings(self, confidence: float = 0.95) -> Standings:
        return standings(self.results, self.config.labels, confidence)

    def to_dict(self, confidence: float = 0.95) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "config_hash": self.config.config_hash(),
            "games_played": len(self.results),
            "games_scheduled": self.config.total_games(),
            "standings": self.standings(confidence).to_dict(),
        }


def run_tournament(
    config: TournamentConfig,
    executor: Executor | None = None,
    output: str | Path | None = None,
    resume: bool = False,
    fresh: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_result: Callable[[GameResult], None] | None = None,
) -> TournamentResult:
    """Play every scheduled game not already in ``output``; return all results.

    ``executor`` defaults to a process pool on all local cores. With
    ``output``, each finished game is appended to the file at once;
    ``resume`` continues a file written by the same configuration and
    ``fresh`` overwrites it; without either, an existing file is an error.
    ``on_start(total, already_done)`` and ``on_result(result)`` drive progress
    displays. Games travel in batches (:mod:`spielwerk.arena.batch`): a slice of
    the schedule per executor task, played by :func:`~spielwerk.arena.batch.run_batch`
    with compact results and the results file's lines formatted in the worker.
    A configuration that keeps each game's outcome (``RECORDS_DETAILS``, a
    duplicate match: :mod:`spielwerk.arena.duplicate`) plays its games one by one
    through :func:`~spielwerk.arena.match.run_detailed_task` instead.
    """
    if resume and output is not None:
        config = config.as_written(written_config(Path(output)))
    config.check_fits()
    plan = config.lazy_plan()
    done: dict[str, GameResult] = {}
    results_file: ResultsFile | None = None
    if output is not None:
        results_file = ResultsFile.open(
            Path(output), config.to_dict(), config.config_hash(), resume=resume, fresh=fresh
        )
        done = {r.task_id: r for r in results_file.existing}
    elif resume:
        raise ArenaError("--resume needs an output file (--output FILE)")
    by_row: list[GameResult | None] = [None] * len(plan)
    todo = plan
    if done:
        for task_id, result in done.items():
            k = plan.position(task_id)
            if k is None:
                assert results_file is not None
                results_file.close()
                raise ArenaError(f"{output}: result for unknown game {task_id!r}")
            by_row[k] = result
        todo = plan.subset(np.flatnonzero([r is None for r in by_row]))
    if on_start is not None:
        on_start(len(plan), len(done))
    lines = results_file is not None
    play: Callable[[Schedule], BatchResult] = (
        functools.partial(run_each, run_detailed_task, lines=lines) if config.RECORDS_DETAILS
        else functools.partial(run_batch, lines=lines))
    own_executor = executor is None
    ex = executor if executor is not None else LocalProcessExecutor()
    try:
        if len(todo):
            for outcome in ex.map_batches(play, todo):
                # a Ctrl-C waits until the batch is both in the file and counted, so the
                # figures printed after it are those of the file's games
                with interrupts_deferred():
                    if results_file is not None and outcome.lines:
                        results_file.append_lines(outcome.lines)
                    made = _results(plan, outcome)
                    for row, result in zip(outcome.rows, made, strict=True):
                        by_row[row] = result
                    if on_result is not None:
                        for result in made:
                            on_result(result)
                if outcome.error is not None:
                    raise outcome.error
    finally:
        if own_executor:
            ex.close()
        if results_file is not None:
            results_file.close()
    return TournamentResult(config, [r for r in by_row if r is not None], len(done))


def _results(plan: Plan | Schedule, outcome: BatchResult) -> list[GameResult]:
    """The :class:`GameResult` objects of a batch's games (rows of ``plan``)."""
    if outcome.results is not None:
        return outcome.results
    rows = outcome.rows
    if rows and rows[-1] - rows[0] == len(rows) - 1:  # a run of the schedule: a slice
        return plan[rows[0] : rows[-1] + 1].results(outcome)
    return plan.take(np.asarray(rows, dtype=np.int64)).results(outcome)


def play_match(
    game: str,
    agents: Sequence[str],
    games: int,
    seed: int = 0,
    executor: Executor | None = None,
) -> TournamentResult:
    """Play a match (see :func:`match_config`) in memory and return its results."""
    return run_tournament(match_config(game, agents, games, seed), executor)
