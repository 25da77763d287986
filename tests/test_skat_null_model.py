"""``null_model=features``: a plain null's chance after picking up from the ten cards kept and
the two put (``games/skat_ai/null_model.py``), and its fit
(``experiments/skat_null_model.py``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from skat_helpers import declared_deals, experiment
from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import NULL, as_hand, string_to_card
from spielwerk.games.skat_ai import null_model
from spielwerk.games.skat_ai.knowledge.features import null_count
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError
from spielwerk.games.skat_ai.null_model import (
    FEATURES,
    best_null_put,
    null_put_chance,
    null_put_features,
)

ROOT = Path(__file__).resolve().parents[1]
SAFE = "C7 C9 CJ S7 S9 SJ H7 H9 D7 D8"
"""Every suit safe: 7 9 J (null ranks 0 2 4), 7 9, 7 8."""


def mask(cards: str) -> int:
    return sum(1 << string_to_card(c) for c in cards.split())


def features(ten: str, put: str, position: int) -> dict[str, float]:
    return dict(zip(FEATURES, null_put_features(mask(ten), mask(put), position), strict=True))


def test_a_hand_with_every_suit_safe() -> None:
    assert features(SAFE, "DA HA", 1) == {
        "safe": 1, "fewest_out": 7, "voids": 0, "risk": 0, "suits_at_risk": 0,
        "short_risk": 0, "long_risk": 0, "forehand": 0}
    assert features(SAFE, "DA HA", 0)["forehand"] == 1


def test_the_put_cards_below_a_card_are_out_of_play() -> None:
    """Diamonds 8 and A: the A (null rank 7) with one own card below is exposed by 7 - 2 = 5,
    capped at 4; with D7 and D9 put, two of the cards below it are out: 7 - 2 - 2 = 3, and the
    defenders hold 8 - 2 - 2 = 4 diamonds."""
    ten = "C7 C9 CJ S7 S9 SJ H7 H9 D8 DA"
    assert features(ten, "HA HK", 2) == {
        "safe": 0, "fewest_out": 6, "voids": 0, "risk": 4, "suits_at_risk": 1,
        "short_risk": 4, "long_risk": 0, "forehand": 0}
    assert features(ten, "D7 D9", 2) == {
        "safe": 0, "fewest_out": 4, "voids": 0, "risk": 3, "suits_at_risk": 1,
        "short_risk": 3, "long_risk": 0, "forehand": 0}


def test_long_suits_at_risk_and_voids() -> None:
    """Clubs 8 T Q K (null ranks 1 3 5 6): exposures 1, 1, 1, 0 -> 1; hearts 7 8 A: 7 - 4 =
    3; diamonds J Q K: 4; spades void (its two put cards are not held). The defenders hold 4
    clubs and 5 of the others."""
    got = features("C8 CT CQ CK H7 H8 HA DJ DQ DK", "SA SK", 0)
    assert got == {"safe": 0, "fewest_out": 4, "voids": 1, "risk": 1 + 3 + 4,
                   "suits_at_risk": 3, "short_risk": 0, "long_risk": 8, "forehand": 1}


def test_the_chance_is_the_logistic_of_the_shipped_weights() -> None:
    w = json.loads((ROOT / "src/spielwerk/data/skat_calibration/null_put.json").read_text())
    w = w["weights"]
    ten, put = mask("C8 CT CQ CK H7 H8 HA DJ DQ DK"), mask("SA SK")
    x = null_put_features(ten, put, 0)
    z = w["intercept"] + sum(w[f] * v for f, v in zip(FEATURES, x, strict=True))
    assert null_put_chance(ten, put, 0) == pytest.approx(1 / (1 + math.exp(-z)))
    assert null_put_chance(ten, put, 0, shift=-0.5) == pytest.approx(1 / (1 + math.exp(-z - 0.5)))
    assert null_put_chance(mask(SAFE), mask("DA HA"), 1) > 0.95 > null_put_chance(ten, put, 0)


def test_the_best_put_is_the_best_of_all_66() -> None:
    rng = np.random.default_rng(3)
    for position in range(3):
        twelve = int(sum(1 << int(c) for c in rng.choice(32, 12, replace=False)))
        put, chance = best_null_put(twelve, position)
        cards = [c for c in range(32) if twelve >> c & 1]
        every = [null_put_chance(twelve & ~((1 << a) | (1 << b)), (1 << a) | (1 << b), position)
                 for i, a in enumerate(cards) for b in cards[i + 1:]]
        assert len(every) == 66 and chance == max(every)
        assert put.bit_count() == 2 and put & twelve == put
        assert null_put_chance(twelve & ~put, put, position) == chance
    # the safe hand with two aces to put: putting the aces keeps every suit safe
    twelve = as_hand([*SAFE.split(), "DA", "HA"])
    assert best_null_put(twelve, 1)[0] == mask("DA HA")


@pytest.mark.parametrize("content", [
    "not json", json.dumps({"format": "other", "weights": {}}),
    json.dumps({"format": null_model.FORMAT, "weights": {"intercept": 0.0}}),
    json.dumps({"format": null_model.FORMAT,
                "weights": {"intercept": float("nan"), **{f: 0.0 for f in FEATURES}}}),
])
def test_a_bad_model_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     content: str) -> None:
    (tmp_path / f"{null_model.MODEL_FILE}.json").write_text(content)
    monkeypatch.setattr(null_model, "CALIBRATION_DIR", tmp_path)
    null_model.null_model.cache_clear()
    try:
        with pytest.raises(KnowledgeBaseError, match="null"):
            null_model.null_model()
    finally:
        null_model.null_model.cache_clear()


def test_the_agent_puts_and_tells_by_the_model() -> None:
    """A plain null declared after picking up by ``knn:null_model=features``: the put is
    :func:`best_null_put`'s and the chance told is the model's (the chance decided has
    ``put_null_shift`` taken off its log-odds)."""
    found = 0
    for agents, state in declared_deals("knn:worlds=1:null_model=features", 9, 400):
        c = state.contract
        if c.game != NULL or c.hand or c.ouvert:
            continue
        d = state.declarer
        info = state.info_state(d)
        position = state.game.position_of(d)
        twelve = state.hands[d] | state.put
        assert state.put == best_null_put(twelve, position)[0]
        told = agents[d].declaration_chance(info)  # type: ignore[attr-defined]
        assert told == pytest.approx(null_put_chance(state.hands[d], state.put, position))
        decided = agents[d].declaration_chance(info, cautious=True)  # type: ignore[attr-defined]
        shift = agents[d].params.put_null_shift  # type: ignore[attr-defined]
        assert shift != 0 and decided == pytest.approx(
            null_put_chance(state.hands[d], state.put, position, shift=shift))
        found += 1
        if found == 2:
            return
    pytest.fail(f"{found} plain nulls after picking up in 400 deals, 2 wanted")


def test_the_knn_default_takes_the_model_and_knn8_the_calibrations_null() -> None:
    game = load_game("skat")
    assert make_agent("knn", game, 0).params.null_model == "features"  # type: ignore[attr-defined]
    assert make_agent("knn8", game, 0).params.null_model == "knn"  # type: ignore[attr-defined]
    with pytest.raises(Exception, match="null_model"):
        make_agent("knn:null_model=other", game, 0)


# ----- the fit -------------------------------------------------------------------------------

def load_script():  # type: ignore[no-untyped-def]
    """``experiments/skat_null_model.py``, imported as the experiments import each other."""
    return experiment("skat_null_model")


def test_auc_counts_pairs() -> None:
    script = load_script()
    won = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    score = np.array([0.9, 0.1, 0.4, 0.4, 0.2])
    pairs = [(p, n) for p in score[won == 1] for n in score[won == 0]]
    brute = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in pairs) / len(pairs)
    assert script.auc(score, won) == pytest.approx(brute)


def test_the_fit_recovers_a_known_model() -> None:
    script = load_script()
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4000, 2))
    true = np.array([0.5, 1.5, -1.0])
    won = (rng.random(4000) < 1 / (1 + np.exp(-(true[0] + x @ true[1:])))).astype(float)
    assert script.fit(x, won) == pytest.approx(true, abs=0.2)


def own_nulls_file(path: Path, spec: str, seed: int, wanted: int) -> list[dict]:
    """An own-nulls file of the first ``wanted`` plain nulls ``spec`` declares (made-up
    outcomes: the script reads the declaration from the seeds)."""
    script = load_script()
    game = load_game("skat")
    agents = [make_agent(spec, game, 0) for _ in range(3)]
    rows: list[dict] = []
    deal = 0
    while len(rows) < wanted:
        state, _ = script.reach_declaration(game, agents, seed, deal, "none")
        if state is not None and state.contract.game == NULL and not (
                state.contract.hand or state.contract.ouvert):
            rows.append({"deal": deal, "passed": False, "declarer": state.declarer,
                         "type": "null", "predicted": 0.5, "decided": 0.6,
                         spec: {"ours": {"won": deal % 2 == 0}, "open": {"won": False}}})
        deal += 1
        assert deal < 2000
    head = {"agent": spec, "seed": seed, "declarers": [spec], "defence": "knn",
            "force": "own-nulls"}
    path.write_text("\n".join(json.dumps(r) for r in [head, *rows]) + "\n")
    return rows


def test_the_nulls_are_reached_again_or_refused(tmp_path: Path) -> None:
    script = load_script()
    path = tmp_path / "own.jsonl"
    made = own_nulls_file(path, "knn:worlds=1", 4, 3)
    rows = script.read_nulls(path, None)
    assert [r["won"] for r in rows] == [r["knn:worlds=1"]["ours"]["won"] for r in made]
    assert all(len(r["x"]) == len(FEATURES) for r in rows)
    with pytest.raises(SystemExit, match="--agent"):
        script.read_nulls(path, "knn:worlds=1:decision=threshold")
    other = tmp_path / "calibration.jsonl"
    other.write_text(json.dumps({"agent": "knn", "seed": 1}) + "\n")
    with pytest.raises(SystemExit, match="own-nulls"):
        script.read_nulls(other, None)


def test_null_ouvert_takes_the_plain_chance_only_where_every_suit_is_safe() -> None:
    from spielwerk.games.skat_ai.null_model import all_safe
    from spielwerk.games.skat_ai.params import KnnParams
    from spielwerk.games.skat_ai.putting import put_chance

    safe_twelve, safe_put = as_hand([*SAFE.split(), "DA", "HA"]), mask("DA HA")
    risky_twelve, risky_put = mask("C8 CT CQ CK H7 H8 HA DJ DQ DK SA SK"), mask("SA SK")
    assert all_safe(safe_twelve & ~safe_put, safe_put)
    assert not all_safe(risky_twelve & ~risky_put, risky_put)
    features, knn = KnnParams(null_model="features"), KnnParams(null_model="knn")
    for twelve, put, safe in ((safe_twelve, safe_put, True), (risky_twelve, risky_put, False)):
        ten = twelve & ~put
        plain = put_chance(features, (put, 0.6), twelve, NULL, 1)
        assert plain == null_put_chance(ten, put, 1)
        ouvert = put_chance(features, (put, 0.6), twelve, NULL, 1, ouvert=True)
        calibrated = put_chance(knn, (put, 0.6), twelve, NULL, 1, ouvert=True)
        assert ouvert == (plain if safe else calibrated)
        assert calibrated == knn.chance(0.6, "put", 1, float(null_count(ten)[0]), NULL,
                                        ouvert=True)
    assert put_chance(features, (safe_put, 0.6), safe_twelve, NULL, 1, True, shift=1.0) < (
        put_chance(features, (safe_put, 0.6), safe_twelve, NULL, 1, True))
