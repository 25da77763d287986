"""The leak test: no message to a seat ever names a card that seat may not know.

Many seeded random Skat and Durak games are played through the websocket
protocol (the person's seat plays random legal moves, sometimes sends illegal
or out-of-turn ones to provoke errors, and asks for hints; the engines play
``random``). Every
message the seat receives is scanned for card names, and each card found must
be one the seat knows at the ply the message describes. What a seat knows is
computed here from the full State's own fields (dealt hand, cards played, the
skat after picking it up, an ouvert or claimed hand, Durak's table, discard
pile, cards seen going into a hand, the trump card), independently of the
``InfoState`` code that builds the views. Kalah has no hidden information.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from spielwerk.core.registry import load_game
from spielwerk.web.app import create_app

CARD_RE = re.compile(r"(?<![A-Za-z0-9])([CDHS][2-9TJQKA])(?![A-Za-z0-9])")


def skat_known(state: Any, seat: int) -> set[int]:
    if state.is_terminal():
        return set(range(32))
    mask = state.dealt[seat]
    for m in state.played:
        mask |= m
    if seat == state.declarer and state.picked_up:
        mask |= state.skat
    mask |= state.revealed
    return {c for c in range(32) if mask >> c & 1}


def durak_known(state: Any, seat: int) -> set[int]:
    from spielwerk.games.durak import kernel as K

    if state.is_terminal():
        return set(range(52))
    S = state.S
    mask = int(S[K.HANDS + seat]) | int(S[K.ATTACK]) | int(S[K.DEFENCE]) | int(S[K.DISCARD])
    for q in range(state.dgame.players):
        mask |= int(S[K.KNOWN + q])
    mask |= 1 << int(S[K.TRUMP_CARD])
    return {c for c in range(52) if mask >> c & 1}


def card_ids(game: str, text: str) -> set[int]:
    if game == "skat":
        from spielwerk.games.skat.cards import string_to_card as parse
    else:
        from spielwerk.games.durak.cards import parse_card as parse
    out = set()
    for tok in CARD_RE.findall(text):
        if game == "skat" and tok[1] not in "789TJQKA":
            continue
        out.add(parse(tok))
    return out


def play_and_check(client: TestClient, server: Any, game: str, params: dict[str, Any],
                   seat: int, seed: int, hints: int = 0) -> int:
    """Play one game, scanning every frame; ask for up to ``hints`` hints on the way (each
    answered before the seat moves on, so it is checked at the ply it was asked for)."""
    players = load_game(game, **params).num_players
    r = client.post("/api/tables", json={"game": game, "params": params, "seat": seat,
                                         "opponents": ["random"] * (players - 1),
                                         "time": 1.0, "seed": seed})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    rng = np.random.default_rng(seed)
    checked = 0
    known_fn = skat_known if game == "skat" else durak_known
    last_view: dict[str, Any] | None = None
    hinted = 0
    hints_asked: list[int] = []
    with client.websocket_connect(f"/ws/{tid}") as ws:
        for _ in range(5000):
            text = ws.receive_text()
            msg = json.loads(text)
            table = server.tables[tid]
            view = msg.get("view") or last_view
            if view is not None:
                # the full state at the ply this message describes (same deal; a hint
                # names the ply it was asked at)
                ply = msg["ply"] if msg["type"] == "hint" else view["ply"]
                state = load_game(view["spec"]).new_initial_state()
                for a in table.state.history[:ply]:
                    state.apply(a)
                known = known_fn(state, seat)
                leaked = card_ids(game, text) - known
                assert not leaked, f"seat {seat} was sent unknown cards {leaked}: {text[:300]}"
                checked += 1
            if msg["type"] == "hint":
                assert msg["ply"] == view["ply"] == hints_asked[-1]
                hinted += 1
            elif msg["type"] != "view" and msg["type"] != "error":
                continue
            elif hinted < len(hints_asked):
                continue  # a hint is on its way: the seat waits for it before it moves
            if msg["type"] == "view":
                last_view = view = msg["view"]
            assert view is not None
            if view["over"]:
                break
            if (msg["type"] == "view" and hinted < hints and view["to_move"] == seat
                    and msg.get("thinking") is None and rng.random() < 0.3):
                ws.send_text(json.dumps({"type": "hint"}))
                hints_asked.append(view["ply"])
                continue
            if view["to_move"] != seat or msg.get("thinking") is not None:
                if msg["type"] == "view" and rng.random() < 0.05:  # out of turn
                    ws.send_text(json.dumps({"type": "act", "action": 0, "ply": view["ply"]}))
                continue
            legal = [a["id"] for a in view["legal"]]
            if msg["type"] == "view" and rng.random() < 0.1:  # an illegal or foreign action
                action = int(rng.integers(0, 130 if game == "skat" else 600))
            else:
                action = int(legal[int(rng.integers(len(legal)))])
            ws.send_text(json.dumps({"type": "act", "action": action, "ply": view["ply"]}))
    assert last_view is not None and last_view["over"]
    assert hinted == len(hints_asked)  # every hint asked was answered (none refused)
    return checked


@pytest.fixture()
def client_server(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    import spielwerk.web.server as web_server

    monkeypatch.setattr(web_server, "HINT_MIN_S", 0.2)  # short card hints: same code, fewer worlds
    app = create_app(tmp_path / "leak.sqlite3", workers=0, abandon_s=30)
    with TestClient(app) as client:
        yield client, app.state.server


def test_no_hidden_skat_card_reaches_a_seat(client_server) -> None:  # type: ignore[no-untyped-def]
    client, server = client_server
    checked = 0
    for i in range(36):
        params = {"ramsch": "true"} if i % 5 == 4 else {}
        checked += play_and_check(client, server, "skat", params, seat=i % 3, seed=1000 + i,
                                  hints=3 if i % 4 == 0 else 0)
    assert checked > 1000
    assert server.stats["hints"] >= 5  # hints (bidding, putting, cards) were checked too


def test_no_hidden_durak_card_reaches_a_seat(client_server) -> None:  # type: ignore[no-untyped-def]
    client, server = client_server
    checked = 0
    configs = [({"players": 2, "deck": 24}, 0), ({"players": 3, "deck": 36}, 1),
               ({"players": 2, "preset": "perevodnoy", "deck": 36}, 1),
               ({"players": 4, "deck": 36}, 3)]
    for i in range(12):
        params, seat = configs[i % len(configs)]
        checked += play_and_check(client, server, "durak", params, seat=seat, seed=2000 + i)
    assert checked > 200


def test_the_checker_sees_a_leak() -> None:
    # the checker itself must be able to fail: another seat's hand is unknown to seat 0
    game = load_game("skat")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        outs = state.chance_outcomes()
        state.apply(outs[int(rng.integers(len(outs)))][0])
    from spielwerk.games.skat.table import cards

    other = json.dumps({"hand": cards(state.hands[1])})
    assert card_ids("skat", other) - skat_known(state, 0)
