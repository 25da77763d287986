"""Arena errors: results files that are not ours are never overwritten, a full disk gives a
clear message, pool workers exit when the arena process is killed, a script without a
main guard is told so, 3-player W/D/L is explained."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from process_helpers import (
    HAVE_PROC,
    SPIELWERK,
    assert_stopped_cleanly,
    ctrl_c,
    descendants,
    left_behind,
)
from spielwerk.arena import ResultsFileError, SerialExecutor, TournamentConfig, run_tournament
from spielwerk.arena import results as results_mod
from spielwerk.cli.main import app

GAME = "kalah(pits=3,seeds=2)"
ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def _config() -> TournamentConfig:
    return TournamentConfig.create(GAME, ["random", "greedy"], 4, seed=1)


@pytest.mark.parametrize(
    "content",
    [b"my notes, one line without a newline", b"\x00\x01\x02binary\xff\xfe" * 20,
     b'{"format":"something-else"}'],
)
def test_resume_never_overwrites_a_file_that_is_not_ours(tmp_path: Path,
                                                         content: bytes) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(content)
    with pytest.raises(ResultsFileError, match="not a spielwerk arena results file"):
        run_tournament(_config(), SerialExecutor(), notes, resume=True)
    assert notes.read_bytes() == content


@pytest.mark.parametrize("content", [b"", b'{"format":"spielwerk-ar'])
def test_resume_may_replace_an_empty_file_or_our_own_unfinished_header(
        tmp_path: Path, content: bytes) -> None:
    out = tmp_path / "r.jsonl"
    out.write_bytes(content)
    result = run_tournament(_config(), SerialExecutor(), out, resume=True)
    assert len(result.results) == 4
    assert out.read_bytes().startswith(b'{"format":"spielwerk-arena-results"')


def test_disk_full_gives_a_clear_message_and_the_resume_hint(tmp_path: Path,
                                                             monkeypatch) -> None:
    out = tmp_path / "r.jsonl"
    real_write = os.write
    calls = {"n": 0}

    def write(fd: int, data: bytes) -> int:
        calls["n"] += 1
        if calls["n"] > 2:  # the header and the first write of games fit, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    class FullDisk:  # the results module's own view of os; everything else keeps the real one
        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            return getattr(os, name)

    full = FullDisk()
    full.write = write  # type: ignore[attr-defined]
    monkeypatch.setattr(results_mod, "os", full)
    with pytest.raises(ResultsFileError) as info:
        run_tournament(_config(), SerialExecutor(), out)
    text = str(info.value)
    assert "disk is full" in text and f"--resume -o {out}" in text and "\n" not in text
    monkeypatch.setattr(results_mod, "os", os)
    # quick games are written several to a write: count what the first one kept
    kept = len(results_mod.read_results(out).results)
    resumed = run_tournament(_config(), SerialExecutor(), out, resume=True)
    assert resumed.resumed == kept >= 1 and len(resumed.results) == 4


@pytest.mark.skipif(not HAVE_PROC, reason="needs /proc and the installed spielwerk script")
@pytest.mark.parametrize("command", ["arena", "fuzz"])
def test_workers_exit_when_the_parent_process_is_killed(tmp_path: Path, command: str) -> None:
    out = tmp_path / "k.jsonl"
    args = (["arena", GAME, "random", "greedy", "--games", "20000", "--workers", "2", "-o",
             str(out)] if command == "arena" else
            ["fuzz", GAME, "--games", "10000000", "--workers", "2"])
    proc = subprocess.Popen([str(SPIELWERK), *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        if command == "arena":  # games are being written: the workers are running
            while time.time() < deadline and (not out.exists() or out.stat().st_size < 2000):
                time.sleep(0.2)
            assert out.exists() and out.stat().st_size >= 2000, "the arena did not start"
        else:
            while time.time() < deadline and len(descendants(proc.pid)) < 2:
                time.sleep(0.2)
            time.sleep(2.0)
        workers = descendants(proc.pid)
        assert len(workers) >= 2
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    left = left_behind(workers)
    assert not left, f"processes still alive 5 s after kill -9 of {command}: {left}"


@pytest.mark.parametrize("comment", ["", "# __name__ is not checked in this script"])
def test_a_script_without_main_guard_is_told_so(tmp_path: Path, comment: str) -> None:
    script = tmp_path / "tournament.py"
    script.write_text(textwrap.dedent(f"""
        from spielwerk.arena import TournamentConfig, run_tournament
        config = TournamentConfig.create("{GAME}", ["random", "greedy"], 2)
        {comment}
        print(run_tournament(config).standings().agents[0].label)
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=180, cwd=tmp_path)
    assert done.returncode != 0
    assert "__main__" in done.stderr and "tournament.py" in done.stderr
    assert "out of memory" not in done.stderr
    # only the script's own traceback, ending in the one-line ExecutorError: the workers,
    # which import the script again, say nothing
    assert done.stderr.count("Traceback") == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(
        "spielwerk.core.parallel.ExecutorError: the worker processes could not start")
    assert "RuntimeError" not in done.stderr and len(done.stderr.splitlines()) < 20


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.mark.skipif(not HAVE_PROC, reason="needs /proc and the installed spielwerk script")
def test_ctrl_c_stops_a_knowledge_base_build_at_once(tmp_path: Path) -> None:
    # a chunk is seconds of solving per worker: Ctrl-C must not wait for the running ones
    out = tmp_path / "kb"
    run = ctrl_c(["skat", "kb", "build", "--deals", "400", "--chunk", "2", "--out", str(out),
                  "--workers", "2"], lambda pid: any(out.glob("hand-*.npz")), tmp_path)
    assert_stopped_cleanly(run)
    manifest = json.loads((out / "manifest.json").read_text())
    shards = manifest["stages"]["hand"]["shards"]
    assert shards and all((out / name).is_file() for name in shards)
    assert f"{2 * len(shards)} of 400 deals of the hand stage" in " ".join(run.output.split())


@pytest.mark.skipif(not HAVE_PROC, reason="needs /proc and the installed spielwerk script")
def test_ctrl_c_stops_the_arena_with_the_table_of_what_finished(tmp_path: Path) -> None:
    out = tmp_path / "a.jsonl"
    run = ctrl_c(["arena", "kalah(pits=4,seeds=3)", "mcts:time=0.05", "random", "--games",
                  "4000", "--workers", "2", "-o", str(out)], lambda pid: _lines(out) > 3, tmp_path)
    assert_stopped_cleanly(run)
    kept = results_mod.read_results(out).results
    assert "Standings" in run.stdout and f"{len(kept)} games" in run.stdout
    assert len({r.task_id for r in kept}) == len(kept)  # resume continues without duplicates
    assert f"interrupted after {len(kept)} new games" in run.stderr


@pytest.mark.skipif(not HAVE_PROC, reason="needs /proc and the installed spielwerk script")
def test_ctrl_c_stops_the_fuzzer_and_names_the_seed_to_continue_from(tmp_path: Path) -> None:
    run = ctrl_c(["fuzz", GAME, "--games", "900000", "--workers", "2"],
                 lambda pid: len(descendants(pid)) >= 2, tmp_path)
    assert_stopped_cleanly(run, continue_with="continue with --seed")


def test_three_player_tables_explain_w_d_l() -> None:
    result = runner.invoke(app, ["arena", "durak(players=3,deck=24)", "random", "greedy",
                                 "smart", "--games", "3", "-e", "serial"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.stdout
    assert "W+D+L is 2 x games" in " ".join(result.stdout.split())


def test_every_python_example_in_the_readme_runs_as_written(tmp_path: Path) -> None:
    import re

    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 2
    for number, code in enumerate(blocks):
        if "pettingzoo" in code:
            pytest.importorskip("pettingzoo")
        script = tmp_path / f"readme_{number}.py"
        script.write_text(code)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              timeout=180, cwd=tmp_path)
        assert done.returncode == 0, f"README example {number}:\n{code}\n{done.stderr}"
        assert done.stdout.strip(), f"README example {number} printed nothing"


def test_a_main_guard_is_read_from_the_code_not_from_a_comment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The main-guard explanation does not hang on the workers' exit codes (a worker the
    breaking pool stopped has another): a script is judged by its code."""
    import types

    from spielwerk.core.parallel import _missing_main_guard

    cases = {
        "guarded.py": 'if __name__ == "__main__":\n    run()\n',
        "comment.py": "# __name__ is not checked in this script\nrun()\n",
        "string.py": 'print("__name__")\nrun()\n',
        "broken.py": "def (\n",  # not Python: only a plain mention would count
    }
    found = {}
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        fake = types.ModuleType("__main__")
        fake.__file__ = str(path)
        monkeypatch.setitem(sys.modules, "__main__", fake)
        found[name] = _missing_main_guard()
    assert found == {"guarded.py": None, "comment.py": str(tmp_path / "comment.py"),
                     "string.py": str(tmp_path / "string.py"),
                     "broken.py": str(tmp_path / "broken.py")}
