"""A person's record (issue 44 item 5): their finished games over time from the SQLite
store, the list total per day of play, won and lost by game type as declarer, the running
total; ``/api/people`` and ``/api/record``; a store of schema 1 gains the people's seats."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from spielwerk.core.agent import make_agent
from spielwerk.core.game import CHANCE, sample_chance
from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.app import create_app
from spielwerk.web.person_record import people, person_of, person_record
from spielwerk.web.store import Store
from test_web_store import SCHEMA_1
from web_helpers import rule_deal

NOON = time.mktime((2026, 3, 2, 12, 0, 0, 0, 0, -1))  # local noon: days are local days
DAY = 86400.0


def declared_deal(seed: int) -> Any:
    """The first deal from ``seed`` on that ``rule`` bots declare (not passed in)."""
    for s in range(seed, seed + 50):
        st = rule_deal(s)
        if st.result is not None and not st.result.passed:
            return st
    raise AssertionError("no declared deal")


def sf_by_hand(st: Any, seat: int) -> int:
    """Seeger-Fabian points of ``seat`` from the deal's value and outcome (3 players):
    the declarer +value+50 or -2 value-50, each defender +40 when the declarer lost."""
    res = st.result
    if res.passed:
        return 0
    if seat == res.declarer:
        return res.value + 50 if res.won else -2 * res.value - 50
    return 0 if res.won else 40


def test_a_skat_deal_in_a_record_has_the_seats_list_points_and_declared_type() -> None:
    seen = set()
    for seed in range(40):
        st = rule_deal(1000 + seed)
        face = table_face(st.game)
        for seat in range(3):
            row = face.record_row(st, seat)
            if st.ramsch_result is not None:
                assert row["declared"] is None
                assert row["result"] == ("lost" if seat in st.ramsch_result.losers else "won")
                continue
            assert row["score"] == sf_by_hand(st, seat)
            res = st.result
            if res.passed:
                assert row == {"result": "drawn", "score": 0, "declared": None}
                continue
            mine = seat == res.declarer
            assert row["result"] == ("won" if res.won == mine else "lost")
            if mine:
                c = res.contract
                words = row["declared"].split()
                assert words[0] == ("null" if c.game == 5 else "grand" if c.game == 4
                                    else "suit")
                assert ("hand" in words) == (c.hand and not (c.ouvert and c.game != 5))
                assert ("ouvert" in words) == c.ouvert
                seen.add(row["declared"])
            else:
                assert row["declared"] is None
    assert {"suit", "grand"} & seen  # the deals declared something


def finished_kalah(seed: int) -> Any:
    game = load_game("kalah(pits=3,seeds=2)")
    st: Any = game.new_initial_state()
    bots = [make_agent("random", game, seed=seed + s) for s in range(2)]
    while not st.is_terminal():
        st.apply(bots[st.current_player].act(st.info_state(st.current_player)))
    return st


def test_a_game_without_a_list_counts_won_lost_drawn() -> None:
    results = set()
    for seed in range(30):
        st = finished_kalah(seed)
        r = st.returns()
        for seat in range(2):
            row = table_face(st.game).record_row(st, seat)
            want = "drawn" if r[0] == r[1] else "won" if r[seat] > r[1 - seat] else "lost"
            assert row["result"] == want
            assert row["score"] == {"won": 1, "lost": -1, "drawn": 0}[want]
            results.add(want)
    assert {"won", "lost"} <= results


def store_deal(store: Store, st: Any, names: list[str], persons: list[int],
               finished: float) -> int:
    return store.add_game(st.game.spec(), st.history, persons[0], names, "x",
                          table_id="t", persons=persons, finished=finished)


def test_the_record_adds_up_per_day_per_type_and_running(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite3")
    deals = [declared_deal(2000 + 60 * i) for i in range(5)]
    # Anna sits at seat 0 at a table with Ben (seat 1); on day 2 the stand-in finished one
    plan = [(deals[0], ["Anna", "Ben", "rule (2)"], NOON),
            (deals[1], ["Anna", "Ben", "rule (2)"], NOON + 60),
            (deals[2], ["Anna (knn playing)", "Ben", "rule (2)"], NOON + DAY),
            (deals[3], ["Anna", "Ben", "rule (2)"], NOON + DAY + 60)]
    for st, names, t in plan:
        store_deal(store, st, names, [0, 1], t)
    # a game where "Anna" is an engine's name is not hers; Ben alone at seat 2 is his
    store.add_game(deals[4].game.spec(), deals[4].history, 2, ["Anna", "x", "Ben"], "x",
                   persons=[2], finished=NOON + 2 * DAY)
    rec = person_record(store, "Anna")
    (skat,) = rec["games"]
    assert skat["game"] == "skat" and skat["score_name"] == "Seeger-Fabian list"
    scores = [sf_by_hand(st, 0) for st, _, _ in plan]
    assert skat["played"] == 4 and skat["stand_in"] == 1
    assert skat["total"] == sum(scores)
    assert [r[1] for r in skat["running"]] == [sum(scores[:i + 1]) for i in range(4)]
    assert [r[0] for r in skat["running"]] == [t for _, _, t in plan]
    days = skat["days"]
    assert [d["day"] for d in days] == ["2026-03-02", "2026-03-03"]
    assert [d["score"] for d in days] == [scores[0] + scores[1], scores[2] + scores[3]]
    assert [d["games"] for d in days] == [2, 2]
    won = [st.result.won == (st.result.declarer == 0) for st, _, _ in plan]
    assert skat["won"] == sum(won) and skat["lost"] == 4 - sum(won)
    assert sum(d["won"] for d in days) == sum(won)
    declared: dict[str, list[int]] = {}
    for st, _, _ in plan:
        if st.result.declarer == 0:
            row = table_face(st.game).record_row(st, 0)
            declared.setdefault(row["declared"], [0, 0])[0 if st.result.won else 1] += 1
    assert {t["type"]: [t["won"], t["lost"]] for t in skat["declared"]} == declared
    ben = person_record(store, "Ben")["games"][0]
    assert ben["played"] == 5 and ben["stand_in"] == 0
    assert ben["total"] == sum(sf_by_hand(st, 1) for st, _, _ in plan) + sf_by_hand(deals[4], 2)
    assert person_record(store, "nobody")["games"] == []
    assert [(p["name"], p["games"]) for p in people(store)] == [("Ben", 5), ("Anna", 4)]
    store.close()


def test_a_damaged_game_is_counted_as_unreadable_not_raised(tmp_path: Path) -> None:
    store = Store(tmp_path / "d.sqlite3")
    st = declared_deal(3000)
    store_deal(store, st, ["Anna", "b", "c"], [0], NOON)
    store.add_game("skat", [0, 1, 2], 0, ["Anna", "b", "c"], "x", persons=[0], finished=NOON)
    rec = person_record(store, "Anna")
    assert rec["unreadable"] == 1 and rec["games"][0]["played"] == 1
    store.close()


def test_a_store_of_schema_1_gains_the_people_seats_and_keeps_its_games(
        tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    st = declared_deal(4000)
    con = sqlite3.connect(db)
    con.executescript(SCHEMA_1 + "PRAGMA user_version=1;")
    con.execute("INSERT INTO games (spec, history, seat, players, finished) VALUES "
                "(?, ?, 1, ?, ?)", (st.game.spec(), json.dumps(st.history),
                                   json.dumps(["rule (0)", "you", "rule (2)"]), NOON))
    con.commit()
    con.close()
    store = Store(db)
    # the single person of a table before schema 2 sat at the stored seat
    assert store.people_seats()[0]["seats"] == {1: "you"}
    assert person_record(store, "you")["games"][0]["total"] == sf_by_hand(st, 1)
    store.close()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 2
    con.close()


def test_person_of_reads_the_stand_in_note() -> None:
    assert person_of("Anna (knn playing)") == ("Anna", True)
    assert person_of("person (1)") == ("person (1)", False)
    assert person_of("Anna") == ("Anna", False)


def play_through(ws: Any) -> dict[str, Any]:
    """Play the person's seat with its first legal move until the deal is over."""
    while True:
        msg = ws.receive_json()
        if msg["type"] != "view":
            continue
        v = msg["view"]
        if v["over"]:
            return dict(msg)
        if v["to_move"] == v["seat"] and msg["thinking"] is None and v["legal"]:
            ws.send_json({"type": "act", "action": v["legal"][0]["id"], "ply": v["ply"]})


def test_a_table_played_through_the_server_shows_in_the_record(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "s.sqlite3", workers=0)) as client:
        r = client.post("/api/tables", json={
            "game": "skat", "seats": ["random", "person", "random"], "seed": 3,
            "time": 0.1, "names": [None, "Clara", None]})
        assert r.status_code == 200, r.text
        link = r.json()["links"]["1"]
        with client.websocket_connect("/ws/" + link.split("#table=")[1].replace(
                "&", "?", 1)) as ws:
            end = play_through(ws)
        assert client.get("/api/people").json()["people"][0]["name"] == "Clara"
        rec = client.get("/api/record", params={"name": "Clara"}).json()
        (skat,) = rec["games"]
        assert skat["played"] == 1
        assert skat["total"] == end["table"]["totals"][1]
        assert client.get("/api/record", params={"name": ""}).status_code == 400
        assert client.get("/api/record", params={"name": "x" * 101}).status_code == 400
        assert client.get("/api/record", params={"name": "Nobody"}).json()["games"] == []


@pytest.mark.parametrize("spec", ["durak", "kalah(pits=3,seeds=2)"])
def test_every_table_game_gives_a_record_row(spec: str) -> None:
    game = load_game(spec)
    st: Any = game.new_initial_state()
    rng = __import__("numpy").random.default_rng(1)
    bots = [make_agent("random", game, seed=s) for s in range(game.num_players)]
    while not st.is_terminal():
        if st.current_player == CHANCE:
            st.apply(sample_chance(st, rng))
            continue
        st.apply(bots[st.current_player].act(st.info_state(st.current_player)))
    rows = [table_face(game).record_row(st, s) for s in range(game.num_players)]
    assert all(r["result"] in ("won", "lost", "drawn") for r in rows)
    assert any(r["result"] != "drawn" for r in rows) or len({*st.returns()}) == 1
