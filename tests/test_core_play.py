"""The one play loop (``core.play.play``), ``sample_chance`` and the chance-outcomes contract."""

from __future__ import annotations

import random
from collections.abc import Hashable

import numpy as np
import pytest

from spielwerk.core.agent import Agent, make_agent
from spielwerk.core.errors import NotChanceNodeError
from spielwerk.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameType,
    InfoState,
    PerfectInfoState,
    State,
    sample_chance,
)
from spielwerk.core.play import PlayError, play
from spielwerk.core.registry import load_game
from spielwerk.core.testing import ConformanceError, check_state

SPECS = ["kalah(pits=3,seeds=2)", "skat", "durak"]


class CoinGame(Game):
    """A biased coin (0.9 heads), then player 0 says 0 or 1; wins when it names the coin."""

    def __init__(self, bad_contract: bool = False) -> None:
        super().__init__({})
        self.bad_contract = bad_contract

    @property
    def game_type(self) -> GameType:
        return GameType("coin", "Coin", 1, True, False, False, 0.0, 1.0, None)

    def new_initial_state(self) -> CoinState:
        return CoinState(self)


class CoinState(State):
    def __init__(self, game: CoinGame) -> None:
        super().__init__(game)
        self.coin = -1
        self.guess = -1

    @property
    def current_player(self) -> int:
        return CHANCE if self.coin < 0 else 0 if self.guess < 0 else TERMINAL

    def _legal_actions(self) -> list[int]:
        return [0, 1]

    def _apply_action(self, action: int) -> None:
        if self.coin < 0:
            self.coin = action
        else:
            self.guess = action

    def _clone(self) -> CoinState:
        copy = CoinState(self.game)  # type: ignore[arg-type]
        copy.coin, copy.guess = self.coin, self.guess
        return copy

    def returns(self) -> list[float]:
        return [float(self.guess == self.coin)] if self.guess >= 0 else [0.0]

    def fingerprint(self) -> Hashable:
        return (self.coin, self.guess)

    def action_to_string(self, action: int) -> str:
        return "HT"[action] if self.coin < 0 else f"say{action}"

    def info_state(self, player: int) -> InfoState:
        return PerfectInfoState(self, player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.9), (1, 0.1)]


class BadContractState(CoinState):
    """A game that breaks the contract: its own test of the node, returning []."""

    @classmethod
    def _check_chance_outcomes(cls) -> None:  # opt out of the wrapper, as a careless game might
        pass

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.9), (1, 0.1)] if self.coin < 0 else []


class Recorder(Agent):
    """Plays the first legal action and remembers what it was told."""

    def __init__(self, game: Game) -> None:
        super().__init__(game, 0)
        self.seen: list[int] = []

    def act(self, info_state: InfoState) -> int:
        return info_state.legal_actions()[0]

    def inform(self, action: int) -> None:
        self.seen.append(action)


def test_sample_chance_follows_the_probabilities() -> None:
    state = CoinGame().new_initial_state()
    rng = np.random.default_rng(7)
    heads = sum(sample_chance(state, rng) == 0 for _ in range(4000))
    assert 0.88 < heads / 4000 < 0.92  # 0.9 expected; 4 sd is about 0.019


def test_sample_chance_takes_one_draw_like_generator_choice() -> None:
    state = load_game("skat").new_initial_state()
    for seed in range(20):
        outcomes = state.chance_outcomes()
        probs = np.array([p for _, p in outcomes])
        expected = outcomes[int(np.random.default_rng(seed).choice(len(outcomes), p=probs))][0]
        assert sample_chance(state, np.random.default_rng(seed)) == expected
    # a random.Random works as well, with the same inverse-CDF rule
    assert sample_chance(state, random.Random(3)) in state.legal_actions()


@pytest.mark.parametrize("spec", SPECS)
def test_chance_outcomes_away_from_a_chance_node_raises(spec: str) -> None:
    state = load_game(spec).new_initial_state()
    while state.current_player == CHANCE:
        state.apply(state.legal_actions()[0])
    with pytest.raises(NotChanceNodeError, match="not a chance node"):
        state.chance_outcomes()
    with pytest.raises(NotChanceNodeError):
        sample_chance(state, np.random.default_rng(0))


def test_check_state_catches_a_broken_chance_contract() -> None:
    good = CoinGame().new_initial_state()
    good.apply(0)
    check_state(good, np.random.default_rng(0), deep=False)
    bad_game = CoinGame()
    bad = BadContractState(bad_game)
    bad.apply(0)
    with pytest.raises(ConformanceError, match="chance outcomes contract"):
        check_state(bad, np.random.default_rng(0), deep=False)


def test_play_informs_every_agent_of_every_action_and_counts_player_moves() -> None:
    game = load_game("durak")
    agents = [Recorder(game), Recorder(game)]
    played = play(game.new_initial_state(), agents, np.random.default_rng(1))
    state = played.state
    assert state.is_terminal() and not played.stopped
    assert agents[0].seen == agents[1].seen == state.history
    chance = sum(1 for a in range(len(state.history)) if _is_chance_at(game, state.history, a))
    assert played.moves == len(state.history) - chance > 0


def _is_chance_at(game: Game, history: list[int], index: int) -> bool:
    state = game.new_initial_state()
    for action in history[:index]:
        state.apply(action)
    return state.is_chance_node()


def test_play_hooks_see_each_action_before_and_after_it_is_applied() -> None:
    game = load_game("kalah(pits=3,seeds=2)")
    events: list[tuple[str, int, int, int]] = []

    def before(state: State, player: int, action: int) -> None:
        events.append(("before", player, action, len(state.history)))

    def after(state: State, player: int, action: int) -> None:
        events.append(("after", player, action, len(state.history)))

    agents = [make_agent("random", game, seed=s) for s in range(2)]
    played = play(game.new_initial_state(), agents, np.random.default_rng(0),
                  before=before, after=after)
    history = played.state.history
    assert len(events) == 2 * len(history)
    for i, action in enumerate(history):
        assert events[2 * i][1:] == events[2 * i + 1][1:3] + (i,)
        assert events[2 * i][2] == action and events[2 * i + 1][3] == i + 1


def test_a_chooser_that_returns_none_stops_the_game() -> None:
    game = load_game("kalah(pits=3,seeds=2)")
    calls = []

    def person(state: State, seat: int) -> int | None:
        calls.append(seat)
        return None if len(calls) == 2 else state.legal_actions()[0]

    played = play(game.new_initial_state(), {0: person, 1: person},
                  np.random.default_rng(0))
    assert played.stopped and not played.state.is_terminal()
    assert played.moves == len(played.state.history) == 1


def test_play_stops_at_max_actions_and_refuses_an_empty_seat() -> None:
    game = load_game("skat")
    agents = [make_agent("random", game, seed=s) for s in range(3)]
    played = play(game.new_initial_state(), agents, np.random.default_rng(0), max_actions=5)
    assert len(played.state.history) == 5 and not played.stopped
    with pytest.raises(PlayError, match="nobody plays seat 0"):
        play(game.new_initial_state(), {1: agents[1]}, np.random.default_rng(0), max_actions=40)


def test_same_seeds_same_game() -> None:
    game = load_game("skat")

    def once() -> list[int]:
        agents = [make_agent("random", game, seed=s) for s in range(3)]
        return play(game.new_initial_state(), agents, np.random.default_rng(9)).state.history

    assert once() == once()


def test_apply_unchecked_moves_the_state_but_not_the_history() -> None:
    state = load_game("kalah(pits=3,seeds=2)").new_initial_state()
    twin = state.clone()
    state.apply_unchecked(2)
    twin.apply(2)
    assert state.fingerprint() == twin.fingerprint()
    assert state.history == [] and twin.history == [2]


class Keeper(Agent):
    """Keeps every info state it is asked with (the loop must hand it private copies)."""

    def __init__(self, game: Game) -> None:
        super().__init__(game, 0)
        self.kept: list[tuple[InfoState, object]] = []

    def act(self, info_state: InfoState) -> int:
        self.kept.append((info_state, info_state.fingerprint()))
        return info_state.legal_actions()[-1]


def test_an_agent_that_keeps_its_info_states_keeps_snapshots() -> None:
    game = load_game("kalah(pits=3,seeds=2)")
    keeper = Keeper(game)
    play(game.new_initial_state(), [keeper, make_agent("random", game, seed=1)],
         np.random.default_rng(0))
    assert len(keeper.kept) >= 2
    assert len({fp for _, fp in keeper.kept}) == len(keeper.kept)
    for info, fingerprint in keeper.kept:
        assert info.fingerprint() == fingerprint  # not the final position
        assert info.legal_actions()  # it was the keeper's turn then


def test_a_borrowed_view_copies_the_state_when_asked_for_it() -> None:
    state = load_game("kalah(pits=3,seeds=2)").new_initial_state()
    view = state.info_view(0)
    assert isinstance(view, PerfectInfoState) and not view.detached
    own = view.state
    assert view.detached and own is not state and own == state
    own.apply(own.legal_actions()[0])
    assert state.history == [] and view.fingerprint() == own.fingerprint()


def test_random_agent_is_uniform_and_seeded() -> None:
    game = load_game("kalah(pits=6,seeds=4)")
    info = game.new_initial_state().info_state(0)
    agent = make_agent("random", game, seed=3)
    picks = [agent.act(info) for _ in range(6000)]
    counts = np.bincount(picks, minlength=6)
    assert counts.min() > 850 and counts.max() < 1150  # 1000 each expected; 4.5 sd
    agent.reset(3)
    assert [agent.act(info) for _ in range(200)] == picks[:200]
    agent.reset(4)
    assert [agent.act(info) for _ in range(200)] != picks[:200]


# ----- the fast paths of issue 18: uniforms, legal-actions policies, a prepared Seating -----

def test_splitmix_kernels_give_the_mix_written_with_python_integers() -> None:
    from spielwerk.core.agent import splitmix_uniforms
    from spielwerk.core.splitmix import BLOCK, reference, stack

    for seed in (0, 7, 2**32 + 1, 2**63 - 1, 2**63, 2**64 - 1, 2**70 + 3):
        for start in (0, 5, BLOCK):
            expected = [reference(seed, start + i) for i in range(BLOCK)]
            assert stack(seed, start)[::-1] == expected
            assert splitmix_uniforms(seed, start, BLOCK) == expected
    values = [reference(3, i) for i in range(4000)]
    assert all(0.0 <= v < 1.0 for v in values) and abs(sum(values) / 4000 - 0.5) < 0.02


def test_random_agent_draws_the_same_moves_through_act_and_its_legal_policy() -> None:
    game = load_game("kalah(pits=6,seeds=4)")
    rng = random.Random(2)
    states = []
    state = game.new_initial_state()
    while len(states) < 80:  # positions with 1..6 legal moves, more than two blocks of draws
        if state.is_terminal():
            state = game.new_initial_state()
        states.append(state.clone())
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    by_act, by_policy = make_agent("random", game, seed=11), make_agent("random", game, seed=11)
    policy = by_policy.legal_policy()
    assert policy is not None
    picks = [by_act.act(s.info_state(s.current_player)) for s in states]
    assert picks == [policy(s.legal_actions()) for s in states]


def test_a_random_agent_subclass_with_its_own_act_is_asked_through_act() -> None:
    from spielwerk.core.agent import RandomAgent, is_reusable

    calls: list[int] = []

    class Counting(RandomAgent):
        def act(self, info_state: InfoState) -> int:
            calls.append(1)
            return super().act(info_state)

    game = load_game("kalah(pits=3,seeds=2)")
    agent = Counting(game, seed=1)
    assert agent.legal_policy() is None and not is_reusable(agent)
    assert is_reusable(RandomAgent(game, seed=1))
    played = play(game.new_initial_state(), [agent, make_agent("random", game, seed=2)], None)
    replay, seat_zero_moves = game.new_initial_state(), 0
    for action in played.state.history:
        seat_zero_moves += replay.current_player == 0
        replay.apply(action)
    assert len(calls) == seat_zero_moves > 0


def test_a_prepared_seating_and_the_tight_loop_play_the_same_games() -> None:
    from spielwerk.core.agent import RandomAgent
    from spielwerk.core.play import Seating

    for spec in ("kalah(pits=6,seeds=4)", "skat", "durak"):
        game = load_game(spec)
        n = game.num_players
        histories = []
        for way in ("list", "seating", "hook"):
            # the generic random agent (a legal-actions policy) in every game, chance included
            agents = [RandomAgent(game, seed=40 + s) for s in range(n)]
            seats: object = Seating(agents, n) if way == "seating" else agents
            after = (lambda state, player, action: None) if way == "hook" else None
            played = play(game.new_initial_state(), seats, np.random.default_rng(5),  # type: ignore[arg-type]
                          after=after)
            histories.append((played.state.history, played.moves))
        assert histories[0] == histories[1] == histories[2], spec
