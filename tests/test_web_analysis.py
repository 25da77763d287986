"""The analysis after a deal: per card the double-dummy verdict and the PIMC view from
what the player could know (what the card cost on average over the worlds left)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from spielwerk.games.skat import rules as R
from spielwerk.games.skat_ai import review as analysis
from spielwerk.web.app import create_app
from web_helpers import rule_deal


def _declared(seed0: int) -> Any:
    for seed in range(seed0, seed0 + 30):
        st = rule_deal(seed)
        if st.contract is not None:
            return st
    raise AssertionError("no declared game")


def test_pimc_review_covers_the_seats_card_choices_and_their_cost() -> None:
    st = _declared(1)
    seat = st.declarer
    items = analysis.pimc_review(st.game.spec(), st.history, seat, worlds=4, seconds=0.5)
    # exactly the seat's card plays with a choice
    probe: Any = st.game.new_initial_state()
    expected = []
    for ply, a in enumerate(st.history):
        if (probe.current_player == seat and probe.phase == R.PLAY and a < 32
                and len([x for x in probe.legal_actions() if x < 32]) > 1):
            expected.append(ply)
        probe.apply(a)
    assert [it["ply"] for it in items] == expected and expected
    for it in items:
        vals = it["values"]
        assert it["card"] in vals and it["best"] in vals and set(it["win"]) == set(vals)
        assert it["cost"] >= 0 and 1 <= it["worlds"] <= 4
        if not it["null"]:
            assert it["cost"] == pytest.approx(vals[it["best"]] - vals[it["card"]], abs=0.11)
            assert vals[it["best"]] == max(vals.values())


def test_analysis_endpoint_adds_the_pimc_view(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "REVIEW_WORLDS", 3)
    monkeypatch.setattr(analysis, "REVIEW_SECONDS", 0.3)
    st = _declared(5)
    app = create_app(tmp_path / "a.sqlite3", workers=0)
    with TestClient(app) as client:
        store = app.state.server.store
        gid = store.add_game(st.game.spec(), st.history, st.declarer, ["a", "b", "c"], "x")
        r = client.post(f"/api/games/{gid}/analysis")
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["items"] and body["pimc"] and body["seat"] == st.declarer
        dd_plies = {it["ply"] for it in body["items"]}
        assert {it["ply"] for it in body["pimc"]} <= dd_plies
