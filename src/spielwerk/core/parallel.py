"""Where long jobs run (arena games, knowledge-base builds, the Kalah split): one interface,
four back ends.

- :class:`SerialExecutor`: in this process, one task after another.
- :class:`ThreadExecutor`: threads of this process, for tasks that release the GIL
  (numba searches) and share read-only data (a Kalah endgame database).
- :class:`LocalProcessExecutor` (default): a process pool on all local cores.
- :class:`DaskExecutor`: a Dask ``distributed`` cluster (``dask://host:8786``),
  imported lazily so ``distributed`` stays an optional extra.

``map_unordered(fn, tasks)`` yields ``fn(task)`` for every task as results
come in, in any order; ``map_batches(fn, work)`` yields ``fn(work[i:j])`` for
consecutive slices that cover ``work`` (a list, or anything with ``len`` and
slices, such as the arena's :class:`~spielwerk.arena.batch.Schedule`), so one
call of ``fn`` plays many games and returns them compactly. ``fn`` and the
tasks must be picklable (a top-level function and plain data) for the pool
and Dask. Work is cut into batches sized by time (:class:`BatchSizer`): the
first batches are small, later ones hold about :data:`BATCH_SECONDS` of work,
so fast games (a random Kalah game is about a hundred microseconds) do not
drown in inter-process traffic and slow ones still report as they finish.
Every task carries its own seeds, so results do not depend on the back end,
the batch size or the worker that ran them.

Work that decides its next tasks from the results (the Kalah split resubmits an
unfinished task with the bounds it proved) uses ``submit(fn, *args)``, which
returns a future, ``first_done(futures)``, which waits for at least one, and
``slots()``, how many tasks run at once.

Ctrl-C: pool workers ignore SIGINT (a terminal sends it to the whole process group), so
only the main process sees it. A ``KeyboardInterrupt`` while the pool executor waits, or
one leaving its ``with`` block, cancels the waiting tasks and kills the workers instead of
waiting for the running ones (a Skat chunk or a Kalah task can take minutes); a second
Ctrl-C meanwhile is ignored (stopping takes at most seconds). What finished stays with the
caller, which says how to continue (``--resume``).
"""

from __future__ import annotations

import ast
import functools
import multiprocessing
import os
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, Protocol, TypeVar

from spielwerk._signals import interrupts_deferred
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.process import (
    REIMPORT_EXIT,
    exit_if_importing_main,
    init_worker,
    interrupts_ignored,
    sigint_blocked,
    terminate_pool,
    worker_processes,
)

T = TypeVar("T")
R = TypeVar("R")
B = TypeVar("B")
B_co = TypeVar("B_co", covariant=True)


class Pending(Protocol[B_co]):
    """A submitted task: a ``concurrent.futures.Future`` or a Dask future."""

    def result(self) -> B_co: ...

    def done(self) -> bool: ...

    def cancel(self) -> Any: ...


class Sliceable(Protocol[B_co]):
    """Work that :meth:`Executor.map_batches` cuts: a length and slices (a list, a Schedule)."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: slice, /) -> B_co: ...


class ExecutorError(SpielwerkError):
    """A back end that cannot be created or reached."""


def _missing_main_guard() -> str | None:
    """The script run as ``__main__`` if it starts work at import (no main guard)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or not str(path).endswith(".py"):
        return None
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:  # not for us to judge: only a plain mention counts then
        return None if "__name__" in text else str(path)
    guarded = any(isinstance(node, ast.If) and "__name__" in ast.unparse(node.test)
                  for node in tree.body)  # a comment that names it is no guard
    return None if guarded else str(path)


BATCH_SECONDS = 0.2
"""About how much work one batch holds once the time per task is known."""


def _run_each(fn: Callable[[T], R], batch: Sequence[T]) -> list[R]:
    return [fn(task) for task in batch]


def _timed(fn: Callable[[B], R], batch: B) -> tuple[R, float]:
    start = time.perf_counter()
    result = fn(batch)
    return result, time.perf_counter() - start


def _batches(work: Sliceable[B], workers: int, batch_size: int | None) -> list[B]:
    """Cut work into fixed batches: at least ~8 per worker so progress stays smooth, at most 16."""
    if batch_size is None:
        batch_size = max(1, min(16, len(work) // (8 * max(1, workers))))
    return [work[i : i + batch_size] for i in range(0, len(work), batch_size)]


class BatchSizer(Generic[B]):
    """Hands out batches of tasks sized so each takes about :data:`BATCH_SECONDS`.

    Starts with batches of ``first`` tasks; every finished batch updates the
    measured seconds per task. With several workers a batch never holds more
    than a ``1 / (2 * workers)`` share of what is left, so the last batches
    still spread over every worker. ``fixed`` (the executors' ``batch_size``) turns sizing off;
    ``first`` sets the first batches' size.
    """

    def __init__(self, tasks: Sliceable[B], workers: int, fixed: int | None = None,
                 first: int | None = None) -> None:
        self.tasks = tasks
        self.workers = max(1, workers)
        self.fixed = fixed
        self.next = 0
        self.first = fixed or first or max(1, min(4, len(tasks) // (8 * self.workers)))
        self.seconds = 0.0
        self.done = 0

    def record(self, count: int, elapsed: float) -> None:
        self.done += count
        self.seconds += elapsed

    def take(self) -> B | None:
        """The next batch (None when every task is handed out)."""
        left = len(self.tasks) - self.next
        if left <= 0:
            return None
        if self.fixed is not None:
            size = self.fixed
        elif self.done == 0 or self.seconds <= 0:
            size = self.first
        else:
            per_task = self.seconds / self.done
            size = int(BATCH_SECONDS / per_task)
            share = -(-left // (2 * self.workers)) if self.workers > 1 else left
            size = max(1, min(size, 4096, share))  # one worker has nobody to share with
        batch = self.tasks[self.next : self.next + size]
        self.next += min(size, left)
        return batch
class Executor(ABC):
    """Runs independent tasks and yields their results as they finish."""

    name = "executor"

    @abstractmethod
    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        """``fn(task)`` for every task, in completion order."""

    def map_batches(self, fn: Callable[[B], R], work: Sliceable[B]) -> Iterator[R]:
        """``fn(work[i:j])`` for consecutive slices that cover ``work``, in completion order.

        This default cuts fixed batches and hands them to :meth:`map_unordered`
        (an executor written before batches works unchanged); the executors
        here size batches by time.
        """
        return self.map_unordered(fn, _batches(work, 1, None))

    def submit(self, fn: Callable[..., R], *args: Any) -> Pending[R]:
        """Start ``fn(*args)``; this default runs it at once, here."""
        future: Future[R] = Future()
        try:
            future.set_result(fn(*args))
        except Exception as exc:  # the caller sees it from result(), as with a pool
            future.set_exception(exc)
        return future

    def first_done(self, futures: Sequence[Pending[R]]) -> list[Pending[R]]:
        """Wait until at least one of ``futures`` is done; the done ones (this default:
        ``concurrent.futures`` futures, as every back end here but Dask returns)."""
        done, _ = wait(futures, return_when=FIRST_COMPLETED)  # type: ignore[arg-type]
        return list(done)

    def slots(self) -> int:
        """How many submitted tasks run at the same time."""
        return 1

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release workers or connections."""

    def describe(self) -> str:
        return self.name

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            with interrupts_ignored():
                self.stop()
        else:
            self.close()

    def stop(self) -> None:
        """Release workers or connections now, without waiting for running tasks (after
        Ctrl-C); this default: :meth:`close`."""
        self.close()


class SerialExecutor(Executor):
    """In-process, in order: for debugging, profiling and tiny runs."""

    name = "serial"

    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        for task in tasks:
            yield fn(task)

    def map_batches(self, fn: Callable[[B], R], work: Sliceable[B]) -> Iterator[R]:
        # one game first, then batches of about BATCH_SECONDS: slow games report one by one
        sizer: BatchSizer[B] = BatchSizer(work, 1, first=1)
        while (batch := sizer.take()) is not None:
            start = time.perf_counter()
            result = fn(batch)
            sizer.record(len(batch), time.perf_counter() - start)  # type: ignore[arg-type]
            yield result


class ThreadExecutor(Executor):
    """Threads of this process (``workers`` defaults to all cores): for tasks that release
    the GIL, such as numba searches, and share read-only data instead of copying it."""

    name = "threads"

    def __init__(self, workers: int | None = None) -> None:
        if workers is not None and workers < 1:
            raise ExecutorError(f"--workers must be at least 1, not {workers}")
        self.workers = workers or os.cpu_count() or 1
        self._pool = ThreadPoolExecutor(max_workers=self.workers)

    def submit(self, fn: Callable[..., R], *args: Any) -> Pending[R]:
        return self._pool.submit(fn, *args)

    def slots(self) -> int:
        return self.workers

    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        pending = [self._pool.submit(fn, task) for task in tasks]
        try:
            while pending:
                done, rest = wait(pending, return_when=FIRST_COMPLETED)
                pending = list(rest)
                for future in done:
                    yield future.result()
        finally:
            for future in pending:
                future.cancel()

    def describe(self) -> str:
        return f"threads, {self.workers} workers"

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def preload_modules() -> list[str]:
    """What a forkserver imports once for all its workers: every game plug-in's preload
    modules (:mod:`spielwerk.plugins`) and the arena's game loop."""
    from spielwerk.plugins import game_plugins

    modules = [m for record in game_plugins() for m in record.preload_modules]
    return [*dict.fromkeys(modules), "spielwerk.arena.match"]


def _default_start_method() -> str:
    # forkserver: children fork from a clean server process, so threads in the
    # parent (progress bars, Dask clients) cannot deadlock them; Windows/macOS: spawn.
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods and sys.platform != "darwin" else "spawn"


class LocalProcessExecutor(Executor):
    """A process pool on this machine (``workers`` defaults to all cores).

    The pool starts on first use and is reused until :meth:`close`.
    """

    name = "local"

    def __init__(
        self,
        workers: int | None = None,
        batch_size: int | None = None,
        start_method: str | None = None,
    ) -> None:
        if workers is not None and workers < 1:
            raise ExecutorError(f"--workers must be at least 1, not {workers}")
        self.workers = workers or os.cpu_count() or 1
        self.batch_size = batch_size
        self.start_method = start_method or _default_start_method()
        self._pool: ProcessPoolExecutor | None = None
        self._workers: list[Any] = []  # the pool's processes, for their exit codes

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            exit_if_importing_main()  # a worker importing a script without a main guard
            ctx = multiprocessing.get_context(self.start_method)
            if self.start_method == "forkserver":
                # the games load lazily in a plain import; workers get them ready-made
                ctx.set_forkserver_preload(preload_modules())
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                             initializer=init_worker, initargs=(os.getpid(),))
            self._workers = []
        return self._pool

    def _submit(self, fn: Callable[..., R], *args: Any) -> Future[R]:
        pool = self._get_pool()
        if len(self._workers) >= self.workers:
            return pool.submit(fn, *args)
        # this submit starts the workers (and the forkserver): they inherit SIGINT blocked
        # until init_worker ignores it, so a Ctrl-C while they import is theirs to ignore
        with interrupts_deferred(), sigint_blocked():
            future = pool.submit(fn, *args)
            self._workers = worker_processes(pool)
        return future

    def _broken(self) -> ExecutorError:
        """The error for a pool whose worker died: a script without a main guard, or a crash."""
        pool, self._pool = self._pool, None  # unusable now; a later call starts a new pool
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        for process in self._workers:
            process.join(1.0)
        codes = [process.exitcode for process in self._workers]
        # a script that starts the pool at import, unguarded, is the cause whatever the
        # exit codes say (a worker stopped while the pool broke has another one)
        script = _missing_main_guard()
        if REIMPORT_EXIT in codes or script is not None:
            main = sys.modules.get("__main__")
            script = script or str(getattr(main, "__file__", None) or "the main script")
            return ExecutorError(
                f"the worker processes could not start: each one imports {script} "
                f"again, which starts the pool again; put the code that runs the games "
                f"under 'if __name__ == \"__main__\":' (the process pool needs it) or "
                f"use SerialExecutor()")
        return ExecutorError(
            "a worker process died while playing (a crash in compiled code, or out of "
            "memory); rerun with --executor serial to see the failing game")

    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        for results in self.map_batches(functools.partial(_run_each, fn), list(tasks)):
            yield from results

    def map_batches(self, fn: Callable[[B], R], work: Sliceable[B]) -> Iterator[R]:
        sizer: BatchSizer[B] = BatchSizer(work, self.workers, self.batch_size)
        pending: dict[Future[tuple[R, float]], int] = {}

        def submit() -> None:
            batch = sizer.take()
            if batch is not None:
                pending[self._submit(_timed, fn, batch)] = len(batch)  # type: ignore[arg-type]

        for _ in range(2 * self.workers):  # two batches per worker in flight
            submit()
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    count = pending.pop(future)
                    result, elapsed = future.result()
                    sizer.record(count, elapsed)
                    submit()
                    yield result
        except BrokenProcessPool:
            raise self._broken() from None
        except KeyboardInterrupt:
            with interrupts_ignored():
                self.stop()
            raise
        finally:
            for future in pending:
                future.cancel()

    def submit(self, fn: Callable[..., R], *args: Any) -> Pending[R]:
        return self._submit(fn, *args)

    def first_done(self, futures: Sequence[Pending[R]]) -> list[Pending[R]]:
        try:
            return super().first_done(futures)
        except KeyboardInterrupt:
            with interrupts_ignored():
                self.stop()
            raise

    def slots(self) -> int:
        return self.workers

    def describe(self) -> str:
        return f"local process pool, {self.workers} workers"

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def stop(self) -> None:
        """Cancel the waiting tasks and kill the workers (their running tasks are lost)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            terminate_pool(pool)


class DaskExecutor(Executor):
    """Tasks on a Dask ``distributed`` cluster at ``address`` (``dask://`` or ``tcp://``).

    Workers need spielwerk installed (same version). ``batch_size`` as for
    the process pool.
    """

    name = "dask"

    def __init__(self, address: str, batch_size: int | None = None, timeout_s: float = 10.0):
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError(
                "the Dask executor needs the 'distributed' package: "
                "pip install 'spielwerk[dask]'"
            ) from None
        if address.startswith("dask://"):
            address = "tcp://" + address[len("dask://") :]
        self.address = address
        self.batch_size = batch_size
        try:
            self._client: Any = Client(address, timeout=timeout_s, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {exc}") from None

    def _workers(self) -> int:
        info = self._client.scheduler_info()
        threads = sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values())
        return max(1, threads)

    def map_unordered(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        for results in self.map_batches(functools.partial(_run_each, fn), list(tasks)):
            yield from results

    def map_batches(self, fn: Callable[[B], R], work: Sliceable[B]) -> Iterator[R]:
        from distributed import as_completed

        batches = _batches(work, self._workers(), self.batch_size)
        futures = [self._client.submit(fn, batch, pure=False) for batch in batches]
        try:
            for future in as_completed(futures, loop=self._client.loop):
                yield future.result()
        finally:
            for future in futures:
                if not future.done():
                    future.cancel()

    def submit(self, fn: Callable[..., R], *args: Any) -> Pending[R]:
        # pure=False: a resubmission with the same arguments runs again, not memoised
        return self._client.submit(fn, *args, pure=False)  # type: ignore[no-any-return]

    def first_done(self, futures: Sequence[Pending[R]]) -> list[Pending[R]]:
        from distributed import as_completed  # distributed.wait needs a default client

        done = [f for f in futures if f.done()]
        if not done and futures:
            done = [next(iter(as_completed(list(futures), loop=self._client.loop)))]
        return done

    def slots(self) -> int:
        return self._workers()

    def describe(self) -> str:
        return f"dask cluster at {self.address}, {self._workers()} worker threads"

    def close(self) -> None:
        self._client.close()


def check_executor_spec(spec: str) -> str:
    """``spec`` stripped, or :class:`ExecutorError` (one line) for one :func:`make_executor`
    does not know; starts nothing, so a command can check it before any other work."""
    text = spec.strip()
    if text in ("serial", "threads", "local", "pool", "process"):
        return text
    if text.startswith(("dask://", "tcp://")):
        if len(text.split("://", 1)[1]) == 0:
            raise ExecutorError(f"executor {spec!r} needs an address, e.g. dask://localhost:8786")
        return text
    raise ExecutorError(
        f"unknown executor {spec!r}; use local, threads, serial or dask://HOST:PORT")


def make_executor(spec: str = "local", workers: int | None = None) -> Executor:
    """``"serial"``, ``"threads"``, ``"local"`` (process pool) or ``"dask://HOST:PORT"``."""
    text = check_executor_spec(spec)
    if text == "serial":
        return SerialExecutor()
    if text == "threads":
        return ThreadExecutor(workers)
    if text in ("local", "pool", "process"):
        return LocalProcessExecutor(workers)
    return DaskExecutor(text)
