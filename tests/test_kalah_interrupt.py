"""Long Kalah commands end promptly and once on Ctrl-C, refuse at once what cannot finish, and
size their default tables to leave the machine's memory to others.

The Ctrl-C tests run the ``spielwerk`` script in a child process (its own process group,
SIGINT as the default handler, as a terminal starts it) and wait for a phase by what the
command shows (its memory while the table is filled, its progress lines), never by time;
the deadlines are generous, so a slow machine passes."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from spielwerk.games.kalah import defaults
from spielwerk.games.kalah.plan import KalahPlan

SPIELWERK = Path(sys.executable).with_name("spielwerk")
pytestmark = pytest.mark.skipif(not (Path("/proc/self/status").exists() and SPIELWERK.exists()),
                                reason="needs /proc and the spielwerk script")

WITHIN = 15.0
"""Seconds from the Ctrl-C to the end of the command."""


def _rss_mib(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Child:
    """``spielwerk ARGS`` in its own process group, its output collected as it comes."""

    def __init__(self, args: list[str], cache: Path, limit_as: int | None = None) -> None:
        def setup() -> None:
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # not ignored, as in a background job
            if limit_as is not None:
                resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

        env = {**os.environ, "COLUMNS": "300", "SPIELWERK_CACHE_DIR": str(cache)}
        self.proc = subprocess.Popen([str(SPIELWERK), *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env,
                                     start_new_session=True, preexec_fn=setup)
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [threading.Thread(target=self._read, args=(s, b), daemon=True)
                         for s, b in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for r in self._readers:
            r.start()
        self.peak_rss_mib = 0.0

    @staticmethod
    def _read(stream, into: list[str]) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            into.append(line)

    def wait_for(self, ready, what: str, timeout: float = 300.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while not ready():
            if self._reaped():
                self.finish(5)
                pytest.fail(f"ended before {what}: {''.join(self.out + self.err)[-2000:]}")
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"not {what} within {timeout} s")
            time.sleep(0.05)

    def ctrl_c(self, group: bool = True) -> float:
        """SIGINT to the process group (a terminal's Ctrl-C) or the process; the time sent."""
        if group:
            os.killpg(self.proc.pid, signal.SIGINT)
        else:
            os.kill(self.proc.pid, signal.SIGINT)
        return time.monotonic()

    def finish(self, timeout: float) -> int:
        """Wait for the end (killed after ``timeout``): the exit code; the peak RSS noted."""
        deadline = time.monotonic() + timeout
        while not self._reaped():
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"still running {timeout} s after Ctrl-C: "
                            f"{''.join(self.out + self.err)[-2000:]}")
            time.sleep(0.05)
        for r in self._readers:
            r.join(5)
        return self.proc.returncode

    def _reaped(self) -> bool:
        """Whether it ended (then its exit code and peak RSS are noted)."""
        if self.proc.returncode is not None:
            return True
        pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
        if not pid:
            return False
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.peak_rss_mib = usage.ru_maxrss / 1024
        return True

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    @property
    def stdout(self) -> str:
        return "".join(self.out)

    @property
    def output(self) -> str:
        return "".join(self.out + self.err)


def _ended_once(c: Child, sent: float) -> None:
    code = c.finish(WITHIN)
    assert time.monotonic() - sent < WITHIN
    assert code == 130, c.output
    assert "Traceback" not in c.output and "Aborted" not in c.output, c.output
    assert c.stdout.count("interrupted") == 1, c.stdout


def _catches_sigint(pid: int) -> bool:
    """Whether Python's SIGINT handler is installed (the earliest a Ctrl-C is Python's)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next((x for x in status.splitlines() if x.startswith("SigCgt:")), "SigCgt: 0")
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGINT - 1)))


def test_ctrl_c_while_the_command_starts_ends_quietly(tmp_path: Path) -> None:
    """Loading the command's modules (numba kernels) takes a second or more: a Ctrl-C then
    ends with one line and exit 130, no traceback."""
    c = Child(["kalah", "solve", "--pits", "6", "--seeds", "5", "--egdb", "0", "--force"],
              tmp_path)
    # past the interpreter's own start (site, the entry script: no code of ours), loading
    # numba and the kernels: from some 80 MiB on
    c.wait_for(lambda: _catches_sigint(c.proc.pid) and _rss_mib(c.proc.pid) > 80,
               "loading the command")
    sent = c.ctrl_c()
    code = c.finish(WITHIN)
    assert time.monotonic() - sent < WITHIN
    assert code == 130, c.output
    assert "Traceback" not in c.output and "Aborted" not in c.output, c.output
    assert c.output.count("interrupted") == 1, c.output


@pytest.mark.parametrize("command", [
    ["solve", "--pits", "6", "--seeds", "5", "--threads", "1", "--force"],
    ["analyze", "start", "--pits", "6", "--seeds", "5"],
])
def test_ctrl_c_while_the_table_is_filled_stops_at_once(command: list[str],
                                                       tmp_path: Path) -> None:
    """A 4 GiB table takes seconds to fill (numpy does not look at signals meanwhile): the
    command must stop long before it is filled, say that nothing was proven yet, exit 130."""
    c = Child(["kalah", *command, "--egdb", "0", "--tt", "28"], tmp_path)
    c.wait_for(lambda: _rss_mib(c.proc.pid) > 600, "filling its table")
    sent = c.ctrl_c()
    _ended_once(c, sent)
    assert "nothing proven" in c.stdout
    assert c.peak_rss_mib < 3 * 1024  # stopped well before the 4 GiB were filled


def test_ctrl_c_during_the_threaded_search_prints_the_bounds_once(tmp_path: Path) -> None:
    """The exact search in two threads (numba, nogil): the bounds proven so far, once, also
    when Ctrl-C comes twice, and to the process alone."""
    c = Child(["kalah", "solve", "--pits", "6", "--seeds", "4", "--egdb", "0", "--tt", "20",
               "--threads", "2", "--guess", "8"], tmp_path)
    c.wait_for(lambda: any("exact (2 threads)" in x for x in c.err), "in the split search")
    sent = c.ctrl_c(group=False)
    time.sleep(0.02)
    c.ctrl_c(group=False)
    _ended_once(c, sent)
    # the bounds proven so far, or (stopped before the first test of the exact search ended,
    # when they are still the trivial ones) that there are none yet
    assert ("interrupted: value for South in [" in c.stdout
            or "as the exact search began: no exact bound yet" in c.stdout), c.stdout


def test_ctrl_c_during_the_iterations_prints_the_estimate(tmp_path: Path) -> None:
    c = Child(["kalah", "solve", "--pits", "6", "--seeds", "4", "--egdb", "0", "--tt", "20",
               "--threads", "1", "--force"], tmp_path)  # 25 h at the fast end: refused without
    c.wait_for(lambda: any("depth 6: estimate" in x for x in c.err), "in the iterations")
    sent = c.ctrl_c()
    _ended_once(c, sent)
    assert "deepest depth-limited estimate" in c.stdout


def test_a_solve_estimated_at_months_is_refused_before_any_allocation(tmp_path: Path) -> None:
    """Kalah(6,5) without a database: 131 to 392 days. Refused in one line with the estimate,
    exit 2, before any table: it runs within an address space smaller than one table."""
    c = Child(["kalah", "solve", "--pits", "6", "--seeds", "5", "--egdb", "0", "--threads", "2"],
              tmp_path, limit_as=3 << 30)
    code = c.finish(300)
    err = "".join(c.err)
    assert code == 2, c.output
    assert "Traceback" not in err and "MemoryError" not in err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: not started"), err
    assert "131 days to 392 days on 2 thread(s)" in err and "--force" in err
    assert "transposition table" not in err  # refused before the table was even chosen to say


def test_refusal_is_for_estimates_over_a_day_only() -> None:
    assert defaults.refusal(6, 5, False, 0, threads=2) is not None
    assert defaults.refusal(6, 4, False, 0, threads=2) is None  # 13 h to 38 h: allowed
    assert defaults.refusal(6, 4, False, 0, threads=1) is not None  # 25 h at the fast end
    assert defaults.refusal(6, 5, False, 27, threads=2) is None
    assert defaults.refusal(7, 7, False, 0, threads=2) is None  # no estimate: not refused


@pytest.mark.parametrize(("available_gib", "threads", "want"), [
    (22.1, 2, 27),  # the sweep's machine: 2 x 2 GiB, not 2 x 4 GiB
    (22.1, 1, 28),
    (64.0, 4, 26),  # the fixed cap: 4 GiB in all
    (6.0, 2, 25),  # a quarter of 6 GiB: 1.5 GiB, 2 x 512 MiB
])
def test_default_tables_take_a_share_of_the_available_memory(
        monkeypatch: pytest.MonkeyPatch, available_gib: float, threads: int, want: int) -> None:
    monkeypatch.setattr(defaults, "available_memory_bytes", lambda: int(available_gib * 2**30))
    # a cap above the default one (defaults.TT_LOG2_CAP), so the memory share is what limits
    choice = KalahPlan(6, 60, egdb=0, threads=threads, tt_cap=28).choose()
    assert choice.tt_log2 == want
    tables = threads * (16 << choice.tt_log2)
    assert tables <= min(available_gib * 2**30 / 4, defaults.TT_BYTES_CAP)
    assert any("a quarter of the" in n for n in choice.notes)


def test_default_table_is_at_most_the_default_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kalah(6,5) and (6,4) with a large database: 2^22 slots per thread, not what memory
    allows (larger tables cost more time per probe than they save); smaller instances
    get less (8 + seeds / 3)."""
    monkeypatch.setattr(defaults, "available_memory_bytes", lambda: 22 << 30)
    assert defaults.TT_LOG2_CAP == 22
    for threads in (1, 2):
        assert KalahPlan(6, 60, egdb=30, threads=threads).choose().tt_log2 == 22
    assert KalahPlan(6, 48, egdb=24, threads=2).choose().tt_log2 == 22
    assert KalahPlan(6, 36, egdb=24, threads=2).choose().tt_log2 == 20  # (6,3): by its seeds


@pytest.mark.parametrize("command", [
    ["solve", "--pits", "6", "--seeds", "4", "--egdb", "0", "--tt", "20", "--threads", "2",
     "--guess", "8"],
    ["analyze", "start", "--pits", "6", "--seeds", "4", "--egdb", "0", "--tt", "20"],
])
def test_ctrl_c_while_the_command_exits_changes_nothing(command: list[str],
                                                       tmp_path: Path) -> None:
    """Once the bounds are said, the process ends; Ctrl-C pressed again and again while it
    shuts down (Python puts the default action back then) must not kill it by the signal:
    exit code 130 all the same, the summary once."""
    c = Child(["kalah", *command], tmp_path)
    c.wait_for(lambda: any(x.startswith("exact") for x in c.err),
               "searching")
    sent = c.ctrl_c(group=False)
    c.wait_for(lambda: "interrupted" in c.stdout, "saying what it proved", timeout=WITHIN)
    while not c._reaped() and time.monotonic() - sent < WITHIN:
        try:
            os.kill(c.proc.pid, signal.SIGINT)
        except ProcessLookupError:
            break
        time.sleep(0.002)
    _ended_once(c, sent)


def test_a_ctrl_c_before_the_search_has_a_result_says_nothing_was_proven(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Not the trivial bounds as if the exact search had proven them."""
    from spielwerk.games.kalah import cli as kalah_cli
    from spielwerk.games.kalah.solver import Solver

    solver = Solver(3, max_seeds=18, tt_log2=10)
    kalah_cli._say_interrupted(solver, "South", 0, None)
    said = capsys.readouterr().out
    assert "before the search had a result: nothing proven" in said
    assert "proven by the exact search" not in said
    solver.value(solver.relative(np.array([3, 3, 3, 0, 3, 3, 3, 0], dtype=np.int64), 0))
    kalah_cli._say_interrupted(solver, "South", 0, None)
    said = capsys.readouterr().out
    assert "value for South in [" in said and "nothing proven" not in said
    # stopped with the exact search's bounds still the trivial ones (+-18 seeds here)
    solver.bounds = solver.exact_from = (-18, 18)
    kalah_cli._say_interrupted(solver, "South", 0, None)
    said = capsys.readouterr().out
    assert "as the exact search began: no exact bound yet" in said
    assert "proven by the exact search" not in said
