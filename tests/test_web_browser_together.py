"""People playing together in the browser (issue 44; Playwright driving Debian's chromium,
one browser context per person, as on different machines): three people play a whole
Skat deal while the server is killed (-9) and restarted in the middle, with a spectator
and a stranger holding a guessed key; two people and an engine play a deal; four people
play Durak; two play Kalah; a person closes the tab mid-deal, the stand-in plays for them
after the table's timeout, and they come back with their link and play on.

Every frame each context received is checked: a seat only ever sees its own cards and
public ones, the spectator only public ones, the stranger nothing at all."""

from __future__ import annotations

import json
import random
import time
import urllib.request
from typing import Any

import pytest

from spielwerk.core.registry import load_game
from test_web_browser import DOCS, SHOTS, click_something
from test_web_leak import card_ids, durak_known, skat_known
from web_helpers import ServerProcess, served

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    yield from served(tmp_path_factory, "together", engines=1)


def create(server: ServerProcess, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(server.base + "/api/tables", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return dict(json.loads(r.read()))


def get(server: ServerProcess, path: str) -> Any:
    with urllib.request.urlopen(server.base + path, timeout=60) as r:
        return json.loads(r.read())


class Person:
    """One person's browser (its own context: no shared storage) and every frame its
    pages received from the server."""

    def __init__(self, browser: Any, link: str, errors: list[str],
                 width: int = 1000) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 800})
        self.link = link
        self.errors = errors
        self.frames: list[str] = []
        self.page: Any = None
        self.open()

    def open(self) -> None:
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda f: self.frames.append(f)))
        self.page.goto(self.link)

    def turn(self) -> str | None:
        return self.page.get_attribute("#felt", "data-turn")  # type: ignore[no-any-return]


def click_any(page: Any, rng: random.Random) -> None:
    """Click one of the legal cards, pits and action buttons, chosen at random, and wait
    for the move to be played."""
    ply = page.get_attribute("#felt", "data-ply")
    options = page.locator("#hand .card.legal, button.pit.legal, #controls button.act")
    options.nth(rng.randrange(options.count())).click()
    page.wait_for_function(
        "ply => { const f = document.querySelector('#felt'); return f && f.dataset.ply !== ply; }",
        arg=ply, timeout=30_000)


def play(people: dict[int, Person], limit: int = 600,
         stop: Any = None, seed: int = 0, first: bool = False) -> int:
    """Whoever's turn it is clicks one of their moves at random (``first``: the first
    legal card, else the first button: the bidding goes on), until every seat's page
    shows the game over (or ``stop(moves)`` holds). Returns the moves made."""
    rng = random.Random(seed)
    moves = 0
    for p in people.values():
        p.page.wait_for_selector("#felt[data-turn]", timeout=60_000)
    deadline = time.time() + 300
    while time.time() < deadline:
        turns = {s: p.turn() for s, p in people.items()}
        if all(t == "over" for t in turns.values()):
            return moves
        if stop is not None and stop(moves):
            return moves
        mine = [s for s, t in turns.items() if t == "me"]
        if mine:
            if first:
                click_something(people[mine[0]].page)
            else:
                click_any(people[mine[0]].page, rng)
            moves += 1
            assert moves < limit
        else:
            time.sleep(0.05)
    raise AssertionError(f"the game did not end: {turns}")


def final_record(server: ServerProcess, frames: list[str]) -> tuple[str, list[int]]:
    """The spec and whole history of the finished game these frames end with."""
    gid = next(m["table"]["game_id"] for m in map(json.loads, reversed(frames))
               if m.get("type") == "view" and m["table"].get("game_id") is not None)
    rec = get(server, f"/api/games/{gid}/record.json")
    return str(rec["game"]), [int(a) for a in rec["history"]]


def public_skat(state: Any) -> set[int]:
    if state.is_terminal():
        return set(range(32))
    mask = state.revealed
    for m in state.played:
        mask |= m
    return {c for c in range(32) if mask >> c & 1}


def public_durak(state: Any) -> set[int]:
    from spielwerk.games.durak import kernel as K

    if state.is_terminal():
        return set(range(52))
    S = state.S
    mask = int(S[K.ATTACK]) | int(S[K.DEFENCE]) | int(S[K.DISCARD]) | 1 << int(
        S[K.TRUMP_CARD])
    for q in range(state.dgame.players):
        mask |= int(S[K.KNOWN + q])
    return {c for c in range(52) if mask >> c & 1}


def check_frames(game: str, spec: str, history: list[int], frames: list[str],
                 seat: int | None) -> int:
    """Every card named in a frame is one ``seat`` (None: a spectator) knows at the ply the
    frame shows; returns the frames checked."""
    known_fn = {"skat": skat_known, "durak": durak_known}[game]
    public_fn = {"skat": public_skat, "durak": public_durak}[game]
    checked = 0
    ply = 0
    for text in frames:
        msg = json.loads(text)
        if msg.get("type") == "view":
            if msg["view"]["spec"] != spec:
                continue  # another deal of the table
            ply = msg["view"]["ply"]
        state = load_game(spec).new_initial_state()
        for a in history[:ply]:
            state.apply(a)
        known = public_fn(state) if seat is None else known_fn(state, seat)
        leaked = card_ids(game, text) - known
        assert not leaked, f"seat {seat} was sent cards {leaked} at ply {ply}: {text[:300]}"
        checked += 1
    return checked


def test_three_people_play_a_skat_deal_through_a_server_kill(server: ServerProcess,
                                                             browser: Any) -> None:
    errors: list[str] = []
    made = create(server, {"game": "skat", "seats": ["person"] * 3, "seed": 11, "time": 0.5,
                           "names": ["Anna", "Ben", "Clara"], "away_s": "never"})
    people = {s: Person(browser, server.base + made["links"][str(s)], errors)
              for s in range(3)}
    watcher = Person(browser, server.base + made["spectate"], errors)
    guessed = made["links"]["1"].split("key=")[0] + "key=" + "0" * 32
    stranger = Person(browser, server.base + guessed, errors)
    stranger.page.wait_for_selector("#refused")
    watcher.page.wait_for_selector("#felt")
    before = play(people, stop=lambda moves: moves >= 4)
    assert before == 4 and people[0].turn() != "over"  # mid-deal: the skat phase at most
    server.kill()  # kill -9 in the middle of the deal
    server.start(timeout=300)
    for p in (*people.values(), watcher):  # each page reconnects by itself
        p.page.wait_for_function(
            "() => document.querySelector('#conn').textContent === 'connected'",
            timeout=60_000)
    after = play(people, stop=lambda moves: moves >= 8, seed=1)
    if SHOTS and people[0].turn() != "over":
        people[0].page.screenshot(path=str(DOCS / "web-people.png"))
    after += play(people, seed=2)
    assert after > 0
    watcher.page.wait_for_selector('#felt[data-turn="over"]', timeout=30_000)
    spec, history = final_record(server, people[0].frames)
    players = get(server, "/api/games/finished")["games"][0]["players"]
    assert players == ["Anna", "Ben", "Clara"]
    for s, p in people.items():
        assert check_frames("skat", spec, history, p.frames, s) > 10
        p.page.wait_for_selector("#result")
    assert check_frames("skat", spec, history, watcher.frames, None) > 10
    assert not stranger.frames or all(
        json.loads(f).get("type") not in ("view", "hint") for f in stranger.frames)
    assert not errors, errors


def test_two_people_and_an_engine_play_a_skat_deal(server: ServerProcess,
                                                   browser: Any) -> None:
    errors: list[str] = []
    made = create(server, {"game": "skat", "seats": ["person", "rule", "person"], "seed": 4,
                           "time": 0.3, "names": ["Anna", None, "Clara"]})
    people = {s: Person(browser, server.base + made["links"][str(s)], errors) for s in (0, 2)}
    assert play(people, first=True) > 10  # the bidding, the skat and the cards
    spec, history = final_record(server, people[0].frames)
    for s, p in people.items():
        check_frames("skat", spec, history, p.frames, s)
    assert not errors, errors


def test_four_people_play_durak(server: ServerProcess, browser: Any) -> None:
    errors: list[str] = []
    made = create(server, {"game": "durak", "params": {"players": 4}, "seed": 5,
                           "seats": ["person"] * 4, "time": 0.3})
    people = {s: Person(browser, server.base + made["links"][str(s)], errors)
              for s in range(4)}
    watcher = Person(browser, server.base + made["spectate"], errors)
    assert play(people, limit=1000) > 20
    spec, history = final_record(server, people[0].frames)
    for s, p in people.items():
        assert check_frames("durak", spec, history, p.frames, s) > 10
    watcher.page.wait_for_selector('#felt[data-turn="over"]', timeout=30_000)
    assert check_frames("durak", spec, history, watcher.frames, None) > 10
    assert not errors, errors


def test_two_people_play_kalah(server: ServerProcess, browser: Any) -> None:
    errors: list[str] = []
    made = create(server, {"game": "kalah", "params": {"pits": 4, "seeds": 3}, "seed": 6,
                           "seats": ["person"] * 2, "time": 0.3})
    people = {s: Person(browser, server.base + made["links"][str(s)], errors)
              for s in range(2)}
    assert play(people) > 4
    spec, history = final_record(server, people[0].frames)
    state = load_game(spec).new_initial_state()
    for a in history:
        state.apply(a)
    assert state.is_terminal()
    assert not errors, errors


def test_a_person_leaves_the_stand_in_plays_and_they_come_back(server: ServerProcess,
                                                               browser: Any) -> None:
    errors: list[str] = []
    made = create(server, {"game": "skat", "seats": ["person", "person", "rule"], "seed": 9,
                           "time": 0.3, "names": ["Anna", "Ben", None], "away_s": 1,
                           "stand_in": "rule"})
    anna, ben = (Person(browser, server.base + made["links"][str(s)], errors) for s in (0, 1))
    play({0: anna, 1: ben}, stop=lambda moves: moves >= 2, first=True)
    ben.page.close()  # Ben closes the tab mid-deal
    left_at = len(anna.frames)
    anna.page.wait_for_function(
        "() => document.querySelector('#seats').innerText.includes('rule playing')",
        timeout=30_000)

    def stood_in(_: int) -> bool:  # a move of Ben's seat since he left, as Anna saw it
        return any(m.get("type") == "view" and (m.get("last") or {}).get("seat") == 1
                   for m in map(json.loads, anna.frames[left_at:]))

    # Anna plays on while the stand-in plays Ben's seat; then Ben comes back
    deadline = time.time() + 60
    while not stood_in(0) and time.time() < deadline:
        play({0: anna}, stop=lambda moves: moves >= 1 or stood_in(0), first=True)
        time.sleep(0.1)
    assert stood_in(0) and anna.turn() != "over"
    ben.open()
    ben.page.wait_for_selector("#felt[data-turn]", timeout=60_000)
    seen_me = False
    deadline = time.time() + 120
    while time.time() < deadline and not (anna.turn() == "over" and ben.turn() == "over"):
        for p in (anna, ben):
            if p.turn() == "me":
                seen_me = seen_me or p is ben
                click_something(p.page)
                break
        else:
            time.sleep(0.05)
    finished = get(server, "/api/games/finished")["games"][0]
    assert finished["players"][1] == "Ben (rule playing)"  # the record says who played
    assert seen_me  # the seat was handed back: Ben decided again at his page
    assert not errors, errors
