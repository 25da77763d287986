"""``bid_caution``: the bidding's win chances moved further towards the open-hand bound.

The chances of the stages the bidding compares (``hand``, ``pickup``) move by
``caution + bid_caution`` (at most 1); the game chosen after picking up (stage ``put``)
keeps ``caution``'s; the chance a declaration reports stays the calibration's.
"""

from __future__ import annotations

import pytest

from skat_helpers import declared_deals, random_hands
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError
from spielwerk.games.skat_ai.params import KnnParams, win_probability

CAL = "played_suit_knn7"


def test_off_by_default_checked_and_pinned_by_the_frozen_bots() -> None:
    game = load_game("skat")
    assert KnnParams().bid_caution == 0.0
    assert make_agent("knn:bid_caution=0.3", game, 0).params.bid_caution == 0.3  # type: ignore[attr-defined]
    assert make_agent("knn10", game, 0).params.bid_caution == 0.0  # type: ignore[attr-defined]
    with pytest.raises(AgentSpecError, match="bid_caution"):
        make_agent("knn:bid_caution=1.5", game, 0)
    with pytest.raises(KnowledgeBaseError, match="per-type calibration"):
        make_agent("knn:bid_caution=0.2:calibration=pimc", game, 0)


@pytest.mark.parametrize("game", [0, 3, GRAND, NULL])
def test_the_bidding_stages_move_and_the_put_stage_keeps_caution(game: int) -> None:
    value = 0.8 if game == NULL else 60.0
    for caution, extra in ((0.0, 0.3), (0.2, 0.3), (0.6, 0.7)):
        p = KnnParams(calibration=CAL, caution=caution, bid_caution=extra)
        for position in range(3):
            for stage in ("hand", "pickup"):
                want = win_probability(value, stage, position, 7.0, game, calibration=CAL,
                                       caution=min(1.0, caution + extra))
                assert p.chance(value, stage, position, 7.0, game) == want
            assert p.chance(value, "put", position, 7.0, game) == win_probability(
                value, "put", position, 7.0, game, calibration=CAL, caution=caution)
    plain, careful = KnnParams(calibration=CAL), KnnParams(calibration=CAL, bid_caution=0.5)
    assert careful.chance(value, "pickup", 0, 7.0, game) < plain.chance(value, "pickup", 0,
                                                                        7.0, game)


def test_a_bot_with_bid_caution_bids_only_hands_the_plain_bot_bids() -> None:
    """Lower chances, lower expected scores: the careful bot's bids are a subset of the plain
    bot's, at no higher a limit, and some hands the plain bot bids it passes."""
    model = KnnModel.load()
    plain, careful = KnnParams(calibration=CAL), KnnParams(calibration=CAL, bid_caution=0.4)
    decisions = [(decide_bid(model, hand, plain, i % 3), decide_bid(model, hand, careful, i % 3))
                 for i, hand in enumerate(random_hands(300, 7))]
    assert all(p.game >= 0 for p, c in decisions if c.game >= 0)
    assert all(c.max_bid <= p.max_bid for p, c in decisions if c.game >= 0 and c.game != NULL)
    assert any(c.game >= 0 for _, c in decisions)
    assert any(p.game >= 0 and c.game < 0 for p, c in decisions)


def test_the_declaration_reports_the_calibrations_chance() -> None:
    game = load_game("skat")
    careful = make_agent("knn:worlds=1:bid_caution=1.0", game, 0)
    for agents, state in declared_deals("knn:worlds=1", 11, 40):
        me = state.declarer
        if state.contract.ouvert or not state.info_state(me).picked_up:
            continue  # a hand game's chance is the bidding's: the one bid_caution moves
        plain = agents[me].declaration_chance(state.info_state(me))  # type: ignore[attr-defined]
        assert careful.declaration_chance(state.info_state(me)) == plain  # type: ignore[attr-defined]
        decided = agents[me].declaration_chance(state.info_state(me), cautious=True)  # type: ignore[attr-defined]
        assert careful.declaration_chance(state.info_state(me), cautious=True) == decided  # type: ignore[attr-defined]
        break
    else:
        pytest.fail("no game declared after picking up in 40 deals")
    lower = 0
    for agents, state in declared_deals("knn:worlds=1", 11, 200):
        me = state.declarer
        if state.info_state(me).picked_up or state.contract.ouvert:
            continue
        plain = agents[me].declaration_chance(state.info_state(me))  # type: ignore[attr-defined]
        assert careful.declaration_chance(state.info_state(me)) == plain  # type: ignore[attr-defined]
        cautious = careful.declaration_chance(state.info_state(me), cautious=True)  # type: ignore[attr-defined]
        assert cautious <= plain
        lower += cautious < plain
    assert lower > 0, "no hand game declared in 200 deals"
