"""``experiments/skat_gap_moves.py``: the replay gives the recorded game, and the cards it
calls losing are the ones that turn the solver's verdict (checked against the solver on
the replayed positions)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from skat_helpers import experiment
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai.defence_runs import (
    OPEN,
    DefenceRun,
    play_deal,
    played,
    reach_declaration,
    table_seats,
)

RUN = DefenceRun("rule", ("rule",), seed=31)  # deals 0 and 4: the rule defence lets through


def _verdicts(deal: int) -> list[tuple[int, int, bool, bool]]:
    """(player, card, declarer wins before, after) for every card of the rule defence's game."""
    game = load_game("skat")
    agents = [make_agent("rule", game, 0) for _ in range(3)]
    defenders = [make_agent("rule", game, 0) for _ in range(3)]
    state, chance = reach_declaration(game, agents, RUN.seed, deal, "none")
    goal, declarer = state.contract.goal(), state.declarer
    seats = table_seats(state.declarer, agents, defenders, RUN.seed, deal)
    solver = Solver()
    seen: list[tuple[int, int, bool, bool]] = []

    def chosen(s: Any, player: int, action: int) -> None:
        if player in (0, 1, 2) and action < 32:
            values = solver.move_values(deal_from_state(s), goal)  # the declarer still wins
            wins = any if player == declarer else all  # the side to move chooses
            seen.append((player, action, wins(values.values()), bool(values[action])))

    play(state.clone(), seats, np.random.default_rng(chance), before=chosen)
    return seen


def test_the_losing_cards_are_those_that_turn_the_verdict(tmp_path: Path) -> None:
    moves = experiment("skat_gap_moves")
    game = load_game("skat")
    agents = [make_agent("rule", game, 0) for _ in range(3)]
    defenders = [make_agent("rule", game, 0) for _ in range(3)]
    records = [play_deal((RUN, d)) for d in (0, 4)]
    gap = [r for r in played(records) if r["rule"]["won"] and not r[OPEN]["won"]]
    assert len(gap) == 2
    for r in gap:
        asked: list[tuple[int, int, list[int]]] = []

        def probe(s: Any, player: int, defender: Any, record: dict[str, Any],
                  keep: list[int], asked: list[tuple[int, int, list[int]]] = asked
                  ) -> dict[str, Any]:
            assert defender is not None and record["card"] in s.legal_actions()
            asked.append((player, record["card"], keep))
            return {"probed": len(asked)}

        got = moves.replay(game, agents, defenders, RUN.seed, r["deal"], "none", Solver(),
                           probe=probe)
        assert got["won"] is True  # the recorded game: the declarer won it
        mine = [c for c in got["losing"] if c["side"] == "defender"]
        # the probe is asked about each losing defender card, before it is played
        assert [(c["card"], c["keep_cards"]) for c in mine] == [(a, k) for _, a, k in asked]
        assert [c["probed"] for c in mine] == list(range(1, len(mine) + 1))
        assert all(c["keep_cards"] and c["card"] not in c["keep_cards"] for c in mine)
        state, _ = reach_declaration(game, agents, RUN.seed, r["deal"], "none")
        turns = [(p, before, after) for p, _, before, after in _verdicts(r["deal"])
                 if before != after]
        by_defence = [t for t in turns if t[0] != state.declarer]
        by_declarer = [t for t in turns if t[0] == state.declarer]
        assert all(not before and after for _, before, after in by_defence)
        assert all(before and not after for _, before, after in by_declarer)
        losing = got["losing"]
        assert sum(c["side"] == "defender" for c in losing) == len(by_defence)
        assert sum(c["side"] == "declarer" for c in losing) == len(by_declarer)
        assert all(1 <= c["trick"] <= 10 and c["place"] in moves.PLACES for c in losing)
        # the declarer won: the last turn, if any, was a defender's card
        assert not turns or turns[-1][0] != state.declarer


def test_the_script_writes_and_summarizes(tmp_path: Path, capsys: Any) -> None:
    moves = experiment("skat_gap_moves")
    gap = experiment("skat_defence_gap")
    results = tmp_path / "cmp.jsonl"
    gap.run_defences(results, RUN, 5, "serial", 1, every=5)
    out = tmp_path / "moves.jsonl"
    import sys
    argv = sys.argv
    sys.argv = ["skat_gap_moves.py", str(results), "--out", str(out)]
    try:
        moves.main()
    finally:
        sys.argv = argv
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["defence"] == "rule" and len(lines) == 3  # deals 0 and 4
    assert "2 games it let through" in capsys.readouterr().out


def test_the_declarers_strength_counts_trumps_jacks_aces_tens_and_points() -> None:
    from spielwerk.games.skat.cards import CLUBS, GRAND, mask_of, string_to_card
    from spielwerk.games.skat.dds import DealPosition
    declarer_strength = experiment("skat_tie_tail").declarer_strength
    strong = mask_of(string_to_card(c) for c in "CJ SJ HJ DJ CA CT CK SA ST SK".split())
    # grand: 4 trumps (8) + 4 jacks + 2 side aces + 2 side tens (1)
    assert declarer_strength(DealPosition(GRAND, 1, (0, strong, 0))) == 15
    # clubs: 7 trumps (14) + 4 jacks + the spade ace + the spade ten (0.5); 22 points: 2
    assert declarer_strength(DealPosition(CLUBS, 1, (0, strong, 0), declarer_points=22)) == 21.5


def test_a_leads_facts_are_those_of_the_real_deal() -> None:
    from spielwerk.games.skat.cards import CLUBS, mask_of, string_to_card
    from spielwerk.games.skat.dds import DealPosition

    moves = experiment("skat_gap_moves")

    def hand(text: str) -> int:
        return mask_of(string_to_card(c) for c in text.split())

    # clubs game of seat 2; seat 1 leads (the declarer plays next: the short way)
    leader, declarer = hand("HA HT H7 S7 D8 CJ"), hand("CA CT C9 SA SK ST")
    pos = DealPosition(CLUBS, 2, (hand("DA DT DK H9 S8 C7"), leader, declarer), (), 1)
    # hearts: the declarer holds none; spades he holds; diamonds none
    assert moves.lead_facts(pos, 1, string_to_card("HA")) == {
        "trump": False, "void": True, "short_way": True, "void_suits": 2, "side_suits": 3}
    assert moves.lead_facts(pos, 1, string_to_card("S7"))["void"] is False
    jack = moves.lead_facts(pos, 1, string_to_card("CJ"))
    assert jack["trump"] and "void" not in jack
    # seat 0 leads against seat 2: the declarer plays last (the long way)
    long = DealPosition(CLUBS, 2, (leader, hand("DA DT DK H9 S8 C7"), declarer), (), 0)
    assert moves.lead_facts(long, 0, string_to_card("HA"))["short_way"] is False
