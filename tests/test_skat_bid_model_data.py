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
