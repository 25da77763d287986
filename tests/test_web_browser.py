"""Browser tests: Debian's chromium driven by Playwright plays whole games by clicking.

Skipped (with the reason printed) only when /usr/bin/chromium is missing;
``.ci/run`` installs it. Screenshots of each game go to ``docs/``.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest

from web_helpers import ServerProcess

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
DOCS = Path(__file__).resolve().parent.parent / "docs"
SHOTS = os.environ.get("SPIELWERK_SCREENSHOTS") == "1"  # refresh docs/ screenshots

if not os.path.exists(CHROMIUM):
    print(f"\nweb browser tests skipped: {CHROMIUM} is missing (apt-get install -y chromium)")
    pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    srv = ServerProcess(tmp_path_factory.mktemp("web") / "web.sqlite3", engines=1).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def new_table(server: ServerProcess, body: dict) -> str:
    req = urllib.request.Request(server.base + "/api/tables", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return str(json.loads(r.read())["id"])


def open_page(browser, server: ServerProcess, table_id: str, errors: list[str]):  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": 1100, "height": 820})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.base}/#table={table_id}")
    page.wait_for_selector("#felt")
    return page


def wait_turn(page) -> str:  # type: ignore[no-untyped-def]
    page.wait_for_selector('#felt[data-turn="me"], #felt[data-turn="over"]', timeout=60_000)
    return str(page.get_attribute("#felt", "data-turn"))


def click_something(page) -> None:  # type: ignore[no-untyped-def]
    """Click a legal card / pit if there is one, else the first action button."""
    ply = page.get_attribute("#felt", "data-ply")
    legal = page.locator("#hand .card.legal, button.pit.legal")
    if legal.count():
        legal.first.click()
    else:
        page.locator("#controls button.act").first.click()
    page.wait_for_function(
        "ply => { const f = document.querySelector('#felt'); return f && f.dataset.ply !== ply; }",
        arg=ply, timeout=30_000)


def play_out(page, limit: int = 400) -> int:  # type: ignore[no-untyped-def]
    moves = 0
    while wait_turn(page) == "me":
        click_something(page)
        moves += 1
        assert moves < limit
    page.wait_for_selector("#result")
    return moves


def test_kalah_whole_game_and_illegal_click(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    tid = new_table(server, {"game": "kalah", "params": {"pits": 4, "seeds": 2},
                             "opponents": ["alphabeta:depth=2"], "time": 0.5, "seed": 3})
    page = open_page(browser, server, tid, errors)
    wait_turn(page)
    # keyboard play: "2" selects the second legal pit, Enter plays it
    ply = page.get_attribute("#felt", "data-ply")
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "ply => document.querySelector('#felt').dataset.ply !== ply", arg=ply, timeout=30_000)
    assert "pit 2" in page.inner_text("#last") or page.get_attribute("#felt", "data-ply") != ply
    wait_turn(page)
    # an illegal click: a pit of the opponent's row is not a button; an empty own pit is
    # refused by the server with a visible message once one exists; at the start we click
    # while the engine is to move instead (out of turn) after our first move
    click_something(page)
    empties = None
    for _ in range(50):
        if wait_turn(page) == "over":
            break
        empties = page.locator("button.pit:not(.legal)")
        if empties.count():
            break
        click_something(page)
    if SHOTS:
        page.screenshot(path=str(DOCS / "web-kalah.png"))
    if empties is not None and empties.count() and wait_turn(page) == "me":
        empties.first.click()
        page.wait_for_selector("#msg.error:not([hidden])")
        assert "not a legal move" in page.inner_text("#msg")
    play_out(page)
    text = page.inner_text("#result")
    assert "win" in text or "lose" in text or "draw" in text
    # review with the exact value of every move
    page.click("text=review this game")
    page.wait_for_selector("#analyse")
    page.click("#analyse")
    page.wait_for_function("document.querySelector('#analysis').innerText.includes('analysed')",
                           timeout=60_000)
    page.click("#first")
    page.click("#nextstep")
    assert "exact final margins" in page.inner_text("#note")
    assert not errors


def test_skat_deal_from_bidding_to_score_with_reload(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    tid = new_table(server, {"game": "skat", "opponents": ["random", "random"], "time": 0.5,
                             "seed": 11})
    page = open_page(browser, server, tid, errors)
    assert wait_turn(page) == "me"
    # illegal click: a card during the bidding is refused with a visible message
    page.locator("#hand .card").first.click()
    page.wait_for_selector("#msg.error:not([hidden])")
    assert "not a legal move" in page.inner_text("#msg")
    # bid (first bid or hold button), then play on by clicking
    moves = 0
    reloaded = shot = False
    while wait_turn(page) == "me":
        if not reloaded and page.locator("#phase").inner_text() == "phase: play":
            hand = page.locator("#hand .card").all_inner_texts()
            ply = page.get_attribute("#felt", "data-ply")
            page.reload()
            page.wait_for_selector("#felt")
            wait_turn(page)
            assert page.get_attribute("#felt", "data-ply") == ply
            assert page.locator("#hand .card").all_inner_texts() == hand
            reloaded = True
            continue
        if SHOTS and not shot and page.locator("#trick .card").count() == 2:
            page.screenshot(path=str(DOCS / "web-skat.png"))
            shot = True
        click_something(page)
        moves += 1
        assert moves < 100
    page.wait_for_selector("#result")
    text = page.inner_text("#result")
    assert "passed in" in text or "won" in text or "lost" in text
    if "passed in" not in text:
        assert reloaded and "game value" in text
        assert page.locator("#series").count() == 1  # the Seeger-Fabian list
    if SHOTS:
        page.screenshot(path=str(DOCS / "web-skat-score.png"), full_page=True)
    if "passed in" not in text:  # the double-dummy review in the browser
        page.click("text=review this game")
        page.click("#analyse")
        page.wait_for_function(
            "document.querySelector('#analysis').innerText.includes('under perfect play')",
            timeout=120_000)
        page.click("#first")
        for _ in range(40):
            if "declarer could win" in page.inner_text("#note"):
                break
            page.click("#nextstep")
        assert "declarer could win before" in page.inner_text("#note")
        if SHOTS:
            page.screenshot(path=str(DOCS / "web-review.png"), full_page=True)
    assert not errors


def test_durak_game_by_clicking(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    tid = new_table(server, {"game": "durak", "params": {"deck": 24}, "opponents": ["greedy"],
                             "time": 0.5, "seed": 5})
    page = open_page(browser, server, tid, errors)
    shot = False
    moves = 0
    while wait_turn(page) == "me":
        if SHOTS and not shot and page.locator("#attack .card").count():
            page.screenshot(path=str(DOCS / "web-durak.png"))
            shot = True
        click_something(page)
        moves += 1
        assert moves < 300
    page.wait_for_selector("#result")
    assert "durak" in page.inner_text("#result") or "draw" in page.inner_text("#result")
    assert not errors
