"""Browser tests: Debian's chromium driven by Playwright plays whole games by clicking.

Skipped (with the reason printed) only when /usr/bin/chromium is missing;
``.ci/run`` installs it. Screenshots of each game go to ``docs/``.
"""

from __future__ import annotations

import json
import os
import re
import time
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
    srv = ServerProcess(tmp_path_factory.mktemp("web") / "web.sqlite3", engines=1).start(
        timeout=300)  # a busy machine: the first /api/games probes the Kalah limits
    # the engine worker warms up first (the default opponents' models and kernels; minutes
    # when numba has to compile them): the tests' turn time-outs start after it
    deadline = time.time() + 600
    while time.time() < deadline:
        with urllib.request.urlopen(srv.base + "/api/stats", timeout=10) as r:
            if json.loads(r.read())["engine_workers_warmed"] >= 1:
                break
        time.sleep(1)
    yield srv
    srv.stop()


def new_table(server: ServerProcess, body: dict) -> str:
    req = urllib.request.Request(server.base + "/api/tables", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return str(json.loads(r.read())["id"])


def open_page(browser, server: ServerProcess, table_id: str, errors: list[str],  # type: ignore[no-untyped-def]
              frames: list[dict] | None = None):
    page = browser.new_page(viewport={"width": 1100, "height": 820})
    page.on("pageerror", lambda e: errors.append(str(e)))
    if frames is not None:  # every message the server sends to this page
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda payload: frames.append(json.loads(payload))))
    page.goto(f"{server.base}/#table={table_id}")
    page.wait_for_selector("#felt")
    return page


def assert_no_engine_trouble(frames: list[dict], server: ServerProcess) -> None:
    """No notice that an engine failed, timed out or was replaced, and no random move."""
    notices = [f["message"] for f in frames if f.get("type") in ("notice", "error")]
    bad = [n for n in notices if any(w in n for w in ("engine", "random", "fallback",
                                                       "baseline", "failed"))]
    assert not bad, bad
    log = server.log_path.read_text()
    assert "fallback" not in log and "baseline" not in log and "Traceback" not in log, log[-2000:]


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


def ask_hint(page, best: str, column: str) -> None:  # type: ignore[no-untyped-def]
    """Kalah's and Durak's hint: the button on the person's turn, the answer's table of
    moves, the best of them marked on the table."""
    page.click("#hintbtn")
    page.wait_for_selector("#hint #hinttable", timeout=60_000)
    assert column in page.inner_text("#hinttable")
    assert page.locator("#hinttable tr").count() >= 2
    assert page.locator(best).count() >= 1
    assert page.locator("#hintbtn").is_disabled()  # one hint a position


def play_out(page, limit: int = 400) -> int:  # type: ignore[no-untyped-def]
    moves = 0
    while wait_turn(page) == "me":
        click_something(page)
        moves += 1
        assert moves < limit
    page.wait_for_selector("#result")
    return moves


def test_kalah_game_against_the_default_opponent(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    frames: list[dict] = []
    # the default opponent (no "opponents" given), as a new user meets it
    tid = new_table(server, {"game": "kalah", "params": {"pits": 4, "seeds": 2}, "time": 0.5,
                             "seed": 3})
    page = open_page(browser, server, tid, errors, frames)
    assert page.locator(".storelabel").all_inner_texts() == ["opponent's store", "your store"]
    wait_turn(page)
    ask_hint(page, "button.pit.legal.hintbest", "final margin")
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
    assert "your store" in text
    assert_no_engine_trouble(frames, server)
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
    reloaded = False
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
        click_something(page)
        moves += 1
        assert moves < 100
    page.wait_for_selector("#result")
    text = page.inner_text("#result")
    assert "passed in" in text or "won" in text or "lost" in text
    if "passed in" not in text:
        assert reloaded and "value" in text and "points in" in text
        assert "game value" not in text  # said once, by the result itself
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


def test_durak_game_against_the_default_opponent(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    frames: list[dict] = []
    tid = new_table(server, {"game": "durak", "params": {"deck": 24}, "time": 0.3, "seed": 5})
    page = open_page(browser, server, tid, errors, frames)
    shot = False
    moves = 0
    covered = 0
    hinted = False
    while wait_turn(page) == "me":
        if not hinted:  # the engine's search over the hands not seen, best moves marked
            ask_hint(page, ".legal.hintbest, button.act.hintbest", "chosen in")
            hinted = True
        # a defending card lies over the attack card it beats
        for pair in page.locator("#attack .pair[data-defence]").all():
            assert pair.locator(".card.cover").count() == 1
            covered += 1
        if SHOTS and not shot and page.locator("#attack .card").count():
            page.screenshot(path=str(DOCS / "web-durak.png"))
            shot = True
        click_something(page)
        moves += 1
        assert moves < 300
    page.wait_for_selector("#result")
    assert "durak" in page.inner_text("#result") or "draw" in page.inner_text("#result")
    assert covered > 0
    assert_no_engine_trouble(frames, server)
    assert not errors


def skat_step(page, state: dict) -> None:  # type: ignore[no-untyped-def]
    """One move of the person at a Skat table: bid or hold up to 24, pick up the skat, put
    (taking the first put card back once with undo), declare a grand with the selector,
    play the first legal card; ask for a hint once in the card play."""
    ply = page.get_attribute("#felt", "data-ply")
    phase = page.locator("#phase").inner_text().removeprefix("phase: ")
    buttons = page.locator("#controls button.act")
    texts = buttons.all_inner_texts()
    if phase == "bidding":
        bids = [t for t in texts if t.isdigit()]
        if "hold (yes)" in texts:
            said = page.locator("#felt .info").inner_text().split("bid: ")[1].split()[0]
            bid = int(said) if said.isdigit() else 0
            label = "hold (yes)" if bid <= 24 else "pass"
        else:
            label = bids[0] if bids and int(bids[0]) <= 24 else "pass"
        buttons.filter(has_text=label).first.click()
    elif phase == "skat" and "pick up the skat" in texts:
        buttons.filter(has_text="pick up the skat").click()
    elif phase == "put":
        page.locator("#hand .card.legal").first.click()
        if not state.get("undone"):  # the put card comes back into the hand
            page.wait_for_selector("#undo")
            hand = page.locator("#hand .card").count()
            page.click("#undo")
            page.wait_for_function(
                "n => document.querySelectorAll('#hand .card').length === n + 1", arg=hand)
            state["undone"] = True
            return
    elif page.locator("#gamesel").count():
        page.select_option("#gametype", "grand")
        assert not page.is_disabled("#declare")
        page.click("#declare")
        state["declared"] = True
    elif phase == "play" and page.locator("#hand .card.legal").count():
        if not state.get("hinted") and page.locator("#hand .card.legal").count() > 1:
            page.click("#hintbtn")
            page.wait_for_selector("#hint table", timeout=60_000)
            assert page.locator("#hand .card[data-hint]").count() > 1
            state["hinted"] = True
            if SHOTS:
                page.screenshot(path=str(DOCS / "web-skat-hint.png"), full_page=True)
        page.locator("#hand .card.legal").first.click()
    else:
        buttons.first.click()
    page.wait_for_function(
        "ply => { const f = document.querySelector('#felt'); return f && f.dataset.ply !== ply; }",
        arg=ply, timeout=60_000)


def test_skat_deal_against_the_default_opponents(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    """A whole deal against two knn engines (the default): bidding history, undo of a put
    card, the game selector, a hint, the last trick with who played, all tricks, the put
    cards at the end, the list, the analysis - and never an engine failure or random move."""
    errors: list[str] = []
    frames: list[dict] = []
    tid = new_table(server, {"game": "skat", "time": 0.5, "seed": 3,
                             "names": ["Anna", None, None]})
    page = open_page(browser, server, tid, errors, frames)
    state: dict = {}
    moves = 0
    while wait_turn(page) == "me":
        if page.locator("#bidding").count():
            assert "knn" in page.inner_text("#bidding")  # who said what
        if page.locator("#showtricks").count() and not state.get("tricks"):
            page.click("#showtricks")
            rows = page.locator("#tricks tr").count()
            assert rows >= 3  # header and two tricks at least
            state["tricks"] = True
            page.click("#showtricks")
        if page.locator("#lasttrick .played").count():
            assert page.locator("#lasttrick .played").count() == 3
        felt = page.inner_text("#felt")
        assert not re.search(r"\b1 (cards|tricks)\b", felt), felt  # "1 trick", "1 card"
        state["one"] = state.get("one") or bool(re.search(r"\b1 (card|trick)\b", felt))
        if SHOTS and not state.get("shot") and page.locator("#trick .card").count() == 2:
            page.screenshot(path=str(DOCS / "web-skat.png"))
            state["shot"] = True
        skat_step(page, state)
        moves += 1
        assert moves < 80
    page.wait_for_selector("#result")
    assert state.get("undone") and state.get("declared") and state.get("hinted"), state
    assert state.get("one"), "no seat was seen with one card or one trick"
    text = page.inner_text("#result")
    assert "Grand" in text or "grand" in text, text
    assert page.locator("#revealskat").count() == 1
    assert "put away by the declarer" in page.inner_text("#revealskat")
    assert "you (seat 0) were dealt" in text and "(seat 1) was dealt" in text, text
    series = page.inner_text("#series")
    assert "you" in series and ("Grand" in series or "grand" in series)
    # the header's points agree with the result (the skat counted)
    points = page.inner_text("#points")
    declarer = re.search(r"declarer (\d+) points in", text)
    assert declarer, text
    assert "skat" in points and f"declarer {declarer.group(1)}" in points
    if SHOTS:
        page.screenshot(path=str(DOCS / "web-skat-score.png"), full_page=True)
    page.click("#analyselink")  # one click: the review opens and the analysis starts
    page.wait_for_function(
        "(document.querySelector('#analysis') || {innerText: ''}).innerText"
        ".includes('From what you knew')", timeout=120_000)
    page.click("#first")
    for _ in range(60):
        if page.locator("#pimcnote").count():
            break
        page.click("#nextstep")
    assert "worlds you could not rule out" in page.inner_text("#pimcnote")
    if SHOTS:
        page.screenshot(path=str(DOCS / "web-review.png"), full_page=True)
    assert_no_engine_trouble(frames, server)
    assert not errors


def test_skat_ramsch_end_screen(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    tid = new_table(server, {"game": "skat", "params": {"ramsch": True}, "seed": 3,
                             "opponents": ["rule", "rule"], "time": 0.3})
    page = open_page(browser, server, tid, errors)
    while wait_turn(page) == "me":
        if page.locator("#controls button.act", has_text="pass").count():
            ply = page.get_attribute("#felt", "data-ply")
            page.locator("#controls button.act", has_text="pass").click()
            page.wait_for_function(
                "ply => document.querySelector('#felt').dataset.ply !== ply", arg=ply)
        else:
            click_something(page)
    page.wait_for_selector("#result")
    text = page.inner_text("#result")
    assert "Ramsch" in text and ("lose" in text or "lost" in text or "Durchmarsch" in text)
    assert "download ISS record" not in text  # ISS has no Ramsch
    assert "Ramsch" in page.inner_text("#series")
    assert not errors
