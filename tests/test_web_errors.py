"""Web table: bad or hostile input and damaged stored data get a clear 4xx answer or an
error frame, never a 500, a dropped connection or a traceback; error texts never name
a card the person may not know; tables nobody opens do not pile up in memory."""

from __future__ import annotations

import json
import sqlite3
import time
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


# ----- 3. damaged stored tables -----------------------------------------------------------
def damage(db: Path, table_id: str, column: str, value: Any) -> None:
    con = sqlite3.connect(db)
    con.execute(f"UPDATE tables SET {column}=? WHERE id=?", (value, table_id))
    con.commit()
    con.close()


def config_without(key: str) -> Any:
    return lambda cfg: {k: v for k, v in cfg.items() if k != key}


CONFIG_DAMAGE = {
    "no seat": config_without("seat"),
    "no agents": config_without("agents"),
    "no seed": config_without("seed"),
    "no time": config_without("time"),
    "no spec": config_without("spec"),
    "seat out of range": lambda cfg: {**cfg, "seat": 7},
    "seat a string": lambda cfg: {**cfg, "seat": "0"},
    "agents too short": lambda cfg: {**cfg, "agents": [None]},
    "agents not a list": lambda cfg: {**cfg, "agents": 3},
    "an engine at the person's seat": lambda cfg: {**cfg, "agents": ["random", "random"]},
    "seed a list": lambda cfg: {**cfg, "seed": [1]},
    "time a string": lambda cfg: {**cfg, "time": "fast"},
    "spec of another game": lambda cfg: {**cfg, "spec": "chess"},
    "spec not a string": lambda cfg: {**cfg, "spec": 5},
}


def check_damaged(tmp_path: Path, column: str, change: Any,
                  caplog: pytest.LogCaptureFixture) -> None:
    """Store a Kalah table, change one column of its row, restart: the table's routes say
    it is damaged (409, an error frame), the list of tables still answers."""
    db = tmp_path / "c.sqlite3"
    with TestClient(create_app(db, workers=0), raise_server_exceptions=False) as client:
        tid = new_table(client, game="kalah", opponents=["random"], seed=1)
    con = sqlite3.connect(db)
    old = con.execute(f"SELECT {column} FROM tables WHERE id=?", (tid,)).fetchone()[0]
    con.close()
    damage(db, tid, column, change(old))
    with TestClient(create_app(db, workers=0), raise_server_exceptions=False) as client:
        r = client.get(f"/api/tables/{tid}")
        assert r.status_code == 409, r.text
        assert "damaged" in r.json()["error"]
        assert client.get("/api/tables").status_code == 200
        with client.websocket_connect(f"/ws/{tid}") as ws:
            msg = ws.receive_json()
            assert msg["type"] == "error" and "damaged" in msg["message"], msg
    no_traceback(caplog)


@pytest.mark.parametrize("what", sorted(CONFIG_DAMAGE))
def test_damaged_table_config_is_409_not_500(tmp_path: Path, what: str,
                                             caplog: pytest.LogCaptureFixture) -> None:
    check_damaged(tmp_path, "config", lambda old: json.dumps(CONFIG_DAMAGE[what](
        json.loads(old))), caplog)


@pytest.mark.parametrize("column, value", [
    ("config", "[1, 2]"), ("config", "{nope"), ("config", '"text"'),
    ("history", "[1e400]"), ("history", "[99999999999999999999999]"), ("history", '["x"]'),
    ("history", "{}"), ("deal_no", "many"), ("deal_no", -1), ("series", '[{"deal": 1}]'),
    ("series", "[1]"), ("series", '[{"sf": "x"}]'),
])
def test_damaged_table_row_is_409_not_500(tmp_path: Path, column: str, value: Any,
                                          caplog: pytest.LogCaptureFixture) -> None:
    check_damaged(tmp_path, column, lambda old: value, caplog)


# ----- 7. tables created and never opened -------------------------------------------------
def test_unopened_tables_do_not_stay_in_memory(client: TestClient, app: Any) -> None:
    server = app.state.server
    ids = [new_table(client, game="kalah", params={"pits": 3, "seeds": 2},
                     opponents=["random"], seed=i) for i in range(300)]
    for tid in ids[:50]:
        assert client.get(f"/api/tables/{tid}").json()["table"]["id"] == tid
    assert len(server.tables) == 0
    assert client.get("/api/stats").json()["tables_in_memory"] == 0
    assert len(server.store.list_tables(limit=1000)) == 300  # all kept in the store
    # opening one loads it; leaving it drops it again after abandon_s
    with client.websocket_connect(f"/ws/{ids[7]}") as ws:
        assert ws.receive_json()["view"]["ply"] == 0
        assert set(server.tables) == {ids[7]}
    deadline = time.time() + 10
    while server.tables and time.time() < deadline:
        time.sleep(0.05)
    assert not server.tables and not server.locks and not server.abandoners
