"""Process-pool helpers shared by the arena, the fuzzer and the web table's engines: workers
that leave Ctrl-C to the main process and exit with it, a pool stopped at once, and a quiet
second Ctrl-C."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

from spielwerk._signals import on_main_thread_default as _on_main_thread_default

REIMPORT_EXIT = 97
"""Exit code of a worker that found the main script starting a pool while the worker
imported it (a script without ``if __name__ == "__main__":``)."""

STOP_SECONDS = 5.0
"""How long :func:`terminate_pool` waits for killed workers and the pool's thread."""


def _exit_when_gone(pid: int) -> None:
    """Watch process ``pid`` and end this process as soon as it is gone."""
    import select
    import time

    try:
        fd = os.pidfd_open(pid)  # Linux >= 5.3: readable when the process exits
    except (AttributeError, OSError):
        fd = -1
    if fd >= 0:
        select.select([fd], [], [])
        os._exit(3)
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(3)
        except PermissionError:
            pass
        time.sleep(0.5)


def watch_parent(pid: int) -> None:
    """Pool worker initializer: exit when the process that made the pool dies.

    A worker of a forkserver pool is a child of the fork server, not of the
    arena process, so it would otherwise wait for tasks long after the arena
    was killed (``kill -9`` gives the pool no chance to stop it).
    """
    threading.Thread(target=_exit_when_gone, args=(pid,), daemon=True,
                     name="spielwerk-parent-watch").start()


def init_worker(pid: int) -> None:
    """Pool worker initializer: ignore Ctrl-C and exit when process ``pid`` dies.

    A terminal sends SIGINT to every process of the foreground group; only the main
    process decides what an interruption means (it stops the workers itself), so a
    worker neither prints a traceback nor dies half-way through sending a result.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # started under sigint_blocked: a Ctrl-C that
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # came meanwhile is dropped
    watch_parent(pid)


@contextlib.contextmanager
def sigint_blocked() -> Iterator[None]:
    """Block SIGINT in this thread for the block. A process started meanwhile inherits the
    block (through ``exec`` too), so a Ctrl-C sent to the process group while it imports its
    modules waits until :func:`init_worker` ignores it, instead of printing a traceback from
    the new process; a Ctrl-C for this process is delivered when the block ends.

    The resource tracker is started first: multiprocessing starts it with the first spawned
    process and then unblocks SIGINT in the starting thread, which would start that first
    process without the block."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def importing_main_in_worker() -> bool:
    """True while a spawned or forkserver worker imports the main script (``__mp_main__``)."""
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def exit_if_importing_main() -> None:
    """End a worker quietly (exit code :data:`REIMPORT_EXIT`) when the main script it is
    importing tries to start a pool: the main process explains it in one line, instead of
    every worker printing multiprocessing's traceback."""
    if importing_main_in_worker():
        sys.stdout.flush()
        os._exit(REIMPORT_EXIT)


def worker_processes(pool: ProcessPoolExecutor) -> list[multiprocessing.process.BaseProcess]:
    """The pool's worker processes started so far."""
    return list((getattr(pool, "_processes", None) or {}).values())


def terminate_pool(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: cancel the waiting tasks and kill the workers instead of waiting
    for their running tasks; waits at most :data:`STOP_SECONDS` for them to be gone."""
    workers = worker_processes(pool)
    manager = getattr(pool, "_executor_manager_thread", None)
    results = getattr(pool, "_result_queue", None)  # shutdown() lets go of it
    for process in workers:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            process.join(STOP_SECONDS)
    if isinstance(manager, threading.Thread) and manager is not threading.current_thread():
        # A worker killed while it wrote a result leaves the pool's manager thread reading
        # the rest of that message for ever, and the interpreter's exit joins that thread.
        # With every worker gone, this process holds the pipe's last write end: closing it
        # ends the read (the manager takes the pool as broken and stops).
        writer = getattr(results, "_writer", None)
        if manager.is_alive() and writer is not None:
            with contextlib.suppress(OSError):
                writer.close()
        manager.join(STOP_SECONDS)


def ignore_further_interrupts() -> bool:
    """After the first Ctrl-C: ignore the next ones, so a second Ctrl-C cannot raise a
    ``KeyboardInterrupt`` into the cleanup of the first (a traceback from an ``atexit``
    callback, a message cut short). The cleanup is bounded: the workers are killed, not
    waited for. False where nothing changed (not the main thread, or SIGINT already
    handled otherwise)."""
    if not _on_main_thread_default():
        return False
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return True


@contextlib.contextmanager
def interrupts_ignored() -> Iterator[None]:
    """:func:`ignore_further_interrupts` for the duration of the block (a library caller's
    Ctrl-C works again afterwards)."""
    changed = ignore_further_interrupts()
    try:
        yield
    finally:
        if changed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
