"""``experiments/skat_match_decompose.py``: a duplicate match's paired difference split over
the mirrored pairs of seatings, by what was declared. The classes add up to the match's own
paired difference (``skat match``'s figure), for both kinds of match file."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from skat_helpers import experiment
from spielwerk.arena import SerialExecutor
from spielwerk.arena.duplicate import run_duplicate
from spielwerk.games.skat.cli_match import match_stats, skat_match_config
from spielwerk.games.skat_ai.open_match import OpenMatch, match_figures


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return experiment("skat_match_decompose")


def _details(declarer: int, contract: str, seeger: list[int]) -> dict[str, object]:
    return {"declarer": declarer, "contract": contract, "seeger": seeger}


def test_a_pair_is_classed_by_what_each_game_declared(script: ModuleType) -> None:
    holders = (1, 0, 0)  # B in seat 0 in the first game, A there in its mirror
    g = _details
    assert script.classify(g(0, "D", [1, 0, 0]), g(0, "H", [1, 0, 0]), holders, False) \
        == "same game"
    assert script.classify(g(0, "D", [1, 0, 0]), g(0, "H", [1, 0, 0]), holders, True) \
        == "same game: suit"
    assert script.classify(g(0, "D", [1, 0, 0]), g(0, "GH", [1, 0, 0]), holders, True) \
        == "same hand, other game: A grand hand, B suit"
    assert script.classify(g(0, "NO", [1, 0, 0]), g(-1, "", [0, 0, 0]), holders, True) \
        == "auction differs: B null ouvert"
    assert script.classify(g(1, "C", [0, 1, 0]), g(2, "G", [0, 0, 1]), holders, True) \
        == "auction differs: A suit / B grand"
    assert script.classify(g(-1, "", [0, 0, 0]), g(-1, "", [0, 0, 0]), holders, True) \
        == "passed in"
    with pytest.raises(SystemExit, match="two-agent"):
        script.mirror_pairs([(0, 1, 2)])
    with pytest.raises(SystemExit, match="no mirrored"):
        script.mirror_pairs([(0, 1, 1)])


def _check_sums(script: ModuleType, path: Path, paired: float, deals: int) -> None:
    for by_game in (False, True):
        head, parts = script.decompose(path, by_game)
        assert head["deals"] == deals
        assert head["mean"] == pytest.approx(paired)
        assert sum(len(v) for v in parts.values()) == 3 * deals  # three pairs per deal
        assert sum(p for v in parts.values() for _, p in v) / deals == pytest.approx(paired)
        shares = [script.class_share(v, deals) for v in parts.values()]
        assert sum(s[0] for s in shares) == pytest.approx(paired)
        assert all(low <= mean <= high for mean, low, high in shares)
        tops = {name.split(":")[0] for name in parts}
        assert tops <= set(script.CLASSES)
    text = script.report(*script.decompose(path, True))
    assert f"{paired:+.1f}" in text.splitlines()[1]
    assert text.splitlines()[-1].split()[-1] == f"{paired:+.1f}"


def test_the_classes_add_up_to_the_paired_difference(script: ModuleType,
                                                     tmp_path: Path) -> None:
    config = skat_match_config(["rule", "random"], 4, seed=13)
    path = tmp_path / "match.jsonl"
    result = run_duplicate(config, SerialExecutor(), output=path)
    (difference,) = match_stats(result).differences
    assert difference.mean != 0  # a random bidder loses: something to split
    _check_sums(script, path, difference.mean, 4)
    assert script.main([str(path)]) == 0


def test_an_open_hand_match_file_is_read_too(script: ModuleType, tmp_path: Path) -> None:
    specs = ["knn:worlds=1:caution=1", "knn3:worlds=1"]
    match = OpenMatch(specs)
    rows = [match.play_deal(5, d) for d in range(2)]
    path = tmp_path / "open.jsonl"
    header = {"agents": specs, "seed": 5, "deals": 2, "defence": "open",
              "seatings": [list(g["order"]) for g in rows[0]["games"]]}
    path.write_text("".join(json.dumps(x) + "\n" for x in [header, *rows]))
    (difference,) = match_figures(specs, rows).differences
    _check_sums(script, path, difference.mean, 2)


def test_a_file_without_a_complete_deal_says_so(script: ModuleType, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    config = skat_match_config(["rule", "random"], 1, seed=13)
    path = tmp_path / "match.jsonl"
    run_duplicate(config, SerialExecutor(), output=path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:3]) + "\n")  # the header and two of six games
    assert script.main([str(path)]) == 1
    assert "no complete deal" in capsys.readouterr().err
