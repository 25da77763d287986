"""The engine workers are warmed up at server start: the default opponents' models,
tables and kernels are loaded before a table's first engine move asks for them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from spielwerk.games.skat import rules as R
from spielwerk.web.engines import EnginePool
from spielwerk.web.server import WEB_GAMES, Server, default_opponent
from spielwerk.web.store import Store
from spielwerk.web.work import WARM_STAGES, _sample_position


def test_a_warmed_worker_decides_again_without_the_loading() -> None:
    async def go() -> tuple[float, float]:
        pool = EnginePool(1)
        await pool.start()
        try:
            work = {"opponents": {"durak": "ismcts"}}
            t0 = time.perf_counter()
            await pool.run("warm_up", work, 300)
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            await pool.run("warm_up", work, 300)
            return first, time.perf_counter() - t0
        finally:
            await pool.close()

    first, second = asyncio.run(go())
    # the search's kernels load once per process (seconds); the same decision is then quick
    assert second < first / 2, (first, second)


class _RecordingPool:
    size = 2

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def run(self, name: str, kwargs: dict[str, Any], limit_s: float,
                  cancel: Any = None) -> dict[str, float]:
        self.calls.append((name, kwargs))
        return {g: 0.0 for g in kwargs["opponents"]}


def test_prewarm_warms_every_worker_with_every_default_opponent(tmp_path: Path) -> None:
    pool = _RecordingPool()
    server = Server(Store(tmp_path / "w.sqlite3"), pool)  # type: ignore[arg-type]
    asyncio.run(server.prewarm())
    server.store.close()
    assert server.warmed == 2 and len(pool.calls) == 2
    for name, kwargs in pool.calls:
        assert name == "warm_up"
        assert kwargs["opponents"] == {g: default_opponent(g) for g in WEB_GAMES}


def test_skat_warm_up_reaches_the_bid_the_put_and_the_card_play() -> None:
    assert WARM_STAGES["skat"] == ("start", "put", "play")
    assert _sample_position("skat", 1, "start").phase == R.BIDDING
    put = _sample_position("skat", 1, "put")
    assert put.phase == R.PUT and put.current_player == put.declarer
    play = _sample_position("skat", 1, "play")
    assert play.phase == R.PLAY and play.contract is not None


def test_no_prewarm_without_worker_processes(tmp_path: Path) -> None:
    async def go() -> int:
        server = Server(Store(tmp_path / "w.sqlite3"), EnginePool(0))
        await server.prewarm()
        server.store.close()
        return server.warmed

    assert asyncio.run(go()) == 0
