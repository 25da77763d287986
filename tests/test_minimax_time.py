"""The generic ``minimax`` on the clock: with ``time`` it answers within the budget at Skat,
Kalah and Durak (legal moves, at least one world); without it every decision is the one
it made before it had a time parameter; the web table hands it its seconds per move."""

from __future__ import annotations

import time

import numpy as np
import pytest

import spielwerk  # noqa: F401 - games and agents register themselves
from spielwerk.core.agent import AgentSpec, make_agent
from spielwerk.core.game import CHANCE, State, sample_chance
from spielwerk.core.registry import load_game
from spielwerk.mc.agents import MinimaxAgent
from spielwerk.web.work import fallback_spec, timed_spec


def positions(spec: str, n: int, seed: int) -> list[State]:
    """``n`` positions after 0-39 random moves, a player to move with a choice."""
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    out: list[State] = []
    while len(out) < n:
        s = game.new_initial_state()
        for _ in range(int(rng.integers(0, 40))):
            if s.is_terminal():
                break
            if s.current_player == CHANCE:
                s.apply(sample_chance(s, rng))
                continue
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
        while not s.is_terminal() and s.current_player == CHANCE:
            s.apply(sample_chance(s, rng))
        if not s.is_terminal() and len(s.legal_actions()) > 1:
            out.append(s)
    return out


# Recorded with the agent as it was before it had a ``time`` parameter (same positions,
# seeds and parameters): no time given, the same decisions.
BEFORE = {
    "kalah": ({}, [0, 1, 5, 5]),
    "durak": ({"worlds": 3, "depth": 2}, [184, 82, 65, 82]),
    "skat": ({"worlds": 2, "depth": 2}, [96, 96, 96, 59]),
}


@pytest.mark.parametrize("spec", sorted(BEFORE))
def test_untimed_decisions_are_unchanged(spec: str) -> None:
    params, expected = BEFORE[spec]
    got = []
    for i, s in enumerate(positions(spec, 4, 7)):
        agent = MinimaxAgent(s.game, seed=i, **params)
        got.append(int(agent.act(s.info_state(s.current_player))))
        assert agent.searched is None  # the untimed search
    assert got == expected


def play_positions(spec: str, n: int, seed: int) -> list[State]:
    """Decisions of a random game (Skat: the card play, where the search is costly)."""
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    out: list[State] = []
    while len(out) < n:
        s = game.new_initial_state()
        while not s.is_terminal() and len(out) < n:
            if s.current_player == CHANCE:
                s.apply(sample_chance(s, rng))
                continue
            legal = s.legal_actions()
            in_play = spec != "skat" or getattr(s, "contract", None) is not None
            if len(legal) > 1 and in_play and rng.random() < 0.4:
                out.append(s.clone())
            s.apply(legal[int(rng.integers(len(legal)))])
    return out


@pytest.mark.parametrize("spec", ["skat", "kalah", "durak"])
def test_timed_minimax_keeps_the_budget(spec: str) -> None:
    """At 0.2 s a move: legal, at least one world, p95 under 3 x the budget (generous for a
    loaded machine). Skat at the default
    30 worlds x depth 3 took up to 21 s a card without the budget. Each game's registered
    ``minimax`` (Durak's own, with its greedy-playout evaluation and exact endgames)."""
    budget = 0.2
    game = load_game(spec)
    warm = play_positions(spec, 1, 99)[0]
    make_agent(f"minimax:time={budget}", game, seed=0).act(warm.info_state(warm.current_player))
    times, searched = [], []
    for i, s in enumerate(play_positions(spec, 10, 5)):
        agent = make_agent(f"minimax:time={budget}", game, seed=i)
        assert isinstance(agent, MinimaxAgent) and agent.time == budget
        t0 = time.perf_counter()
        action = agent.act(s.info_state(s.current_player))
        times.append(time.perf_counter() - t0)
        assert action in s.legal_actions()
        if agent.searched is None:  # Durak: the exact endgame answered, not the search
            continue
        depth, worlds = agent.searched
        assert 1 <= depth <= agent.depth and 1 <= worlds <= agent.worlds
        assert worlds == 1 or depth == agent.depth  # more worlds only at full depth
        searched.append(agent.searched)
    assert searched
    times.sort()
    p95 = times[int(round(0.95 * (len(times) - 1)))]
    assert p95 < 3 * budget, (times, searched)


class SteppedClock:
    """``time.perf_counter`` stand-in: each reading is ``step`` seconds after the last, so
    how far a timed search gets depends on how often it reads the clock, never on how fast
    the machine is."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.reads = 1000.0, step, 0

    def perf_counter(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def test_the_clock_is_what_stops_skat_minimax(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skat's card play at 0.2 s a move: on a clock that moves 1 ms a reading (the search
    reads it once a node) the budget ends the search before its worlds are done; on a clock
    that stands still every world is searched to full depth, so the clock and nothing else
    made the difference. And a budget no machine can meet (1 ns) leaves exactly the one
    world at depth 1 that always finishes."""
    import spielwerk.mc.agents as agents_module
    import spielwerk.search.alphabeta as alphabeta_module

    game = load_game("skat")
    positions_ = play_positions("skat", 3, 5)

    def searched(spec: str, step: float | None) -> list[tuple[int, int]]:
        out = []
        for i, s in enumerate(positions_):
            if step is not None:
                clock = SteppedClock(step)
                monkeypatch.setattr(agents_module, "time", clock)
                monkeypatch.setattr(alphabeta_module, "time", clock)
            agent = make_agent(spec, game, seed=i)
            assert isinstance(agent, MinimaxAgent)
            assert agent.act(s.info_state(s.current_player)) in s.legal_actions()
            assert agent.searched is not None
            out.append(agent.searched)
        monkeypatch.undo()
        return out

    ticking = searched("minimax:time=0.2:worlds=4", 1e-3)
    assert all(worlds < 4 or depth < 3 for depth, worlds in ticking), ticking
    assert searched("minimax:time=0.2:worlds=4", 0.0) == [(3, 4)] * len(positions_)
    assert searched("minimax:time=0.000000001:worlds=4", None) == [(1, 1)] * len(positions_)


def test_the_table_clock_reaches_minimax() -> None:
    """The web gives every agent with a ``time`` parameter the table's seconds per move:
    now ``minimax`` too (the generic one at Skat and Kalah, Durak's own), and its fallback
    is small."""
    def timed(text: str, game_name: str) -> AgentSpec:
        return timed_spec(AgentSpec.parse(text), game_name, 2.0)

    for game_name in ("skat", "kalah", "durak"):
        spec = timed("minimax", game_name)
        assert str(spec) == "minimax:time=2"
        agent = make_agent(spec, load_game(game_name), seed=0)
        assert isinstance(agent, MinimaxAgent) and agent.time == 2.0
        assert str(timed("minimax:time=0.5", game_name)) == "minimax:time=0.5"
        if game_name == "skat":  # PIMC card play is also held to the budget
            assert str(timed("knn:play=infer", game_name)) == \
                "knn:play=infer:time=2:deadline=true"
            assert str(timed("pimc:deadline=false", game_name)) == "pimc:deadline=false:time=2"
            assert make_agent(timed("knn", game_name), load_game(game_name),
                              seed=0).settings.deadline  # type: ignore[attr-defined]
        small = make_agent(fallback_spec(AgentSpec("minimax"), game_name), load_game(game_name),
                           seed=0)
        assert isinstance(small, MinimaxAgent)
        assert (small.worlds, small.depth, small.time) == (1, 2, 0.05)
