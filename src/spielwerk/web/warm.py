"""The engine workers' warm-up at the server's start (a part of the web server).

Each worker makes one small decision with every game's default opponent, so the first
engine move of a table does not pay the model load; on a machine where the kernels were
never compiled the workers compile them first, shared out over the workers.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from spielwerk.web.engines import EnginePool
from spielwerk.web.tables import Table

log = logging.getLogger("spielwerk.web")

WARM_LIMIT_S = 900.0
"""The most a worker's warm-up may take (compiling every kernel on a slow machine)."""
WARMING_NOTICE = ("the engines are warming up (the first start on a machine compiles them: "
                  "about half a minute); the engine moves follow")


def share_out(games: list[str], workers: int) -> list[list[str]]:
    """``games`` over at most ``workers`` lists: the first alone when there are two or more
    workers, the others dealt round the rest; no empty list."""
    if workers <= 1 or len(games) <= 1:
        return [games] if games else []
    rest = [games[1 + i::workers - 1] for i in range(workers - 1)]
    return [[games[0]], *(share for share in rest if share)]



class WarmUp:
    """The warm-up part of the server (a mixin: the server has ``pool``, ``warm_done``,
    ``warmed`` and ``broadcast``)."""

    pool: EnginePool
    warm_done: asyncio.Event
    warmed: int

    if TYPE_CHECKING:  # the server's own
        async def broadcast(self, table: Table, msg: dict[str, Any] | None = None) -> None:
            ...

        def warm_opponents(self) -> dict[str, str]:
            """Each table game's default opponent, the engines' warm-up decisions."""
            ...

    # ----- start
    @property
    def warming(self) -> bool:
        """Whether the engines are still warming up (the lobby says so)."""
        return not self.warm_done.is_set()

    def start_prewarm(self) -> asyncio.Task[None]:
        """:meth:`prewarm` in the background, marked as warming at once: a table opened
        before the task first runs waits for it too."""
        if self.pool.size:
            self.warm_done.clear()
        return asyncio.create_task(self.prewarm())

    async def wait_warm(self, table: Table, cancel: asyncio.Event | None) -> bool:
        """Wait (telling the table once) until the engines are warm; False when ``cancel``
        was set meanwhile."""
        if self.warm_done.is_set():
            return True
        await self.broadcast(table, {"type": "notice", "message": WARMING_NOTICE})
        waiters = [asyncio.ensure_future(self.warm_done.wait())]
        if cancel is not None:
            waiters.append(asyncio.ensure_future(cancel.wait()))
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
        return self.warm_done.is_set() and not (cancel is not None and cancel.is_set())

    async def _compile_kernels(self, games: list[str]) -> None:
        """Every game's kernels compiled into the cache (``spielwerk warmup``, about 45 s
        in one process on 2 cores), shared out over the workers: the first game (the
        heaviest, by the records' rank) alone on the first, the others round the rest."""
        log.info("engines warming up: compiling the kernels once; tables wait for their "
                 "first engine move")
        shares = share_out(games, self.pool.size)
        done = await asyncio.gather(
            *(self.pool.run("compile_kernels", {"games": share}, WARM_LIMIT_S)
              for share in shares), return_exceptions=True)
        failed = [r for r in done if isinstance(r, BaseException)]
        for r in failed:
            log.warning("compiling the kernels failed: %s", r)
        if not failed:
            from spielwerk.warmup import stamp

            stamp()
            log.info("kernels compiled (seconds per worker): %s", done)

    async def prewarm(self) -> None:
        """Every engine worker makes one small decision with each game's default opponent
        (``work.warm_up``) right after the server starts, so the first engine move of a
        table does not pay the model load and kernel start (seconds for knn). Workers are
        processes; ``workers=0`` (threads in tests) skips it."""
        try:
            if self.pool.size == 0:
                return
            from spielwerk import warmup

            if not warmup.kernels_warm():  # a fresh machine: the workers compile first
                await self._compile_kernels(list(warmup.steps()))
            opponents = self.warm_opponents()
            done = await asyncio.gather(
                *(self.pool.run("warm_up", {"opponents": opponents}, WARM_LIMIT_S)
                  for _ in range(self.pool.size)), return_exceptions=True)
            for r in done:
                if isinstance(r, BaseException):
                    log.warning("engine warm-up failed: %s", r)
                else:
                    log.info("engine worker warmed up (seconds per game): %s", r)
            self.warmed = sum(1 for r in done if not isinstance(r, BaseException))
        finally:
            self.warm_done.set()

