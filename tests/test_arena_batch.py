"""Games in batches (issue 18): a batch of games gives exactly what one game per task gives,
its lines are the results' own lines, and an error keeps the games before it."""

from __future__ import annotations

import json
import pickle
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest

from spielwerk.arena import (
    AgentFailedError,
    Executor,
    LocalProcessExecutor,
    SerialExecutor,
    TournamentConfig,
    read_results,
    run_tournament,
)
from spielwerk.arena.batch import BatchResult, Schedule, format_lines, run_batch, run_each
from spielwerk.arena.match import GameResult, GameTask, agent_seed, derive_seed, run_task
from spielwerk.arena.seeds import derive_seed_array
from spielwerk.core.agent import RandomAgent, register_agent
from spielwerk.core.game import InfoState

T = TypeVar("T")
R = TypeVar("R")


def _one_per_task(tasks: Sequence[GameTask]) -> list[tuple[Any, ...]]:
    return [run_task(t).outcome() for t in tasks]


def _outcomes(plan: Schedule, outcome: BatchResult) -> list[tuple[Any, ...]]:
    assert outcome.error is None
    return [r.outcome() for r in plan.results(outcome)]


@pytest.mark.parametrize(("game", "agents", "games"), [
    ("kalah(pits=4,seeds=3)", ["random", "random", "greedy"], 4),  # kept and built agents
    ("durak", ["random", "random"], 4),
    ("skat", ["random", "random", "random"], 3),
])
def test_a_batch_plays_the_games_one_task_each_plays(
        game: str, agents: list[str], games: int) -> None:
    config = TournamentConfig.create(game, agents, games, seed=5)
    plan = config.plan()
    tasks = plan.tasks()
    assert tasks == config.schedule() and len(plan) == len(tasks)
    expected = _one_per_task(tasks)
    assert _outcomes(plan, run_batch(plan)) == expected
    # cut anywhere (a pool's batches): the same games
    for cut in (1, 3, len(plan) - 1):
        got = _outcomes(plan[:cut], run_batch(plan[:cut]))
        got += _outcomes(plan[cut:], run_batch(plan[cut:]))
        assert got == expected
    # a subset (a resumed run) keeps each game's row in the whole schedule
    odd = plan.take(np.arange(1, len(plan), 2))
    outcome = run_batch(odd)
    assert outcome.rows == list(range(1, len(plan), 2))
    assert _outcomes(odd, outcome) == expected[1::2]


def test_batches_in_threads_play_the_same_games() -> None:
    plan = TournamentConfig.create("kalah(pits=3,seeds=3)", ["random", "random"], 30,
                                   seed=8).plan()
    expected = _outcomes(plan, run_batch(plan))
    got: dict[int, list[tuple[Any, ...]]] = {}

    def work(k: int) -> None:
        part = plan[10 * k : 10 * k + 10]
        got[k] = _outcomes(part, run_batch(part))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got[0] + got[1] + got[2] == expected


def test_batch_lines_are_the_results_lines() -> None:
    odd = ['a"b', "50%", "%d%s", "ü\u2603", "x\\y"]
    config = TournamentConfig.create("kalah(pits=3,seeds=2)", ["random", "random", "random"],
                                     4, seed=3)
    config = TournamentConfig(config.game, config.agents, config.games_per_group, config.seed,
                              config.seating, (odd[0], odd[1], odd[2]))
    plan = config.plan()
    outcome = run_batch(plan, lines=True)
    results = plan.results(outcome)
    assert outcome.lines == "\n".join(r.to_json_line() for r in results)
    assert outcome.lines.splitlines() == [json.dumps(r.to_record(), separators=(",", ":"))
                                          for r in results]
    # listed ids (a schedule made from tasks), and returns json writes its own way
    listed = Schedule.from_tasks([GameTask(odd[3] + str(k), t.game, t.agents, (odd[3], odd[4]),
                                           t.seed, t.chance_seed, t.deal, t.seating)
                                  for k, t in enumerate(plan.tasks() * 2)][:5])
    strange = BatchResult([0, 1, 2, 3, 4],
                          [(float("nan"), 1.0), (0.0, 2**60 + 0.5), (-0.0, 2**60 + 0.5),
                           (1e300, 1e300), (0.0, 2**60 + 0.5)],
                          [3, 4, 5, 6, 7], [0.5, 0.0, -0.0, float("inf"), 1e-7])
    text = format_lines(listed, strange)
    expected = [json.dumps(r.to_record(), separators=(",", ":"))
                for r in listed.results(strange)]
    assert text.splitlines() == expected and "NaN" in text and "-0.0" in text


def test_schedule_from_tasks_and_pickle_round_trip() -> None:
    config = TournamentConfig.create("skat", ["random", "random", "random", "random"], 3, seed=9)
    tasks = config.schedule()
    assert Schedule.from_tasks(tasks).tasks() == tasks
    bare = [GameTask(t.task_id, t.game, t.agents, t.labels, t.seed, t.chance_seed, t.deal,
                     t.seating) for t in tasks]  # no agent seeds: derived as agent_seed does
    assert Schedule.from_tasks(bare).tasks() == tasks
    part = pickle.loads(pickle.dumps(config.plan()[2:5]))
    assert part.tasks() == tasks[2:5] and part.row.tolist() == [2, 3, 4]
    for task in tasks:  # the seeds are derive_seed's, game by game
        group = int(task.task_id.split("-")[0][1:])
        assert task.seed == derive_seed(9, 2, group, task.deal, task.seating)
        assert task.chance_seed == derive_seed(9, 1, task.deal)
        assert task.agent_seeds == tuple(agent_seed(task.seed, s) for s in range(3))
    rows = [(1, 2, 3), (2**40, 0, 7), (2**62, 5, 2**33)]
    expected = [derive_seed(*row) for row in rows]
    assert derive_seed_array(np.array(rows, dtype=np.int64)).tolist() == expected
    assert derive_seed_array([(2**63 + 1, 2)]).tolist() == [derive_seed(2**63 + 1, 2)]


_bad_seed = {"seed": -1}


class _FailsOnSeed(RandomAgent):
    """Random, but built anew per game (not reusable) and illegal in the game whose seed
    for it is ``_bad_seed["seed"]``."""

    reusable = False

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.bad = seed == _bad_seed["seed"]

    def act(self, info_state: InfoState) -> int:
        return -7 if self.bad else super().act(info_state)


register_agent("fails-on-seed", _FailsOnSeed, {}, "random; illegal in one game")


def test_an_error_in_a_batch_keeps_the_games_before_it(tmp_path: Path) -> None:
    config = TournamentConfig.create("kalah(pits=3,seeds=2)", ["fails-on-seed", "random"], 6,
                                     seed=1, check_agents=False)
    plan = config.plan()
    assert plan.arrangements[0][0][0] == "fails-on-seed"
    _bad_seed["seed"] = int(plan.agent_seeds[2, 0])  # the third game, g0-d1-s0
    outcome = run_batch(plan, lines=True)
    assert isinstance(outcome.error, AgentFailedError) and len(outcome.moves) == 2
    assert outcome.rows == [0, 1] and len(outcome.lines.splitlines()) == 2
    out = tmp_path / "r.jsonl"
    with pytest.raises(AgentFailedError, match="illegal action -7"):
        run_tournament(config, SerialExecutor(), output=out)
    assert [r.task_id for r in read_results(out).results] == ["g0-d0-s0", "g0-d0-s1"]
    _bad_seed["seed"] = -1


def _fail_on_third(task: GameTask) -> GameResult:
    if task.task_id == "g0-d1-s0":
        raise ValueError("no third game")
    return run_task(task)


class _Detailed(TournamentConfig):
    RECORDS_DETAILS = True  # played game by game, as a duplicate match is


def test_a_per_game_runner_plays_batches_and_keeps_the_games_before_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import spielwerk.arena.tournament as tournament

    config = _Detailed.create("kalah(pits=3,seeds=2)", ["random", "greedy"], 6, seed=4)
    plan = config.plan()
    outcome = run_each(run_task, plan, lines=True)
    assert outcome.results is not None and outcome.error is None
    assert [r.outcome() for r in outcome.results] == _one_per_task(plan.tasks())
    assert outcome.lines == "\n".join(r.to_json_line() for r in outcome.results)
    out = tmp_path / "r.jsonl"
    with pytest.raises(ValueError, match="no third game"):
        monkeypatch.setattr(tournament, "run_detailed_task", _fail_on_third)
        run_tournament(config, SerialExecutor(), output=out)
    assert [r.task_id for r in read_results(out).results] == ["g0-d0-s0", "g0-d0-s1"]


class _OnlyMapUnordered(Executor):
    """An executor written before batches: only ``map_unordered``."""

    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        for task in reversed(list(tasks)):  # any completion order
            yield fn(task)


def test_executors_cover_the_work_with_batches() -> None:
    work = list(range(50))
    for ex in (SerialExecutor(), _OnlyMapUnordered()):
        got = list(ex.map_batches(list, work))
        assert sorted(x for batch in got for x in batch) == work
        assert all(b == list(range(b[0], b[0] + len(b))) for b in got)  # consecutive slices
    config = TournamentConfig.create("kalah(pits=3,seeds=2)", ["random", "greedy"], 10, seed=2)
    serial = [r.outcome() for r in run_tournament(config, SerialExecutor()).results]
    assert [r.outcome() for r in run_tournament(config, _OnlyMapUnordered()).results] == serial
    with LocalProcessExecutor(workers=2) as pool:
        got = list(pool.map_batches(sum, work))
        assert sum(got) == sum(work)
        assert [r.outcome() for r in run_tournament(config, pool).results] == serial
