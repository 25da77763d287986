"""The arena's per-game fast paths (issue 18) give exactly what the plain paths give:
results lines, tasks and results built without the dataclass constructor, bulk seeds,
agents kept across games, results written in batches."""

from __future__ import annotations

import dataclasses
import json
import random
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from spielwerk.arena import SerialExecutor, TournamentConfig, run_tournament
from spielwerk.arena import results as results_module
from spielwerk.arena.match import (
    GameResult,
    GameTask,
    build_agents,
    derive_seed,
    play_game,
    run_task,
)
from spielwerk.arena.results import FLUSH_SECONDS, ResultsFile, read_results
from spielwerk.arena.seeds import SeedError, derive_seeds
from spielwerk.core.game import LazyGenerator
from spielwerk.core.registry import load_game


def _result(**changes: Any) -> GameResult:
    base = GameResult("g0-d1-s0", "kalah(pits=3,seeds=2)", ("random", "greedy"),
                      ("random", "greedy"), 2**62 + 5, 17, 1, 0, (3.0, -3.0), 21, 0.000123)
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize("changes", [
    {},
    {"labels": ('quote"d', "back\\slash"), "agents": ("ünï", "tab\tname")},
    {"returns": (-0.0, 1e300, 2.5e-8), "duration_s": 12.0},
    {"returns": (float("nan"), 1.0)},
    {"returns": (float("inf"), float("-inf"))},
    {"seed": True, "moves": np.int64(4)},
    {"returns": (1, -1)},
    {"returns": (np.float64(0.1), 1.0)},  # a float subclass: json writes float.__repr__ too
    {"returns": ("x", 1.0)},
    {"details": {"contract": "G", "points": [1, 2]}},
    {"task_id": "g1-d2-s3\n"},
])
def test_results_line_is_json_dumps_of_the_record(changes: dict[str, Any]) -> None:
    result = _result(**changes)
    try:
        expected = json.dumps(result.to_record(), separators=(",", ":"))
    except TypeError:  # a numpy int: json.dumps refuses it, and so does the line
        with pytest.raises(TypeError):
            result.to_json_line()
        return
    assert result.to_json_line() == expected


def test_fast_constructors_equal_the_dataclass_constructors() -> None:
    task_values = ("g0-d0-s1", "skat", ("a", "b", "c"), ("a", "b", "c"), 5, 6, 0, 1, (7, 8, 9))
    assert GameTask.make(*task_values) == GameTask(*task_values)
    assert hash(GameTask.make(*task_values)) == hash(GameTask(*task_values))
    assert set(vars(GameTask.make(*task_values))) == {f.name for f in dataclasses.fields(GameTask)}
    result = _result()
    values = [getattr(result, f.name) for f in dataclasses.fields(GameResult)][:-1]
    made = GameResult.make(*values)
    assert made == result and made.details is None
    assert set(vars(made)) == {f.name for f in dataclasses.fields(GameResult)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.moves = 3  # type: ignore[misc]


def test_bulk_seeds_of_equal_rows_equal_derive_seed() -> None:
    r = random.Random(8)
    for width in range(1, 6):
        rows = [tuple(r.choice([0, 1, 2**32 - 1, 2**32, r.randrange(2**63), 2**63 - 1])
                      for _ in range(width)) for _ in range(200)]
        expected = [derive_seed(*row) for row in rows]
        assert derive_seeds(rows) == expected
        assert derive_seeds(np.array(rows, dtype=np.int64)) == expected
    big = [(2**63, 1), (5, 2**70)]  # beyond int64: word by word
    assert derive_seeds(big) == [derive_seed(*row) for row in big]
    assert derive_seeds([]) == []
    with pytest.raises(SeedError, match="non-negative"):
        derive_seeds([(1, -2), (3, 4)])


def test_bulk_seeds_without_the_kernel_equal_derive_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The array-operations hash (used under NUMBA_DISABLE_JIT) gives the kernel's values."""
    import spielwerk.arena.seeds as seeds

    r = random.Random(9)
    rows = [(r.randrange(2**63), r.choice([1, 2**32 + 5]), r.randrange(3)) for _ in range(300)]
    compiled = derive_seeds(rows)
    monkeypatch.setattr(seeds, "_kernel", lambda: None)
    assert derive_seeds(rows) == compiled == [derive_seed(*row) for row in rows]


def _fresh_outcomes(tasks: list[GameTask]) -> list[tuple[str, list[float], int]]:
    """Every task played with agents built for it alone (no reuse)."""
    out = []
    for task in tasks:
        game = load_game(task.game)
        returns, moves, _ = play_game(game, build_agents(task, game),
                                      LazyGenerator(task.chance_seed))
        out.append((task.task_id, returns, moves))
    return out


def test_agents_kept_across_games_play_as_freshly_built_ones() -> None:
    config = TournamentConfig.create("kalah(pits=4,seeds=3)", ["random", "random", "greedy"],
                                     6, seed=3)
    tasks = config.schedule()
    fresh = _fresh_outcomes(tasks)
    shuffled = list(tasks)
    random.Random(1).shuffle(shuffled)  # kept agents see other games in between
    kept = {r.task_id: (r.task_id, list(r.returns), r.moves) for r in map(run_task, shuffled)}
    assert [kept[t.task_id] for t in tasks] == fresh
    # threads (as Dask workers run tasks) keep their own agents
    threaded: dict[str, tuple[str, list[float], int]] = {}

    def work(part: list[GameTask]) -> None:
        for task in part:
            r = run_task(task)
            threaded[r.task_id] = (r.task_id, list(r.returns), r.moves)

    threads = [threading.Thread(target=work, args=(tasks[i::3],)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [threaded[t.task_id] for t in tasks] == fresh


def test_fast_games_are_written_together_and_slow_ones_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    writes: list[int] = []
    real_write = results_module.os.write

    def counting_write(fd: int, data: Any) -> int:
        writes.append(len(data))
        return real_write(fd, data)

    monkeypatch.setattr(results_module.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(results_module.os, "write", counting_write)
    config = TournamentConfig.create("kalah(pits=3,seeds=2)", ["random", "random"], 8, seed=1)
    path = tmp_path / "r.jsonl"
    file = ResultsFile.open(path, config.to_dict(), config.config_hash())
    header_writes = len(writes)
    results = [run_task(t) for t in config.schedule()]
    clock[0] += 1.0
    file.append(results[0])  # after a long game: written at once
    assert len(writes) == header_writes + 1
    for r in results[1:4]:  # quick games: kept until the window passes
        clock[0] += FLUSH_SECONDS / 10
        file.append(r)
    assert len(writes) == header_writes + 1
    clock[0] += FLUSH_SECONDS
    file.append(results[4])  # the oldest waited long enough: all four in one write
    assert len(writes) == header_writes + 2
    for r in results[5:]:
        file.append(r)
    file.close()  # the rest on close
    assert len(writes) == header_writes + 3
    back = read_results(path)
    assert [r.outcome() for r in back.results] == [r.outcome() for r in results]


def test_tournament_file_lines_are_the_records(tmp_path: Path) -> None:
    config = TournamentConfig.create("skat", ["random", "random", "random"], 3, seed=2)
    out = tmp_path / "s.jsonl"
    result = run_tournament(config, SerialExecutor(), output=out)
    lines = out.read_text().splitlines()[1:]
    assert lines == [json.dumps(r.to_record(), separators=(",", ":")) for r in result.results]


def test_a_result_json_refuses_stops_the_run_after_the_lines_before_it(tmp_path: Path) -> None:
    config = TournamentConfig.create("kalah(pits=3,seeds=2)", ["random", "random"], 4, seed=1)
    path = tmp_path / "r.jsonl"
    results = [run_task(t) for t in config.schedule()]
    bad = dataclasses.replace(results[2], moves=np.int64(7))  # json.dumps refuses a numpy int
    with ResultsFile.open(path, config.to_dict(), config.config_hash()) as file:
        for r in results[:2]:
            file.append(r)
        file.append(bad)
        with pytest.raises(TypeError):
            file.flush()
    assert [r.task_id for r in read_results(path).results] == [r.task_id for r in results[:2]]
