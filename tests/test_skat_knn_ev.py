"""The expected-score bidding decision (``decision="ev"``) of the KNN bot."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND
from spielwerk.games.skat.scoring import suit_game_value
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.features import hand_count
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError
from spielwerk.games.skat_ai.params import (
    PIMC_WIN_CALIBRATION,
    WIN_CALIBRATION,
    KnnParams,
    expected_score,
    win_probability,
)


@pytest.fixture(scope="module")
def model() -> KnnModel:
    return KnnModel.load()  # the shipped base


def random_hands(n: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return [int(sum(1 << int(c) for c in rng.choice(32, 10, replace=False))) for _ in range(n)]


def ev_rule(**kwargs: Any) -> KnnParams:
    """The expected-score rule with rule's win chances, which these tests pin (the library's
    default until :class:`KnnParams` took the shipped agent's: score with strong chances)."""
    return KnnParams(decision="ev", calibration="rule", **kwargs)


def test_win_probability_follows_the_calibration() -> None:
    for stage, (w_value, w_count, w_grand, *bias) in WIN_CALIBRATION.items():
        assert w_value > 0 and w_count > 0
        for position, b in enumerate(bias):
            z = w_value * (60 - 55) + w_count * (8 - 7) + b
            assert win_probability(60, stage, position, 8, 0) == pytest.approx(
                1 / (1 + np.exp(-z)))
            assert win_probability(60, stage, position, 8, GRAND) == pytest.approx(
                1 / (1 + np.exp(-z - w_grand)))
            # more value or a higher count: a better chance
            assert win_probability(70, stage, position) > win_probability(60, stage, position)
            assert win_probability(60, stage, position, 9) > win_probability(60, stage,
                                                                               position, 8)
        # the same hand wins less often from forehand (measured under rule's card play)
        assert win_probability(55, stage, 0) < win_probability(55, stage, 2)


def test_expected_score_is_seeger_fabian_with_the_loss_bonus() -> None:
    assert expected_score(1.0, 24) == 74
    assert expected_score(0.0, 24, loss_bonus=40) == -2 * 24 - 50 - 40
    assert expected_score(0.5, 36, loss_bonus=0) == pytest.approx(0.5 * 86 - 0.5 * 122)


def test_a_game_is_declared_exactly_when_its_expected_score_clears_the_margin(
        model: KnnModel) -> None:
    p = ev_rule(extensions=False, contest_margin=0)
    declared = 0
    for ten in random_hands(200, 1):
        for position in range(3):
            d = decide_bid(model, ten, p, position)
            best = max(
                expected_score(win_probability(float(values[g]), stage, position,
                                               hand_count(ten, g), g),
                               suit_game_value(ten, g, hand=stage == "hand"), p.loss_bonus)
                for stage, values in (("hand", d.hand_values), ("pickup", d.pickup_values))
                for g in range(5))
            assert (d.game >= 0) == (best > p.ev_margin)
            declared += d.game >= 0
    assert declared > 0
    never = ev_rule(extensions=False, ev_margin=1000)
    assert all(decide_bid(model, ten, never).game == -1 for ten in random_hands(20, 2))
    always = ev_rule(extensions=False, ev_margin=-1000)
    assert all(decide_bid(model, ten, always).game >= 0 for ten in random_hands(20, 2))


def test_forehand_declares_less_than_rearhand(model: KnnModel) -> None:
    hands = random_hands(300, 3)
    fore = sum(decide_bid(model, ten, ev_rule(), 0).game >= 0 for ten in hands)
    rear = sum(decide_bid(model, ten, ev_rule(), 2).game >= 0 for ten in hands)
    assert fore < rear
    # the threshold rule ignores the position
    t = KnnParams(decision="threshold")
    assert all(decide_bid(model, ten, t, 0).game == decide_bid(model, ten, t, 2).game
               for ten in hands[:50])


def test_decision_names_are_checked() -> None:
    with pytest.raises(KnowledgeBaseError, match="decision"):
        KnnParams(decision="magic")
    game = load_game("skat(players=3)")
    with pytest.raises(AgentSpecError, match="decision"):
        make_agent("knn:decision=magic", game)
    agent = make_agent("knn:decision=threshold:ev_margin=3:loss_bonus=0", game)
    assert agent.params.decision == "threshold"  # type: ignore[attr-defined]


def test_contest_shift_keeps_a_hand_at_18_unless_it_stays_winnable(model: KnnModel) -> None:
    free = ev_rule(extensions=False, contest_shift=0.0)
    strict = ev_rule(extensions=False, contest_shift=2.0)
    limited = 0
    for ten in random_hands(300, 4):
        for position in range(3):
            a, b = decide_bid(model, ten, free, position), decide_bid(model, ten, strict,
                                                                       position)
            assert (a.game, a.hand_game) == (b.game, b.hand_game)  # the same game, bid less
            assert b.max_bid <= a.max_bid
            if a.game < 0:
                continue
            stage = "hand" if a.hand_game else "pickup"
            value = float(a.values[a.game])
            chance = win_probability(value, stage, position, hand_count(ten, a.game), a.game,
                                     shift=2.0)
            keeps = expected_score(chance, suit_game_value(ten, a.game, hand=a.hand_game),
                                   strict.loss_bonus) > strict.ev_margin
            assert b.max_bid == (a.max_bid if keeps else 18)
            limited += not keeps and a.max_bid > 18
    assert limited > 0


def test_the_calibration_follows_the_card_play(model: KnnModel) -> None:
    game = load_game("skat(players=3)")
    # the default: expected-score decisions with the chances of PIMC on every side, the
    # nulls', grand hand's and suit games' lowered (played_suit_knn7), for the card play over
    # worlds weighted by the auction
    default = make_agent("knn", game).params  # type: ignore[attr-defined]
    assert (default.decision, default.calibration) == ("score", "played_suit_knn7")
    plain = make_agent("knn:play=pimc", game).params  # type: ignore[attr-defined]
    assert (plain.decision, plain.calibration) == ("score", "strong")
    ev = make_agent("knn:decision=ev", game)
    assert ev.params.calibration == "pimc"  # type: ignore[attr-defined]
    rule_play = make_agent("knn:play=rule", game)
    assert rule_play.params.calibration == "rule"  # type: ignore[attr-defined]
    named = make_agent("knn:play=pimc:calibration=rule", game)
    assert named.params.calibration == "rule"  # type: ignore[attr-defined]
    with pytest.raises(AgentSpecError, match="calibration"):
        make_agent("knn:calibration=magic", game)
    with pytest.raises(KnowledgeBaseError, match="calibration"):
        KnnParams(calibration="magic")
    # the PIMC weights are used when asked for, the rule weights by default (of win_probability)
    w_value, w_count, w_grand, *bias = PIMC_WIN_CALIBRATION["pickup"]
    z = w_value * (60 - 55) + w_count * (8 - 7) + w_grand + bias[1]
    assert win_probability(60, "pickup", 1, 8, GRAND, calibration="pimc") == pytest.approx(
        1 / (1 + np.exp(-z)))
    # PIMC wins more of the games it declares: the same value is a better chance, and the
    # expected-score rule declares more hands
    for stage in ("pickup", "hand"):
        for position in range(3):
            assert (win_probability(55, stage, position, calibration="pimc")
                    > win_probability(55, stage, position))
    hands = random_hands(300, 4)
    pimc, rule = KnnParams(decision="ev", calibration="pimc"), ev_rule()
    assert (sum(decide_bid(model, ten, pimc, 1).game >= 0 for ten in hands)
            > sum(decide_bid(model, ten, rule, 1).game >= 0 for ten in hands))
