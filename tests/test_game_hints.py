"""Hints for Kalah and Durak (the web table's hint button): Kalah's final margins against a
brute-force negamax of the rules, Durak's from the seat's info state only, exact in known
endgames, the search's numbers reproducible from the seed."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from spielwerk.core.agent import make_agent
from spielwerk.core.game import sample_chance
from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.games.durak import hints as durak_hints
from spielwerk.games.durak.agents import endgame_counted
from spielwerk.games.durak.rules import describe_action
from spielwerk.games.kalah.table import hint as kalah_hint

SLOW_MACHINE_S = 600.0  # a time no test run reaches: only the iteration count ends a search


def _south_margin(state: Any) -> int:
    """Final margin (South's store minus North's) under best play, by brute-force minimax
    over the rules: South maximises, North minimises; an extra turn keeps the mover."""
    @functools.cache
    def value(board: tuple[int, ...], mover: int) -> int:
        st = states[(board, mover)]
        if st.is_terminal():
            return int(st.margin())
        children = []
        for a in st.legal_actions():
            child = st.clone()
            child.apply(a)
            key = (tuple(int(x) for x in child.board), child.current_player)
            states.setdefault(key, child)
            children.append(value(*key))
        return max(children) if mover == 0 else min(children)

    states: dict[tuple[tuple[int, ...], int], Any] = {}
    key = (tuple(int(x) for x in state.board), state.current_player)
    states[key] = state
    return value(*key)


def _kalah_move_margins(state: Any) -> dict[str, int]:
    sign = 1 if state.current_player == 0 else -1
    out = {}
    for a in state.legal_actions():
        child = state.clone()
        child.apply(a)
        out[f"pit {a + 1}"] = sign * _south_margin(child)
    return out


@pytest.mark.parametrize("spec,plies", [("kalah(pits=3,seeds=2)", (0, 3, 5)),
                                         ("kalah(pits=3,seeds=3,empty_capture=true)", (1, 4))])
def test_kalah_hint_is_the_best_play_margin_of_every_pit(spec: str, plies: tuple[int, ...]
                                                         ) -> None:
    state: Any = load_game(spec).new_initial_state()
    rng = np.random.default_rng(4)
    seen = 0
    for ply in range(max(plies) + 1):
        if state.is_terminal():
            break
        if ply in plies:
            got = kalah_hint(state.info_state(state.current_player), 0, 1.0)
            want = _kalah_move_margins(state)
            assert got["kind"] == "moves" and got["exact"], got
            assert {r[0]: int(r[1]) for r in got["rows"]} == want
            best = max(want.values())
            assert sorted(got["best"]) == sorted(int(p.split()[1]) - 1 for p, v in want.items()
                                                 if v == best)
            assert [int(r[1]) for r in got["rows"]] == sorted(want.values(), reverse=True)
            assert f"{abs(best)}" in got["text"] and "exact" in got["text"]
            seen += 1
        state.apply(int(rng.choice(state.legal_actions())))
    assert seen == len(plies)


def test_kalah_without_a_solver_for_its_end_rule_says_so() -> None:
    state: Any = load_game("kalah(pits=3,seeds=2,end_rule=mover_empty)").new_initial_state()
    got = kalah_hint(state.info_state(0), 0, 1.0)
    assert got["kind"] == "none" and "end rule" in got["text"]


def _durak_after(spec: str, seed: int, stop: Any) -> Any:
    """A Durak game played by ``greedy`` until ``stop(state)`` holds at a decision."""
    state: Any = load_game(spec).new_initial_state()
    rng = np.random.default_rng(seed)
    agent = make_agent("greedy", state.game, seed=seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(sample_chance(state, rng))
            continue
        if stop(state):
            return state
        state.apply(agent.act(state.info_state(state.current_player)))
    return None


def _choices(state: Any) -> bool:
    return len(state.legal_actions()) > 1


def test_durak_search_hint_depends_on_the_info_state_only() -> None:
    state = _durak_after("durak", 3, lambda s: _choices(s) and s.info_state(
        s.current_player).stock > 10)
    seat = state.current_player
    info = state.info_state(seat)
    hint = durak_hints.hint(info, 7, SLOW_MACHINE_S)
    other = info.sample_world(np.random.default_rng(11))
    assert other.info_state(seat).own_hand == info.own_hand
    assert not np.array_equal(other.S, state.S)  # really another world
    assert durak_hints.hint(other.info_state(seat), 7, SLOW_MACHINE_S) == hint
    legal = [describe_action(a) for a in info.legal_actions()]
    assert hint["kind"] == "moves" and not hint["exact"]
    assert sorted(r[0] for r in hint["rows"]) == sorted(legal)  # every move once
    shares = [int(r[1].rstrip("%")) for r in hint["rows"]]
    assert shares == sorted(shares, reverse=True) and abs(sum(shares) - 100) <= len(shares)
    assert hint["rows"][0][0] == describe_action(hint["best"][0])
    assert f"{durak_hints.HINT_ITERATIONS:,} iterations:" in hint["text"]
    assert durak_hints.hint(info, 8, SLOW_MACHINE_S) != hint  # the seed draws the worlds


def test_durak_hint_in_a_known_endgame_is_exact() -> None:
    found = 0
    for seed in range(40):
        state = _durak_after("durak", seed, lambda s: _choices(s) and s.info_state(
            s.current_player).stock == 0 and len(s.legal_actions()) > 2)
        if state is None:
            continue
        info = state.info_state(state.current_player)
        hint = durak_hints.hint(info, 1, SLOW_MACHINE_S)
        assert hint["exact"] and hint["kind"] == "moves", hint
        assert sorted(r[0] for r in hint["rows"]) == sorted(
            describe_action(a) for a in info.legal_actions())
        results = {r[0]: r[1] for r in hint["rows"]}
        rank = {"win": 1, "draw": 0, "lose": -1}
        best = max(rank[v] for v in results.values())
        assert sorted(describe_action(a) for a in hint["best"]) == sorted(
            m for m, v in results.items() if rank[v] == best)
        # the engines' own endgame move keeps the best result
        action, _ = endgame_counted(info, np.random.default_rng(0), 2_000_000)
        assert action in hint["best"]
        found += 1
        if found == 3:
            break
    assert found == 3


def test_a_forced_durak_move_is_said_at_once() -> None:
    state = next(s for seed in range(50) if (s := _durak_after(
        "durak", seed, lambda s: len(s.legal_actions()) == 1)) is not None)
    hint = durak_hints.hint(state.info_state(state.current_player), 0, SLOW_MACHINE_S)
    assert hint["text"].startswith("only one move") and hint["best"] == state.legal_actions()


def test_every_web_game_has_hints() -> None:
    for name in ("skat", "durak", "kalah"):
        assert table_face(load_game(name)).has_hints, name
