"""benchmarks/kalah_versus_reference.py: two commands timed interleaved, whole process.

Run with small stand-in commands (no solver): the figures' shape, the answers shown, the
clear error for a failing command or a C file that does not compile. Timings are printed,
never asserted."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "kalah_versus_reference.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=120, check=False)


def echo(text: str) -> str:
    return shlex.join([sys.executable, "-c", f"print('first line'); print({text!r})"])


def test_two_commands_are_timed_in_alternating_rounds() -> None:
    done = run("--ours", echo("ours: value +2"), "--reference", echo("reference value +2"),
               "--rounds", "3")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "untimed first run" in out
    assert "ours: value +2" in out and "reference value +2" in out
    assert re.search(r"ours: median \d+\.\d+ s, fastest \d+\.\d+ s \(3 runs\)", out)
    assert re.search(r"reference: median \d+\.\d+ s, fastest \d+\.\d+ s \(3 runs\)", out)
    assert re.search(r"ours / reference: \d+\.\d+ \(medians\); per round \d", out)
    rounds = re.findall(r"round (\d+): ours [\d.]+ s, reference [\d.]+ s", done.stderr)
    assert rounds == ["1", "2", "3"]


def test_a_failing_command_is_an_error_not_a_figure() -> None:
    failing = shlex.join([sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"])
    done = run("--ours", echo("value +2"), "--reference", failing, "--rounds", "1")
    assert done.returncode == 1
    assert "exited with 3" in done.stderr and "boom" in done.stderr
    assert "median" not in done.stdout


def test_a_missing_c_source_is_refused(tmp_path: Path) -> None:
    done = run("--c-source", str(tmp_path / "nope.c"), "--rounds", "1")
    assert done.returncode == 1
    assert "no C source at" in done.stderr


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_a_c_source_is_compiled_and_run(tmp_path: Path) -> None:
    source = tmp_path / "ref.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("value +2"); return 0; }\n')
    done = run("--c-source", str(source), "--ours", echo("value +2"), "--rounds", "2")
    assert done.returncode == 0, done.stderr
    assert "reference: median" in done.stdout
    broken = tmp_path / "broken.c"
    broken.write_text("int main(void) { return }\n")
    done = run("--c-source", str(broken), "--rounds", "1")
    assert done.returncode == 1 and "failed" in done.stderr
