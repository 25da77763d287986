"""``caution``: the knn bot's win chances moved towards the open-hand bound's.

The map (``data/skat_calibration/open-bound.json``, made by
``experiments/skat_open_map.py``) gives, per game type, the log-odds a game has against the
open-hand defence from the log-odds the calibration gives it; ``caution`` c decides by
``(1 - c) z + c (a + b z)``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.calibration import GAME_TYPES
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError
from spielwerk.games.skat_ai.params import (
    CALIBRATION_DIR,
    OPEN_MAP,
    KnnParams,
    win_probability,
)

MAP = json.loads((CALIBRATION_DIR / f"{OPEN_MAP}.json").read_text())
CASES = [  # (game, stage, ouvert, the map's type)
    (0, "put", False, "suit"), (2, "hand", False, "suit_hand"), (GRAND, "put", False, "grand"),
    (GRAND, "hand", False, "grand_hand"), (NULL, "put", False, "null"),
    (NULL, "hand", False, "null_hand"), (NULL, "put", True, "null_ouvert"),
    (NULL, "hand", True, "null_ouvert"),
]


def logit(p: float) -> float:
    return math.log(p / (1 - p))


def test_the_map_says_how_it_was_made_and_covers_every_type() -> None:
    assert MAP["format"] == "spielwerk-skat-open-map"
    assert set(MAP["maps"]["strong"]) == set(GAME_TYPES)
    made = MAP["made"]["strong"]
    assert "skat_open_map.py" in made["by"] and sum(made["records"].values()) > 1000


@pytest.mark.parametrize(("game", "stage", "ouvert", "kind"), CASES)
def test_caution_interpolates_the_log_odds_towards_the_map(game: int, stage: str,
                                                           ouvert: bool, kind: str) -> None:
    a, b = MAP["maps"]["strong"][kind]
    value = 0.9 if game == NULL else 62.0
    for position in range(3):
        plain = win_probability(value, stage, position, 7.0, game, calibration="strong",
                                ouvert=ouvert)
        assert win_probability(value, stage, position, 7.0, game, calibration="strong",
                               ouvert=ouvert, caution=0.0) == plain
        z = logit(plain)
        for c in (0.25, 0.4, 1.0):
            got = win_probability(value, stage, position, 7.0, game, calibration="strong",
                                  ouvert=ouvert, caution=c)
            assert logit(got) == pytest.approx((1 - c) * z + c * (a + b * z), abs=1e-9)


def test_the_bound_is_pessimistic_where_games_are_declared() -> None:
    """Open hands beat every defence, so against them no declared game is more likely won:
    at the chances the bot declares with (0.6-0.99) the map lowers every type's chance
    (null ouvert, whose cards are open to any defence, may stay where it is)."""
    maps = MAP["maps"]["strong"]
    for kind, (a, b) in maps.items():
        for p in np.linspace(0.6, 0.99, 14):
            z = logit(float(p))
            assert a + b * z <= z + (0.05 if kind == "null_ouvert" else 1e-9), (kind, p)


def test_caution_needs_a_per_type_calibration_and_a_share() -> None:
    game = load_game("skat")
    with pytest.raises(KnowledgeBaseError, match="caution needs a per-type calibration"):
        make_agent("knn:caution=0.5:calibration=pimc", game, 0)
    with pytest.raises(AgentSpecError, match="caution"):
        make_agent("knn:caution=1.5", game, 0)
    with pytest.raises(KnowledgeBaseError, match="per-type calibration"):
        win_probability(60.0, "put", 0, calibration="rule", caution=0.5)
    assert make_agent("knn:caution=0.4", game, 0).params.caution == 0.4  # type: ignore[attr-defined]


def test_a_cautious_bot_bids_only_hands_the_plain_bot_bids() -> None:
    """Every game's expected score falls with its chance, and caution lowers every chance
    where games are declared: a hand the cautious bot plays, the plain bot plays too."""
    model = KnnModel.load()
    plain, careful = KnnParams(calibration="strong"), KnnParams(calibration="strong",
                                                                caution=0.4)
    rng = np.random.default_rng(42)
    both = only_plain = 0
    for i in range(300):
        hand = int(sum(1 << int(c) for c in rng.choice(32, 10, replace=False)))
        p = decide_bid(model, hand, plain, i % 3)
        c = decide_bid(model, hand, careful, i % 3)
        if c.game >= 0:
            assert p.game >= 0, hand
            assert c.max_bid <= p.max_bid or c.game == NULL, hand
            both += 1
        elif p.game >= 0:
            only_plain += 1
    assert both > 0 and only_plain > 0  # caution changed some decisions, not all


def test_the_declaration_chance_is_the_calibrations_and_cautious_on_request() -> None:
    """``declaration_chance`` tells the calibration's chance whatever the caution, and with
    ``cautious=True`` the chance the decisions compared."""
    from skat_helpers import declared_deals

    game = load_game("skat")
    for agents, state in declared_deals("knn:worlds=1:put_grand_shift=0:put_null_shift=0", 7, 40):
        if state.contract.ouvert:
            continue
        me = state.declarer
        careful = make_agent("knn:worlds=1:put_grand_shift=0:put_null_shift=0:caution=1.0",
                             game, 0)
        plain_chance = agents[me].declaration_chance(state.info_state(me))  # type: ignore[attr-defined]
        careful_chance = careful.declaration_chance(state.info_state(me))  # type: ignore[attr-defined]
        assert careful_chance == plain_chance
        cautious = careful.declaration_chance(state.info_state(me), cautious=True)  # type: ignore[attr-defined]
        assert cautious < plain_chance
        assert agents[me].declaration_chance(state.info_state(me), cautious=True) == plain_chance  # type: ignore[attr-defined]
        return
    pytest.fail("no declared game in 40 deals")
