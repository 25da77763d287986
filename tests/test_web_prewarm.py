"""The engine workers are warmed up at server start: the default opponents' models,
tables and kernels are loaded before a table's first engine move asks for them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from spielwerk.core.agent import AgentSpec
from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.games.skat import rules as R
from spielwerk.web.engines import EnginePool
from spielwerk.web.server import Server, default_opponent, share_out, web_games
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
        if name == "compile_kernels":
            return 0.0
        return {g: 0.0 for g in kwargs["opponents"]}


def test_prewarm_warms_every_worker_with_every_default_opponent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import spielwerk.warmup

    monkeypatch.setattr(spielwerk.warmup, "kernels_warm", lambda: True)
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


class _GatedPool:
    """Workers whose warm-up lasts until the test opens ``gate``; an engine move is the
    first legal action, answered at once."""

    size = 2

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.gate = asyncio.Event()

    async def run(self, name: str, kwargs: dict[str, Any], limit_s: float,
                  cancel: Any = None) -> Any:
        self.calls.append((name, kwargs))
        if name == "warm_up":
            await self.gate.wait()
            return {}
        state = load_game(kwargs["spec"]).new_initial_state()
        for action in kwargs["history"]:
            state.apply(action)
        return state.legal_actions()[0]


def test_prewarm_compiles_the_kernels_shared_out_only_on_a_fresh_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import spielwerk.warmup

    stamped: list[bool] = []
    monkeypatch.setattr(spielwerk.warmup, "stamp", lambda: stamped.append(True))
    games = list(spielwerk.warmup.steps())
    for warm in (False, True):
        monkeypatch.setattr(spielwerk.warmup, "kernels_warm", lambda warm=warm: warm)
        pool = _RecordingPool()
        server = Server(Store(tmp_path / f"{warm}.sqlite3"), pool)  # type: ignore[arg-type]
        asyncio.run(server.prewarm())
        server.store.close()
        names = [name for name, _ in pool.calls]
        if warm:
            assert names == ["warm_up", "warm_up"]
        else:  # both workers compile (every game once), then both warm their opponents
            assert names == ["compile_kernels", "compile_kernels", "warm_up", "warm_up"]
            shares = [kwargs["games"] for _, kwargs in pool.calls[:2]]
            assert sorted(g for share in shares for g in share) == sorted(games)
        assert not server.warming
    assert stamped == [True]  # once: after the fresh machine's compiling


def test_the_games_are_shared_out_with_the_first_alone() -> None:
    assert share_out(["skat", "kalah", "durak"], 2) == [["skat"], ["kalah", "durak"]]
    assert share_out(["skat", "kalah", "durak"], 3) == [["skat"], ["kalah"], ["durak"]]
    assert share_out(["skat", "kalah", "durak"], 8) == [["skat"], ["kalah"], ["durak"]]
    assert share_out(["skat", "kalah"], 1) == [["skat", "kalah"]]
    assert share_out([], 4) == []


def test_a_table_opened_while_the_engines_warm_up_waits_for_its_first_move(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import spielwerk.warmup

    monkeypatch.setattr(spielwerk.warmup, "kernels_warm", lambda: True)

    async def go() -> tuple[list[str], bool, bool, int, dict[str, int]]:
        pool = _GatedPool()
        server = Server(Store(tmp_path / "w.sqlite3"), pool)  # type: ignore[arg-type]
        warm = server.start_prewarm()
        assert server.warming  # at once, before the task first runs
        table = server.create_table({"game": "kalah", "seat": 1, "opponents": ["random"]})
        server.ensure_driver(table)  # the engine (seat 0) moves first
        await asyncio.sleep(0.2)
        waiting = server.warming and len(table.history) == 0
        pool.gate.set()  # the warm-up ends: the move follows
        await warm
        for _ in range(100):
            if table.history:
                break
            await asyncio.sleep(0.01)
        names = [name for name, _ in pool.calls]
        await server.shutdown()
        server.store.close()
        return names, waiting, server.warming, len(table.history), dict(server.stats)

    names, waiting, warming, moves, stats = asyncio.run(go())
    assert waiting and not warming and moves >= 1
    # nothing was sent to an engine before the warm-up ended, and nothing fell back
    assert names[:2] == ["warm_up", "warm_up"] and "engine_move" in names
    assert stats["fallbacks"] == 0 and stats["engine_moves"] >= 1


def test_the_lobby_hears_whether_the_engines_warm_up(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from spielwerk.web.app import create_app

    with TestClient(create_app(tmp_path / "w.sqlite3", workers=0)) as client:
        assert client.get("/api/engines").json() == {"warming": False, "workers": 0,
                                                     "workers_warmed": 0}
