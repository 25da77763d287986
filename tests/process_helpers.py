"""Helpers for tests that run the ``spielwerk`` script in a child process: its process tree
(from /proc) and a Ctrl-C sent the way a terminal sends it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SPIELWERK = Path(sys.executable).with_name("spielwerk")
HAVE_PROC = Path("/proc").is_dir() and SPIELWERK.exists()


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def in_group(pgid: int) -> list[int]:
    """The running processes of process group ``pgid`` (``ctrl_c`` starts a command as the
    leader of its own group: a process it started after the Ctrl-C is found here too, even
    once the command has ended and it was handed to init)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                out.append(int(d.name))
    return out


def _default_sigint() -> None:
    # a child of a shell's background job would inherit SIGINT ignored
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _ignored_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass
class Interrupted:
    """How a command ended after one Ctrl-C (or another signal: :func:`stop`)."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float  # from the signal to the end of the command
    workers: list[int]  # its processes at the signal
    left: list[int]  # of those, the ones still running 5 s after it ended

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def ctrl_c(args: list[str], ready: Callable[[int], bool], cwd: Path, *, within: float = 15.0,
           start_timeout: float = 300.0) -> Interrupted:
    """Run ``spielwerk ARGS``, wait until ``ready(pid)`` (its first results are written), then
    send SIGINT to its whole process group, as a terminal's Ctrl-C does (see :func:`stop`)."""
    return stop(args, ready, cwd, within=within, start_timeout=start_timeout)


def stop(args: list[str], ready: Callable[[int], bool], cwd: Path, *, within: float = 15.0,
         start_timeout: float = 300.0, signum: int = signal.SIGINT, group: bool = True,
         sigint_ignored: bool = False) -> Interrupted:
    """Run ``spielwerk ARGS``, wait until ``ready(pid)``, then send ``signum`` to its whole
    process group (``group``: a terminal's Ctrl-C) or to the command's process alone (``kill
    PID``); ``sigint_ignored`` starts it as a shell script's background job (``&``) is
    started, with SIGINT ignored. Waits at most
    ``within`` seconds for it to end; after that every process of the group gets SIGABRT,
    so Python's fault handler prints each thread's stack (kept in the failure message: a
    rare hang is then diagnosed from the one run that showed it), and the test fails."""
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    proc = subprocess.Popen([str(SPIELWERK), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd, env=env,
                            start_new_session=True,
                            preexec_fn=_ignored_sigint if sigint_ignored else _default_sigint)
    try:
        deadline = time.monotonic() + start_timeout
        while not ready(proc.pid):
            assert proc.poll() is None, f"ended before it was ready: {proc.communicate()}"
            assert time.monotonic() < deadline, "the command did not get going"
            time.sleep(0.2)
        workers = descendants(proc.pid)
        if group:
            os.killpg(proc.pid, signum)
        else:
            os.kill(proc.pid, signum)
        sent = time.monotonic()
        try:
            stdout, stderr = proc.communicate(timeout=within)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running {within:g} s after the signal; the stacks at "
                                 f"that point:\n{_stacks(proc)}") from None
        seconds = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return Interrupted(proc.returncode, stdout, stderr, seconds, workers, left_behind(workers))


def _stacks(proc: subprocess.Popen[str]) -> str:
    """SIGABRT to ``proc``'s group (the fault handler of each Python process prints its
    threads' stacks to stderr, then the process ends); the end of what it printed."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGABRT)
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        return "(no stacks: it did not end on SIGABRT either)"
    return (out[-2000:] + "\n" + err[-8000:]).strip()


def left_behind(workers: list[int], wait: float = 5.0) -> list[int]:
    """Those of ``workers`` still running ``wait`` seconds from now (killed then, so a test
    never leaves them behind, even when it fails)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and any(alive(p) for p in workers):
        time.sleep(0.1)
    left = [p for p in workers if alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    return left


def assert_stopped_cleanly(run: Interrupted, continue_with: str = "--resume",
                           code: int = 130) -> None:
    """Exit code ``code`` (130: Ctrl-C, 143: SIGTERM) within the limit, one line saying it
    was interrupted and how to go on, no traceback or leaked resources, no process left."""
    assert run.returncode == code, run.output
    assert run.output.count("interrupted") == 1, run.output
    line = run.output[run.output.index("interrupted"):]
    assert continue_with in " ".join(line.split()), run.output
    assert "Traceback" not in run.output and "Exception ignored" not in run.output, run.output
    assert "leaked" not in run.output, run.output  # multiprocessing's resource tracker
    assert not run.left, f"processes still running after the command ended: {run.left}"
