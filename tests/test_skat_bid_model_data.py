"""``experiments/skat_bid_model.py``: the data records the named bidder's bidding (and a
folder holds one bidder's), and ``evaluate`` scores the shipped models on it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from skat_helpers import experiment
from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.knn_agent import shared_model


def test_the_data_is_the_bidders_and_a_folder_holds_one_bidder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    script = experiment("skat_bid_model")
    monkeypatch.setattr(script, "CHUNK", 30)
    script.make_data(tmp_path, 2, 11, "knn2")
    assert script.bidder_of(tmp_path) == "knn2"
    chunk = np.load(tmp_path / "chunk000.npz")
    agent = make_agent("knn2", load_game("skat"), 0)
    model = shared_model("", agent.params.k, agent.settings.scaling)  # type: ignore[attr-defined]
    for h, p, (max_bid, game, hand, ouvert) in zip(chunk["hands"], chunk["pos"], chunk["res"],
                                                   strict=True):
        d = decide_bid(model, int(h), agent.params, int(p))  # type: ignore[attr-defined]
        assert (d.max_bid, d.game, int(d.hand_game), int(d.ouvert)) == (
            max_bid, game, hand, ouvert)
    with pytest.raises(SystemExit, match="holds the bidding of 'knn2'"):
        script.make_data(tmp_path, 3, 11, "knn10")
    with pytest.raises(SystemExit, match="not a knn bot"):
        script.make_data(tmp_path / "other", 1, 11, "rule")
    script.evaluate(tmp_path, ["knn2", "knn10"])
    out = capsys.readouterr().out
    assert "60 hands bid by knn2" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line.startswith(("knn2 ", "knn10 "))}
    assert set(rows) == {"knn2", "knn10"}
    # the model of knn2's bidding fits knn2's bids better than the model of knn10's
    assert float(rows["knn2"][0]) < float(rows["knn10"][0])


def test_put_data_records_the_players_puts_and_evaluate_scores_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    script = experiment("skat_put_model")
    monkeypatch.setattr(script, "CHUNK", 12)
    script.make_data(tmp_path, 24, 13, "knn10:worlds=1")
    assert script.player_of(tmp_path) == "knn10:worlds=1"
    rows = np.concatenate([np.load(p)["rows"] for p in sorted(tmp_path.glob("chunk*.npz"))])
    assert len(rows) >= 4  # a pick-up in most deals
    for twelve, game, put in rows:
        assert bin(int(twelve)).count("1") == 12 and bin(int(put)).count("1") == 2
        assert int(put) & int(twelve) == int(put) and 0 <= game <= 5
    with pytest.raises(SystemExit, match="holds the puts of"):
        script.make_data(tmp_path, 36, 13, "knn2:worlds=1")
    script.evaluate(tmp_path)
    out = capsys.readouterr().out
    assert f"{len(rows)} pick-ups put by knn10:worlds=1" in out
    assert "  all " in out and "log-loss" in out
