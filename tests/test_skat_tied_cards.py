"""``experiments/skat_tied_cards.py``: the tied decisions it records are the vote's ties,
their keeping cards are the real deal's (checked against the solver on an independent
replay), the margin's scores are those the defence chose by, and the rules are scored as
stated."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from skat_helpers import experiment
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import POINTS_BY_CARD
from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai import pimc_agent
from spielwerk.games.skat_ai.defence_runs import DefenceRun, reach_declaration, table_seats

DEFENCE = "pimc:worlds=8:suit_margin=10"
SEED = 31  # deals 3 and 8: the rule declarer against DEFENCE, with ties of both kinds


def _players() -> tuple[Any, list[Any], list[Any]]:
    game = load_game("skat")
    return (game, [make_agent("rule", game, 0) for _ in range(3)],
            [make_agent(DEFENCE, game, 0) for _ in range(3)])


Decisions = dict[tuple[int, int, int], tuple[dict[int, int], dict[int, bool]]]


def _decisions(deal: int) -> tuple[int, Decisions]:
    """The deal's game code and per defender decision (player, trick, cards in the trick)
    the vote's counts and the solver's verdict per legal card (the declarer still wins),
    from a replay of its own."""
    game, agents, defenders = _players()
    state, chance = reach_declaration(game, agents, SEED, deal, "none")
    seats = table_seats(state.declarer, agents, defenders, SEED, deal)
    solver, goal = Solver(), state.contract.goal()
    seen: Decisions = {}

    def chosen(s: Any, player: int, action: int) -> None:
        if player in (0, 1, 2) and action < 32 and player != state.declarer:
            pos = deal_from_state(s)
            vote = seats[player].last
            if vote is not None and vote.action == action:
                key = (player, 11 - int(pos.hands[player]).bit_count(), len(pos.trick))
                seen[key] = (dict(vote.best_counts),
                             {c: bool(v) for c, v in solver.move_values(pos, goal).items()})

    play(state.clone(), seats, np.random.default_rng(chance), before=chosen)
    return state.game_code, seen


def test_the_recorded_ties_are_the_votes_with_the_real_deals_keeping_cards() -> None:
    tied = experiment("skat_tied_cards")
    plain = pimc_agent.margin_preference
    places = {"lead": 0, "second": 1, "third": 2}
    mixed = 0
    for deal in (3, 8):
        _, agents, defenders = _players()
        got = tied.replay_ties(load_game("skat"), agents, defenders, SEED, deal, "none", Solver())
        assert pimc_agent.margin_preference is plain  # the recording is undone
        code, truth = _decisions(deal)
        assert got["ties"]
        for d in got["ties"]:
            counts, values = truth[(d["player"], d["trick"], places[d["place"]])]
            top = max(counts.values())
            assert sorted(int(c) for c in d["facts"]) == sorted(
                c for c, n in counts.items() if n == top)
            assert sorted(d["keeps"]) == sorted(int(c) for c in d["facts"] if not values[int(c)])
            assert not all(values.values()) and str(d["chosen"]) in d["facts"]
            assert set(d["margin"]) == set(d["facts"])
            best = max(d["margin"].values())
            if min(d["margin"].values()) < best:  # the margin chose: its first best card
                assert d["chosen"] == min(int(c) for c, v in d["margin"].items() if v == best)
            mixed += 0 < len(d["keeps"]) < len(d["facts"])
            for c, f in d["facts"].items():
                card = int(c)
                assert f["points"] == POINTS_BY_CARD[card]
                assert f["trump"] == bool(kernel.trump_mask(code) >> card & 1)
                assert ("takes" in f) == (d["place"] != "lead")
    assert mixed >= 2  # tied cards that differ in the real deal


def test_the_rules_are_scored_among_the_tied_and_the_margins_best() -> None:
    tied = experiment("skat_tied_cards")
    facts = {"1": {"points": 0, "length": 1}, "2": {"points": 11, "length": 3},
             "3": {"points": 10, "length": 1}}
    d = {"keeps": [1, 2], "facts": facts, "margin": {"1": 5, "2": 7, "3": 7}}
    assert tied.keep_chance(d, ["1", "2", "3"]) == 2 / 3
    fewest = tied.RULES["fewest points"]
    shortest = tied.RULES["shortest suit"]
    assert tied.rule_pick(d, fewest) == ["1"]
    assert sorted(tied.rule_pick(d, shortest)) == ["1", "3"]
    assert tied.margin_first(d, fewest) == ["3"]  # of 2 and 3, the margin's best
    assert tied.margin_first({**d, "margin": None}, fewest) == ["1"]


def test_the_script_writes_resumes_and_summarizes(tmp_path: Path, capsys: Any) -> None:
    tied = experiment("skat_tied_cards")
    gap = experiment("skat_defence_gap")
    results = tmp_path / "cmp.jsonl"
    gap.run_defences(results, DefenceRun("rule", (DEFENCE,), seed=SEED), 9, "serial", 1,
                     every=9)
    out = tmp_path / "tied.jsonl"
    argv = sys.argv
    try:
        for _ in range(2):  # the second run finds every game done
            sys.argv = ["skat_tied_cards.py", str(results), "--defence", DEFENCE, "--types",
                        "suit,grand,null", "--out", str(out)]
            tied.main()
    finally:
        sys.argv = argv
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["defence"] == DEFENCE and lines[0]["seed"] == SEED
    assert sorted(r["deal"] for r in lines[1:]) == [0, 2, 3, 4, 6, 7, 8]
    printed = capsys.readouterr().out
    assert "7 games," in printed and "with tied cards that differ" in printed


def test_a_shard_is_k_of_n_or_refused() -> None:
    import argparse

    import pytest
    tied = experiment("skat_tied_cards")
    assert tied.shard("1/4") == (1, 4)
    for bad in ("4/4", "-1/2", "x", "1/2/3"):
        with pytest.raises(argparse.ArgumentTypeError):
            tied.shard(bad)
