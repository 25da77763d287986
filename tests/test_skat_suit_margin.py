"""The suit and grand defender's margin tie-break (games/skat_ai/suit_defence.py,
``suit_margin``): the solver's per-card point threshold against its exact values, the
scoring on hand-made answers, and that the PIMC agent consults it only when asked."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL, POINTS_BY_CARD
from spielwerk.games.skat.dds import DealPosition, Solver
from spielwerk.games.skat.staging import stage_play
from spielwerk.games.skat_ai import pimc_agent
from spielwerk.games.skat_ai.pimc_agent import SkatPimcAgent
from spielwerk.games.skat_ai.suit_defence import margin_preference, margin_scores
from test_skat_null_defence import ACE, CLUBS, HEARTS, JACK, KING, SEVEN, SPADES, TEN, card, mask


def _all_jacks_grand() -> Any:
    """A grand of seat 1 with every jack, seat 0 to lead: he wins in every world."""
    declarer = [card(s, JACK) for s in range(4)] + [card(CLUBS, r) for r in (ACE, TEN, KING)] + \
        [card(SPADES, r) for r in (ACE, TEN, KING)]
    rest = [c for c in range(32) if c not in declarer]
    skat, rest = rest[-2:], rest[:-2]
    return stage_play((mask(rest[:10]), mask(declarer), mask(rest[10:])), mask(skat), 1,
                      GRAND, mask(skat))


def test_move_reaches_agrees_with_the_exact_values() -> None:
    """Per card, "the declarer ends with at least P" is the exact value compared with P,
    for marks below, at and above every card's value (the solver's exact search is the
    oracle; positions of four tricks, a card on the table or none)."""
    rng = np.random.default_rng(11)
    solver = Solver()
    for _ in range(60):
        cards = [int(c) for c in rng.permutation(32)[:12]]
        hands = (mask(cards[0:4]), mask(cards[4:8]), mask(cards[8:12]))
        game = int(rng.integers(5))
        declarer, leader = int(rng.integers(3)), int(rng.integers(3))
        done = 120 - sum(POINTS_BY_CARD[c] for c in cards)
        mine = int(rng.integers(done + 1))
        pos = DealPosition(game, declarer, hands, (), leader, declarer_points=mine,
                           defender_points=done - mine)
        exact = solver.move_values(pos, "exact")
        for mark in {1, 31, 61, 90, 120, *[int(v) + d for v in exact.values() for d in (-1, 0, 1)]}:
            reached = solver.move_reaches(pos, mark)
            assert reached == {c: int(v) >= mark for c, v in exact.items()}, (pos, mark)
        some = next(iter(exact))
        assert set(solver.move_reaches(pos, 61, 1 << some)) >= {some}


def _info(goal: str, game: int = GRAND, player: int = 1) -> Any:
    return SimpleNamespace(game_code=game, player=player, declarer=0,
                           contract=SimpleNamespace(goal=lambda: goal))


def test_the_card_that_keeps_the_declarer_closest_to_the_goal_is_chosen() -> None:
    a, b = card(HEARTS, SEVEN), card(SPADES, SEVEN)
    w1 = DealPosition(GRAND, 0, (1, 2, 4))
    w2 = DealPosition(GRAND, 0, (8, 16, 32))
    asked: list[tuple[DealPosition, int, int]] = []

    def reaches(pos: DealPosition, points: int, cards: int) -> dict[int, bool]:
        asked.append((pos, points, cards))
        # w1 (won by the declarer after both): only after a he reaches 71 as well
        # w2 (lost after both): only after b does he reach 51
        if pos == w1:
            return {c: c == a for c in (a, b) if cards >> c & 1}
        return {c: c == b for c in (a, b) if cards >> c & 1}

    defended = {w1: {a: 0.0, b: 0.0}, w2: {a: 1.0, b: 1.0}}
    # w1 alone: b holds him below 71; w1 twice and w2 once: b 2, a 1
    assert margin_preference(_info("61"), [a, b], [w1], defended.__getitem__, reaches,
                             10) == b
    asked.clear()
    assert margin_preference(_info("61"), [a, b], [w1, w2, w1], defended.__getitem__,
                             reaches, 10) == b
    assert sorted((p == w1, pts) for p, pts, _ in asked) == [(False, 51), (True, 71)]
    # w2 twice against w1 once: a holds him below 51 twice
    assert margin_preference(_info("61"), [a, b], [w2, w1, w2], defended.__getitem__,
                             reaches, 10) == a
    # schneider announced: the marks move with the goal
    asked.clear()
    margin_preference(_info("90"), [a, b], [w1, w2], defended.__getitem__, reaches, 5)
    assert sorted(pts for _, pts, _ in asked) == [85, 95]


def test_a_near_tie_weighs_a_world_beaten_as_two_of_the_margins_credits() -> None:
    """Among near ties (``suit_slack``) a world in which a card beats the game counts 2,
    the margin's credit 1: one world beaten outweighs one world of room, not three."""
    a, b = card(HEARTS, SEVEN), card(SPADES, SEVEN)
    beaten = DealPosition(GRAND, 0, (1, 2, 4))  # a beats the game here, b does not
    close = DealPosition(GRAND, 0, (8, 16, 32))  # the declarer wins after both

    def reaches(pos: DealPosition, points: int, cards: int) -> dict[int, bool]:
        if pos == beaten:  # after a he stays below 51, after b he reaches 71
            return {c: c == b for c in (a, b) if cards >> c & 1}
        return {c: c == a for c in (a, b) if cards >> c & 1}  # b holds him below 71

    defended = {beaten: {a: 1.0, b: 0.0}, close: {a: 0.0, b: 0.0}}
    # a: 2 + 1 in the beaten world; b: 1 per close world
    assert margin_preference(_info("61"), [a, b], [beaten, close], defended.__getitem__,
                             reaches, 10) == a
    assert margin_preference(_info("61"), [a, b], [beaten] + [close] * 3,
                             defended.__getitem__, reaches, 10) is None  # 3 against 3
    assert margin_scores(_info("61"), [a, b], [beaten] + [close] * 3, defended.__getitem__,
                         reaches, 10) == {a: 3, b: 3}
    assert margin_preference(_info("61"), [a, b], [beaten] + [close] * 4,
                             defended.__getitem__, reaches, 10) == b


def test_no_preference_where_it_does_not_apply() -> None:
    a, b = card(HEARTS, SEVEN), card(SPADES, SEVEN)
    w = DealPosition(GRAND, 0, (1, 2, 4))
    both = {w: {a: 0.0, b: 0.0}}

    def reaches(pos: DealPosition, points: int, cards: int) -> dict[int, bool]:
        return {c: c == a for c in (a, b) if cards >> c & 1}

    assert margin_preference(_info("61"), [a, b], [w], both.__getitem__, reaches, 10) == b

    def alike(pos: DealPosition, points: int, cards: int) -> dict[int, bool]:
        return {c: True for c in (a, b) if cards >> c & 1}

    assert margin_preference(_info("61"), [a, b], [w], both.__getitem__, alike, 10) is None
    for info in (_info("null", game=NULL), _info("61", player=0), _info("schwarz")):
        assert margin_preference(info, [a, b], [w], both.__getitem__, reaches, 10) is None
    assert margin_preference(_info("61"), [a, b], [], both.__getitem__, reaches, 10) is None
    assert margin_preference(_info("61"), [a, b], [w], both.__getitem__, reaches, 0) is None


@pytest.mark.parametrize("margin", [0, 10])
def test_the_agent_asks_the_margin_rule_only_with_suit_margin(
        monkeypatch: pytest.MonkeyPatch, margin: int) -> None:
    calls: list[tuple[list[int], int]] = []

    def spy(info: Any, tied: list[int], worlds: Any, defended: Any, reaches: Any,
            m: int) -> int:
        assert worlds and all(defended(w) for w in worlds)
        some = worlds[0]
        assert set(reaches(some, 61, mask(tied))) >= set(tied)
        calls.append((list(tied), m))
        return tied[-1]

    monkeypatch.setattr(pimc_agent, "margin_preference", spy)
    state = _all_jacks_grand()
    agent = SkatPimcAgent(load_game("skat"), seed=3, worlds=8, suit_margin=margin)
    action = agent.act(state.info_state(0))
    if margin:  # a grand with every jack: the declarer wins in every world, every card ties
        assert calls and calls[-1][1] == margin and action == calls[-1][0][-1]
    else:
        assert calls == []


@pytest.mark.parametrize(("margin", "slack", "seat", "passed"), [
    (10, 2, 0, 2), (0, 2, 0, 0), (10, 0, 0, 0), (10, 2, 1, 0)])
def test_the_vote_gets_the_slack_only_for_a_suit_defender_with_the_margin(
        monkeypatch: pytest.MonkeyPatch, margin: int, slack: int, seat: int,
        passed: int) -> None:
    """``suit_slack`` widens the margin's ties (the vote's pruning keeps the near ties):
    for a suit or grand defender with ``suit_margin``, never for the declarer."""
    asked: list[int] = []
    search = pimc_agent.pimc_search

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs["slack"])
        return search(*args, **kwargs)

    monkeypatch.setattr(pimc_agent, "pimc_search", spy)
    state = _all_jacks_grand()
    if seat == 1:  # the declarer's card: seat 0 leads first
        state.apply(SkatPimcAgent(load_game("skat"), seed=1, worlds=4).act(
            state.info_state(0)))
    agent = SkatPimcAgent(load_game("skat"), seed=3, worlds=8, suit_margin=margin,
                          suit_slack=slack)
    agent.act(state.info_state(seat))
    assert asked[-1] == passed


def test_with_a_deadline_the_margin_searches_keep_to_it() -> None:
    """The tie-break's searches run within the decision's deadline as the vote's do: with
    time left they give the pick they give without a deadline; past the deadline no search
    runs and no card is named (the seeded random pick decides)."""
    from spielwerk.games.skat.position import deal_from_state

    state = _all_jacks_grand()
    info = state.info_state(0)
    agent = SkatPimcAgent(load_game("skat"), seed=3, worlds=8, suit_margin=10, time=5.0,
                          deadline=True)
    rng = np.random.default_rng(4)
    seen = [deal_from_state(info.sample_world(rng)) for _ in range(6)]
    query = pimc_agent.goal_query(info)
    solved = {pos: agent.card_values(pos, query, False) for pos in seen}
    tied = sorted(solved[seen[0]])
    assert len(tied) > 1
    free = agent._suit_preference(info, tied, seen, solved, query)
    assert free in tied  # the declarer wins every world: the margin tells the cards apart
    agent._deadline = agent.clock() + 100.0
    assert agent._suit_preference(info, tied, seen, solved, query) == free
    agent._deadline = agent.clock() - 1.0
    nodes = agent.solver.nodes
    assert agent._suit_preference(info, tied, seen, solved, query) is None
    assert agent.solver.nodes == nodes
