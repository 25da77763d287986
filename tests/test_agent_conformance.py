"""Every registered agent of every game acts correctly from the info state alone.

At points of seeded games a fresh agent (as the web table builds one per move) must
choose a legal action, and where its agent decides deterministically, the same action
as the agent that played the whole game (``spielwerk.core.testing_agents``).
"""

from __future__ import annotations

import pytest

from spielwerk.core.agent import list_agents, make_agent
from spielwerk.core.registry import load_game
from spielwerk.core.testing_agents import AgentConformanceError, check_agent
from spielwerk.games.skat.rules import PUT

# the game each agent is checked on, and a cheap setting of the expensive agents:
# the rule is about state, not strength
GAMES = {"kalah": "kalah(pits=4,seeds=3)", "skat": "skat", "durak": "durak"}
CHEAP = {
    "mcts": "mcts:worlds=2:iters=8",
    "ismcts": "ismcts:iters=30",
    "minimax": "minimax:worlds=2:depth=1",
    "pimc": "pimc:worlds=2",
    "knn": "knn:worlds=2",
    "knn1": "knn1:worlds=2",
    "knn2": "knn2:worlds=2",
    "perfect": "perfect:time=0.02:egdb=0",
    "alphabeta": "alphabeta:depth=2",
}
CASES = [(game, entry.name) for game in GAMES for entry in list_agents(game)]
# where the rule was broken (the knn bot's second put card), every decision is checked
SHARE = {("skat", "knn"): 1.0, ("skat", "rule"): 1.0, ("skat", "pimc"): 0.5}


@pytest.mark.parametrize(("game", "name"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_a_fresh_agent_acts_from_the_info_state_alone(game: str, name: str) -> None:
    spec = CHEAP.get(name, name)
    report = check_agent(load_game(GAMES[game]), spec, n_games=2, seed=11,
                         check_share=SHARE.get((game, name), 0.25))
    assert report.games == 2 and report.checked > 0


def test_every_registered_agent_is_covered() -> None:
    assert {"knn", "pimc", "rule"} <= {n for g, n in CASES if g == "skat"}
    assert {"greedy", "smart", "ismcts"} <= {n for g, n in CASES if g == "durak"}


def _pickup_game_at_second_put(seed: int) -> tuple[object, int]:
    """A Skat game played by knn bots up to the declarer's second put card."""
    import numpy as np

    from spielwerk.core.play import play

    game = load_game("skat")
    for s in range(seed, seed + 40):
        agents = [make_agent("knn:worlds=2", game, seed=s * 10 + k) for k in range(3)]
        state = game.new_initial_state()

        def at_second_put(st: object, seat: int) -> bool:
            return (st.phase == PUT and st.info_state(seat).puts_done == 1)  # type: ignore[attr-defined]

        rng = np.random.default_rng(s)
        while not state.is_terminal():
            p = state.current_player
            if p >= 0 and at_second_put(state, p):
                return state, p
            if p < 0:
                play(state, agents, rng, max_actions=len(state.history) + 1)
                continue
            action = agents[p].act(state.info_state(p))
            state.apply(action)
            for a in agents:
                a.inform(action)
    raise AssertionError("no pick-up in 40 deals")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_fresh_knn_agent_puts_the_second_card_and_declares_as_the_one_that_picked_up(
        seed: int) -> None:
    """The web table's defect: a fresh knn agent at the second put raised HandError."""
    state, seat = _pickup_game_at_second_put(seed * 50)
    game = load_game("skat")
    info = state.info_state(seat)  # type: ignore[attr-defined]
    moves = [make_agent("knn:worlds=2", game, seed=s).act(info) for s in (0, 1, 2)]
    assert moves[0] in info.legal_actions() and len(set(moves)) == 1
    state.apply(moves[0])  # type: ignore[attr-defined]
    declare = state.info_state(seat)  # type: ignore[attr-defined]
    games = {make_agent("knn:worlds=2", game, seed=s).act(declare) for s in (0, 1)}
    assert len(games) == 1 and games <= set(declare.legal_actions())


def test_a_broken_agent_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: an agent whose choice depends on the moves it made before."""
    from spielwerk.core import agent as agent_module
    from spielwerk.core.agent import Agent, register_agent

    monkeypatch.setattr(agent_module, "_AGENTS", dict(agent_module._AGENTS))

    class Forgetful(Agent):
        def __init__(self, game: object, seed: int | None = None) -> None:
            super().__init__(game, seed)  # type: ignore[arg-type]
            self.moves = 0

        def decides_deterministically(self, info_state: object) -> bool:
            return True

        def act(self, info_state: object) -> int:
            legal = info_state.legal_actions()  # type: ignore[attr-defined]
            self.moves += 1
            return legal[min(self.moves, len(legal)) - 1]

    register_agent("forgetful", Forgetful, {}, "test only", ("kalah",))
    with pytest.raises(AgentConformanceError, match="deterministic decision differs"):
        check_agent(load_game(GAMES["kalah"]), "forgetful", n_games=1, seed=0)
