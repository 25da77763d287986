"""Two people at one table in the browser (issue 44, Playwright driving Debian's chromium as
``test_web_browser.py``): the creator makes a Kalah table with two person seats in the
lobby, a second browser context opens the link the creator copies, both take their seats
and each makes a move; a third watches with the public view (the whole board: Kalah hides
nothing); a wrong link is refused."""

from __future__ import annotations

import json
import urllib.request

import pytest

from test_web_browser import ARGS, CHROMIUM, click_something
from web_helpers import ServerProcess, served

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    yield from served(tmp_path_factory, "web", engines=0)


def test_two_people_take_their_seats_and_move(server: ServerProcess) -> None:
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        first = browser.new_context().new_page()
        first.on("pageerror", lambda e: errors.append(str(e)))
        first.goto(server.base + "/")
        first.wait_for_selector("#game")
        first.select_option("#game", "kalah")
        first.wait_for_selector("#opp-0")
        first.select_option("#opp-0", "person")
        first.click("#create")
        first.wait_for_selector("#felt")
        assert "key=" in first.url and "seat=0" in first.url
        first.wait_for_selector("#invite-1")
        link = first.input_value("#invite-1")
        assert "seat=1" in link and "key=" in link and link.startswith(server.base)
        assert "not joined yet" in first.inner_text("#seats")

        second = browser.new_context().new_page()  # another person's browser
        second.on("pageerror", lambda e: errors.append(str(e)))
        second.goto(link)
        second.wait_for_selector("#felt")
        first.wait_for_selector("#invite-1", state="detached")  # the other has joined
        assert "not joined" not in first.inner_text("#seats")
        moved = {0: 0, 1: 0}
        pages = {0: first, 1: second}
        for _ in range(20):
            if min(moved.values()) >= 1:
                break
            for seat, page in pages.items():
                page.wait_for_selector('#felt[data-turn]')
                if page.get_attribute("#felt", "data-turn") == "me":
                    click_something(page)
                    moved[seat] += 1
                    break
            else:
                first.wait_for_timeout(200)
        assert min(moved.values()) >= 1, moved
        ply = first.get_attribute("#felt", "data-ply")  # the same game at both seats
        second.wait_for_function("p => document.querySelector('#felt').dataset.ply === p",
                                 arg=ply)

        watcher = browser.new_context().new_page()  # a spectator: the public view
        watcher.on("pageerror", lambda e: errors.append(str(e)))
        watcher.goto(first.input_value("#watchlink"))
        watcher.wait_for_selector("#players")
        assert "watching" in watcher.inner_text("#main")
        assert watcher.locator("#hand, .pit.legal, #controls button").count() == 0
        # Kalah hides nothing: the spectator's page draws the whole board, nothing to click
        watcher.wait_for_selector("#felt #kalah .pit")
        assert watcher.locator("#kalah .pit").count() == 12
        assert watcher.locator("#kalah .store").count() == 2
        assert watcher.locator("#felt button").count() == 0
        board = "() => [...document.querySelectorAll('#kalah .pit, #kalah .store')]" \
            ".map(e => e.id + '=' + e.textContent).sort().join()"
        first.wait_for_function("b => !document.querySelector('#kalah .drop') && "
                                f"({board})() === b", arg=watcher.evaluate(board))
        assert "South" in watcher.inner_text("#felt") and "your" not in watcher.inner_text("#felt")

        stranger = browser.new_context().new_page()
        stranger.goto(link.replace("key=", "key=x"))
        stranger.wait_for_selector("#refused")
        browser.close()
    assert not errors, errors


def test_a_spectator_sees_the_skat_table_without_a_hand(server: ServerProcess) -> None:
    """The game's page code draws a spectator's table from the public view: the bidding
    and the seats, no hand and no move."""
    req = urllib.request.Request(
        server.base + "/api/tables", headers={"content-type": "application/json"},
        data=json.dumps({"game": "skat", "seats": ["person", "person", "random"],
                         "time": 0.2, "seed": 2}).encode())
    with urllib.request.urlopen(req, timeout=30) as r:
        made = json.loads(r.read())
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.base + made["spectate"])
        page.wait_for_selector("#felt #phase")
        assert page.locator("#hand .card").count() == 0
        assert page.locator("#controls button").count() == 0
        assert page.locator(".seatbox").count() == 3
        browser.close()
    assert not errors, errors


def test_the_lobby_names_the_seats(server: ServerProcess) -> None:
    """The person's seat is chosen by name (Kalah's South or North, Skat's forehand ...),
    numbered where the seat count is a field (Durak's players), and the table seats them
    there."""
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.base + "/")
        page.wait_for_selector("#game")
        page.select_option("#game", "skat")
        page.wait_for_selector("#opt-seat")
        assert page.locator("#opt-seat option").all_inner_texts() == [
            "seat 0: forehand", "seat 1: middlehand", "seat 2: rearhand"]
        page.select_option("#game", "durak")
        page.wait_for_selector("#opt-players")
        page.fill("#opt-players", "4")
        page.dispatch_event("#opt-players", "change")
        assert page.locator("#opt-seat option").count() == 4
        assert page.locator("select.opp").count() == 3
        page.select_option("#game", "kalah")
        page.wait_for_selector("#opt-seat")
        assert page.locator("#opt-seat option").all_inner_texts() == [
            "South (moves first)", "North"]
        page.select_option("#opt-seat", "1")
        page.click("#create")
        page.wait_for_selector("#felt")
        assert "seat=1" in page.url
        assert "you (North)" in page.inner_text("#felt")
        browser.close()
    assert not errors
