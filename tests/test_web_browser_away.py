"""Someone leaves a table of two people, in the browser (issue 44, Playwright driving
Debian's chromium as ``test_web_browser.py``): one person's tab closes and the other
person's page says that seat is away, then that the stand-in engine plays for them after
the table's ``away_s`` (the server side: ``test_web_away.py``)."""

from __future__ import annotations

import json
import urllib.request

import pytest

from test_web_browser import ARGS, CHROMIUM
from web_helpers import ServerProcess, served

sync_api = pytest.importorskip("playwright.sync_api")

AWAY_S = 8.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    yield from served(tmp_path_factory, "web", engines=0)


def seats_text(page) -> str:  # type: ignore[no-untyped-def]
    return str(page.inner_text("#seats"))


def test_the_other_person_sees_a_closed_tab_as_away(server: ServerProcess) -> None:
    req = urllib.request.Request(
        server.base + "/api/tables", headers={"content-type": "application/json"},
        data=json.dumps({"game": "kalah", "seats": ["person", "person"], "away_s": AWAY_S,
                         "stand_in": "random"}).encode())
    with urllib.request.urlopen(req, timeout=30) as r:
        made = json.loads(r.read())
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pages = []
        for seat in (0, 1):  # two people, each in their own browser
            page = browser.new_context().new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.base + made["links"][str(seat)])
            page.wait_for_selector("#felt")
            pages.append(page)
        first, second = pages
        first.wait_for_function(
            "() => { const s = document.querySelector('#seats'); "
            "return s && s.textContent.includes('(you): joined') && "
            "!s.textContent.includes('not joined') && !s.textContent.includes('away'); }")
        other = first.evaluate("() => document.querySelector('#seats').textContent")
        assert other.count(": joined") == 2, other

        second.close()  # the other person's tab closes
        first.wait_for_function(
            "() => / \\(1\\)[^,]*: away/.test(document.querySelector('#seats').textContent)",
            timeout=AWAY_S * 1000)  # before the stand-in comes
        said = seats_text(first)
        assert ": away" in said and "plays for them" not in said, said
        assert "(you): joined" in said, said

        first.wait_for_function(  # after away_s: the stand-in plays the seat, named so
            "() => document.querySelector('#seats').textContent"
            ".includes('away, random plays for them')", timeout=30_000)
        assert "random playing" in seats_text(first)
        browser.close()
    assert not errors, errors
