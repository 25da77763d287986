"""Browser tests of issue 44's rough edges at the table (Playwright driving Debian's
chromium, as ``test_web_browser.py``): players named rather than numbered, the list of all
tricks closed for a new deal and in the review, a double click sending one move, and the
lobby's tables told apart. Rule opponents in an in-process engine thread: quick."""

from __future__ import annotations

import re
import time

import pytest

from test_web_browser import click_something, new_table, open_page, wait_turn
from web_helpers import ServerProcess, served

sync_api = pytest.importorskip("playwright.sync_api")

SEAT_NUMBER = re.compile(r"\bseat \d\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    yield from served(tmp_path_factory, "web", engines=0)


def skat_table(server: ServerProcess, seed: int) -> str:
    return new_table(server, {"game": "skat", "opponents": ["rule", "rule"], "time": 0.3,
                              "seed": seed, "names": ["Anna", None, None]})


def stale_errors(frames: list[dict]) -> list[str]:
    return [f["message"] for f in frames if f.get("type") == "error"]


def test_a_double_click_sends_one_move(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    """A double click on a bid or "hold" button, and on "next deal", plays it once: no red
    stale-move error (the buttons are disabled once clicked, until the next view)."""
    errors: list[str] = []
    frames: list[dict] = []
    page = open_page(browser, server, skat_table(server, 3), errors, frames)
    doubled = 0
    while wait_turn(page) == "me":
        ply = page.get_attribute("#felt", "data-ply")
        if page.locator("#phase").inner_text() == "phase: bidding" and doubled < 2:
            page.locator("#controls button.act").first.dblclick()
            doubled += 1
            page.wait_for_function(
                "ply => document.querySelector('#felt').dataset.ply !== ply", arg=ply)
            continue
        click_something(page)
    page.wait_for_selector("#next")
    deal = page.inner_text("#series")
    page.dblclick("#next")
    page.wait_for_function("!document.querySelector('#result')")
    page.wait_for_timeout(500)  # a second "next" would be answered by now
    assert doubled >= 1
    assert not stale_errors(frames), stale_errors(frames)
    assert page.locator("#msg.error:not([hidden])").count() == 0
    assert page.inner_text("#series").count("\n") == deal.count("\n")  # one deal only
    assert not errors


def test_players_are_named_and_all_tricks_close(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    """The current trick, "... is thinking", the review's hands and steps name the players as
    the table does; the list of all tricks is closed for the next deal and in the review."""
    errors: list[str] = []
    frames: list[dict] = []
    page = open_page(browser, server, skat_table(server, 5), errors, frames)
    seen_trick = False
    while wait_turn(page) == "me":
        labels = page.locator("#trick .label").all_inner_texts()
        if labels:
            seen_trick = True
            assert not [x for x in labels if SEAT_NUMBER.search(x)], labels
        if page.locator("#showtricks").count() and not page.is_visible("#tricks"):
            page.click("#showtricks")
            assert page.is_visible("#tricks")
        click_something(page)
    page.wait_for_selector("#result")
    assert seen_trick
    if not page.locator("#showtricks").count():
        pytest.skip("this deal ended before its second trick")
    if not page.is_visible("#tricks"):
        page.click("#showtricks")
    assert page.is_visible("#tricks")  # open at the end of the deal
    page.evaluate("setThinking(1)")  # the page's own handler of a "thinking" message
    assert page.inner_text("#thinking") == "rule (1) is thinking…"
    # the review opens with the list closed, and names the players
    page.click("text=review this game")
    page.wait_for_selector("#step")
    page.click("#last")
    assert page.locator("#showtricks").count() and not page.is_visible("#tricks")
    hands = [x.strip() for x in page.locator("#main .row .label").all_inner_texts()]
    assert "Anna:" in hands and "rule (1):" in hands, hands
    assert not [x for x in hands if SEAT_NUMBER.search(x)], hands
    page.click("#first")
    steps = []
    for _ in range(6):
        page.click("#nextstep")
        steps.append(page.inner_text("#step"))
    assert not [s for s in steps if SEAT_NUMBER.search(s)], steps
    # who said what, as the table's buttons say it (not ISS's "y" and "p")
    assert any(re.search(r"(Anna|rule \(\d\)): (pass|hold \(yes\))$", s) for s in steps), steps
    # the next deal starts with the list closed
    page.go_back()
    page.wait_for_selector("#next")
    if not page.is_visible("#tricks"):
        page.click("#showtricks")
    page.click("#next")
    page.wait_for_function("!document.querySelector('#result')")
    while wait_turn(page) == "me" and not page.locator("#showtricks").count():
        click_something(page)
    if page.locator("#showtricks").count():
        assert not page.is_visible("#tricks")
    assert not errors


def test_your_tables_tell_apart(server: ServerProcess, browser) -> None:  # type: ignore[no-untyped-def]
    """Two tables of the same game and opponents: each entry says when it was created, who
    plays, how many games are finished and how it stands."""
    first = skat_table(server, 7)
    time.sleep(1.1)  # created in another second (the entry shows the time to the second)
    second = skat_table(server, 8)
    page = browser.new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("#main a[href^='#table=']")
    entries = [page.inner_text(f"#main a[href='#table={tid}']") for tid in (first, second)]
    assert entries[0] != entries[1], entries
    for text in entries:
        assert "created" in text and "finished" in text, text
        assert "Anna (you)" in text and "rule (1)" in text and "rule (2)" in text, text
        assert re.search(r"your turn|to move|over", text), text
