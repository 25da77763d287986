"""The limits per address of a server reachable from elsewhere (issue 44): websocket
connections open at once (a refused one is told why), and ``spielwerk serve``'s options
for all three limits (checked in one line, passed to the app)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from spielwerk.web.app import create_app
from spielwerk.web.seats import TOO_MANY_CONNECTIONS_CODE, ConnectionLimit, Limits
from web_helpers import free_port


def two_people(client: TestClient) -> tuple[str, dict[int, str]]:
    r = client.post("/api/tables", json={"game": "kalah", "seats": ["person", "person"]})
    assert r.status_code == 200, r.text
    made = r.json()
    return made["id"], {int(s): link.split("key=")[1] for s, link in made["links"].items()}


def test_connections_open_at_once_are_limited_per_address(tmp_path: Path) -> None:
    app = create_app(tmp_path / "c.sqlite3", workers=0, local_open=False,
                     limits=Limits(connections=2))
    with TestClient(app) as client:
        tid, keys = two_people(client)
        with client.websocket_connect(f"/ws/{tid}?seat=0&key={keys[0]}") as w0, \
                client.websocket_connect(f"/ws/{tid}?spectate=1") as spy:
            assert w0.receive_json()["type"] == "view" and spy.receive_json()["type"] == "view"
            with client.websocket_connect(f"/ws/{tid}?seat=1&key={keys[1]}") as third:
                said = third.receive_json()
                assert said["type"] == "error"
                assert said["message"].startswith(
                    "too many connections from your address: at most 2 open at once")
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == TOO_MANY_CONNECTIONS_CODE
                assert closed.value.reason == "too many connections from your address"
            assert app.state.server.connection_limit.open == {"testclient": 2}
        # both closed: their places are free again, also for a refused way in
        assert app.state.server.connection_limit.open == {}
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect(f"/ws/{tid}?seat=0&key=wrong"):
                pass
        assert refused.value.code == 4403
        assert app.state.server.connection_limit.open == {}
        with client.websocket_connect(f"/ws/{tid}?seat=1&key={keys[1]}") as w1, \
                client.websocket_connect(f"/ws/{tid}?seat=0&key={keys[0]}") as w0:
            assert w1.receive_json()["table"]["seat"] == 1
            assert w0.receive_json()["table"]["seat"] == 0


def test_this_machine_is_not_limited_on_a_local_server(tmp_path: Path) -> None:
    app = create_app(tmp_path / "l.sqlite3", workers=0, limits=Limits(connections=1))
    with TestClient(app) as client:
        tid, keys = two_people(client)
        with client.websocket_connect(f"/ws/{tid}?seat=0&key={keys[0]}") as w0, \
                client.websocket_connect(f"/ws/{tid}?seat=1&key={keys[1]}") as w1, \
                client.websocket_connect(f"/ws/{tid}?spectate=1") as spy:
            for ws in (w0, w1, spy):
                assert ws.receive_json()["type"] == "view"
        assert app.state.server.connection_limit.open == {}


def test_the_connection_count_per_address() -> None:
    limit = ConnectionLimit(2)
    assert limit.enter("a") and limit.enter("a") and not limit.enter("a")
    assert limit.enter("b")
    limit.leave("a")
    assert limit.enter("a") and not limit.enter("a")
    for _ in range(3):
        limit.leave("a")
    limit.leave("b")
    assert limit.open == {}
    assert Limits() == Limits(tables_per_minute=20, messages_per_second=20, connections=20)
    for bad in ({"connections": 0}, {"tables_per_minute": -1},
                {"messages_per_second": 1.5}, {"connections": True}):
        with pytest.raises(ValueError, match="must be a whole number of at least 1"):
            Limits(**bad)


@pytest.mark.parametrize(("args", "text"), [
    (["--max-tables-per-minute", "0"], "--max-tables-per-minute must be at least 1, not 0"),
    (["--max-messages-per-second", "x"], "--max-messages-per-second must be a whole number"),
    (["--max-connections", "-3"], "--max-connections must be at least 1, not -3"),
    (["--max-connections", "2.5"], "--max-connections must be a whole number, not '2.5'"),
])
def test_serve_refuses_a_bad_limit_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str],
                                               args: list[str], text: str) -> None:
    from spielwerk.cli import main as cli_main

    monkeypatch.setattr(sys, "argv", ["spielwerk", "serve", "--host", "256.0.0.1", *args])
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as info:
        cli_main.main()
    err = capsys.readouterr().err
    assert info.value.code == 2, err
    assert text in err and err.count("\n") == 1, err


class Made(Exception):
    """Raised by the stand-in create_app: serve stops before it listens."""


@pytest.mark.parametrize(("args", "limits"), [
    ([], Limits()),
    (["--max-tables-per-minute", "3", "--max-messages-per-second", "7",
      "--max-connections", "5"],
     Limits(tables_per_minute=3, messages_per_second=7, connections=5)),
])
def test_serve_passes_its_limits_to_the_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            args: list[str], limits: Limits) -> None:
    import spielwerk.web.app as web_app
    from spielwerk.cli.main import app

    got: dict[str, Any] = {}

    def fake_create_app(db_path: Any, **kw: Any) -> None:
        got.update(kw)
        raise Made

    monkeypatch.setattr(web_app, "create_app", fake_create_app)
    result = CliRunner().invoke(app, ["serve", "--port", str(free_port()), "--db",
                                      str(tmp_path / "w.sqlite3"), *args])
    assert isinstance(result.exception, Made), result.output
    assert got["limits"] == limits
