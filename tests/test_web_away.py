"""Someone leaves a table of several people (issue 44): the others see the seat away;
after the table's ``away_s`` the stand-in engine plays it, named so, until the person
comes back with their link and decides again from the seat's next decision; nothing is
played twice or lost, also across a restart of the server."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from spielwerk.core.registry import load_game
from spielwerk.web.app import create_app

SEATS = ["person", "person", "random"]
STOOD = "person (1) (random playing)"


def create(client: TestClient, **body: Any) -> tuple[str, dict[int, str]]:
    r = client.post("/api/tables", json={"game": "skat", "seats": SEATS, "time": 0.1,
                                         "seed": 11, "stand_in": "random", **body})
    assert r.status_code == 200, r.text
    made = r.json()
    return made["id"], {int(s): link.split("key=")[1] for s, link in made["links"].items()}


def choose(legal: list[dict[str, Any]]) -> int:
    for kind in ("card", "bid"):
        for a in legal:
            if a["kind"] == kind:
                return int(a["id"])
    rest = [a for a in legal if a["kind"] not in ("claim", "resign")] or legal
    return int(rest[0]["id"])


class Seats:
    """The two people's websockets of a table, their moves and what seat 0 saw."""

    def __init__(self, client: TestClient, tid: str, keys: dict[int, str]) -> None:
        self.client, self.tid, self.keys = client, tid, keys
        self.socks: dict[int, Any] = {}
        self.stack = contextlib.ExitStack()
        self.acts = {0: 0, 1: 0}
        self.seen: list[dict[str, Any]] = []  # every message seat 0's browser got

    def join(self, s: int) -> None:
        self.socks[s] = self.stack.enter_context(
            self.client.websocket_connect(f"/ws/{self.tid}?seat={s}&key={self.keys[s]}"))
        self.drain(s)

    def both_play_then_one_leaves(self) -> None:
        """Both people join, person (1) moves once, then leaves with seat 0 to move."""
        self.join(0)
        self.join(1)
        self.play(lambda m: self.acts[1] >= 1 and to_move(0)(m))
        self.leave(1)

    def leave(self, s: int) -> None:
        self.drain(0)
        self.socks.pop(s).close()

    def drain(self, s: int) -> list[dict[str, Any]]:
        ws = self.socks[s]
        ws.send_json({"type": "ping"})
        out = []
        while (msg := ws.receive_json())["type"] != "pong":
            out.append(msg)
        assert not [m for m in out if m["type"] == "error"], out
        if s == 0:
            self.seen += out
        return out

    def get(self, s: int = 0) -> dict[str, Any]:
        r = self.client.get(f"/api/tables/{self.tid}?seat={s}&key={self.keys[s]}")
        return dict(r.json())

    def play(self, until: Callable[[dict[str, Any]], bool], seats: tuple[int, ...] = (0, 1),
             limit_s: float = 60.0) -> dict[str, Any]:
        """The people of ``seats`` (connected) move on their turns until ``until(msg)`` of
        seat 0's message holds."""
        deadline = time.time() + limit_s
        while time.time() < deadline:
            msg = self.get()
            if until(msg):
                self.drain(0)
                return msg
            v, acted = msg["view"], False
            for s in seats:
                if s in self.socks and v["to_move"] == s and msg["thinking"] is None:
                    legal = self.get(s)["view"]["legal"]
                    self.socks[s].send_json({"type": "act", "action": choose(legal),
                                             "ply": v["ply"]})
                    self.acts[s] += 1
                    self.drain(s)
                    acted = True
            if not acted:
                time.sleep(0.02)
            if 0 in self.socks:
                self.drain(0)
        raise AssertionError(f"not reached in {limit_s} s: {self.get()['table']}")

    def moves_of(self, seat: int, after_ply: int = -1) -> dict[int, dict[str, Any]]:
        """The moves of ``seat`` seat 0's browser saw, by the ply they led to."""
        return {m["view"]["ply"]: m for m in self.seen if m["type"] == "view" and m["last"]
                and m["last"]["seat"] == seat and m["view"]["ply"] > after_ply}


def to_move(s: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["view"]["to_move"] == s and m["thinking"] is None


def over(m: dict[str, Any]) -> bool:
    return bool(m["view"]["over"])


def player_moves(record: dict[str, Any]) -> int:
    state = load_game(record["game"]).new_initial_state()
    n = 0
    for a in record["history"]:
        n += state.current_player >= 0
        state.apply(a)
    return n


def stored_config(db: Path, tid: str) -> dict[str, Any]:
    row = sqlite3.connect(db).execute("SELECT config FROM tables WHERE id=?", (tid,)).fetchone()
    return dict(json.loads(row[0]))


def test_an_away_person_is_played_for_and_gets_the_seat_back(tmp_path: Path) -> None:
    db = tmp_path / "away.sqlite3"
    with TestClient(create_app(db, workers=0)) as client:
        tid, keys = create(client, away_s=0.2)
        seats = Seats(client, tid, keys)
        with seats.stack:
            seats.both_play_then_one_leaves()
            seen_away = seats.play(lambda m: m["table"]["away"] == [1], seats=())
            assert seen_away["table"]["names"][1] == "person (1)"  # not yet: away_s
            deadline = time.time() + 5
            while not [m for m in seats.drain(0) if m["type"] == "view"
                       and m["table"]["away"] == [1]]:
                assert time.time() < deadline, "seat 0 was not told that seat 1 is away"
            left_at = seats.get()["view"]["ply"]
            seats.play(lambda m: len(seats.moves_of(1, left_at)) >= 2 and to_move(0)(m),
                       seats=(0,))
            stood = seats.moves_of(1, left_at)
            assert all(m["table"]["names"][1] == STOOD and m["table"]["stand_ins"] ==
                       {"1": "random"} and m["table"]["away"] == [1] for m in stood.values())
            assert stored_config(db, tid)["standing_in"] == [1]
            lobby = [e for e in client.get("/api/tables").json()["tables"] if e["id"] == tid]
            assert lobby[0]["names"][1] == STOOD and lobby[0]["joined"] == [0]
            seats.join(1)  # back with the seat's link, while seat 0 is to move
            back = seats.get(1)
            back_at = back["view"]["ply"]
            assert back["table"]["names"][1] == "person (1)" and back["table"]["away"] == []
            assert back["table"]["stand_ins"] == {}
            acts_back = seats.acts[1]
            at_turn = seats.play(to_move(1), seats=(0,))
            time.sleep(0.6)  # the seat's next decision waits for its person
            still = seats.get()
            assert still["view"]["ply"] == at_turn["view"]["ply"]
            assert still["view"]["to_move"] == 1 and still["thinking"] is None
            final = seats.play(over)
        engine_moves = client.get("/api/stats").json()["engine_moves"]
        played = seats.moves_of(1, back_at)
        assert len(played) == seats.acts[1] - acts_back  # after the hand-back: only theirs
        record = client.get(f"/api/games/{final['table']['game_id']}/record.json").json()
        assert len(record["history"]) == final["view"]["ply"]
        assert player_moves(record) == seats.acts[0] + seats.acts[1] + engine_moves
        finished = client.get("/api/games/finished").json()
        entry = [g for g in finished["games"] if g["id"] == final["table"]["game_id"]]
        assert entry and entry[0]["players"][1] == STOOD  # the stand-in played in this deal


def test_away_never_lets_no_engine_take_the_seat(tmp_path: Path) -> None:
    db = tmp_path / "never.sqlite3"
    with TestClient(create_app(db, workers=0)) as client:
        tid, keys = create(client, away_s="never")
        seats = Seats(client, tid, keys)
        with seats.stack:
            seats.both_play_then_one_leaves()
            waiting = seats.play(to_move(1), seats=(0,))
            time.sleep(0.6)
            still = seats.get()
            assert still["view"]["ply"] == waiting["view"]["ply"]
            assert still["table"]["away"] == [1] and still["table"]["stand_ins"] == {}
            assert still["table"]["names"][1] == "person (1)" and still["table"]["away_s"] is None
            assert stored_config(db, tid)["away_s"] is None
            assert "standing_in" not in stored_config(db, tid)
            seats.join(1)
            seats.play(lambda m: m["view"]["ply"] > waiting["view"]["ply"])


def test_a_restart_keeps_the_stand_in_and_the_person_can_come_back(tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    with TestClient(create_app(db, workers=0)) as client:
        tid, keys = create(client, away_s=0.2)
        seats = Seats(client, tid, keys)
        with seats.stack:
            seats.both_play_then_one_leaves()
            left_at = seats.get()["view"]["ply"]
            seats.play(lambda m: len(seats.moves_of(1, left_at)) >= 1 and to_move(0)(m),
                       seats=(0,))
        stopped_at = seats.get()["view"]["ply"]
    assert stored_config(db, tid)["standing_in"] == [1]
    with TestClient(create_app(db, workers=0)) as client:
        seats = Seats(client, tid, keys)
        with seats.stack:
            seats.join(0)
            first = seats.get()
            assert first["view"]["ply"] == stopped_at and first["table"]["names"][1] == STOOD
            assert first["table"]["away"] == [1]
            seats.play(lambda m: len(seats.moves_of(1, stopped_at)) >= 1 and to_move(0)(m),
                       seats=(0,))
            seats.join(1)
            assert seats.get(1)["table"]["stand_ins"] == {}
            back_at = seats.get()["view"]["ply"]
            final = seats.play(over)
            assert len(seats.moves_of(1, back_at)) == seats.acts[1]
        record = client.get(f"/api/games/{final['table']['game_id']}/record.json").json()
        assert len(record["history"]) == final["view"]["ply"]
    assert stored_config(db, tid)["standing_in"] == []


def test_away_and_stand_in_are_checked(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "c.sqlite3", workers=0)) as client:
        for body, said in (({"away_s": -1}, "away_s"), ({"away_s": "soon"}, "away_s"),
                           ({"stand_in": "nobody"}, "stand-in")):
            r = client.post("/api/tables", json={"game": "skat", "seats": SEATS, **body})
            assert r.status_code == 400 and said in r.json()["error"], r.text
        tid, _ = create(client, stand_in=None)
        config = stored_config(tmp_path / "c.sqlite3", tid)
        assert config["away_s"] == 60.0 and config["stand_in"]
