"""The ``knn`` agents' parameters: what every registered knn agent resolves its spec to.

The snapshot below is the resolution computed from the code *before* the knn parameters were
declared once (``KnnParams`` and ``KnnSettings`` each declared the 14 decision parameters,
with other defaults for ``decision`` and ``calibration``, and the frozen bots declared
``worlds`` again): a regression guard that the refactor, and any later one, leaves every
knn agent deciding exactly as it did.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest

from spielwerk.core.agent import AgentSpecError, list_agents, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat_ai.knn_agent import FROZEN, SkatKnnAgent

# the pre-refactor resolution (git 966638e, the default card play infer since B's matches,
# docs/evaluations/skat-infer-played.md): the knn agent's settings and the decision
# parameters it decides with (``calibration=auto`` resolved by its card play)
KNN_SETTINGS: dict[str, Any] = {
    "worlds": 32, "time": 0.0, "deadline": False, "infer": "auction", "play_model": "net",
    "endgame": 0, "k": 12, "extensions": True, "putting": "refined", "base": "",
    "hand_threshold": 64.0, "pickup_threshold": 52.0, "null_threshold": 0.8, "scaling": "std",
    "bidding": "knn", "play": "infer", "null_ties": True, "null_lead": False,
    "null_defence": True,
    "suit_defence": False, "suit_margin": 10, "suit_slack": 0, "put_rules": "seed",
    "choose_by_put": True, "switch_margin": 0.0, "contest_margin": 6.0, "decision": "score",
    "loss_bonus": 40.0, "ev_margin": 0.0, "game_choice": "value", "contest_shift": 1.0,
    "calibration": "auto", "caution": 0.0, "bid_caution": 0.0, "put_grand_shift": 0.85,
    "put_null_shift": -0.15,
    "null_model": "features", "null_floor": 0.0, "candidates": 4, "power": 1.0,
    "bid_model": "knn2",
}
KNN_PARAMS: dict[str, Any] = {
    "k": 12, "hand_threshold": 64.0, "pickup_threshold": 52.0, "null_threshold": 0.8,
    "extensions": True, "put_rules": "seed", "switch_margin": 0.0, "contest_margin": 6.0,
    "decision": "score", "loss_bonus": 40.0, "ev_margin": 0.0, "contest_shift": 1.0,
    "game_choice": "value", "calibration": "played_suit_knn7", "caution": 0.0,
    "bid_caution": 0.0,
    "put_grand_shift": 0.85, "put_null_shift": -0.15, "null_model": "features",
    "null_floor": 0.0,
}
OFF = {"suit_margin": 0}  # every frozen bot before knn10
OLD = {"put_grand_shift": 0.0, "put_null_shift": 0.0, "null_model": "knn"}  # before knn5
KNN1 = {"decision": "ev", "calibration": "pimc", "null_ties": False, "null_defence": False,
        "play": "pimc", **OLD, **OFF}
KNN2 = {"calibration": "strong", "null_defence": False, "play": "pimc", **OLD, **OFF}
KNN3 = {"calibration": "strong", "play": "pimc", **OLD, **OFF}  # the default before play=infer
KNN4 = {"calibration": "played_grand_hand", **OLD, **OFF}  # before put_grand_shift
SHIFTS = {"put_grand_shift": 0.5, "put_null_shift": -0.5, "null_model": "knn"}  # knn6, knn7
KNN5 = {"calibration": "played_grand_hand", "put_grand_shift": 0.5, "put_null_shift": 0.0,
        "null_model": "knn", **OFF}
KNN6 = {"calibration": "played_grand_hand", **SHIFTS, **OFF}  # the default before the null refit
KNN7 = {"calibration": "played_null_knn6", **SHIFTS, **OFF}  # the default before the suit refit
KNN8 = {"calibration": "played_suit_knn7", "null_model": "knn", **OFF}  # before the null model
KNN9 = {"calibration": "played_suit_knn7", **OFF}  # before the suit margin
KNN10 = {"calibration": "played_suit_knn7"}  # the default, frozen
# spec -> (settings, decision parameters), each as the knn agent's above but for these
RESOLVED: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "knn": ({}, {}),
    "knn1": (KNN1, {"decision": "ev", "calibration": "pimc", **OLD}),
    "knn1:worlds=2:time=0.5": ({**KNN1, "worlds": 2, "time": 0.5},
                               {"decision": "ev", "calibration": "pimc", **OLD}),
    "knn:decision=ev": ({"decision": "ev"}, {"decision": "ev", "calibration": "pimc"}),
    "knn:play=rule": ({"play": "rule"}, {"calibration": "rule"}),
    "knn:play=infer": ({"play": "infer"}, {}),
    "knn:play=pimc": ({"play": "pimc"}, {"calibration": "strong"}),
    "knn:decision=ev:play=pimc": ({"decision": "ev", "play": "pimc"},
                                  {"decision": "ev", "calibration": "pimc"}),
    "knn2": (KNN2, {"calibration": "strong", **OLD}),
    "knn:null_defence=false": ({"null_defence": False}, {}),
    "knn3": (KNN3, {"calibration": "strong", **OLD}),
    "knn4": (KNN4, {"calibration": "played_grand_hand", **OLD}),
    "knn5": (KNN5, {"calibration": "played_grand_hand", "put_grand_shift": 0.5,
                    "put_null_shift": 0.0, "null_model": "knn"}),
    "knn6": (KNN6, {"calibration": "played_grand_hand", **SHIFTS}),
    "knn7": (KNN7, {"calibration": "played_null_knn6", **SHIFTS}),
    "knn8": (KNN8, {"calibration": "played_suit_knn7", "null_model": "knn"}),
    "knn9": (KNN9, {"calibration": "played_suit_knn7"}),
    "knn10": (KNN10, {"calibration": "played_suit_knn7"}),
    "knn:suit_margin=0": ({"suit_margin": 0}, {}),
    "knn:put_grand_shift=0": ({"put_grand_shift": 0.0}, {"put_grand_shift": 0.0}),
    "knn:caution=0.1": ({"caution": 0.1}, {"caution": 0.1}),
    "knn:null_floor=0.6": ({"null_floor": 0.6}, {"null_floor": 0.6}),
    "knn:decision=threshold:play=rule": ({"decision": "threshold", "play": "rule"},
                                         {"decision": "threshold", "calibration": "rule"}),
}
SPEC_DEFAULTS = {"knn": KNN_SETTINGS, "knn1": {"worlds": 32, "time": 0.0, "base": ""},
                 "knn2": {"worlds": 32, "time": 0.0, "base": ""},
                 "knn3": {"worlds": 32, "time": 0.0, "base": ""},
                 "knn4": {"worlds": 32, "time": 0.0, "base": ""},
                 "knn5": {"worlds": 32, "time": 0.0, "base": ""},
                 "knn6": {"worlds": 32, "time": 0.0, "base": ""},
                 "knn7": {"worlds": 32, "time": 0.0, "base": ""},
                 "knn8": {"worlds": 32, "time": 0.0, "base": ""},
                 "knn9": {"worlds": 32, "time": 0.0, "base": ""},
                 "knn10": {"worlds": 32, "time": 0.0, "base": ""}}


def knn_agent_names() -> set[str]:
    return {e.name for e in list_agents("skat") if e.factory is SkatKnnAgent} | set(FROZEN)


def test_every_knn_agent_is_in_the_snapshot() -> None:
    assert knn_agent_names() == {"knn", "knn1", "knn2", "knn3", "knn4", "knn5", "knn6",
                                 "knn7", "knn8", "knn9", "knn10"}, \
        "a new knn agent: add its resolution here"
    assert {spec.split(":")[0] for spec in RESOLVED} == knn_agent_names()


@pytest.mark.parametrize("spec", list(RESOLVED))
def test_a_knn_spec_resolves_as_before(spec: str) -> None:
    agent = make_agent(spec, load_game("skat"), seed=0)
    settings, params = RESOLVED[spec]
    assert asdict(agent.settings) == {**KNN_SETTINGS, **settings}  # type: ignore[attr-defined]
    assert asdict(agent.params) == {**KNN_PARAMS, **params}  # type: ignore[attr-defined]


def test_the_spec_defaults_are_as_before() -> None:
    defaults = {e.name: e.defaults for e in list_agents("skat") if e.name in knn_agent_names()}
    assert defaults == SPEC_DEFAULTS


# ----- one declaration ---------------------------------------------------------------------
def test_the_decision_parameters_are_declared_once() -> None:
    from dataclasses import fields

    from spielwerk.games.skat_ai.knn_agent import KnnSettings
    from spielwerk.games.skat_ai.params import KnnParams

    decision = {f.name for f in fields(KnnParams)}
    assert len(decision) == 20 and decision < {f.name for f in fields(KnnSettings)}
    assert not decision & set(KnnSettings.__annotations__)  # the agent does not declare them
    # the library's defaults are the shipped agent's decisions: one default, not two
    shipped = make_agent("knn", load_game("skat"), seed=0).params  # type: ignore[attr-defined]
    assert KnnParams().resolved() == shipped
    assert (KnnParams().decision, KnnParams().win_chances) == ("score", "played_suit_knn7")
    assert KnnParams(decision="ev").win_chances == "pimc"  # auto: that of PIMC card play


def test_a_frozen_bot_pins_values_checked_against_the_declaration() -> None:
    from spielwerk.core.agent import AgentSpecError
    from spielwerk.games.skat_ai.knn_agent import FROZEN_FREE, pinned

    pins = dict(FROZEN["knn1"][0])
    assert not set(pins) & set(FROZEN_FREE)
    assert pinned("knn1", pins) == pins
    with pytest.raises(ValueError, match=r"missing \['k'\]"):
        pinned("x", {k: v for k, v in pins.items() if k != "k"})
    with pytest.raises(ValueError, match=r"not pinnable \['worlds'\]"):
        pinned("x", {**pins, "worlds": 4})  # left to the spec
    with pytest.raises(ValueError, match="k='12' is not int"):
        pinned("x", {**pins, "k": "12"})
    with pytest.raises(ValueError, match="extensions=1 is not bool"):
        pinned("x", {**pins, "extensions": 1})
    with pytest.raises(AgentSpecError, match="'null_threshold' must be in 0..1"):
        pinned("x", {**pins, "null_threshold": 2.0})
    assert pinned("x", {**pins, "hand_threshold": 64})["hand_threshold"] == 64  # int for float


def test_the_worlds_weights_reach_the_card_play() -> None:
    game = load_game("skat")
    default = make_agent("knn", game, seed=0).player.inference  # type: ignore[attr-defined]
    assert (default.settings.candidates, default.settings.power) == (4, 1.0)
    tuned = make_agent("knn:candidates=16:power=2", game, seed=0)
    settings = tuned.player.inference.settings  # type: ignore[attr-defined]
    assert (settings.candidates, settings.power) == (16, 2.0)
    # the rest of the inference is the default's
    assert {k: v for k, v in vars(settings).items() if k not in ("candidates", "power")} == \
        {k: v for k, v in vars(default.settings).items() if k not in ("candidates", "power")}
    for spec in ("knn:candidates=0", "knn:power=5"):
        with pytest.raises(AgentSpecError, match="candidates|power"):
            make_agent(spec, game, seed=0)


def test_each_frozen_bot_says_what_it_is_in_the_agent_lists() -> None:
    from spielwerk.games.skat_ai.knn_agent import FROZEN_NOTES

    assert set(FROZEN_NOTES) == set(FROZEN)
    described = {e.name: e.description for e in list_agents("skat") if e.name in FROZEN}
    assert set(described) == set(FROZEN)
    assert len(set(described.values())) == len(FROZEN)  # no two alike
    for name, text in described.items():
        assert FROZEN_NOTES[name] in text and "pinned" in text, (name, text)
