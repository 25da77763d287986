"""A Ctrl-C is never lost, and never ends a command without a word.

A Ctrl-C while numba compiles or loads a kernel:
numba calls back into Python from inside LLVM (through ctypes) while it compiles and loads
kernels; a ``KeyboardInterrupt`` raised in such a callback is printed as "Exception ignored"
and dropped, so the command went on as if no Ctrl-C had come. The child process below sends
itself SIGINT from inside that callback, the moment a terminal's Ctrl-C can land in, with no
timing involved: the interrupt must come out of the call once the kernel is compiled."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import click
import pytest
import typer

from spielwerk.cli.main import _interrupt_unsaid

CHILD = textwrap.dedent("""
    import signal
    import threading

    import spielwerk.games  # noqa: F401 - arms spielwerk's numba patches, as every command does
    from numba import njit
    from numba.core import codegen

    hook = codegen.CPUCodeLibrary._object_compiled_hook.__func__
    sent = []

    def compiled(cls, ll_module, buf):
        if not sent:
            sent.append(threading.current_thread() is threading.main_thread())
            signal.raise_signal(signal.SIGINT)  # Ctrl-C while LLVM calls back into Python
        return hook(cls, ll_module, buf)

    codegen.CPUCodeLibrary._object_compiled_hook = classmethod(compiled)

    @njit(cache=False)
    def inner(a):
        return a * 3

    @njit(cache=False)
    def outer(a, b):
        return inner(a) + b

    try:
        outer(1, 2)
        print("not interrupted")
    except KeyboardInterrupt:
        print("interrupted", sent, len(outer.overloads), len(inner.overloads))
    print("then", outer(2, 3))
""")


BACKGROUND_SIGTERM = textwrap.dedent("""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a job started with & by a script
    from spielwerk._signals import stop_on_sigterm
    stop_on_sigterm()
""")


@pytest.mark.parametrize("sent", ["ctrl-c", "sigterm in a background job"])
def test_ctrl_c_inside_a_numba_callback_comes_out_once_the_kernel_is_compiled(
        tmp_path: Path, sent: str) -> None:
    """Also a SIGTERM where no Ctrl-C can come (SIGINT ignored from the start): it is held
    over the compile the same way, not raised inside the callback and lost."""
    child = CHILD if sent == "ctrl-c" else \
        BACKGROUND_SIGTERM + CHILD.replace("raise_signal(signal.SIGINT)",
                                           "raise_signal(signal.SIGTERM)")
    run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                         timeout=300, env={"NUMBA_CACHE_DIR": str(tmp_path),
                                           "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout + run.stderr
    # the signal came in the main thread, inside the callback; the interrupt is raised after
    # the compile (both kernels are there), once, and the kernels work afterwards
    assert run.stdout.splitlines() == ["interrupted [True] 1 1", "then 9"], run.stdout + run.stderr
    assert "Exception ignored" not in run.stderr, run.stderr


def _exit_of(command: Callable[[], None]) -> SystemExit:
    app = typer.Typer()
    app.command()(command)
    with pytest.raises(SystemExit) as ended:
        app([], standalone_mode=True)
    return ended.value


def test_a_ctrl_c_typer_ends_silently_is_said() -> None:
    """typer turns a ``KeyboardInterrupt`` anywhere in a command (its own option parsing
    included) into a silent exit 130; ``spielwerk`` then says "interrupted" (once: a command
    that said what the Ctrl-C stopped is not told apart by its exit code, only by the cause)."""

    def unhandled() -> None:
        raise KeyboardInterrupt

    def said() -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            print("interrupted: what finished")
            raise typer.Exit(130) from None

    def said_in_handler() -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise typer.Exit(130)  # noqa: B904 - as the Kalah commands do

    silent = _exit_of(unhandled)  # typer < 0.2x: "Aborted." and exit 1
    assert silent.code in (1, 130) and _interrupt_unsaid(silent)
    try:  # older typer, as click does: Abort from the interrupt, then "Aborted." and exit 1
        try:
            unhandled()
        except KeyboardInterrupt as exc:
            raise click.exceptions.Abort() from exc
    except click.exceptions.Abort:
        with pytest.raises(SystemExit) as aborted:
            sys.exit(1)
    assert _interrupt_unsaid(aborted.value)
    for command in (said, said_in_handler):
        ended = _exit_of(command)
        assert ended.code == 130 and not _interrupt_unsaid(ended)


def test_a_ctrl_c_while_the_command_loads_comes_out_after_loading() -> None:
    """Some modules' initialisation clears an exception raised inside it (numpy's compiled
    modules, as numba loads: a Ctrl-C there was lost and the command ran on). While the
    command's modules load, ``spielwerk`` holds the Ctrl-C back and raises it once they
    are loaded; here a 'module' that swallows the interrupt stands in for one."""
    import signal

    from spielwerk._signals import interrupts_deferred

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # as in a terminal

    def swallowing_module() -> None:
        try:
            signal.raise_signal(signal.SIGINT)  # the Ctrl-C lands in its initialisation
        except KeyboardInterrupt:
            pass

    loaded = []
    swallowing_module()  # unheld, the Ctrl-C is gone
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            swallowing_module()
            loaded.append("the rest of the modules")
    assert loaded == ["the rest of the modules"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_long_hold_says_so_and_a_second_ctrl_c_stops_at_once(
        capfd: pytest.CaptureFixture[str]) -> None:
    import signal

    from spielwerk._signals import interrupts_deferred

    reached = []
    with pytest.raises(KeyboardInterrupt):  # a short hold says nothing
        with interrupts_deferred("held: a second Ctrl-C stops at once", note_after=60):
            signal.raise_signal(signal.SIGINT)
            reached.append("held")
    assert reached == ["held"] and capfd.readouterr().err == ""
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred("{stop} held: a second one stops at once", note_after=0):
            signal.raise_signal(signal.SIGINT)
            reached.append("held again")
            while "Ctrl-C held:" not in capfd.readouterr().err:  # said while the block runs,
                time.sleep(0.01)  # naming what came
            signal.raise_signal(signal.SIGINT)
            reached.append("not reached")
    assert reached == ["held", "held again"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


POOL_CHILD = textwrap.dedent("""
    import os
    import signal
    from multiprocessing import forkserver

    from spielwerk.core.parallel import LocalProcessExecutor

    def masks(pid):
        status = open(f"/proc/{pid}/status").read().splitlines()
        bit = 1 << (signal.SIGINT - 1)
        get = lambda key: int(next(x for x in status if x.startswith(key)).split()[1], 16)
        return bool(get("SigBlk:") & bit), bool(get("SigIgn:") & bit)

    with LocalProcessExecutor(workers=1, start_method="forkserver") as ex:
        worker = ex.submit(os.getpid).result()
        print("server", *masks(forkserver._forkserver._forkserver_pid))
        print("worker", *masks(worker))
        print("main", *masks(os.getpid()))
""")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_pool_processes_start_with_ctrl_c_blocked_until_they_ignore_it() -> None:
    """A terminal's Ctrl-C goes to the whole process group; a pool's forkserver and workers
    spend a second importing the games before the worker ignores it, and one that came then
    killed the forkserver with a traceback and ended the run with exit 1. They start with
    SIGINT blocked (the forkserver keeps it so and ignores it, a worker ignores it and
    unblocks it); the
    main process is as it was."""
    run = subprocess.run([sys.executable, "-c", POOL_CHILD], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == ["server True True", "worker False True",
                                       "main False False"], run.stdout + run.stderr


SIGTERM_CHILD = textwrap.dedent("""
    import signal, sys
    from spielwerk._signals import interrupts_deferred, stop_on_sigterm, terminated

    stop_on_sigterm()
    done = []
    try:
        with interrupts_deferred():
            signal.raise_signal(signal.SIGTERM)  # held like a Ctrl-C, raised after the block
            done.append("the block")
    except KeyboardInterrupt:
        print("stopped after", done, "terminated:", terminated(), flush=True)
        signal.raise_signal(signal.SIGTERM)  # a second one: the default action, at once
        print("still running", flush=True)
""")


@pytest.mark.parametrize("sigint", ["default", "ignored"])
def test_sigterm_is_answered_as_a_ctrl_c_and_a_second_one_ends_at_once(sigint: str) -> None:
    """The first SIGTERM takes the path of a Ctrl-C (held back over a block that must not
    stop half-way, raised after it), also where SIGINT is ignored from the start; the
    second ends the process by the signal."""
    import signal

    prefix = "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n" \
        if sigint == "ignored" else ""
    child = subprocess.run([sys.executable, "-c", prefix + SIGTERM_CHILD],
                           capture_output=True, text=True, timeout=60)
    # held over the block in both cases: where SIGINT is ignored, it stays ignored throughout
    assert child.stdout.startswith("stopped after ['the block'] terminated: True"), child
    assert "still running" not in child.stdout
    assert child.returncode == -signal.SIGTERM, child


def test_a_sigterm_while_a_ctrl_c_is_answered_changes_nothing() -> None:
    """The Ctrl-C's clean-up ignores further interrupts; a SIGTERM then is ignored too, and
    the Ctrl-C stays what stopped the process (its exit code and words)."""
    code = textwrap.dedent("""
        import signal
        from spielwerk._signals import interrupt_name, stop_on_sigterm, terminated

        stop_on_sigterm()
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # as the clean-up does
            signal.raise_signal(signal.SIGTERM)
            print(terminated(), interrupt_name(), flush=True)
    """)
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=60)
    assert child.returncode == 0 and child.stdout.split() == ["False", "Ctrl-C"], child
