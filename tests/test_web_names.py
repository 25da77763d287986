"""Issue 44: the players are named as the table names them, not by seat number (finished
games' summaries, the ISS record, the review's steps), and the lobby's "your tables" can be
told apart (created, who plays, games finished, how it stands)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from spielwerk.games.skat import rules as R
from test_web_table import all_pass, new_table, pick_up_and_play, play


def test_a_declared_game_is_listed_with_its_declarer(app: Any, client: TestClient) -> None:
    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=4,
                      names=["Anna", "Bert", None])
    play(app, table, pick_up_and_play)
    res = table.state.result
    assert res is not None and not res.passed
    summary = client.get("/api/games/finished").json()["games"][0]["summary"]
    assert summary.startswith(f"{table.names[res.declarer]}: "), summary
    assert summary.endswith(res.describe())


def test_a_ramsch_is_listed_with_the_players_names(app: Any, client: TestClient) -> None:
    table = new_table(app, game="skat", params={"ramsch": True}, opponents=["rule", "rule"],
                      seed=4, names=["Anna", None, None])
    play(app, table, all_pass)
    summary = client.get("/api/games/finished").json()["games"][0]["summary"]
    assert "seat" not in summary, summary
    assert "Anna" in summary and "rule (1)" in summary and "rule (2)" in summary, summary


def test_the_iss_record_names_players_readably(app: Any, client: TestClient) -> None:
    from spielwerk.games.skat import iss

    table = new_table(app, game="skat", opponents=["knn", "rule"], seed=4,
                      names=["Anna Maria", None, None])
    play(app, table, pick_up_and_play)
    gid = table.message()["table"]["game_id"]
    text = client.get(f"/api/games/{gid}/record.sgf").text
    players = {text.split(f"P{p}[")[1].split("]")[0] for p in range(3)}
    assert players == {"Anna-Maria", "knn-1", "rule-2"}, text
    cmp = iss.compare(iss.parse_record(text.strip()))
    assert cmp.agree, cmp.mismatches  # the record still replays


def test_review_steps_say_what_the_table_said(app: Any, client: TestClient) -> None:
    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=4)
    play(app, table, pick_up_and_play)
    gid = table.message()["table"]["game_id"]
    review = client.get(f"/api/games/{gid}/review").json()
    labels = [s["label"] for s in review["steps"] if s["label"]]
    # the table's buttons: "hold (yes)", "pass", "pick up the skat" (not ISS's y, p, s)
    assert "pass" in labels and "pick up the skat" in labels, labels
    assert not {"y", "p", "s"} & set(labels), labels
    assert review["players"] == table.names
    assert review["heading"] == "Skat" and review["spec"].startswith("skat(")


def test_your_tables_can_be_told_apart(app: Any, client: TestClient) -> None:
    first = new_table(app, game="skat", opponents=["rule", "rule"], seed=4)
    time.sleep(0.01)
    second = new_table(app, game="skat", opponents=["rule", "rule"], seed=5,
                       names=[None, "Bert", None], seat=2)
    play(app, first, pick_up_and_play)  # one deal over
    first.next_game()
    app.state.server.after_action(first)
    play(app, second, pick_up_and_play, stop=lambda st: st.phase == R.PLAY)
    rows = {r["id"]: r for r in client.get("/api/tables").json()["tables"]}
    a, b = rows[first.id], rows[second.id]
    assert a["names"] == ["you", "rule (1)", "rule (2)"] and a["seat"] == 0
    assert b["names"] == ["rule (0)", "Bert", "you"] and b["seat"] == 2
    assert a["finished"] == 1 and b["finished"] == 0
    assert a["created"] < b["created"]
    cur = second.state.current_player
    assert b["status"] == ("your turn" if cur == 2 else f"{second.names[cur]} to move")
    assert a["status"] in ("your turn", f"{first.names[first.state.current_player]} to move")
    assert all("history" not in r and "config" not in r for r in rows.values())


@pytest.mark.parametrize("game,params,heading", [
    ("skat", {}, "Skat"),
    ("skat", {"ramsch": True}, "Skat: Ramsch when all pass"),
    ("kalah", {"pits": 4, "seeds": 3, "empty_capture": True},
     "Kalah: 4 pits, 3 seeds, empty capture"),
    ("durak", {"preset": "perevodnoy", "players": 3},
     "Durak: perevodnoy (transfers), 3 players, 36 cards"),
])
def test_a_table_names_its_game_in_words(client: TestClient, game: str, params: dict[str, Any],
                                         heading: str) -> None:
    """The header, "your tables" and the review say the game in words; the spec stays in
    the view (its exact name, the header's tooltip)."""
    r = client.post("/api/tables", json={"game": game, "params": params,
                                         "opponents": ["random"] * (2 if game == "skat" else (
                                             params.get("players", 2) - 1)), "seed": 1})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    view = client.get(f"/api/tables/{tid}").json()["view"]
    assert view["heading"] == heading and view["spec"].startswith(game + "(")
    row = next(r for r in client.get("/api/tables").json()["tables"] if r["id"] == tid)
    assert row["heading"] == heading
