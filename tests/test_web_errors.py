"""Web table: bad or hostile input and damaged stored data get a clear 4xx answer or an
error frame, never a 500, a dropped connection or a traceback; error texts never name
a card the person may not know; tables nobody opens do not pile up in memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from spielwerk.web.app import create_app

DEEP = "[" * 1500 + "]" * 1500  # about 3 KB: under the 4 KiB frame limit


@pytest.fixture()
def app(tmp_path: Path):  # type: ignore[no-untyped-def]
    return create_app(tmp_path / "e.sqlite3", workers=0, abandon_s=0.2)


@pytest.fixture()
def client(app):  # type: ignore[no-untyped-def]
    # raise_server_exceptions=False: a server bug shows as the 500 a browser would get
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def new_table(client: TestClient, **body: Any) -> str:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return str(r.json()["id"])


def no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info], caplog.text


# ----- 1. deeply nested JSON --------------------------------------------------------------
def test_deeply_nested_frame_gets_an_error_frame_and_the_socket_stays_open(
        client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    assert len(DEEP) < 4096
    tid = new_table(client, game="kalah", opponents=["random"], seed=1)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        assert ws.receive_json()["type"] == "view"
        ws.send_text(DEEP)
        msg = ws.receive_json()
        assert msg["type"] == "error" and "nested too deeply" in msg["message"], msg
        ws.send_text(json.dumps({"type": "act", "action": 0, "ply": 0,
                                 "x": json.loads("[" * 40 + "]" * 40)}))
        assert "nested too deeply" in ws.receive_json()["message"]
        ws.send_text(json.dumps({"type": "ping"}))
        assert ws.receive_json() == {"type": "pong"}
    no_traceback(caplog)


@pytest.mark.parametrize("path, body", [
    ("/api/tables", DEEP),
    ("/api/tables", '{"game": "kalah", "params": {"pits": ' + DEEP + "}}"),
    ("/api/tables", '{"game": "kalah", "params": {"pits": ' + "[" * 500 + "]" * 500 + "}}"),
    ("/api/games/upload", DEEP),
    ("/api/games/upload", '{"game": "kalah", "history": ' + DEEP + "}"),
    ("/api/games/upload", '{"game": "kalah", "history": ' + "[" * 500 + "]" * 500 + "}"),
    ("/api/games/upload", '{"game": "kalah", "history": [0], "x": ' + DEEP + "}"),
])
def test_deeply_nested_request_is_a_400(client: TestClient, caplog: pytest.LogCaptureFixture,
                                        path: str, body: str) -> None:
    r = client.post(path, content=body.encode())
    assert r.status_code == 400, r.text
    assert "nested too deeply" in r.json()["error"]
    no_traceback(caplog)


# ----- 2. ids out of SQLite's range -------------------------------------------------------
@pytest.mark.parametrize("game_id", ["99999999999999999999999", "-99999999999999999999999",
                                     str(2**63), str(-(2**63) - 1)])
@pytest.mark.parametrize("method, route", [("GET", "record.json"), ("GET", "record.sgf"),
                                           ("GET", "review"), ("POST", "analysis")])
def test_huge_game_id_is_404(client: TestClient, game_id: str, method: str, route: str) -> None:
    r = client.request(method, f"/api/games/{game_id}/{route}")
    assert r.status_code == 404, r.text
    assert "unknown game" in r.json()["error"]


def test_huge_ids_in_the_store_are_unknown(app: Any) -> None:
    store = app.state.server.store
    assert store.get_game(10**30) is None
    assert store.get_game(-(10**30)) is None
