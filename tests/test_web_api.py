"""Web table API and websocket protocol: tables, moves, bad input, records, review, engines."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from spielwerk.core.agent import AgentSpec
from spielwerk.core.registry import load_game
from spielwerk.web.app import create_app
from spielwerk.web.engines import EngineCancelled, EnginePool, EngineTimeout
from spielwerk.web.store import Store, StoreError


def new_table(client: TestClient, **body: Any) -> str:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return str(r.json()["id"])


def next_view(ws: Any) -> dict[str, Any]:
    while True:
        msg = ws.receive_json()
        if msg["type"] == "view":
            return msg  # type: ignore[no-any-return]
        if msg["type"] == "error":
            raise AssertionError(msg["message"])


def my_turn(ws: Any) -> dict[str, Any]:
    while True:
        msg = next_view(ws)
        v = msg["view"]
        if v["over"] or (v["to_move"] == v["seat"] and msg["thinking"] is None):
            return msg


def expect_error(ws: Any, text: str) -> str:
    msg = ws.receive_json()
    assert msg["type"] == "error", msg
    assert text in msg["message"], msg["message"]
    assert "\n" not in msg["message"]
    return str(msg["message"])


def test_games_lists_registered_agents(client: TestClient) -> None:
    from spielwerk.core.agent import list_agents

    games = client.get("/api/games").json()["games"]
    assert set(games) == {"skat", "durak", "kalah"}
    for name, info in games.items():
        assert {a["name"] for a in info["agents"]} == {e.name for e in list_agents(name)}
        assert len(info["seat_labels"]) == info["players"]  # the lobby's seat choice
    assert games["kalah"]["seat_labels"] == ["South (moves first)", "North"]
    assert client.get("/").status_code == 200
    assert client.get("/static/app.js").status_code == 200


@pytest.mark.parametrize("body, text", [
    ({"game": "chess"}, "unknown game"),
    ({"game": "kalah", "params": {"pits": 0}}, "pits must be at least 1"),
    ({"game": "kalah", "params": {"colour": 1}}, "unknown parameter"),
    ({"game": "kalah", "opponents": ["nobody"]}, "unknown agent"),
    ({"game": "kalah", "opponents": ["random", "random"]}, "needs 1 opponent"),
    ({"game": "skat", "seat": 3}, "seat must be"),
    ({"game": "kalah", "time": 0}, "time per engine move"),
    ({"game": "kalah", "seed": -1}, "seed"),
])
def test_new_table_refuses_bad_requests(client: TestClient, body: dict[str, Any],
                                        text: str) -> None:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400
    assert text in r.json()["error"]


def test_new_table_refuses_malformed_and_oversized(client: TestClient) -> None:
    assert client.post("/api/tables", content=b"{nope").status_code == 400
    assert client.post("/api/tables", content=b"[1]").status_code == 400
    assert client.post("/api/tables", content=b"x" * 10_000).status_code == 413
    assert client.get("/api/tables/doesnotexist").status_code == 404


def test_unknown_table_on_the_websocket(client: TestClient) -> None:
    with client.websocket_connect("/ws/deadbeef") as ws:
        expect_error(ws, "unknown table")


def test_bad_messages_leave_the_table_unchanged_and_others_playing(client: TestClient,
                                                                   app: Any) -> None:
    a = new_table(client, game="kalah", opponents=["random"], seed=1, time=0.5)
    b = new_table(client, game="kalah", opponents=["random"], seed=2, time=0.5)
    server = app.state.server
    with client.websocket_connect(f"/ws/{a}") as wa, client.websocket_connect(f"/ws/{b}") as wb:
        va = my_turn(wa)["view"]
        vb = my_turn(wb)["view"]
        before = list(server.tables[a].history)
        wa.send_text("not json")
        expect_error(wa, "not JSON")
        wa.send_text(json.dumps([1, 2]))
        expect_error(wa, "malformed")
        wa.send_text(json.dumps({"type": "act", "action": 0, "ply": 0, "pad": "x" * 5000}))
        expect_error(wa, "too large")
        wa.send_bytes(b"\x00\x01")
        expect_error(wa, "binary")
        wa.send_text(json.dumps({"type": "dance"}))
        expect_error(wa, "unknown message type")
        wa.send_text(json.dumps({"type": "act", "action": "1", "ply": va["ply"]}))
        expect_error(wa, "integer")
        wa.send_text(json.dumps({"type": "act", "action": 5, "ply": va["ply"] + 3}))
        expect_error(wa, "stale move")
        wa.send_text(json.dumps({"type": "act", "action": 99, "ply": va["ply"]}))
        expect_error(wa, "not a legal move")
        wa.send_text(json.dumps({"type": "next"}))
        expect_error(wa, "still running")
        assert server.tables[a].history == before
        # the other table plays on
        wb.send_text(json.dumps({"type": "act", "action": vb["legal"][0]["id"],
                                 "ply": vb["ply"]}))
        assert next_view(wb)["view"]["ply"] == vb["ply"] + 1
        # a duplicated message is refused, not played twice
        move = {"type": "act", "action": va["legal"][0]["id"], "ply": va["ply"]}
        wa.send_text(json.dumps(move))
        assert next_view(wa)["view"]["ply"] == va["ply"] + 1
        wa.send_text(json.dumps(move))
        while True:
            msg = wa.receive_json()
            if msg["type"] == "error":
                assert "stale move" in msg["message"] or "not your turn" in msg["message"]
                break
        assert server.tables[a].history[: len(before) + 1] == [*before, va["legal"][0]["id"]]


def test_out_of_turn_is_refused(client: TestClient) -> None:
    # seat 1 in Kalah: the engine (South) moves first
    tid = new_table(client, game="kalah", seat=1, opponents=["random"], seed=4, time=0.5)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        first = ws.receive_json()
        assert first["type"] == "view"
        if first["view"]["to_move"] == 0:
            ws.send_text(json.dumps({"type": "act", "action": 0, "ply": 0}))
            while True:
                msg = ws.receive_json()
                if msg["type"] == "error":
                    assert "not your turn" in msg["message"] or "stale" in msg["message"]
                    break


def play_to_end(ws: Any, pick: int = 0) -> dict[str, Any]:
    while True:
        msg = my_turn(ws)
        v = msg["view"]
        if v["over"]:
            return msg
        ws.send_text(json.dumps({"type": "act", "action": v["legal"][pick % len(v["legal"])]["id"],
                                 "ply": v["ply"]}))


def test_kalah_game_record_review_and_analysis(client: TestClient) -> None:
    tid = new_table(client, game="kalah", params={"pits": 3, "seeds": 3},
                    opponents=["alphabeta:depth=2"], seed=5, time=0.5)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        end = play_to_end(ws)
    gid = end["table"]["game_id"]
    rec = client.get(f"/api/games/{gid}/record.json")
    assert rec.status_code == 200
    game = load_game(rec.json()["game"])
    state = game.deserialize_state(rec.text)
    assert state.is_terminal() and state.returns() == end["view"]["returns"]
    review = client.get(f"/api/games/{gid}/review").json()
    assert len(review["steps"]) == len(state.history) + 1
    items = client.post(f"/api/games/{gid}/analysis").json()["items"]
    assert items and all(it["best"] == max(it["values"].values()) for it in items)
    # the values are exact: compare the first position with the solver run directly
    from spielwerk.games.kalah.solver import Solver

    g: Any = game
    s0: Any = g.new_initial_state()
    solver = Solver(3, False, g.end_rule, max_seeds=18, egdb_seeds=0, tt_log2=16)
    assert items[0]["best"] == solver.value(solver.relative(s0.board, 0))
    assert client.get(f"/api/games/{gid}/record.sgf").status_code == 400
    assert client.get("/api/games/999/review").status_code == 404


def test_skat_deal_series_iss_download_replays(client: TestClient) -> None:
    from spielwerk.games.skat import iss

    tid = new_table(client, game="skat", opponents=["random", "random"], seed=8, time=0.5)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        end = play_to_end(ws)
        gid = end["table"]["game_id"]
        assert len(end["table"]["series"]) == 1
        assert end["view"]["reveal"]["skat"]
        ws.send_text(json.dumps({"type": "next"}))
        nxt = next_view(ws)
        assert nxt["table"]["deal_no"] == 1 and not nxt["view"]["over"]
        assert nxt["view"]["dealer"] == 0  # the deal passes to the left
    text = client.get(f"/api/games/{gid}/record.sgf").text
    cmp = iss.compare(iss.parse_record(text.strip()))
    assert cmp.agree, cmp.mismatches
    # upload both formats for review
    up = client.post("/api/games/upload", content=text.encode())
    assert up.status_code == 200
    steps = client.get(f"/api/games/{up.json()['id']}/review").json()["steps"]
    assert steps[-1]["view"]["over"]
    js = client.get(f"/api/games/{gid}/record.json").text
    assert client.post("/api/games/upload", content=js.encode()).status_code == 200


@pytest.mark.parametrize("payload, text", [
    (b"", "empty upload"),
    (b"\xff\xfe", "UTF-8"),
    (b'{"game": "kalah", "history": [0, 0, 0]}', "cannot be replayed"),
    (b'{"game": "skat(players=5)", "history": []}', "players must be 3 or 4"),
    (b'{"game": "skat"}', "not a spielwerk game record"),
    (b"hello", "not an ISS record"),
])
def test_bad_uploads(client: TestClient, payload: bytes, text: str) -> None:
    r = client.post("/api/games/upload", content=payload)
    assert r.status_code == 400
    assert text in r.json()["error"]


def test_skat_double_dummy_review_matches_the_cli(client: TestClient) -> None:
    """The review's verdicts are those of ``skat analyze`` (the same function, run in a
    worker), mapped to the right plies."""
    from spielwerk.games.skat.analysis import analyze_state_history

    tid = new_table(client, game="skat", opponents=["rule", "rule"], seed=21, time=0.5)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        end = play_to_end(ws, pick=0)  # bids 18, picks up, declares: a played game
    gid = end["table"]["game_id"]
    rec = client.get(f"/api/games/{gid}/record.json").json()
    state = load_game(rec["game"]).deserialize_state(json.dumps(rec))
    assert state.contract is not None  # type: ignore[attr-defined]
    r = client.post(f"/api/games/{gid}/analysis")
    items = r.json()["items"]
    assert len(items) >= 3
    direct = analyze_state_history(state)
    assert [i["win_before"] for i in items] == [d.win_before for d in direct]
    assert [i["value_before"] for i in items] == [d.value_before for d in direct]


def test_corrupt_database_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="not a usable spielwerk database"):
        create_app(bad)
    out = subprocess.run([sys.executable, "-m", "spielwerk.cli.main", "serve", "--db", str(bad),
                          "--port", "1"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "not a usable spielwerk database" in out.stderr
    assert "Traceback" not in out.stderr
    assert bad.read_bytes() == b"this is not a database" * 100  # left untouched


def test_damaged_table_row_is_refused_alone(tmp_path: Path) -> None:
    db = tmp_path / "d.sqlite3"
    app = create_app(db, workers=0)
    with TestClient(app) as client:
        good = new_table(client, game="kalah", opponents=["random"], seed=1)
        bad = new_table(client, game="kalah", opponents=["random"], seed=2)
    con = sqlite3.connect(db)
    con.execute("UPDATE tables SET history='[1, 2, oops' WHERE id=?", (bad,))
    con.commit()
    con.close()
    app = create_app(db, workers=0)
    with TestClient(app) as client:
        with client.websocket_connect(f"/ws/{bad}") as ws:
            expect_error(ws, "damaged")
        with client.websocket_connect(f"/ws/{good}") as ws:
            assert next_view(ws)["view"]["game"] == "kalah"


def test_store_round_trip(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    store.save_table("abc", {"x": 1}, [1, 2, 3], 2, [{"deal": 1}])
    assert store.load_table("abc") == {"config": {"x": 1}, "history": [1, 2, 3], "deal_no": 2,
                                       "series": [{"deal": 1}]}
    gid = store.add_game("kalah", [0, 1], 0, ["you", "random"], "draw")
    assert store.get_game(gid)["history"] == [0, 1]  # type: ignore[index]
    assert store.load_table("nope") is None


def test_engine_pool_timeout_and_cancel_stop_the_worker() -> None:
    async def run() -> None:
        pool = EnginePool(1)
        await pool.start()
        try:
            spec = load_game("kalah").spec()
            slow = {"spec": spec, "history": [], "seat": 0,
                    "agent": AgentSpec.parse("mcts:time=30"),
                    "seed": 1, "budget_s": 30.0}
            # warm the worker (imports) so the limits below measure the move, not the start
            quick = {**slow, "agent": AgentSpec("random")}
            fast = await pool.run("engine_move", quick, 120)
            assert 0 <= fast < 6
            t0 = time.perf_counter()
            with pytest.raises(EngineTimeout):
                await pool.run("engine_move", slow, 1.0)
            assert time.perf_counter() - t0 < 10
            cancel = asyncio.Event()
            asyncio.get_running_loop().call_later(0.5, cancel.set)
            t0 = time.perf_counter()
            with pytest.raises(EngineCancelled):
                await pool.run("engine_move", slow, 60, cancel)
            assert time.perf_counter() - t0 < 10
            assert pool.tasks_killed == 2
            assert await pool.run("engine_move", quick, 120) in range(6)
            assert pool.alive == 1
        finally:
            await pool.close()

    asyncio.run(run())


def test_abandoned_table_cancels_engine_work(tmp_path: Path) -> None:
    app = create_app(tmp_path / "a.sqlite3", workers=1, abandon_s=0.3)
    server = app.state.server
    with TestClient(app) as client:
        tid = new_table(client, game="kalah", seat=1, opponents=["mcts:time=30"], seed=3, time=30)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            assert ws.receive_json()["type"] == "view"
            msg = ws.receive_json()
            while msg["type"] == "notice":  # the engines warming up, on a fresh machine
                msg = ws.receive_json()
            assert msg == {"type": "thinking", "seat": 0}
        deadline = time.time() + 20
        while server.stats["cancelled"] == 0 and time.time() < deadline:
            time.sleep(0.1)
        assert server.stats["cancelled"] == 1
        assert server.store.load_table(tid)["history"] == []  # type: ignore[index]
        # rejoin: the table is still there and the engine starts again
        with client.websocket_connect(f"/ws/{tid}") as ws:
            assert ws.receive_json()["view"]["ply"] == 0


def test_durak_review_gives_exact_endgame_values(client: TestClient) -> None:
    from spielwerk.games.durak import kernel as K

    tid = new_table(client, game="durak", params={"deck": 24}, opponents=["greedy"], seed=6,
                    time=0.5)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        end = play_to_end(ws)
    gid = end["table"]["game_id"]
    items = client.post(f"/api/games/{gid}/analysis").json()["items"]
    assert items  # a 24-card game always reaches an empty stock
    rec = client.get(f"/api/games/{gid}/record.json").json()
    state: Any = load_game(rec["game"]).new_initial_state()
    for ply, a in enumerate(rec["history"]):
        if items and items[0]["ply"] == ply:
            break
        state.apply(a)
    assert K.stock_size(state.S) == 0
    _, value = K.solve_best(state.S.copy(), 2_000_000, 20)
    assert items[0]["value"] == value and value in (-1, 0, 1)
    assert all(it["played"] is None or it["played"] <= it["value"] for it in items)


def test_kalah_review_estimates_large_positions_and_solves_small_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Positions with more than ``MAX_SEEDS_IN_PLAY`` seeds in the pits get marked
    depth-limited estimates instead of being skipped; the others stay exact and agree
    with the solver run directly."""
    import numpy as np

    from spielwerk.games.kalah import table as work
    from spielwerk.games.kalah.solver import Solver

    def random_game(spec: str, seed: int) -> list[int]:
        state: Any = load_game(spec).new_initial_state()
        rng = np.random.default_rng(seed)
        history = []
        while not state.is_terminal():
            history.append(int(rng.choice(state.legal_actions())))
            state.apply(history[-1])
        return history

    # the first plies of Kalah(6,4): 48 seeds in the pits, far beyond an exact search
    # within the (shortened) budget, so the values are marked estimates
    monkeypatch.setattr(work, "ESTIMATE_SECONDS", 0.001)
    start = work.review("kalah(pits=6,seeds=4)", random_game("kalah(pits=6,seeds=4)", 3)[:2])
    assert [it["ply"] for it in start] == [0, 1]
    assert not start[0]["exact"] and start[0]["depth"] >= 0
    assert set(start[0]["values"]) == {str(p) for p in range(1, 7)}
    assert all(it["best"] == max(it["values"].values()) for it in start)

    # a whole Kalah(5,3) game with a small exact limit: every position is reviewed, the
    # small ones exactly, in agreement with the solver
    monkeypatch.setattr(work, "MAX_SEEDS_IN_PLAY", 12)
    spec = "kalah(pits=5,seeds=3)"
    history = random_game(spec, 4)
    items = work.review(spec, history)
    assert [it["ply"] for it in items] == list(range(len(history)))
    game: Any = load_game(spec)
    replay: Any = game.new_initial_state()
    solver = Solver(5, False, game.end_rule, max_seeds=30, egdb_seeds=0, tt_log2=16)
    checked = 0
    for it, action in zip(items, history, strict=True):
        board = replay.board
        if int(board.sum()) - int(board[5]) - int(board[11]) <= 12:
            assert it["exact"] and it["depth"] == -1
            diff = int(board[5] - board[11]) * (1 if replay.current_player == 0 else -1)
            rel = solver.relative(board, replay.current_player)
            assert it["best"] == solver.value(rel) + diff
            checked += 1
        replay.apply(action)
    assert checked >= 3
