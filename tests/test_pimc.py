"""PIMC: the generic driver (any game) and the Skat PIMC player."""

from __future__ import annotations

import time

import numpy as np
import pytest

from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.kalah.agents import alphabeta_root_values
from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat.rules import SkatState
from spielwerk.games.skat_ai import pimc_agent  # noqa: F401 - registers "pimc" for skat
from spielwerk.games.skat_ai.baseline import rule_deal_until
from spielwerk.games.skat_ai.pimc_agent import SkatPimcAgent, goal_query
from spielwerk.mc.pimc import PimcError, choose, pimc_decide, pimc_search


def test_choose_counts_best_worlds_then_totals_then_random() -> None:
    rng = np.random.default_rng(0)
    # action 1 best in two worlds, action 2 in one: 1 wins despite a lower total
    worlds = [{1: 5.0, 2: 4.0}, {1: 5.0, 2: 4.0}, {1: 0.0, 2: 100.0}]
    action, counts, totals = choose(worlds, rng)
    assert action == 1 and counts == {1: 2, 2: 1} and totals == {1: 10.0, 2: 108.0}
    # equal counts: the higher total wins
    action, counts, _ = choose([{1: 5.0, 2: 4.0}, {1: 0.0, 2: 9.0}], rng)
    assert counts == {1: 1, 2: 1} and action == 2
    # full ties: a seeded random choice among them, both seen over many seeds
    picks = {choose([{1: 1.0, 2: 1.0}], np.random.default_rng(s))[0] for s in range(20)}
    assert picks == {1, 2}
    same = [choose([{1: 1.0, 2: 1.0, 3: 1.0}], np.random.default_rng(7))[0] for _ in range(3)]
    assert len(set(same)) == 1
    with pytest.raises(PimcError):
        choose([{}], rng)


def test_with_slack_prefer_is_asked_about_near_ties_and_the_plain_pick_stays() -> None:
    # 1 best in three worlds, 2 in two, 3 in one
    worlds = [{1: 1.0, 2: 1.0, 3: 1.0}, {1: 1.0, 2: 1.0, 3: 0.0}, {1: 1.0, 2: 0.0, 3: 0.0}]
    asked: list[list[int]] = []

    def prefer(near: list[int]) -> int | None:
        asked.append(near)
        return near[-1]

    rng = np.random.default_rng(0)
    assert choose(worlds, rng, prefer)[0] == 1 and asked == []  # no tie: not asked
    assert choose(worlds, rng, prefer, slack=1)[0] == 2 and asked == [[1, 2]]
    assert choose(worlds, rng, prefer, slack=2)[0] == 3 and asked[-1] == [1, 2, 3]
    # prefer names nothing: the pick is the strict best, as without slack
    assert choose(worlds, rng, lambda near: None, slack=2)[0] == 1
    assert choose(worlds, rng, None, slack=2)[0] == 1


@pytest.mark.parametrize(("slack", "solves", "last", "action"), [
    (0, 4, {1, 2, 3}, 1), (2, 6, {1, 2}, 1), (3, 6, {1, 2}, 2), (6, 6, {1, 2, 3}, 3)])
def test_vote_pruning_keeps_the_actions_within_slack(slack: int, solves: int, last: set[int],
                                                     action: int) -> None:
    """Win values: with slack, an action that can still come within the slack of the lead
    is solved on, one that cannot is dropped; without slack the vote stops once one action
    is left (``solves`` worlds solved, ``last`` the actions solved in the last of them)."""
    table = [{1: 1.0, 2: 0.0, 3: 0.0}] * 3 + [{1: 1.0, 2: 1.0, 3: 0.0}] * 3
    solved: list[set[int]] = []
    worlds = iter(range(6))

    def solve_some(w: int, acts: frozenset[int] | None) -> dict[int, float]:
        vals = {a: v for a, v in table[w].items() if acts is None or a in acts}
        solved.append(set(vals))
        return vals

    res = pimc_search(lambda rng: next(worlds), lambda w: {}, np.random.default_rng(0),
                      worlds=6, solve_some=solve_some, slack=slack,
                      prefer=lambda near: near[-1])
    assert (len(solved), solved[-1], res.action) == (solves, last, action)


def test_enumerated_worlds_are_solved_exactly_once() -> None:
    solved: list[int] = []

    def solve(w: int) -> dict[int, float]:
        solved.append(w)
        return {0: float(w), 1: float(3 - w)}

    res = pimc_search(lambda rng: 99, solve, np.random.default_rng(1), worlds=10,
                      enumerate_worlds=lambda limit: [0, 1, 2, 3] if limit >= 4 else None)
    assert res.exhaustive and res.worlds == 4 and sorted(solved) == [0, 1, 2, 3]
    assert res.best_counts == {0: 2, 1: 2}
    # too many to list: fall back to sampling
    res = pimc_search(lambda rng: 0, solve, np.random.default_rng(1), worlds=3,
                      enumerate_worlds=lambda limit: None)
    assert not res.exhaustive and res.worlds == 3 and res.action == 1


def test_time_limit_stops_sampling_but_solves_one_world() -> None:
    def slow(w: int) -> dict[int, float]:
        time.sleep(0.02)
        return {0: 1.0}

    start = time.perf_counter()
    res = pimc_search(lambda rng: 0, slow, np.random.default_rng(0), worlds=1000, time_limit=0.05)
    assert 1 <= res.worlds <= 10 and time.perf_counter() - start < 1.0
    # 20 ms a world: a third world would end at 60 ms, past the limit, so it is not begun
    assert res.worlds <= 2
    with pytest.raises(PimcError):
        pimc_search(lambda rng: 0, slow, np.random.default_rng(0), worlds=0)


def test_time_limit_applies_to_listed_worlds_in_random_order() -> None:
    solved: list[int] = []

    def slow(w: int) -> dict[int, float]:
        solved.append(w)
        time.sleep(0.02)
        return {0: 1.0}

    listing = list(range(40))
    res = pimc_search(lambda rng: -1, slow, np.random.default_rng(5), worlds=40,
                      time_limit=0.05, enumerate_worlds=lambda limit: listing)
    assert 1 <= res.worlds <= 2 and not res.exhaustive and -1 not in solved
    firsts = set()
    for seed in range(8):  # the listed worlds are taken in a seeded random order
        solved.clear()
        pimc_search(lambda rng: -1, slow, np.random.default_rng(seed), worlds=40,
                    time_limit=0.03, enumerate_worlds=lambda limit: listing)
        firsts.add(solved[0])
    assert len(firsts) > 1


def test_generic_driver_on_a_perfect_information_game() -> None:
    """Kalah: every world is the position itself, so PIMC plays a solver-optimal move."""
    game = load_game("kalah(pits=4,seeds=3)")
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    for _ in range(4):
        state.apply(state.legal_actions()[int(rng.integers(len(state.legal_actions())))])
    info = state.info_state(state.current_player)

    def solve(world: object) -> dict[int, float]:
        values = alphabeta_root_values(world, 6)  # type: ignore[arg-type]
        return {a: float(values[a]) for a in world.legal_actions()}  # type: ignore[attr-defined]

    res = pimc_decide(info, solve, np.random.default_rng(0), worlds=5)
    values = solve(state)
    assert values[res.action] == max(values.values())
    assert res.worlds == 5


def _endgames(count: int, tricks_left: int) -> list[SkatState]:
    out = []
    seed = 0
    while len(out) < count:
        st = rule_deal_until(seed, tricks_left)
        seed += 1
        if st is not None:
            out.append(st)
    return out


def test_world_values_are_the_solver_s_move_values() -> None:
    for state in _endgames(3, 4):
        info = state.info_state(state.current_player)
        agent = SkatPimcAgent(state.game, seed=1, worlds=4, values="points")
        world = deal_from_state(info.sample_world(np.random.default_rng(0)))
        query = goal_query(info)
        me_declarer = info.player == info.declarer
        values = agent.card_values(world, query, me_declarer)
        legal_cards = {a for a in info.legal_actions() if a < 32}
        assert set(values) == legal_cards
        if world.game != 5:
            exact = Solver().move_values(world, "exact")
            for c, v in values.items():
                assert v == (exact[c] if me_declarer else 120 - exact[c])
        win = SkatPimcAgent(state.game, seed=1, worlds=4, values="win")
        wins = win.card_values(world, query, me_declarer)
        solved = Solver().move_values(world, query)
        assert wins == {c: float(bool(solved[c]) == me_declarer) for c in solved}


@pytest.mark.parametrize(("spec", "tricks"), [("pimc:worlds=6", 3),
                                              ("pimc:worlds=16:endgame=3", 4)])
def test_pimc_plays_endgames_to_the_end_deterministically(spec: str, tricks: int) -> None:
    """Legal cards to the end, the same game twice from the same seeds; with ``endgame`` the
    last tricks' cards come from the αμ search."""
    for state in _endgames(3, tricks):
        histories = []
        for _ in range(2):
            st = state.clone()
            agents = {s: make_agent(spec, st.game, seed=5) for s in range(3)}
            while not st.is_terminal():
                seat = st.current_player
                action = agents[seat].act(st.info_state(seat))
                assert action in st.legal_actions()
                st.apply(action)
            histories.append(st.history)
            if "endgame" in spec:
                assert any(isinstance(a, SkatPimcAgent) and a.last is not None
                           and "alphamu_nodes" in a.last.details for a in agents.values())
        assert histories[0] == histories[1]


def test_a_sampled_world_keeps_what_the_player_knows() -> None:
    state = _endgames(1, 5)[0]
    seat = state.current_player
    info = state.info_state(seat)
    pos = state.sgame.position_of(seat)
    for s in range(5):
        world = deal_from_state(info.sample_world(np.random.default_rng(s)))
        truth = deal_from_state(state)
        assert world.hands[pos] == truth.hands[pos]
        assert world.trick == truth.trick and world.leader == truth.leader
        assert world.declarer_tricks == truth.declarer_tricks
        assert sum(h.bit_count() for h in world.hands) == sum(h.bit_count() for h in truth.hands)


def test_bad_pimc_specs_are_rejected() -> None:
    game = load_game("skat")
    with pytest.raises(AgentSpecError):
        make_agent("pimc:worlds=0", game)
    with pytest.raises(AgentSpecError):
        make_agent("pimc:values=maybe", game)
    agent = make_agent("pimc:worlds=8:values=win", game, seed=1)
    assert isinstance(agent, SkatPimcAgent) and agent.worlds == 8


def test_enumerated_skat_worlds_are_exactly_the_consistent_ones() -> None:
    from spielwerk.games.skat_ai.pimc_agent import enumerate_deals

    checked = 0
    for state in _endgames(6, 3):
        for seat in range(3):
            info = state.info_state(seat)
            worlds = enumerate_deals(info, 10_000)
            assert worlds is not None
            assert len(set(worlds)) == len(worlds)
            assert deal_from_state(state) in worlds  # the true deal is among them
            rng = np.random.default_rng(seat)
            sampled = {deal_from_state(info.sample_world(rng)) for _ in range(30)}
            assert sampled <= set(worlds)
            if len(worlds) <= 6:  # few worlds: 30 samples should hit them all
                assert sampled == set(worlds)
            assert enumerate_deals(info, len(worlds) - 1) is None or len(worlds) == 1
            checked += 1
    assert checked == 18


def _vote_once(seed: int) -> int:
    """Full and pruned PIMC on one random win/loss table; the solves saved."""
    gen = np.random.default_rng(seed)
    n_actions = int(gen.integers(2, 6))
    strength = gen.random(n_actions)  # some cards win more often than others
    table = {w: {a: float(gen.random() < strength[a]) for a in range(n_actions)}
             for w in range(1000)}
    calls = [0, 0]

    def sample(rng: np.random.Generator) -> int:
        return int(rng.integers(1000))

    def solve(w: int) -> dict[int, float]:
        calls[0] += len(table[w])
        return dict(table[w])

    def solve_some(w: int, acts: frozenset[int] | None) -> dict[int, float]:
        vals = {a: v for a, v in table[w].items() if acts is None or a in acts}
        calls[1] += len(vals)
        return vals

    full = pimc_search(sample, solve, np.random.default_rng(seed), worlds=32)
    pruned = pimc_search(sample, lambda w: {}, np.random.default_rng(seed), worlds=32,
                         solve_some=solve_some)
    assert pruned.action == full.action
    assert calls[1] <= calls[0]
    return calls[0] - calls[1]


def test_vote_pruning_makes_the_same_choice_with_less_solving() -> None:
    """Win/loss values: pruning cards that cannot win the vote changes nothing but the work."""
    assert sum(_vote_once(seed) for seed in range(300)) > 0


def test_solver_answers_a_subset_of_cards() -> None:
    for state in _endgames(4, 4):
        world = deal_from_state(state)
        query = "null" if world.game == 5 else "61"
        full = Solver().move_values(world, query)
        cards = sorted(full)
        for subset in (cards[:1], cards[1::2], cards):
            mask = sum(1 << c for c in subset)
            assert Solver().move_values(world, query, mask) == {c: full[c] for c in subset}


def test_hidden_places_hold_exactly_the_unseen_cards() -> None:
    """One ``hidden_places`` for sampling and enumeration: counts add up to the unseen
    cards, shown voids are forbidden, and every sampled world respects both."""
    for st in _endgames(4, 6):
        for seat in range(3):
            info = st.info_state(seat)
            places = info.hidden_places()
            unseen = info.unseen()
            assert sum(count for _, count, _ in places) == bin(unseen).count("1")
            assert all(s != seat for s, _, _ in places)
            world = info.sample_world(np.random.default_rng(seat))
            assert isinstance(world, SkatState)
            for s, count, forbidden in places:
                if s < 0:
                    continue
                assert bin(world.hands[s]).count("1") == count
                assert world.hands[s] & forbidden == 0
                assert world.hands[s] & ~unseen == 0
