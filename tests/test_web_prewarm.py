"""The engine workers are warmed up at server start: the default opponents' models,
tables and kernels are loaded before a table's first engine move asks for them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from spielwerk.core.agent import AgentSpec
from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.games.skat import rules as R
from spielwerk.web.engines import EnginePool
from spielwerk.web.server import Server, default_opponent, web_games
from spielwerk.web.store import Store
from spielwerk.web.work import _sample_position


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
        assert kwargs["opponents"] == {g: default_opponent(g) for g in web_games()}


def test_skat_warm_up_reaches_the_bid_the_put_and_the_card_play() -> None:
    assert table_face(load_game("skat")).warm_stages == ("start", "put", "play")
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


def test_cancel_while_waiting_for_a_busy_worker() -> None:
    """An abandoned table's engine task does not wait for a worker that is busy (for
    example warming up): it is cancelled at once, and the worker is not lost."""
    from spielwerk.web.engines import EngineCancelled

    async def go() -> tuple[float, int]:
        pool = EnginePool(1)
        await pool.start()
        try:
            busy = asyncio.ensure_future(pool.run(
                "engine_move", {"spec": "kalah", "history": [], "seat": 0,
                                "agent": AgentSpec.parse("mcts:time=3"), "seed": 1,
                                "budget_s": 3.0}, 60))
            await asyncio.sleep(0.2)
            cancel = asyncio.Event()
            asyncio.get_running_loop().call_later(0.3, cancel.set)
            t0 = time.perf_counter()
            try:
                await pool.run("warm_up", {"opponents": {"kalah": "random"}}, 60, cancel)
            except EngineCancelled:
                waited = time.perf_counter() - t0
            else:
                raise AssertionError("not cancelled")
            await busy
            # the one worker still serves
            await pool.run("warm_up", {"opponents": {"kalah": "random"}}, 60)
            return waited, pool.alive
        finally:
            await pool.close()

    waited, alive = asyncio.run(go())
    assert waited < 2.0 and alive == 1
