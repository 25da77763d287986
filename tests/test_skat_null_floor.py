"""``null_floor``: after picking up, a null below the floor is not declared.

Where the expected score prefers a null only because every other game is weak (the hand was
bid on a suit game the skat did not help), the floor leaves the hand to the best suit or
grand game (grand reaches any bid a null can). A null at or above the floor stays; the
bidding is not touched.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skat_helpers import experiment, random_hands
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.params import KnnParams
from spielwerk.games.skat_ai.putting import choose_game, knn_put, put_chance
from spielwerk.games.skat_ai.winprob import game_value

FLOOR = 0.6
PLAIN = KnnParams()  # the default: no floor
FLOORED = KnnParams(null_floor=FLOOR)


@pytest.fixture(scope="module")
def model() -> KnnModel:
    return KnnModel.load()


def test_the_floor_is_off_by_default_and_checked() -> None:
    assert PLAIN.null_floor == 0.0
    game = load_game("skat")
    assert make_agent("knn:null_floor=0.6", game, 0).params.null_floor == 0.6  # type: ignore[attr-defined]
    with pytest.raises(AgentSpecError, match="null_floor"):
        make_agent("knn:null_floor=1.5", game, 0)


@pytest.mark.parametrize("bid", [18, 23, 46])
def test_only_nulls_below_the_floor_change(model: KnnModel, bid: int) -> None:
    """On random twelve-card hands: every change is a null below the floor turned into a
    suit or grand game whose plain value reaches the bid (grand's does, whatever the bid a
    null can reach); nulls at or above the floor stay."""
    turned = kept = 0
    for i, twelve in enumerate(random_hands(400, 21 + bid, 12)):
        position = i % 3
        d = knn_put(model, twelve, bid, PLAIN, position)
        plain, ouvert = choose_game(d.per_game, twelve, bid, PLAIN, position=position)
        floored, f_ouvert = choose_game(d.per_game, twelve, bid, FLOORED, position=position)
        if plain != NULL:
            assert floored == plain
            continue
        chance = put_chance(PLAIN, d.per_game[NULL], twelve, NULL, position, ouvert)
        if floored == NULL:  # the null kept, or the other null where this one is weak
            assert (floored, f_ouvert) == (plain, ouvert) or chance < FLOOR
            assert put_chance(PLAIN, d.per_game[NULL], twelve, NULL, position,
                              f_ouvert) >= FLOOR
            kept += 1
        else:
            assert chance < FLOOR and game_value(twelve, floored) >= bid
            turned += 1
    assert turned > 0 and kept > 0


def test_the_floor_leaves_the_bidding_alone(model: KnnModel) -> None:
    def bid(p: KnnParams, hand: int, position: int) -> tuple[object, ...]:
        d = decide_bid(model, hand, p, position)
        return (d.game, d.hand_game, d.max_bid, d.null_bid, d.ouvert)

    for i, hand in enumerate(random_hands(150, 23, 10)):
        assert bid(FLOORED, hand, i % 3) == bid(PLAIN, hand, i % 3)


def test_the_rescue_script_re_decides_the_recorded_nulls(tmp_path: Path) -> None:
    """``experiments/skat_null_rescue.py``: the nulls of an own-nulls file are reached again;
    the spec that made them keeps every one, a floor above every chance moves every one to
    a suit or grand game; a file of another kind is refused."""
    from test_skat_null_model import own_nulls_file

    script = experiment("skat_null_rescue")
    path = tmp_path / "own.jsonl"
    made = own_nulls_file(path, "knn:worlds=1", 4, 3)
    rows = script.read_nulls(path, None, ["knn:worlds=1", "knn:worlds=1:null_floor=1.0"])
    assert [r["ours"] for r in rows] == [r["knn:worlds=1"]["ours"]["won"] for r in made]
    assert all(r["again"][0] == "null" for r in rows)
    assert all(r["again"][1] in ("grand", "clubs", "spades", "hearts", "diamonds")
               for r in rows)
    assert all(r["bid_on"] in ("null", "suit/grand", "hand game") for r in rows)
    other = tmp_path / "calibration.jsonl"
    other.write_text(json.dumps({"agent": "knn", "seed": 1}) + "\n")
    with pytest.raises(SystemExit, match="own-nulls"):
        script.read_nulls(other, None, [])
