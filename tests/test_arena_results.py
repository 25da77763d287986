"""Results files: append per game, resume after kill -9, refuse foreign or corrupt files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from spielwerk.arena import (
    ArenaError,
    GameResult,
    ResultsFile,
    ResultsFileError,
    SerialExecutor,
    TournamentConfig,
    read_results,
    run_tournament,
)

GAME = "kalah(pits=4,seeds=3)"


def _config(seed: int = 8, games: int = 10) -> TournamentConfig:
    return TournamentConfig.create(GAME, ["random", "greedy", "random"], games, seed=seed)


def _outcomes(results: list[Any]) -> list[tuple[Any, ...]]:
    return [r.outcome() for r in results]


@pytest.fixture(scope="module")
def reference() -> list[tuple[Any, ...]]:
    """The uninterrupted run, in memory (no file)."""
    return _outcomes(run_tournament(_config(), SerialExecutor()).results)


def test_file_has_header_and_one_line_per_game(tmp_path: Path,
                                               reference: list[tuple[Any, ...]]) -> None:
    out = tmp_path / "sub" / "r.jsonl"
    result = run_tournament(_config(), SerialExecutor(), output=out)
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 30
    header = json.loads(lines[0])
    assert header["config_hash"] == _config().config_hash()
    back = read_results(out)
    assert back.discarded_tail == b""
    assert sorted(_outcomes(back.results)) == sorted(reference)
    assert _outcomes(result.results) == reference


def test_existing_file_needs_resume_or_fresh(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_tournament(_config(games=2), SerialExecutor(), output=out)
    before = out.read_bytes()
    with pytest.raises(ResultsFileError, match="already exists: add --resume .* or --fresh"):
        run_tournament(_config(games=2), SerialExecutor(), output=out)
    assert out.read_bytes() == before
    with pytest.raises(ResultsFileError, match="not both"):
        run_tournament(_config(games=2), SerialExecutor(), output=out, resume=True, fresh=True)
    again = run_tournament(_config(games=2), SerialExecutor(), output=out, fresh=True)
    assert len(again.results) == 6 and again.resumed == 0
    assert len(out.read_text().splitlines()) == 7


def test_resume_of_a_complete_file_plays_nothing(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    first = run_tournament(_config(games=2), SerialExecutor(), output=out)
    second = run_tournament(_config(games=2), SerialExecutor(), output=out, resume=True)
    assert second.resumed == 6
    assert [r.to_record() for r in second.results] == [r.to_record() for r in first.results]


def test_truncated_last_line_is_discarded_and_resume_completes(
    tmp_path: Path, reference: list[tuple[Any, ...]]
) -> None:
    out = tmp_path / "r.jsonl"
    run_tournament(_config(), SerialExecutor(), output=out)
    data = out.read_bytes()
    lines = data.split(b"\n")
    keep = b"\n".join(lines[:12]) + b"\n"
    cut = keep + lines[12][: len(lines[12]) // 2]  # died in the middle of line 13
    out.write_bytes(cut)
    back = read_results(out)
    assert len(back.results) == 11 and back.discarded_tail == lines[12][: len(lines[12]) // 2]
    played: list[str] = []
    result = run_tournament(_config(), SerialExecutor(), output=out, resume=True,
                            on_result=lambda r: played.append(r.task_id))
    assert result.resumed == 11 and len(played) == 30 - 11
    assert _outcomes(result.results) == reference
    reread = read_results(out)  # the half line is gone, the file is whole again
    assert reread.discarded_tail == b"" and len(reread.results) == 30
    assert out.read_bytes().startswith(keep)


def test_different_configuration_is_refused_and_file_untouched(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_tournament(_config(seed=1, games=2), SerialExecutor(), output=out)
    before = out.read_bytes()
    with pytest.raises(ResultsFileError, match="different tournament .*seed: file has 1, now 2"):
        run_tournament(_config(seed=2, games=2), SerialExecutor(), output=out, resume=True)
    assert out.read_bytes() == before


def test_corrupt_complete_line_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_tournament(_config(games=2), SerialExecutor(), output=out)
    lines = out.read_text().splitlines(keepends=True)
    lines[3] = '{"task_id": "g0-d0-s0", "oops": 1}\n'
    out.write_text("".join(lines))
    before = out.read_bytes()
    with pytest.raises(ResultsFileError, match="line 4: not a valid game record"):
        run_tournament(_config(games=2), SerialExecutor(), output=out, resume=True)
    assert out.read_bytes() == before
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    with pytest.raises(ResultsFileError, match="not a spielwerk arena results file"):
        run_tournament(_config(games=2), SerialExecutor(), output=other, resume=True)
    with pytest.raises(ResultsFileError, match="refusing to overwrite"):
        run_tournament(_config(games=2), SerialExecutor(), output=other, fresh=True)
    assert other.read_text() == "hello\n"


def test_duplicate_and_foreign_records_are_errors(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_tournament(_config(games=2), SerialExecutor(), output=out)
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines + [lines[2]]))
    with pytest.raises(ResultsFileError, match="appears twice"):
        read_results(out)
    record = json.loads(lines[2])
    record["task_id"] = "g9-d9-s9"
    out.write_text("".join(lines[:2]) + json.dumps(record) + "\n")
    with pytest.raises(ArenaError, match="unknown game 'g9-d9-s9'"):
        run_tournament(_config(games=2), SerialExecutor(), output=out, resume=True)


def test_only_one_writer(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    config = _config(games=2)
    with ResultsFile.open(out, config.to_dict(), config.config_hash()):
        with pytest.raises(ResultsFileError, match="being written by another run"):
            ResultsFile.open(out, config.to_dict(), config.config_hash(), resume=True)


def test_resume_without_output_is_an_error() -> None:
    with pytest.raises(ArenaError, match="--resume needs an output file"):
        run_tournament(_config(games=2), SerialExecutor(), resume=True)


# A tournament in a child process that is killed with SIGKILL part-way. A slow
# agent (same moves as random, but it sleeps, only in the child) makes sure the
# kill lands mid-run.
CHILD = textwrap.dedent(
    """
    import sys, time
    from spielwerk.core.agent import RandomAgent, register_agent
    from spielwerk.arena import SerialExecutor, TournamentConfig, run_tournament

    class Sleepy(RandomAgent):
        def act(self, info_state):
            time.sleep(float(sys.argv[2]))
            return super().act(info_state)

    register_agent("sleepy", Sleepy, {}, "random, slowly")
    config = TournamentConfig.create("kalah(pits=4,seeds=3)", ["sleepy", "greedy"], 40, seed=13)
    run_tournament(config, SerialExecutor(), output=sys.argv[1], resume=True)
    """
)


def test_killed_tournament_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    out = tmp_path / "killed.jsonl"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(out), "0.004"])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.exists() and out.read_bytes().count(b"\n") >= 6:
                break
            if child.poll() is not None:
                pytest.fail(f"child exited early with {child.returncode}")
            time.sleep(0.005)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL
    partial = read_results(out)
    assert 5 <= len(partial.results) < 40, "the kill did not land part-way"
    # resume (fast now) in another child, then compare with an uninterrupted run
    subprocess.run([sys.executable, "-c", CHILD, str(out), "0"], check=True)
    fresh = tmp_path / "whole.jsonl"
    subprocess.run([sys.executable, "-c", CHILD, str(fresh), "0"], check=True)
    resumed, whole = read_results(out), read_results(fresh)
    assert resumed.discarded_tail == b"" and len(resumed.results) == 40
    assert sorted(_outcomes(resumed.results)) == sorted(_outcomes(whole.results))
    finished_before = {r.task_id: r.to_record() for r in partial.results}
    for r in resumed.results:  # finished games were kept, not replayed
        if r.task_id in finished_before:
            assert r.to_record() == finished_before[r.task_id]


def test_a_ctrl_c_between_writing_and_counting_a_batch_waits_for_both(tmp_path: Path) -> None:
    """The games counted for the figures after a Ctrl-C are exactly the file's games: the
    signal, arriving while a batch is reported game by game, is raised once the whole batch
    is both written and counted (it once landed in between, so the file held more games than
    the figures said)."""
    out = tmp_path / "t.jsonl"
    counted: list[GameResult] = []

    def on_result(result: GameResult) -> None:
        counted.append(result)
        if len(counted) == 3:  # inside the first batch
            signal.raise_signal(signal.SIGINT)

    class FiveAtATime(SerialExecutor):  # batches of 5 games whatever the machine's speed
        def map_batches(self, fn: Any, work: Any) -> Any:
            for start in range(0, len(work), 5):
                yield fn(work[start : start + 5])

    config = TournamentConfig.create("kalah(pits=4,seeds=3)", ["random", "greedy"], 40)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(config, FiveAtATime(), output=out, on_result=on_result)
    written = read_results(out).results
    assert len(counted) == 5  # the batch went on after the signal, no further ...
    # ... and every game written was counted
    assert sorted(r.task_id for r in written) == sorted(r.task_id for r in counted)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is back
