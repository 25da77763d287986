"""The engine workers are warmed up at server start: the default opponents' models and
kernels are loaded before a table's first engine move asks for them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from spielwerk.web.engines import EnginePool
from spielwerk.web.server import Server, default_opponent
from spielwerk.web.store import Store


def test_prewarm_loads_the_default_opponents_in_each_worker(tmp_path: Path) -> None:
    async def go() -> tuple[float, float, int]:
        pool = EnginePool(1)
        await pool.start()
        server = Server(Store(tmp_path / "w.sqlite3"), pool)
        try:
            t0 = time.perf_counter()
            await server.prewarm()
            first = time.perf_counter() - t0
            # the same small decisions again in the warmed worker: the loading is done
            work = {"opponents": {g: default_opponent(g) for g in ("skat", "durak", "kalah")}}
            t0 = time.perf_counter()
            again = await pool.run("warm_up", work, 300)
            second = time.perf_counter() - t0
            assert set(again) == {"skat", "durak", "kalah"}
            return first, second, server.warmed
        finally:
            await pool.close()
            server.store.close()

    first, second, warmed = asyncio.run(go())
    assert warmed == 1
    # loading the knn model and the solvers' kernels costs seconds once per process
    assert second < first / 2, (first, second)


def test_no_prewarm_without_worker_processes(tmp_path: Path) -> None:
    async def go() -> int:
        server = Server(Store(tmp_path / "w.sqlite3"), EnginePool(0))
        await server.prewarm()
        server.store.close()
        return server.warmed

    assert asyncio.run(go()) == 0
