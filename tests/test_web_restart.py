"""Restart test: stop the server mid-game, start it again, the table continues.

Uses the real ``spielwerk serve`` process and the ``websockets`` client, so it
also checks that SIGTERM (what Ctrl-C does) stops the server cleanly.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path
from typing import Any

from web_helpers import ServerProcess


async def _until_my_turn(ws: Any) -> dict[str, Any]:
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
        assert msg["type"] != "error", msg
        if msg["type"] == "view":
            v = msg["view"]
            if v["over"] or (v["to_move"] == v["seat"] and msg["thinking"] is None):
                return msg  # type: ignore[no-any-return]


async def _play(url: str, moves: int | None) -> dict[str, Any]:
    import websockets

    async with websockets.connect(url) as ws:
        msg = await _until_my_turn(ws)
        done = 0
        while not msg["view"]["over"] and (moves is None or done < moves):
            v = msg["view"]
            await ws.send(json.dumps({"type": "act", "action": v["legal"][0]["id"],
                                      "ply": v["ply"]}))
            msg = await _until_my_turn(ws)
            done += 1
        return msg


def test_table_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    first = ServerProcess(db, engines=0).start()
    try:
        body = json.dumps({"game": "skat", "opponents": ["random", "random"], "time": 0.5,
                           "seed": 17}).encode()
        req = urllib.request.Request(first.base + "/api/tables", data=body,
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            tid = json.loads(r.read())["id"]
        before = asyncio.run(_play(f"ws://127.0.0.1:{first.port}/ws/{tid}", moves=3))
    finally:
        rc = first.stop()
    # uvicorn shuts down cleanly, then re-raises SIGTERM (exit status -15)
    assert rc in (0, -15), first.log_path.read_text()
    assert "web table stopped" in first.log_path.read_text()
    assert not before["view"]["over"]
    second = ServerProcess(db, engines=1).start()
    try:
        again = asyncio.run(_play(f"ws://127.0.0.1:{second.port}/ws/{tid}", moves=0))
        assert again["view"]["ply"] == before["view"]["ply"]
        assert again["view"]["hand"] == before["view"]["hand"]
        end = asyncio.run(_play(f"ws://127.0.0.1:{second.port}/ws/{tid}", moves=None))
        assert end["view"]["over"]
        assert end["table"]["game_id"] is not None
    finally:
        assert second.stop() in (0, -15)
