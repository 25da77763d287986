"""People who play together at one table: a private link per person seat (its key), one
refusal for every wrong way in, spectators with the public view only, the Origin check,
the limits per address (issue 44)."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from spielwerk.web.app import create_app
from spielwerk.web.seats import (
    REFUSED,
    REFUSED_CODE,
    Limits,
    RedactKeys,
    key_hash,
    plain_http_warning,
)

SEATS = ["person", "person", "random"]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "seats.sqlite3"


@pytest.fixture
def client(db: Path) -> Any:
    with TestClient(create_app(db, workers=0)) as c:
        yield c


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/tables", json={"game": "skat", "seats": SEATS, "time": 0.1,
                                         "seed": 7, **body})
    assert r.status_code == 200, r.text
    return dict(r.json())


def key_of(link: str) -> str:
    return link.split("key=")[1]


def drain(ws: Any) -> list[dict[str, Any]]:
    """Every message queued for ``ws`` (a ping's pong comes after all of them)."""
    ws.send_json({"type": "ping"})
    out = []
    while True:
        msg = ws.receive_json()
        if msg["type"] == "pong":
            return out
        out.append(msg)


def choose(legal: list[dict[str, Any]]) -> int:
    """A person's move that plays the deal out: a card, else a bid, else the first choice
    that is no claim or resignation."""
    for kind in ("card", "bid"):
        for a in legal:
            if a["kind"] == kind:
                return int(a["id"])
    rest = [a for a in legal if a["kind"] not in ("claim", "resign")] or legal
    return int(rest[0]["id"])


def played_so_far(watched: list[dict[str, Any]], final: dict[str, Any]) -> None:
    """Every card a spectator's view names before the end was played (or is an ouvert
    declarer's open hand): a trick, the tricks so far."""
    reveal = final["view"]["reveal"]
    deck = {c for hand in reveal["dealt"] for c in hand} | set(reveal["skat"])
    views = [m["view"] for m in watched if m["type"] == "view" and not m["view"]["over"]]
    assert views and any(v["tricks_played"] for v in views)
    for v in views:
        text = json.dumps(v)
        named = {c for c in deck if f'"{c}"' in text}
        played = set(v["trick"]) | set(v["declarer_cards"] or []) | {
            c for t in v["tricks_played"] for c in t["cards"]}
        assert named <= played, (named - played, v)


def server_log(caplog: pytest.LogCaptureFixture) -> str:
    """What the server logged (the test's own HTTP client logs its requests' URLs)."""
    return "\n".join(r.getMessage() for r in caplog.records
                     if r.name not in ("httpx", "httpx2"))


def refusal(client: TestClient, path: str, **kw: Any) -> tuple[int, str | None]:
    with pytest.raises(WebSocketDisconnect) as exc:
        with client.websocket_connect(path, **kw):
            pass
    return exc.value.code, exc.value.reason


def test_two_people_and_an_engine_play_a_deal_each_seeing_only_their_own_cards(
        client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    made = create(client)
    tid, keys = made["id"], {int(s): key_of(link) for s, link in made["links"].items()}
    assert set(keys) == {0, 1} and made["seat"] == 0 and len(keys[0]) >= 22  # 128 bits
    assert made["url"] == made["links"]["0"] and made["spectate"] == f"/#table={tid}&spectate=1"
    seen: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
    with client.websocket_connect(f"/ws/{tid}?seat=0&key={keys[0]}") as w0, \
            client.websocket_connect(f"/ws/{tid}?seat=1&key={keys[1]}") as w1, \
            client.websocket_connect(f"/ws/{tid}?spectate=1") as spy:
        socks = {0: w0, 1: w1}
        lobby = client.get("/api/tables").json()["tables"]
        assert [e["joined"] for e in lobby if e["id"] == tid] == [[0, 1]]
        deadline = time.time() + 120
        final = None
        while time.time() < deadline:
            msgs = {s: client.get(f"/api/tables/{tid}?seat={s}&key={keys[s]}").json()
                    for s in (0, 1)}
            if msgs[0]["view"]["over"]:
                final = msgs[0]
                break
            for s, m in msgs.items():
                v = m["view"]
                if v["to_move"] == s and m["thinking"] is None and v["legal"]:
                    socks[s].send_json({"type": "act", "action": choose(v["legal"]),
                                        "ply": v["ply"]})
                    seen[s] += drain(socks[s])
                    break
            else:
                time.sleep(0.05)
        assert final is not None, "the deal did not end"
        for s in (0, 1):
            seen[s] += drain(socks[s])
        watched = drain(spy)
    played_so_far(watched, final)
    reveal, declarer = final["view"]["reveal"], final["view"]["declarer"]
    assert len(final["view"]["tricks_played"]) == 10  # the whole deal, to its last trick
    for s in (0, 1):
        own = set(reveal["dealt"][s]) | (set(reveal["skat"]) if s == declarer else set())
        views = [m for m in seen[s] if m["type"] == "view"]
        assert views and all(m["table"]["seat"] == s for m in views)
        assert all(m["type"] != "error" for m in seen[s]), seen[s]
        for m in views:
            if not m["view"]["over"]:
                assert set(m["view"]["hand"]) <= own
        text = json.dumps(seen[s])
        assert keys[1 - s] not in text and keys[s] not in text
    assert not [k for k in keys.values() if k in json.dumps(watched)]
    assert not [k for k in keys.values() if k in server_log(caplog)]


def test_every_wrong_way_in_gets_the_same_refusal(client: TestClient, db: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    made = create(client)
    tid, k0, k1 = made["id"], key_of(made["links"]["0"]), key_of(made["links"]["1"])
    bad = ("y" if k0[0] == "x" else "x") + k0[1:]  # one character off: never the key
    wrong = [f"/ws/{tid}?seat=0&key={bad}",        # a wrong key
             f"/ws/{tid}?seat=0",                  # no key
             f"/ws/{tid}",                         # nothing: a table of two people
             f"/ws/{tid}?seat=0&key={k1}",         # the other seat's key
             f"/ws/{tid}?seat=2&key={k0}",         # an engine's seat
             f"/ws/{'ab' * 12}?seat=0&key={k0}",   # an unknown table
             f"/ws/{'ab' * 12}?spectate=1"]
    answers = {refusal(client, path) for path in wrong}
    assert answers == {(REFUSED_CODE, "refused")}
    http = {(r.status_code, r.text) for r in (
        client.get(f"/api/tables/{tid}?seat=0&key={bad}"),
        client.get(f"/api/tables/{tid}?seat=0&key={k1}"),
        client.get(f"/api/tables/{tid}"),
        client.get(f"/api/tables/{'ab' * 12}?seat=0&key={k0}"))}
    assert http == {(403, json.dumps({"error": REFUSED}, separators=(",", ":")))}
    with client.websocket_connect(f"/ws/{tid}?seat=1&key={k1}") as ws:
        assert ws.receive_json()["table"]["seat"] == 1
    assert k0 not in server_log(caplog) and k1 not in server_log(caplog)
    stored = sqlite3.connect(db).execute("SELECT config FROM tables WHERE id=?",
                                         (tid,)).fetchone()[0]
    assert k0 not in stored and k1 not in stored
    assert json.loads(stored)["keys"] == {"0": key_hash(k0), "1": key_hash(k1)}
    raw = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
    assert k0.encode() not in raw and k1.encode() not in raw


def test_a_spectator_sees_no_hand_and_cannot_play(client: TestClient) -> None:
    made = create(client)
    tid, k0 = made["id"], key_of(made["links"]["0"])
    with client.websocket_connect(f"/ws/{tid}?seat=0&key={k0}") as ws:
        hand = ws.receive_json()["view"]["hand"]
    with client.websocket_connect(f"/ws/{tid}?spectate=1") as spy:
        msg = spy.receive_json()
        assert msg["table"]["spectator"] and msg["view"]["legal"] == []
        assert "hand" not in msg["view"] and "bidding" in msg["view"]
        text = json.dumps(msg["view"])
        assert not [card for card in hand if card in text]
        spy.send_json({"type": "act", "action": 0, "ply": msg["view"]["ply"]})
        assert "spectator" in spy.receive_json()["message"]
    public = client.get(f"/api/tables/{tid}?spectate=1").json()
    assert public["table"]["spectator"] and "hand" not in public["view"]


def test_websockets_from_another_site_are_refused(client: TestClient) -> None:
    made = create(client)
    tid, k0 = made["id"], key_of(made["links"]["0"])
    path = f"/ws/{tid}?seat=0&key={k0}"
    code, _ = refusal(client, path, headers={"origin": "http://evil.example"})
    assert code == REFUSED_CODE
    with client.websocket_connect(path, headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "view"


def test_the_limits_per_address(tmp_path: Path) -> None:
    app = create_app(tmp_path / "l.sqlite3", workers=0, local_open=False,
                     limits=Limits(tables_per_minute=2, messages_per_second=3))
    with TestClient(app) as client:
        made = [client.post("/api/tables", json={"game": "kalah", "seats": ["person", "random"]})
                for _ in range(3)]
        assert [r.status_code for r in made] == [200, 200, 429]
        assert "too many tables created from your address: at most 2 a minute" in \
            made[2].json()["error"]
        tid, key = made[0].json()["id"], key_of(made[0].json()["links"]["0"])
        with client.websocket_connect(f"/ws/{tid}?seat=0&key={key}") as ws:
            ws.receive_json()
            for _ in range(6):
                ws.send_json({"type": "view"})
            answers = [ws.receive_json() for _ in range(6)]
        errors = [m["message"] for m in answers if m["type"] == "error"]
        assert errors and all("too many messages from your address: at most 3 a second"
                              in e for e in errors)


def test_the_one_person_form_keeps_working_and_needs_its_key_beyond_this_machine(
        tmp_path: Path, client: TestClient) -> None:
    # on this machine (a server on this machine only): by id alone, as before, or by key
    r = client.post("/api/tables", json={"game": "kalah", "opponents": ["random"]}).json()
    assert r["url"].startswith(f"/#table={r['id']}&seat=0&key=")
    with client.websocket_connect(f"/ws/{r['id']}") as ws:
        assert ws.receive_json()["table"]["seat"] == 0
    assert client.get(f"/api/tables/{r['id']}").status_code == 200
    # a request forwarded by a proxy is not from this machine: the key is needed
    forwarded = {"x-forwarded-for": "203.0.113.9"}
    assert refusal(client, f"/ws/{r['id']}", headers=forwarded)[0] == REFUSED_CODE
    app = create_app(tmp_path / "remote.sqlite3", workers=0, local_open=False)
    with TestClient(app) as remote:
        r = remote.post("/api/tables", json={"game": "kalah", "opponents": ["random"]}).json()
        assert refusal(remote, f"/ws/{r['id']}") == refusal(remote, f"/ws/{'cd' * 12}")
        assert remote.get(f"/api/tables/{r['id']}").status_code == 403
        assert remote.get(f"/api/tables/{'cd' * 12}").status_code == 403
        assert remote.get("/api/tables").json()["tables"] == []
        assert [t["id"] for t in remote.get(f"/api/tables?ids={r['id']}").json()["tables"]] \
            == [r["id"]]
        with remote.websocket_connect(f"/ws/{r['id']}?seat=0&key={key_of(r['url'])}") as ws:
            assert ws.receive_json()["table"]["seat"] == 0


def test_seats_are_checked(client: TestClient) -> None:
    for seats, text in ((["random", "random", "random"], "at least one"),
                        (["person", "person"], "list of 3"),
                        (["person", "nonsense", "random"], "cannot play")):
        r = client.post("/api/tables", json={"game": "skat", "seats": seats})
        assert r.status_code == 400 and text in r.json()["error"], r.text


def test_keys_never_reach_the_log_and_serving_beyond_warns() -> None:
    record = logging.LogRecord("uvicorn.error", logging.INFO, "x", 1,
                               '%s - "WebSocket %s" [accepted]',
                               ("1.2.3.4", "/ws/abc?seat=0&key=SECRETKEY"), None)
    assert RedactKeys().filter(record) and "SECRETKEY" not in record.getMessage()
    assert "key=***" in record.getMessage()
    assert plain_http_warning("127.0.0.1") is None and plain_http_warning("localhost") is None
    warning = plain_http_warning("0.0.0.0")
    assert warning is not None and "plain HTTP" in warning and "TLS" in warning
    assert "\n" not in warning


def test_a_durak_spectator_sees_the_table_but_no_hand(client: TestClient) -> None:
    r = client.post("/api/tables", json={"game": "durak", "seats": ["person", "person"],
                                         "params": {"deck": 24}, "seed": 4}).json()
    hands = []
    for s in (0, 1):
        with client.websocket_connect(f"/ws/{r['id']}?seat={s}&key={key_of(r['links'][str(s)])}"
                                      ) as ws:
            msg = ws.receive_json()
            hands.append(msg["view"]["hand"])
            trump = msg["view"]["trump_card"]
    public = client.get(f"/api/tables/{r['id']}?spectate=1").json()["view"]
    assert public["trump_card"] == trump and public["hand_sizes"] == [len(h) for h in hands]
    assert "hand" not in public and "known" not in public and public["legal"] == []
    text = json.dumps(public)
    assert not [c for hand in hands for c in hand if f'"{c}"' in text and c != trump]


def test_a_kalah_spectator_sees_the_whole_board_and_no_moves(client: TestClient) -> None:
    r = client.post("/api/tables", json={"game": "kalah", "seats": ["person", "person"],
                                         "params": {"pits": 4, "seeds": 3}}).json()
    board = ("pits", "seeds", "empty_capture", "south", "north", "stores")
    with client.websocket_connect(f"/ws/{r['id']}?seat=0&key={key_of(r['links']['0'])}"
                                  ) as w0, client.websocket_connect(
            f"/ws/{r['id']}?spectate=1") as spy:
        seat_view = w0.receive_json()["view"]
        first = spy.receive_json()
        assert first["table"]["spectator"] and first["view"]["seat"] is None
        assert {k: first["view"][k] for k in board} == {k: seat_view[k] for k in board}
        assert first["view"]["south"] == [3] * 4 and first["view"]["stores"] == [0, 0]
        assert first["view"]["legal"] == [] and seat_view["legal"]
        w0.send_json({"type": "act", "action": 3, "ply": seat_view["ply"]})  # South's pit 4
        after = [m for m in drain(w0) if m["type"] == "view"][-1]["view"]
        watched = [m["view"] for m in drain(spy) if m["type"] == "view"]
    assert watched and watched[-1]["ply"] == 1 and watched[-1]["legal"] == []
    assert {k: watched[-1][k] for k in board} == {k: after[k] for k in board}
    assert watched[-1]["south"] == [3, 3, 3, 0] and watched[-1]["stores"] == [1, 0]
    public = client.get(f"/api/tables/{r['id']}?spectate=1").json()["view"]
    assert public["north"] == [4, 4, 3, 3] and public["legal"] == []
