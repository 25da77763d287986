"""Web table: bad or hostile input and damaged stored data get a clear 4xx answer or an
error frame, never a 500, a dropped connection or a traceback; error texts never name
a card the person may not know; tables nobody opens do not pile up in memory."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import numpy as np
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


# ----- 6. error texts never name a hidden card ---------------------------------------------
CARD_RE = re.compile(r"(?<![A-Za-z0-9])([CDHS][2-9TJQKA])(?![A-Za-z0-9])")


def engine_to_play_a_card(spec: str, seat: int, seed: int) -> tuple[list[int], Any]:
    """A history (deal included) that ends with an engine seat to play cards, and the
    state there: random legal moves until the player to move is not ``seat`` and its
    legal moves are cards of its hand."""
    from spielwerk.core.game import CHANCE, sample_chance
    from spielwerk.core.registry import load_game

    rng = np.random.default_rng(seed)
    state: Any = load_game(spec).new_initial_state()
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        if state.current_player != seat and len(CARD_RE.findall(
                " ".join(state.action_to_string(a) for a in legal))) >= 2:
            return list(state.history), state
        state.apply(int(rng.choice(legal)))
    raise AssertionError("no engine card play found")


@pytest.mark.parametrize("game, params", [("skat", {}), ("durak", {"deck": 36})])
def test_damaged_history_error_names_no_hidden_card(tmp_path: Path, game: str,
                                                    params: dict[str, Any]) -> None:
    db = tmp_path / "h.sqlite3"
    with TestClient(create_app(db, workers=0), raise_server_exceptions=False) as client:
        tid = new_table(client, game=game, params=params, seed=3,
                        opponents=["random"] * (2 if game == "skat" else 1))
        spec = client.get(f"/api/tables/{tid}").json()["view"]["spec"]
    history, state = engine_to_play_a_card(spec, 0, 5)
    hidden = set(CARD_RE.findall(" ".join(state.action_to_string(a)
                                          for a in state.legal_actions())))
    assert hidden
    illegal = next(a for a in range(1000) if a not in state.legal_actions())
    damage(db, tid, "history", json.dumps([*history, illegal]))
    with TestClient(create_app(db, workers=0), raise_server_exceptions=False) as client:
        r = client.get(f"/api/tables/{tid}")
        assert r.status_code == 409 and "damaged" in r.json()["error"]
        texts = [r.json()["error"]]
        with client.websocket_connect(f"/ws/{tid}") as ws:
            msg = ws.receive_json()
            assert msg["type"] == "error"
            texts.append(msg["message"])
    for text in texts:
        assert "cannot be replayed" in text
        assert not CARD_RE.findall(text), text


def test_engine_failure_notice_names_no_hidden_card(client: TestClient, app: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A failing engine's own error text (which may name its cards) stays in the log."""
    import spielwerk.web.work  # noqa: F401 - registers the real tasks before the patch
    from spielwerk.core.errors import SpielwerkError
    from spielwerk.web import tasks

    def failing(**kwargs: Any) -> int:
        raise SpielwerkError("the engine's hand is CJ SJ HA; legal: CJ, SJ")

    monkeypatch.setitem(tasks.TASKS, "engine_move", failing)
    tid = new_table(client, game="kalah", seat=1, opponents=["random"], seed=2, time=0.1)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        for _ in range(10):  # view, thinking, notice, view
            msg = ws.receive_json()
            if msg["type"] == "notice":
                break
    assert msg["type"] == "notice", msg
    # the engine and its fallback both fail here: the game's rule baseline moves, never a
    # random move
    assert "failed" in msg["message"] and "greedy baseline played" in msg["message"]
    assert "random legal move" not in msg["message"]
    assert not CARD_RE.findall(msg["message"]), msg["message"]


@pytest.mark.parametrize("route", ["review", "record.json", "record.sgf", "analysis"])
def test_damaged_finished_game_is_409_naming_no_card(client: TestClient, app: Any,
                                                     route: str) -> None:
    from spielwerk.core.registry import load_game

    spec = load_game("skat").spec()
    history, state = engine_to_play_a_card(spec, 0, 5)
    illegal = next(a for a in range(1000) if a not in state.legal_actions())
    gid = app.state.server.store.add_game(spec, [*history, illegal], 0, ["you", "a", "b"],
                                          "won")
    r = client.request("POST" if route == "analysis" else "GET", f"/api/games/{gid}/{route}")
    assert r.status_code == 409, r.text
    assert "damaged" in r.json()["error"] and not CARD_RE.findall(r.json()["error"])


# ----- 4. an uploaded ISS record whose stated result is not the replayed one --------------
ISS_SAMPLE = Path(__file__).parent / "data" / "iss_sample.sgf"


def test_upload_says_when_the_stated_result_disagrees(client: TestClient) -> None:
    line = ISS_SAMPLE.read_text().splitlines()[0]
    assert "d:2 loss v:-54" in line
    honest = client.post("/api/games/upload", content=line.encode())
    assert honest.status_code == 200 and honest.json()["notes"] == []
    assert client.get(f"/api/games/{honest.json()['id']}/review").json()["summary"] == "uploaded"

    edited = line.replace("d:2 loss v:-54", "d:2 win v:54")
    r = client.post("/api/games/upload", content=edited.encode())
    assert r.status_code == 200
    notes = r.json()["notes"]
    assert len(notes) == 1 and "stated result disagrees" in notes[0]
    assert "outcome: record win, replay loss" in notes[0] and "v: record 54, replay -54" in notes[0]
    gid = r.json()["id"]
    review = client.get(f"/api/games/{gid}/review").json()
    assert "stated result disagrees" in review["summary"]
    listed = {g["id"]: g for g in client.get("/api/games/finished").json()["games"]}
    assert "stated result disagrees" in listed[gid]["summary"]


# ----- 5. the lobby offers only Kalah sizes the opponent plays ----------------------------
def test_lobby_offers_only_kalah_sizes_the_opponents_play(client: TestClient) -> None:
    from spielwerk.core.errors import SpielwerkError
    from spielwerk.core.registry import load_game

    info = client.get("/api/games").json()["games"]["kalah"]
    default = info["default_opponent"]
    assert set(info["limits"]) == {a["name"] for a in info["agents"]}
    lim = info["limits"][default]
    top = lim["pits"]["max"]
    by_pits = lim["seeds"]["max_by_pits"]
    assert lim["pits"]["min"] == 1 and set(by_pits) == {str(m) for m in range(1, top + 1)}
    for m in range(1, top + 1):  # every size offered is played by the default opponent
        r = client.post("/api/tables", json={"game": "kalah", "params": {
            "pits": m, "seeds": by_pits[str(m)]}, "seed": 1})
        assert r.status_code == 200, (m, r.text)
    # one more pit or one more seed is refused with the reason
    r = client.post("/api/tables", json={"game": "kalah", "params": {"pits": top + 1,
                                                                     "seeds": 1}})
    assert r.status_code == 400
    if top < 16:  # the rules allow 16: the opponent is what refuses
        load_game("kalah", pits=top + 1, seeds=1)
        assert f"the opponent '{default}' cannot play" in r.json()["error"]
    r = client.post("/api/tables", json={"game": "kalah", "params": {
        "pits": 6, "seeds": by_pits["6"] + 1}})
    assert r.status_code == 400
    # an agent without the solver's limit is offered what the rules allow
    rules_top = info["limits"]["random"]["pits"]["max"]
    load_game("kalah", pits=rules_top, seeds=1)
    with pytest.raises(SpielwerkError):
        load_game("kalah", pits=rules_top + 1, seeds=1)
    # and the lobby takes its ranges from these limits, not from numbers of its own
    js = client.get("/static/app.js").text
    assert "info.limits" in js and '"opt-pits", 6, 1, 16' not in js


# ----- sweep: the thread pool (workers=0) times out with EngineTimeout, as the processes do
def test_thread_pool_timeout_is_an_engine_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    import spielwerk.web.work  # noqa: F401 - registers the real tasks before the patch
    from spielwerk.web import engines, tasks

    monkeypatch.setitem(tasks.TASKS, "slow", lambda: time.sleep(1.0))

    async def run() -> None:
        pool = engines.EnginePool(0)
        await pool.start()
        with pytest.raises(engines.EngineTimeout):
            await pool.run("slow", {}, 0.1)

    asyncio.run(run())


def test_fallback_spec_is_the_same_agent_with_the_smallest_search() -> None:
    from spielwerk.core.agent import AgentSpec
    from spielwerk.web.work import fallback_spec

    def fallback(text: str, game_name: str) -> str:
        return str(fallback_spec(AgentSpec.parse(text), game_name))

    # the same smaller searches as when fallback_spec took and gave text
    assert fallback("knn", "skat") == "knn:worlds=1:time=0.05"
    assert fallback("knn:worlds=8:k=10", "skat") == "knn:worlds=1:k=10:time=0.05"
    assert fallback("mcts:iters=500", "kalah") == "mcts:iters=20:worlds=1:time=0.05"
    assert fallback("perfect:time=5", "kalah") == "perfect:time=0.05"
    assert fallback("random", "kalah") == "random"
    assert fallback("knn:time=0", "skat") == "knn:time=0.05:worlds=1"  # 0: no limit


def test_an_engine_that_fails_is_answered_by_its_own_fallback(
        client: TestClient, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Engines off the clock: the agent with fewer worlds moves, not a random move."""
    import spielwerk.web.work as work
    from spielwerk.web import engines, tasks

    asked: list[str] = []

    def slow_unless_small(**kwargs: Any) -> int:
        asked.append(str(kwargs["agent"]))
        if asked[-1] == "mcts:worlds=2":
            raise engines.EngineTimeout("ran past its limit")
        return int(work.engine_move(**kwargs))

    monkeypatch.setitem(tasks.TASKS, "engine_move", slow_unless_small)
    tid = new_table(client, game="kalah", seat=1, opponents=["mcts:worlds=2"], seed=2, time=0.1)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        for _ in range(10):
            msg = ws.receive_json()
            if msg["type"] == "notice":
                break
    assert msg["type"] == "notice", msg
    assert "its fallback (mcts:worlds=1:iters=20:time=0.05) played" in msg["message"]
    assert asked[:2] == ["mcts:worlds=2", "mcts:worlds=1:iters=20:time=0.05"]
