"""The ``played`` win chances: ``strong``'s weights lowered per game type where the bot's own
declarations against ``knn``'s defence were won less often than ``strong`` said.

``data/skat_calibration/played.json`` is ``strong.json`` plus ``map`` (per type [a, b], made
by ``experiments/skat_open_map.py --own played``); the decisions use
``min(z, a + b z)`` of ``strong``'s log-odds ``z``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat_ai import params
from spielwerk.games.skat_ai.calibration import GAME_TYPES
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError
from spielwerk.games.skat_ai.params import (
    CALIBRATION_DIR,
    KnnParams,
    played_z,
    typed_calibration,
    win_probability,
)

PLAYED = json.loads((CALIBRATION_DIR / "played.json").read_text())
STRONG = json.loads((CALIBRATION_DIR / "strong.json").read_text())
CASES = [  # (game, stage, ouvert, the map's type)
    (0, "pickup", False, "suit"), (0, "put", False, "suit"), (2, "hand", False, "suit_hand"),
    (GRAND, "put", False, "grand"), (GRAND, "hand", False, "grand_hand"),
    (NULL, "pickup", False, "null"), (NULL, "put", False, "null"),
    (NULL, "hand", False, "null_hand"), (NULL, "put", True, "null_ouvert"),
    (NULL, "hand", True, "null_ouvert"),
]


def logit(p: float) -> float:
    return math.log(p / (1 - p))


def test_played_is_strong_with_a_map_that_says_how_it_was_made() -> None:
    assert PLAYED["name"] == "played" and PLAYED["format"] == STRONG["format"]
    assert PLAYED["base"] == "strong"
    loaded = typed_calibration("played")  # the file names its base; the weights are strong's
    assert loaded["stages"] == STRONG["stages"] and loaded["centers"] == STRONG["centers"]
    assert set(PLAYED["map"]) == set(GAME_TYPES)
    made = PLAYED["map_made"]
    assert "skat_open_map.py" in made["by"] and "--own played" in made["by"]
    assert sum(made["records"].values()) > 6000  # at least two 2,000-deal runs


@pytest.mark.parametrize(("game", "stage", "ouvert", "kind"), CASES)
def test_played_takes_the_lower_of_the_weights_and_the_map(game: int, stage: str,
                                                            ouvert: bool, kind: str) -> None:
    a, b = PLAYED["map"][kind]
    values = np.linspace(0.05, 0.99, 12) if game == NULL else np.linspace(20.0, 110.0, 12)
    lowered = 0
    for value in values:
        for position in range(3):
            strong = win_probability(float(value), stage, position, 6.0, game,
                                     calibration="strong", ouvert=ouvert)
            got = win_probability(float(value), stage, position, 6.0, game,
                                  calibration="played", ouvert=ouvert)
            z = logit(strong)
            assert logit(got) == pytest.approx(min(z, a + b * z), abs=1e-7)
            assert got <= strong + 1e-12
            lowered += got < strong - 1e-9
    if b != 1.0 or a < 0.0:
        assert lowered > 0, kind  # a fitted map lowers some chance of its type


def test_the_null_map_lowers_the_chances_the_bot_declared_too_high() -> None:
    """Against ``knn``'s null defence ``strong``'s nulls at 0.65 won about 0.53: the map
    lowers a null told 0.65 by at least 0.05, and leaves a near-certain null near-certain."""
    a, b = PLAYED["map"]["null"]
    z = logit(0.65)
    assert 1 / (1 + math.exp(-min(z, a + b * z))) <= 0.60
    z = logit(0.97)
    assert 1 / (1 + math.exp(-min(z, a + b * z))) >= 0.95


def test_a_calibration_without_a_map_is_unchanged() -> None:
    table = typed_calibration("strong")
    assert "map" not in table
    for z in (-2.0, 0.0, 1.3, 4.0):
        assert played_z(z, table, NULL, "put", False) == z


def test_a_bad_map_is_refused(tmp_path, monkeypatch) -> None:
    bad = dict(PLAYED, map={"suit": [0.0, 1.0]})
    (tmp_path / "broken.json").write_text(json.dumps(bad))
    (tmp_path / "strong.json").write_text(json.dumps(STRONG))  # its base
    monkeypatch.setattr(params, "CALIBRATION_DIR", tmp_path)
    monkeypatch.delitem(params._TYPED, "broken", raising=False)
    with pytest.raises(KnowledgeBaseError, match="map must give"):
        typed_calibration("broken")


def test_bases_that_loop_are_refused(tmp_path, monkeypatch) -> None:
    """A calibration whose chain of bases comes back to itself is a clear error, not an
    endless recursion; the failed reads leave nothing cached."""
    for name, base in (("one", "two"), ("two", "one"), ("self", "self")):
        (tmp_path / f"{name}.json").write_text(json.dumps(
            {"format": PLAYED["format"], "name": name, "base": base, "map": PLAYED["map"]}))
    monkeypatch.setattr(params, "CALIBRATION_DIR", tmp_path)
    for name in ("one", "two", "self"):
        monkeypatch.delitem(params._TYPED, name, raising=False)
        with pytest.raises(KnowledgeBaseError, match="leads back to itself"):
            typed_calibration(name)
        assert name not in params._TYPED
    assert not params._BASING


def test_the_agent_takes_played_and_caution_takes_strongs_open_map() -> None:
    """``played`` has no open-hand map of its own: ``caution`` moves its (lowered) log-odds
    along the map of its base, ``strong``."""
    game = load_game("skat")
    agent = make_agent("knn:calibration=played", game)
    assert agent.params.win_chances == "played"
    played = KnnParams(calibration="played").chance(0.6, "put", 0, 6.0, NULL)
    assert played < KnnParams(calibration="strong").chance(0.6, "put", 0, 6.0, NULL)
    a, b = json.loads((CALIBRATION_DIR / f"{params.OPEN_MAP}.json").read_text())[
        "maps"]["strong"]["null"]
    z = logit(played)
    cautious = KnnParams(calibration="played", caution=0.5).chance(0.6, "put", 0, 6.0, NULL)
    assert logit(cautious) == pytest.approx(0.5 * z + 0.5 * (a + b * z), abs=1e-9)


def test_played_null_maps_the_null_types_only() -> None:
    """``played_null``: ``played``'s map on null, null hand and null ouvert, the identity on
    the trump games (whose chances stay ``strong``'s)."""
    only = json.loads((CALIBRATION_DIR / "played_null.json").read_text())
    assert typed_calibration("played_null")["stages"] == STRONG["stages"]
    assert only["base"] == "strong"
    assert "--types null,null_hand,null_ouvert" in only["map_made"]["by"]
    for kind in GAME_TYPES:
        expected = PLAYED["map"][kind] if kind.startswith("null") else [0.0, 1.0]
        assert only["map"][kind] == expected, kind
    for game, stage, ouvert, kind in CASES:
        value = 0.7 if game == NULL else 62.0
        got = win_probability(value, stage, 1, 6.0, game, calibration="played_null",
                              ouvert=ouvert)
        same_as = "played" if kind.startswith("null") else "strong"
        assert got == win_probability(value, stage, 1, 6.0, game, calibration=same_as,
                                      ouvert=ouvert)


def test_played_infer_keeps_the_nulls_of_played_null_and_lowers_the_trump_games() -> None:
    """``played_infer``: ``played_null``'s map on the null types, a map of its own (fitted
    against the infer defence) on the trump types; the decisions never take a chance above
    ``strong``'s, and where its map lowers a trump game the chance is below
    ``played_null``'s."""
    infer = json.loads((CALIBRATION_DIR / "played_infer.json").read_text())
    only_null = json.loads((CALIBRATION_DIR / "played_null.json").read_text())
    assert infer["base"] == "strong" and typed_calibration("played_infer")["stages"] == \
        STRONG["stages"]
    assert "--keep played_null" in infer["map_made"]["by"]
    for kind in GAME_TYPES:
        if kind.startswith("null"):
            assert infer["map"][kind] == only_null["map"][kind], kind
        else:
            assert infer["map"][kind] != [0.0, 1.0], kind
    lowered = 0
    for game, stage, ouvert, kind in CASES:
        value = 0.7 if game == NULL else 62.0
        got, strong, plain = (win_probability(value, stage, 1, 6.0, game, calibration=c,
                                              ouvert=ouvert)
                              for c in ("played_infer", "strong", "played_null"))
        assert got <= strong
        if kind.startswith("null"):
            assert got == plain, kind
        else:
            lowered += got < plain
    assert lowered >= 4  # the trump types of CASES at 62 points: the map lowers them
    agent = make_agent("knn:calibration=played_infer", load_game("skat"))
    assert agent.params.win_chances == "played_infer"  # type: ignore[attr-defined]


def test_played_grand_hand_is_played_infer_on_grand_hand_only() -> None:
    """``played_grand_hand``: ``played_infer``'s map on grand hand, ``played_null``'s on the
    null types, the identity on the other trump types (``strong``'s chances)."""
    gh = json.loads((CALIBRATION_DIR / "played_grand_hand.json").read_text())
    infer = json.loads((CALIBRATION_DIR / "played_infer.json").read_text())
    only_null = json.loads((CALIBRATION_DIR / "played_null.json").read_text())
    for kind in GAME_TYPES:
        expected = (infer["map"][kind] if kind == "grand_hand" else only_null["map"][kind])
        assert gh["map"][kind] == expected, kind
    for game, stage, ouvert, kind in CASES:
        value = 0.7 if game == NULL else 62.0
        got = win_probability(value, stage, 1, 6.0, game, calibration="played_grand_hand",
                              ouvert=ouvert)
        same_as = "played_infer" if kind == "grand_hand" else "played_null"
        assert got == win_probability(value, stage, 1, 6.0, game, calibration=same_as,
                                      ouvert=ouvert), kind


def test_played_pickup_maps_suit_games_when_bidding_only() -> None:
    """``played_pickup``: ``played_grand_hand`` with its own map for suit games at the stage
    ``pickup`` (bidding on the ten cards); every other stage and type as ``played_grand_hand``,
    and the suit map there is ``min(z, a + b z)`` of ``strong``'s log-odds."""
    pk = json.loads((CALIBRATION_DIR / "played_pickup.json").read_text())
    gh = json.loads((CALIBRATION_DIR / "played_grand_hand.json").read_text())
    assert set(pk["map"]) == {*GAME_TYPES, "suit_pickup"}
    assert {k: pk["map"][k] for k in GAME_TYPES} == gh["map"]
    a, b = pk["map"]["suit_pickup"]
    lowered = 0
    for game, stage, got, plain in beside("played_pickup", "played_grand_hand"):
        if (game, stage) != (0, "pickup"):
            assert got == plain, (game, stage)
            continue
        z = math.log(plain / (1 - plain))  # played_grand_hand: the identity on suit
        assert got == pytest.approx(1 / (1 + math.exp(-min(z, a + b * z))))
        lowered += got < plain
    assert lowered >= 3  # the map lowers the confident suit plans


def beside(name: str, other: str) -> list[tuple[int, str, float, float]]:
    """(game, stage, chance of ``name``, chance of ``other``) over :data:`CASES` at five
    values, from middlehand with count 6."""
    return [(game, stage,
             win_probability(value, stage, 1, 6.0, game, calibration=name, ouvert=ouvert),
             win_probability(value, stage, 1, 6.0, game, calibration=other, ouvert=ouvert))
            for value in (50.0, 58.0, 62.0, 70.0, 80.0) for game, stage, ouvert, _ in CASES]


def test_a_map_may_add_pickup_kinds_only(tmp_path, monkeypatch) -> None:
    """A map's optional ``_pickup`` keys are the known ones; another key is refused."""
    (tmp_path / "strong.json").write_text(json.dumps(STRONG))
    monkeypatch.setattr(params, "CALIBRATION_DIR", tmp_path)
    for name, extra, ok in (("good", "suit_pickup", True), ("bad", "suit_put", False)):
        (tmp_path / f"{name}.json").write_text(json.dumps(
            dict(PLAYED, name=name, map={**PLAYED["map"], extra: [0.1, 0.7]})))
        monkeypatch.delitem(params._TYPED, name, raising=False)
        if ok:
            assert typed_calibration(name)["map"][extra] == [0.1, 0.7]
        else:
            with pytest.raises(KnowledgeBaseError, match="map must give"):
                typed_calibration(name)
        monkeypatch.delitem(params._TYPED, name, raising=False)


def test_played_put_maps_suit_games_after_picking_up_only() -> None:
    """``played_put`` (``skat_open_map.py --after-pickup``): ``played_infer``'s suit map at the
    stage ``put``; the bidding (stage ``pickup``) keeps ``played_grand_hand``'s suit chances
    through its ``suit_pickup`` map, and every other type is ``played_grand_hand``'s."""
    pp = json.loads((CALIBRATION_DIR / "played_put.json").read_text())
    gh = json.loads((CALIBRATION_DIR / "played_grand_hand.json").read_text())
    pi = json.loads((CALIBRATION_DIR / "played_infer.json").read_text())
    assert pp["map"]["suit"] == pi["map"]["suit"] and pp["map"]["suit_pickup"] == gh["map"]["suit"]
    assert {k: v for k, v in pp["map"].items() if not k.startswith("suit")} == {
        k: v for k, v in gh["map"].items() if not k.startswith("suit")}
    assert "--after-pickup" in pp["map_made"]["by"]
    lowered = 0
    for game, stage, got, plain in beside("played_put", "played_grand_hand"):
        if (game, stage) == (0, "put"):
            lowered += got < plain
            assert got <= plain
        else:
            assert got == plain, (game, stage)
    assert lowered >= 3


def refitted(name: str, kept: str, types: tuple[str, ...]) -> tuple[dict[str, Any],
                                                                   dict[str, Any]]:
    """The map files of ``name`` and of the calibration ``kept`` it was refitted from
    (``skat_open_map.py --own NAME --types ... --keep KEPT``), after checking that both are
    made on ``strong`` and that every type but ``types`` keeps ``kept``'s map."""
    new = json.loads((CALIBRATION_DIR / f"{name}.json").read_text())
    old = json.loads((CALIBRATION_DIR / f"{kept}.json").read_text())
    assert {k: v for k, v in new["map"].items() if k not in types} == {
        k: v for k, v in old["map"].items() if k not in types}
    assert new["base"] == "strong"
    return new, old


def test_played_null_knn6_refits_the_null_maps_only() -> None:
    """``played_null_knn6`` (``skat_open_map.py --own --types null,null_hand,null_ouvert
    --keep played_grand_hand``): the trump types' chances are ``played_grand_hand``'s; a
    plain null's are lower (the refit's intercept is lower, its slope about the same), and
    no null's are above ``strong``'s weights."""
    nulls = ("null", "null_hand", "null_ouvert")
    nk, gh = refitted("played_null_knn6", "played_grand_hand", nulls)
    assert "--keep played_grand_hand" in nk["map_made"]["by"]
    assert all(nk["map"][k] != gh["map"][k] for k in nulls)
    for game, stage, got, plain in beside("played_null_knn6", "played_grand_hand"):
        if game != NULL:
            assert got == plain, (game, stage)

    def chance(value: float, stage: str, name: str, ouvert: bool = False) -> float:
        return win_probability(value, stage, 1, 6.0, NULL, calibration=name, ouvert=ouvert)

    for value in (0.2, 0.5, 0.8, 1.0):  # the null's neighbour values (strong: 0.33-0.67)
        for stage in ("put", "pickup"):
            assert chance(value, stage, "played_null_knn6") < chance(
                value, stage, "played_grand_hand")
        for stage, ouvert in (("put", False), ("pickup", False), ("hand", False),
                              ("put", True)):
            assert chance(value, stage, "played_null_knn6", ouvert) <= chance(
                value, stage, "strong", ouvert)


def test_played_suit_knn7_lowers_the_suit_games_only() -> None:
    """``played_suit_knn7`` (``skat_open_map.py --own --types suit,suit_hand --keep
    played_null_knn6``): grand and null keep ``played_null_knn6``'s chances; every suit
    game's chance, with the skat or hand, is lower (the refit takes 0.3-0.4 off its
    log-odds)."""
    ps, _ = refitted("played_suit_knn7", "played_null_knn6", ("suit", "suit_hand"))
    assert "--told-by played_null_knn6" in ps["map_made"]["by"]
    lowered = 0
    for game, stage, got, plain in beside("played_suit_knn7", "played_null_knn6"):
        if game < GRAND:
            assert got < plain, (game, stage)
            lowered += 1
        else:
            assert got == plain, (game, stage)
    assert lowered >= 10


def test_played_suit_knn10_lowers_the_suit_games_and_grand_hand_only() -> None:
    """``played_suit_knn10`` (``skat_open_map.py --own --types suit,suit_hand,grand_hand
    --told-by played_suit_knn7 --keep played_suit_knn7``, fitted on ``knn10``'s own games
    against its margin defence): grand with the skat and the nulls keep
    ``played_suit_knn7``'s chances; the suit games' with the skat are lower at every value
    (the defence beats more of them), and a hand game's is nowhere higher where it would be
    declared (from 0.7: the hand games fitted on were told 0.83 and more; below about 0.63
    the refit's flatter slope lifts a hand game's chance a little)."""
    new, _ = refitted("played_suit_knn10", "played_suit_knn7", ("suit", "suit_hand", "grand_hand"))
    assert "--told-by played_suit_knn7" in new["map_made"]["by"]
    lowered = 0
    for game, stage, got, plain in beside("played_suit_knn10", "played_suit_knn7"):
        if game < GRAND and stage != "hand":
            assert got < plain, (game, stage)
            lowered += 1
        elif game == GRAND and stage == "hand" or game < GRAND:
            assert got <= plain or plain < 0.7, (game, stage)
        else:
            assert got == plain, (game, stage)
    assert lowered == 10


def test_played_put_knn10_lowers_the_suit_games_after_picking_up_only() -> None:
    """``played_put_knn10`` (``played_suit_knn10``'s fit of suit and suit hand with
    ``--after-pickup``): a suit game's chance after picking up and a suit hand's are
    ``played_suit_knn10``'s; at the bidding (stage ``pickup``) a suit game keeps
    ``played_suit_knn7``'s through the ``suit_pickup`` map, and grand and null keep
    ``played_suit_knn7``'s chances at every stage - so the bidding on suit hands with the
    skat is ``knn10``'s while the chance told after picking up is the refit's."""
    new, k7 = refitted("played_put_knn10", "played_suit_knn7", ("suit", "suit_hand", "suit_pickup"))
    k10 = json.loads((CALIBRATION_DIR / "played_suit_knn10.json").read_text())
    assert new["map"] == {**k7["map"], "suit": k10["map"]["suit"],
                          "suit_hand": k10["map"]["suit_hand"], "suit_pickup": k7["map"]["suit"]}
    assert new["map_made"]["by"].endswith("--types suit,suit_hand --keep played_suit_knn7 "
                                          "--after-pickup")
    kept = moved = 0
    for (game, stage, got, k10_chance), (_, _, _, k7_chance) in zip(
            beside("played_put_knn10", "played_suit_knn10"),
            beside("played_put_knn10", "played_suit_knn7"), strict=True):
        if game < GRAND and stage == "pickup":
            assert got == k7_chance > k10_chance, (game, stage)
            kept += 1
        elif game < GRAND:
            assert got == k10_chance, (game, stage)
            moved += got != k7_chance
        else:
            assert got == k7_chance, (game, stage)
    assert kept == 5 and moved >= 10
