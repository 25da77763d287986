"""The Skat table as players expect it: Ramsch scored, a finished table keeps its links,
card points that agree with the result, bidding history, tricks, undo of a put card and
the game selector's fields."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from spielwerk.games.skat import rules as R
from spielwerk.web.app import create_app
from spielwerk.web.tables import Table, TableError


def new_table(app: Any, **body: Any) -> Table:
    """A table created through the server and held in memory; its engine seats are moved
    by the test (no driver runs), so every deal is exactly the one the test chooses."""
    server = app.state.server
    created = server.create_table(body)
    table = server.get_table(created.id, keep=True)
    assert table is not None
    return table  # type: ignore[no-any-return]


def play(app: Any, table: Table, choose: Any, stop: Any = None) -> None:
    """Apply ``choose(state, legal)`` for whoever is to move until the game is over (or
    ``stop(state)`` holds), saving after each action as the server does."""
    server = app.state.server
    st: Any = table.state
    while not st.is_terminal() and not (stop is not None and stop(st)):
        table.apply(choose(st, st.legal_actions()))
        server.after_action(table)
        st = table.state


def all_pass(st: Any, legal: list[int]) -> int:
    return R.PASS if R.PASS in legal else legal[0]


def pick_up_and_play(st: Any, legal: list[int]) -> int:
    """The first bidder says 18, everybody else passes; the declarer picks up the skat,
    puts and declares the first choices, cards are the first legal ones."""
    if st.phase == R.BIDDING:
        return R.BID_BASE if st.auction.value == 0 and R.BID_BASE in legal else R.PASS
    return R.PICKUP if R.PICKUP in legal else legal[0]


def test_ramsch_is_scored_listed_and_offers_no_iss_record(app: Any, client: TestClient) -> None:
    table = new_table(app, game="skat", params={"ramsch": True}, opponents=["rule", "rule"],
                      seed=4)
    play(app, table, all_pass)
    msg = table.message()
    view = msg["view"]
    assert view["ramsch"] and view["over"]
    rr = view["ramsch_result"]
    assert rr is not None and rr["losers"], rr
    # the points are the rules' own: the seat that lost has the most card points
    points = {int(s): p for s, p in rr["points"].items()}
    assert sum(points.values()) == 120
    assert all(points[s] == max(points.values()) for s in rr["losers"])
    assert rr["returns"] == [float(x) for x in table.state.returns()]
    assert "lose" in rr["text"] or "Durchmarsch" in rr["text"]
    # the list has the deal: no declarer, the Ramsch, the returns as list points
    series = msg["table"]["series"]
    assert len(series) == 1 and series[0]["game"] == "Ramsch" and series[0]["declarer"] == -1
    assert series[0]["sf"] == [float(x) for x in table.state.returns()]
    assert msg["table"]["totals"] == series[0]["sf"]
    # the finished game is stored; its JSON record works, no ISS link is offered
    gid = msg["table"]["game_id"]
    assert gid is not None and msg["table"]["iss"] is False
    assert client.get(f"/api/games/{gid}/record.json").status_code == 200
    assert "Ramsch" in client.get("/api/games/finished").json()["games"][0]["summary"]


def test_a_declared_game_offers_its_iss_record(app: Any, client: TestClient) -> None:
    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=4)
    play(app, table, pick_up_and_play)
    msg = table.message()
    assert msg["table"]["iss"] is True
    assert client.get(f"/api/games/{msg['table']['game_id']}/record.sgf").status_code == 200


def test_a_finished_table_reopened_from_the_store_keeps_its_links(app: Any) -> None:
    server = app.state.server
    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=5)
    play(app, table, pick_up_and_play)
    gid = table.message()["table"]["game_id"]
    assert gid is not None
    # as after the abandon delay or a restart: only the store has the table
    server.tables.clear()
    again = server.get_table(table.id, keep=True)
    assert again is not None and again.state.is_terminal()
    assert again.message()["table"]["game_id"] == gid
    # and a new server on the same file too
    app2 = create_app(server.store.path, workers=0)
    third = app2.state.server.get_table(table.id)
    assert third.message()["table"]["game_id"] == gid
    app2.state.server.store.close()


def test_header_card_points_agree_with_the_result(app: Any) -> None:
    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=6)
    play(app, table, pick_up_and_play)
    st: Any = table.state
    res = st.result
    assert res is not None and not res.passed
    for seat in st.sgame.positions:
        from spielwerk.web.views import seat_view

        pts = seat_view(st, seat)["card_points"]
        assert pts["declarer"] == res.declarer_points, (seat, pts, res.describe())
        assert pts["skat"] is not None


def test_declarer_counts_the_put_during_play_defenders_do_not(app: Any) -> None:
    from spielwerk.games.skat import kernel
    from spielwerk.web.views import seat_view

    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=6)
    play(app, table, pick_up_and_play, stop=lambda st: st.phase == R.PLAY)
    st: Any = table.state
    d = st.declarer
    mine = seat_view(st, d)["card_points"]
    assert mine["skat"] == int(kernel.points(st.put))
    assert mine["declarer"] == int(kernel.points(st.put))  # no trick yet
    for s in st.sgame.positions:
        if s != d:
            assert seat_view(st, s)["card_points"]["skat"] is None


def test_bidding_history_names_who_said_what(app: Any) -> None:
    from spielwerk.web.views import seat_view

    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=6)
    play(app, table, pick_up_and_play, stop=lambda st: st.phase != R.BIDDING)
    st: Any = table.state
    bids = seat_view(st, 0)["bidding"]
    log = [a for a, _ in st.log]
    assert len(bids) == len(log)  # the whole log so far is bidding
    says = {R.HOLD: "yes", R.PASS: "pass"}
    for b, a in zip(bids, log, strict=True):
        assert b["say"] == (says[a] if a in says else str(R.BID_VALUES[a - R.BID_BASE]))
    # the first move is middlehand's (it says to forehand), the seat is the rules' own
    assert bids[0]["seat"] == st.sgame.seat_of(1)


def test_player_names_default_custom_and_refused(app: Any, client: TestClient) -> None:
    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=7)
    assert table.message()["table"]["names"] == ["you", "rule (1)", "rule (2)"]
    named = new_table(app, game="skat", opponents=["rule", "rule"], seed=7, seat=1,
                      names=["Anna", "  Bo\x00b  ", None])
    assert named.message()["table"]["names"] == ["Anna", "Bob", "rule (2)"]
    for names, text in ([["a", "b"], "list of 3"], [["x", "x", None], "different name"],
                        ["abc", "list of 3"]):
        r = client.post("/api/tables", json={"game": "skat", "names": names})
        assert r.status_code == 400 and text in r.json()["error"], r.text


def test_finished_games_list_has_date_and_players(app: Any, client: TestClient) -> None:
    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=4,
                      names=["Anna", None, None])
    play(app, table, pick_up_and_play)
    row = client.get("/api/games/finished").json()["games"][0]
    assert row["players"] == ["Anna", "rule (1)", "rule (2)"] and row["seat"] == 0
    assert abs(row["finished"] - __import__("time").time()) < 60


def test_undo_takes_back_a_put_card_until_the_game_is_declared(app: Any) -> None:
    # middlehand (seat 1 with dealer 2) bids 18 and nobody holds: seat 1 declares
    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=6, seat=1)

    def to_my_put(st: Any) -> bool:
        return st.phase == R.PUT and st.current_player == table.seat

    play(app, table, pick_up_and_play, stop=lambda st: to_my_put(st) or st.phase == R.PLAY)
    st: Any = table.state
    assert to_my_put(st)
    assert not table.can_undo()  # nothing put yet
    hand = st.hands[table.seat]
    first = st.legal_actions()[0]
    table.apply(first)
    assert table.can_undo() and table.message()["table"]["can_undo"]
    table.undo()
    assert table.state.hands[table.seat] == hand and table.state.phase == R.PUT
    assert not table.can_undo()
    with pytest.raises(TableError, match="nothing to take back"):
        table.undo()
    # two cards put: both can be taken back, one after the other; declared: no more
    table.apply(table.state.legal_actions()[0])
    table.apply(table.state.legal_actions()[0])
    assert table.state.phase == R.DECLARE and table.can_undo()
    table.undo()
    assert table.state.phase == R.PUT and table.can_undo()
    table.apply(table.state.legal_actions()[-1])
    table.apply(table.state.legal_actions()[0])  # declares
    assert table.state.phase == R.PLAY and not table.can_undo()


def test_undo_over_the_websocket_and_refused_for_others(app: Any, client: TestClient) -> None:
    import json

    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=6)
    with client.websocket_connect(f"/ws/{table.id}") as ws:
        ws.send_text(json.dumps({"type": "undo"}))
        while True:
            msg = ws.receive_json()
            if msg["type"] == "error":
                assert "nothing to take back" in msg["message"]
                break


def test_declarations_carry_the_game_selector_fields(app: Any) -> None:
    from spielwerk.web.views import seat_view

    table = new_table(app, game="skat", opponents=["rule", "rule"], seed=6, seat=1)
    play(app, table, pick_up_and_play, stop=lambda st: st.phase == R.SKAT)
    st: Any = table.state
    assert st.current_player == 1
    decl = [a for a in seat_view(st, 1)["legal"] if a["kind"] == "declare"]
    assert len(decl) == len(R.HAND_DECLARATIONS)  # before picking up: every hand game
    keys = {(a["decl"]["game"], a["decl"]["hand"], a["decl"]["schneider"], a["decl"]["schwarz"],
             a["decl"]["ouvert"]) for a in decl}
    assert len(keys) == len(decl)  # the fields tell every declaration apart
    assert all(a["decl"]["hand"] for a in decl)
    assert ("grand", True, True, True, True) in keys and ("null", True, False, False, True) in keys
