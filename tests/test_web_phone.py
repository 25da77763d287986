"""The web table on a phone-sized screen (360 px wide, chromium's mobile emulation): the
lobby of every game and a table of every game fit without horizontal scrolling, every
card, pit and button of the person lies on the screen, and a tap plays a move."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest

from test_web_browser import ARGS, CHROMIUM, DOCS, SHOTS  # skips without chromium
from web_helpers import ServerProcess, served

PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}

sync_api = pytest.importorskip("playwright.sync_api")

WIDTH = "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
OFF_SCREEN = """Array.from(document.querySelectorAll(
    '#felt button, #felt .card, #felt .pit, #felt .store'))
  .filter(e => { const r = e.getBoundingClientRect();
                 return r.width > 0 && (r.left < -1 || r.right > innerWidth + 1); })
  .map(e => e.className + ' ' + (e.textContent || '').trim().slice(0, 12))"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    yield from served(tmp_path_factory, "phone", engines=1)


@pytest.fixture(scope="module")
def phone(server: ServerProcess):  # type: ignore[no-untyped-def]
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(**PHONE)
        page = context.new_page()
        yield page
        browser.close()


def _new_table(server: ServerProcess, body: dict[str, Any]) -> str:
    req = urllib.request.Request(server.base + "/api/tables", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return str(json.loads(r.read())["id"])


def test_the_lobby_of_every_game_fits_a_phone(server: ServerProcess, phone: Any) -> None:
    phone.goto(server.base + "/")
    phone.wait_for_selector("#newtable")
    for game in phone.eval_on_selector_all("#game option", "os => os.map(o => o.value)"):
        phone.select_option("#game", game)
        phone.wait_for_timeout(200)
        scroll, width = phone.evaluate(WIDTH)
        assert width == 360 and scroll <= width, (game, scroll)
        box = phone.locator("#create").bounding_box()
        assert box is not None and box["x"] + box["width"] <= 360, game


@pytest.mark.parametrize("body", [
    {"game": "skat", "seat": 0, "opponents": ["rule", "rule"], "time": 0.2},
    {"game": "durak", "params": {"players": 4}, "opponents": ["greedy"] * 3, "time": 0.2},
    {"game": "kalah", "opponents": ["greedy"], "time": 0.2},
], ids=["skat", "durak-4", "kalah"])
def test_a_table_fits_a_phone_and_a_tap_plays(server: ServerProcess, phone: Any,
                                               body: dict[str, Any]) -> None:
    phone.goto(f"{server.base}/#table={_new_table(server, body)}")
    phone.wait_for_selector("#felt")
    legal = "#felt .legal, #felt button:not([disabled]):not(.hint-btn)"
    phone.wait_for_selector("#felt .legal, #felt .row button", timeout=120_000)
    scroll, width = phone.evaluate(WIDTH)
    assert scroll <= width == 360, (body["game"], scroll)
    assert phone.evaluate(OFF_SCREEN) == []
    if SHOTS and body["game"] == "skat":
        phone.screenshot(path=str(DOCS / "web-phone.png"))
    if body["game"] == "kalah":  # a tap on a pit sows it
        before = phone.locator("#kalah").inner_text()
        phone.locator("#felt .pit.legal").first.tap()
        deadline = time.time() + 30
        while phone.locator("#kalah").inner_text() == before and time.time() < deadline:
            phone.wait_for_timeout(100)
        assert phone.locator("#kalah").inner_text() != before
    else:
        assert phone.locator(legal).count() > 0
