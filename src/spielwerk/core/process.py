"""Process-pool helpers shared by the arena and the fuzzer."""

from __future__ import annotations

import os


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
    import threading

    threading.Thread(target=_exit_when_gone, args=(pid,), daemon=True,
                     name="spielwerk-parent-watch").start()
