"""A person's record page in the browser (issue 44 item 5): from the lobby's "records" to
one person's page, which draws the running list score (an SVG the page makes, no outside
assets), the days of play and the game types declared, and fits a phone's width."""

from __future__ import annotations

import time
from typing import Any

import pytest

from spielwerk.web.person_record import person_record
from spielwerk.web.store import Store
from test_web_browser import ARGS, CHROMIUM, DOCS, SHOTS  # skips without chromium
from web_helpers import ServerProcess, rule_deal

sync_api = pytest.importorskip("playwright.sync_api")

NOON = time.mktime((2026, 3, 2, 12, 0, 0, 0, 0, -1))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    db = tmp_path_factory.mktemp("record") / "web.sqlite3"
    store = Store(db)
    day, n = 0, 0
    for seed in range(500, 600):  # Anna and Ben at one table over three days
        st = rule_deal(seed)
        names = ["Anna", "Ben", "rule (2)"] if n % 7 else ["Anna (knn playing)", "Ben", "x"]
        store.add_game(st.game.spec(), st.history, 0, names, "x", table_id="t",
                       persons=[0, 1], finished=NOON + day * 86400 + 60 * n)
        n += 1
        day = n // 12
        if n == 30:
            break
    store.close()
    srv = ServerProcess(db, engines=0).start(timeout=300)
    yield srv, db
    srv.stop()


def test_the_record_page_draws_a_persons_games(server: Any) -> None:
    srv, db = server
    store = Store(db)
    want = person_record(store, "Anna")["games"][0]
    store.close()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 900, "height": 900})
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(srv.base + "/")
        page.click("text=records")
        page.wait_for_selector("#people")
        names = page.eval_on_selector_all("#people td a", "as => as.map(a => a.textContent)")
        assert names == ["Anna", "Ben"] or names == ["Ben", "Anna"]
        page.click("#people >> text=Anna")
        page.wait_for_selector("#record svg.running")
        sec = page.locator("section.record-game[data-game=skat]")
        assert sec.locator("svg.running").get_attribute("data-points") == "30"
        points = sec.locator("polyline").get_attribute("points") or ""
        assert len(points.split()) == 30
        days = sec.locator("table.days tr").count() - 1
        assert days == len(want["days"]) == 3
        first_day = sec.locator("table.days tr").nth(1).locator("td")
        assert first_day.nth(0).text_content() == want["days"][-1]["day"]
        total = want["days"][-1]["score"]
        assert first_day.nth(4).text_content() == (f"+{total}" if total > 0 else str(total))
        summary = sec.locator(".record-summary").text_content() or ""
        assert f"{want['played']} games" in summary and "finished by the stand-in" in summary
        declared = sec.locator("table.declared tr").count() - 1
        assert declared == len(want["declared"]) > 0
        assert all(u.startswith(srv.base) for u in requests)  # nothing from elsewhere
        if SHOTS:
            page.screenshot(path=str(DOCS / "web-record.png"), full_page=True)
        # a phone's width: no horizontal scrolling
        page.set_viewport_size({"width": 360, "height": 740})
        page.wait_for_timeout(200)
        scroll, width = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert scroll <= width == 360
        page.goto(srv.base + "/#record=Nobody")
        page.wait_for_selector("#record")
        assert "No finished games" in (page.text_content("#record") or "")
        browser.close()
