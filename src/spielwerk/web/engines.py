"""Engine work off the event loop: a small pool of worker processes.

Each worker is a spawned process that answers one task at a time over a pipe.
A task names a pure function (an agent's move for a seat, a review analysis)
and its arguments; the worker rebuilds the state from the game spec and the
action history, so nothing but plain data crosses the process boundary (numbers,
strings, lists, and an engine's agent spec as the server parsed it once,
:class:`~spielwerk.core.agent.AgentSpec`).

Work can really be stopped: a task that runs past its hard limit, or whose
table was abandoned, has its worker terminated and replaced by a fresh one
(not once the server stops: :meth:`EnginePool.stop_replacing`). Workers ignore
Ctrl-C (a terminal sends it to the whole process group): the server alone
decides to stop, and stops them. ``workers=0`` runs tasks in a thread of the
server process instead (tests; still off the event loop, but not cancellable
once started).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing as mp
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.process import STOP_SECONDS, init_worker, sigint_blocked
from spielwerk.web.tasks import TASKS

log = logging.getLogger("spielwerk.web")


class EngineTimeout(SpielwerkError):
    """An engine task ran past its hard time limit and was stopped."""


class EngineCancelled(SpielwerkError):
    """An engine task was cancelled (its table was abandoned or closed)."""


class EngineFailed(SpielwerkError):
    """An engine task raised an error in the worker."""


def _run(name: str, kwargs: dict[str, Any]) -> tuple[bool, Any]:
    try:
        import spielwerk.web.analysis  # noqa: F401 - registers the task functions
        import spielwerk.web.hints  # noqa: F401
        import spielwerk.web.work  # noqa: F401

        return True, TASKS[name](**kwargs)
    except SpielwerkError as exc:
        return False, str(exc).splitlines()[0]
    except Exception as exc:  # noqa: BLE001 - reported to the caller as one line
        return False, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def _worker_main(conn: Connection, server_pid: int) -> None:
    init_worker(server_pid)  # Ctrl-C is the server's; exit if the server is killed
    import spielwerk  # noqa: F401 - games and agents register themselves
    import spielwerk.web.analysis  # noqa: F401
    import spielwerk.web.hints  # noqa: F401
    import spielwerk.web.work  # noqa: F401

    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        name, kwargs = msg
        conn.send(_run(name, kwargs))


T = TypeVar("T")


async def in_daemon_thread(fn: Callable[..., T], *args: Any) -> T:
    """``await asyncio.to_thread(fn, *args)``, but in a daemon thread of its own: the server's
    exit never waits for it (``asyncio.run`` joins the default executor's threads, so a Ctrl-C
    while the lobby's limits were probed on the solver agents waited seconds for them).
    Cancelling the await abandons the thread's result."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def target() -> None:
        try:
            value, error = fn(*args), None
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            value, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:  # the loop is closed: the server has stopped
            pass

    name = f"spielwerk-{getattr(fn, '__name__', 'work')}"
    threading.Thread(target=target, daemon=True, name=name).start()
    return await future


@dataclass
class _Worker:
    process: Any
    conn: Connection


class EnginePool:
    """``await pool.run(name, kwargs, limit_s, cancel_event)`` in a worker process."""

    def __init__(self, workers: int = 1) -> None:
        self.size = max(0, int(workers))
        self._ctx = mp.get_context("spawn")
        self._idle: asyncio.Queue[_Worker] | None = None
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self.started = False
        self.replacing = True
        self.tasks_run = 0
        self.tasks_killed = 0

    def _spawn(self) -> _Worker:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main, args=(child, os.getpid()), daemon=True,
                                 name="spielwerk-engine")
        with sigint_blocked():  # until the worker ignores Ctrl-C (it imports for a second)
            proc.start()
        child.close()
        w = _Worker(proc, parent)
        with self._lock:
            self._all.append(w)
        return w

    async def start(self) -> None:
        self._idle = asyncio.Queue()
        for _ in range(self.size):
            self._idle.put_nowait(self._spawn())
        self.started = True

    def _retire(self, w: _Worker) -> None:
        with self._lock:
            if w in self._all:
                self._all.remove(w)
        try:
            w.process.terminate()
            w.process.join(timeout=STOP_SECONDS)
            if w.process.is_alive():
                w.process.kill()
                w.process.join(timeout=STOP_SECONDS)
        except Exception:  # noqa: BLE001 - already gone
            pass
        try:
            w.conn.close()
        except OSError:
            pass

    def _replace(self) -> None:
        """Put a fresh worker in the idle queue for one that was stopped (none once the
        server stops: it would only be started to be stopped, seconds later)."""
        assert self._idle is not None
        if self.replacing:
            self._idle.put_nowait(self._spawn())

    def stop_replacing(self) -> None:
        """The server stops: a worker stopped from now on (its task cancelled) is not
        replaced."""
        self.replacing = False

    async def close(self) -> None:
        """Stop every worker: an idle one ends when told, one still busy (or still
        starting) is terminated after a second at most."""
        self.stop_replacing()
        with self._lock:
            workers = list(self._all)
        for w in workers:
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 1.0
        for w in workers:
            w.process.join(timeout=max(0.0, deadline - time.monotonic()))
            self._retire(w)
        self.started = False

    @property
    def alive(self) -> int:
        with self._lock:
            return sum(1 for w in self._all if w.process.is_alive())

    async def _idle_worker(self, cancel: asyncio.Event | None) -> _Worker:
        """The next idle worker; EngineCancelled if ``cancel`` is set first (an abandoned
        table does not wait for a busy worker, e.g. one still warming up)."""
        assert self._idle is not None
        if cancel is None:
            return await self._idle.get()
        get = asyncio.ensure_future(self._idle.get())
        stop = asyncio.ensure_future(cancel.wait())
        try:
            await asyncio.wait([get, stop], return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the caller was cancelled: never lose a worker taken
            if get.done() and not get.cancelled():
                self._idle.put_nowait(get.result())
            get.cancel()
            raise
        finally:
            stop.cancel()
        if get.done() and not get.cancelled():
            if not cancel.is_set():
                return get.result()
            self._idle.put_nowait(get.result())  # got one as the cancel came: give it back
        else:
            get.cancel()
        raise EngineCancelled("cancelled while waiting for an engine worker")

    async def run(self, name: str, kwargs: dict[str, Any], limit_s: float,
                  cancel: asyncio.Event | None = None) -> Any:
        """Run task ``name``; raises EngineTimeout, EngineCancelled or EngineFailed."""
        self.tasks_run += 1
        if self.size == 0:
            try:
                ok, value = await asyncio.wait_for(in_daemon_thread(_run, name, kwargs),
                                                   limit_s)
            except TimeoutError:  # the callers handle EngineTimeout (was: a 500 / a crash)
                raise EngineTimeout(f"the engine did not answer within {limit_s:.0f} s "
                                    "(its thread runs on: workers=0 cannot stop it)") from None
            if not ok:
                raise EngineFailed(value)
            return value
        assert self._idle is not None, "engine pool not started"
        w = await self._idle_worker(cancel)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        fd = w.conn.fileno()

        def readable() -> None:
            if not done.done():
                done.set_result(None)

        try:
            w.conn.send((name, kwargs))
        except (OSError, ValueError):
            self._retire(w)
            self._replace()
            raise EngineFailed("the engine process died; a new one was started") from None
        loop.add_reader(fd, readable)
        waiters: list[asyncio.Future[Any]] = [done]
        cancel_task = None
        if cancel is not None:
            cancel_task = asyncio.ensure_future(cancel.wait())
            waiters.append(cancel_task)
        outcome: str = "timeout"
        t0 = time.perf_counter()
        try:
            finished, _ = await asyncio.wait(waiters, timeout=limit_s,
                                             return_when=asyncio.FIRST_COMPLETED)
            if done in finished:
                outcome = "done"
            elif cancel_task is not None and cancel_task in finished:
                outcome = "cancelled"
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        finally:
            loop.remove_reader(fd)
            if cancel_task is not None:
                cancel_task.cancel()
            if outcome == "done":
                try:
                    ok, value = w.conn.recv()
                except (EOFError, OSError):
                    ok, value = False, "the engine process died"
                    outcome = "died"
                if outcome == "done":
                    self._idle.put_nowait(w)
                else:
                    self._retire(w)
                    self._replace()
            else:
                self.tasks_killed += 1
                log.info("engine task %s %s after %.1f s: worker %s", name, outcome,
                         time.perf_counter() - t0, "replaced" if self.replacing else "stopped")
                self._retire(w)
                self._replace()
        if outcome == "timeout":
            raise EngineTimeout(f"the engine did not answer within {limit_s:.0f} s")
        if outcome == "cancelled":
            raise EngineCancelled("engine work cancelled")
        if not ok:
            raise EngineFailed(value)
        return value
