"""Ctrl-C held back over a block, for code that must not stop half-way; light enough to
load before anything else (the ``spielwerk`` command holds a Ctrl-C while its modules
load, :mod:`spielwerk._jit` while numba compiles a kernel)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator


def on_main_thread_default() -> bool:
    """Whether this is the main thread and Ctrl-C raises ``KeyboardInterrupt`` (Python's
    default): the helpers change nothing for a caller with its own handler."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)


@contextlib.contextmanager
def interrupts_deferred(note: str | None = None) -> Iterator[None]:
    """Hold back a Ctrl-C until the block is done, then raise it: a pool never stops
    half-way through starting a worker (which would then fail to read its start-up data and
    print a traceback of its own), and a ``KeyboardInterrupt`` is never raised inside code
    that clears it (some modules' initialisation, numba's callbacks from LLVM), where it
    would be lost. A nested block changes nothing (the outer one raises).

    ``note``, for a block that can take long: said on stderr at the first Ctrl-C, and a
    second Ctrl-C is raised at once (the user insists)."""
    if not on_main_thread_default():
        yield
        return
    caught: list[int] = []

    def held(signum: int, frame: object) -> None:
        if caught and note is not None:
            raise KeyboardInterrupt
        if not caught and note is not None:
            os.write(2, f"\n{note}\n".encode())  # unbuffered: safe inside any write
        caught.append(signum)

    signal.signal(signal.SIGINT, held)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt
