"""Ctrl-C held back over a block, for code that must not stop half-way; light enough to
load before anything else (the ``spielwerk`` command holds a Ctrl-C while its modules
load, :mod:`spielwerk._jit` while numba compiles a kernel)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType


def on_main_thread_default() -> bool:
    """Whether this is the main thread and Ctrl-C raises ``KeyboardInterrupt`` (Python's
    default): the helpers change nothing for a caller with its own handler."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)


@contextlib.contextmanager
def interrupts_deferred(note: str | None = None,
                        note_after: float = 1.0) -> Iterator[None]:
    """Hold back a Ctrl-C until the block is done, then raise it: a pool never stops
    half-way through starting a worker (which would then fail to read its start-up data and
    print a traceback of its own), and a ``KeyboardInterrupt`` is never raised inside code
    that clears it (some modules' initialisation, numba's callbacks from LLVM), where it
    would be lost. A nested block changes nothing (the outer one raises).

    ``note``, for a block that can take long: said on stderr when the block is still
    running ``note_after`` seconds after the first Ctrl-C, and a second Ctrl-C is raised
    at once (the user insists); ``{stop}`` in it names what came ("Ctrl-C" or "SIGTERM").

    A SIGTERM, answered as a Ctrl-C (:func:`stop_on_sigterm`), is held back the same way,
    also in a background job where SIGINT is ignored from the start and stays so."""
    background = _holds_sigterm_alone()
    if not on_main_thread_default() and not background:
        yield
        return
    caught: list[int] = []
    timers: list[threading.Timer] = []

    def held(signum: int, frame: object) -> None:
        if caught and note is not None:
            raise KeyboardInterrupt
        if not caught and note is not None:  # os.write: unbuffered, safe beside any write
            said = note.replace("{stop}", interrupt_name())
            timers.append(threading.Timer(note_after, os.write, (2, f"\n{said}\n".encode())))
            timers[0].daemon = True
            timers[0].start()
        caught.append(signum)

    if background:  # SIGINT stays ignored; a SIGTERM comes to ``held`` (_on_sigterm)
        _BACKGROUND_HOLD.append(held)
    else:
        signal.signal(signal.SIGINT, held)
    try:
        yield
    finally:
        if background:
            _BACKGROUND_HOLD.clear()
        else:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        for timer in timers:
            timer.cancel()
    if caught:
        raise KeyboardInterrupt


_TERMINATED: list[int] = []
_SIGINT_IGNORED_AT_START = False
_BACKGROUND_HOLD: list[Callable[[int, object], None]] = []


def _holds_sigterm_alone() -> bool:
    """Whether a block is to hold a SIGTERM where no Ctrl-C can come: a background job
    (SIGINT ignored from the start) with :func:`stop_on_sigterm` installed, on the main
    thread, outside another such block (a nested block changes nothing)."""
    return (_SIGINT_IGNORED_AT_START and not _BACKGROUND_HOLD
            and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            and signal.getsignal(signal.SIGTERM) is _on_sigterm)


def terminated() -> bool:
    """Whether a SIGTERM stopped this process (through :func:`stop_on_sigterm`)."""
    return bool(_TERMINATED)


def interrupted_exit_code() -> int:
    """The exit code of a command stopped this way: 130 for a Ctrl-C, 143 for a SIGTERM
    (what a shell reports for a process its signal ended)."""
    return 143 if _TERMINATED else 130


def interrupt_name() -> str:
    """What stopped this process, for the line that says so: "SIGTERM" or "Ctrl-C"."""
    return "SIGTERM" if _TERMINATED else "Ctrl-C"


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    if _TERMINATED:  # a second SIGTERM: the default action, at once (the sender insists)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):  # whatever a Ctrl-C does now: raise, or be held back and raised
        _TERMINATED.append(signum)
        handler(signal.SIGINT, frame)
    elif handler == signal.SIG_IGN and _SIGINT_IGNORED_AT_START:
        _TERMINATED.append(signum)  # a background job (SIGINT ignored from the start):
        if _BACKGROUND_HOLD:  # held back over a block as a Ctrl-C would be, or raised now
            _BACKGROUND_HOLD[0](signal.SIGINT, frame)
            return
        raise KeyboardInterrupt
    # else SIGINT is ignored because a Ctrl-C is being answered: so is this, and the
    # Ctrl-C stays what stopped the process


def stop_on_sigterm() -> None:
    """Answer a SIGTERM (``kill``, ``timeout``, a batch system's end of a job) as a Ctrl-C:
    a long run stops its workers, keeps what finished and says how to continue, instead of
    dying mid-write. Only the first SIGTERM counts; :func:`terminated` tells afterwards.
    Where SIGINT is ignored from the start (a job started with ``&`` by a shell script) a
    SIGTERM still stops the process this way. A second SIGTERM ends the process at once, as
    the default action would. Main thread only; a no-op elsewhere."""
    global _SIGINT_IGNORED_AT_START
    if threading.current_thread() is not threading.main_thread():
        return
    _SIGINT_IGNORED_AT_START = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    signal.signal(signal.SIGTERM, _on_sigterm)
