"""The fast paths agree with the object API.

- ``_is_legal`` (the cheap legality test ``apply`` uses) agrees with
  ``legal_actions()`` for every action number, on many random states of
  every game;
- the vectorised ``legal_action_masks`` equal ``legal_actions()``;
- ``random_playouts`` (numba for Kalah and Durak) is deterministic under a
  seed and plays the same game as the API loop: mean length and mean return
  agree within a few standard errors, and every outcome is a possible one.
- Skat's numba playouts are the ``State``'s games action for action (its
  ``engine="python"`` plays them through the ``State`` with the same draws).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from spielwerk import load_game
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import Game, State
from spielwerk.games.durak import kernel as durak_kernel
from spielwerk.games.skat.rules import NUM_ACTIONS as SKAT_ACTIONS
from spielwerk.games.skat.rules import PLAY


def random_states(game: Game, games: int, seed: int, every: int = 1) -> list[State]:
    """States visited by uniformly random games (chance uniform), terminal ones included."""
    rng = random.Random(seed)
    out: list[State] = []
    for _ in range(games):
        state = game.new_initial_state()
        step = 0
        while True:
            if step % every == 0 or state.is_terminal():
                out.append(state.clone())
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            step += 1
    return out


def api_playouts(game: Game, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    returns, moves = [], []
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        returns.append(state.returns())
        moves.append(len(state.history))
    return np.array(returns), np.array(moves)


def assert_same_mean(batch: np.ndarray, api: np.ndarray, what: str) -> None:
    se = np.sqrt(batch.var() / len(batch) + api.var() / len(api))
    z = abs(batch.mean() - api.mean()) / max(se, 1e-12)
    assert z < 4.5, f"{what}: batch mean {batch.mean():.3f} vs API {api.mean():.3f} (z={z:.1f})"


@pytest.mark.parametrize(
    ("spec", "top", "games", "every"),
    [
        ("kalah(pits=6,seeds=4)", 20, 30, 1),
        ("kalah(pits=3,seeds=2,empty_capture=true,end_rule=mover_empty)", 6, 30, 1),
        ("skat", SKAT_ACTIONS + 3, 25, 1),
        ("skat(players=4,ramsch=true)", SKAT_ACTIONS + 3, 10, 1),
        ("durak", durak_kernel.NUM_ACTION_IDS + 3, 6, 3),
        ("durak(preset=perevodnoy,players=3)", durak_kernel.NUM_ACTION_IDS + 3, 4, 3),
    ],
)
def test_fast_legality_test_agrees_with_legal_actions(
    spec: str, top: int, games: int, every: int
) -> None:
    game = load_game(spec)
    states = random_states(game, games, seed=7, every=every)
    assert any(s.is_terminal() for s in states)
    for state in states:
        legal = set(state.legal_actions())
        for action in range(-2, top):
            assert state._is_legal(action) == (action in legal), (spec, state.history, action)


def test_illegal_actions_are_still_refused_with_the_same_reasons() -> None:
    game = load_game("kalah(pits=6,seeds=4)")
    state = game.new_initial_state()
    for bad, words in ((6, "not legal here"), (-1, "numbers >= 0"), (2**70, "not legal")):
        with pytest.raises(SpielwerkError, match=words):
            state.apply(bad)
    assert state.history == [] and state.legal_actions() == [0, 1, 2, 3, 4, 5]
    state.apply(np.int64(2))  # numpy integers stay accepted
    assert state.history == [2] and type(state.history[0]) is int
    with pytest.raises(SpielwerkError, match="integers"):
        state.apply(True)
    skat = load_game("skat").new_initial_state()
    skat.apply(5)
    with pytest.raises(SpielwerkError, match="not legal"):
        skat.apply(5)  # the card is dealt already
    assert skat.history == [5]


@pytest.mark.parametrize("spec", ["kalah(pits=6,seeds=4)", "kalah(pits=4,seeds=3)", "durak",
                                  "durak(preset=perevodnoy,players=3)"])
def test_legal_action_masks_equal_legal_actions(spec: str) -> None:
    game = load_game(spec)
    states = random_states(game, 12, seed=3, every=2)
    masks = game.legal_action_masks(states)  # type: ignore[attr-defined]
    assert masks.shape[0] == len(states) and masks.dtype == bool
    for state, row in zip(states, masks, strict=True):
        assert np.flatnonzero(row).tolist() == state.legal_actions()
    assert game.legal_action_masks([]).shape[0] == 0  # type: ignore[attr-defined]


def test_kalah_batch_playouts_play_the_api_game() -> None:
    game = load_game("kalah(pits=6,seeds=4)")
    batch = game.random_playouts(20_000, seed=11)  # type: ignore[attr-defined]
    assert batch.returns.shape == (20_000, 2) and batch.moves.shape == (20_000,)
    assert (batch.returns.sum(axis=1) == 0).all()
    assert (np.abs(batch.returns) <= 48).all() and (batch.moves >= 1).all()
    again = game.random_playouts(20_000, seed=11)  # type: ignore[attr-defined]
    assert (again.returns == batch.returns).all() and (again.moves == batch.moves).all()
    other = game.random_playouts(2_000, seed=12)  # type: ignore[attr-defined]
    assert (other.moves != batch.moves[:2_000]).any()
    returns, moves = api_playouts(game, 2_500, seed=5)
    assert_same_mean(batch.moves.astype(float), moves.astype(float), "kalah moves")
    assert_same_mean(batch.returns[:, 0], returns[:, 0], "kalah margin")


def test_kalah_batch_from_a_position_leaves_it_unchanged() -> None:
    game = load_game("kalah(pits=2,seeds=1)")
    state = game.new_initial_state()
    state.apply(0)
    before = state.board.copy(), state.current_player, list(state.history)
    batch = game.random_playouts(500, seed=1, state=state)  # type: ignore[attr-defined]
    assert (state.board == before[0]).all() and state.current_player == before[1]
    # every outcome is one a real game from this position can reach
    reachable = set()
    for s in random_states(game, 300, seed=2):
        if s.is_terminal() and s.history[:1] == [0]:
            reachable.add((tuple(s.returns()), len(s.history) - 1))
    got = {(tuple(r), int(m)) for r, m in zip(batch.returns, batch.moves, strict=True)}
    assert got <= reachable and len(got) >= 1
    done = game.state_from_board([0, 0, 3, 0, 0, 1], 0)  # type: ignore[attr-defined]
    over = game.random_playouts(3, seed=0, state=done)  # type: ignore[attr-defined]
    assert over.returns.tolist() == [done.returns()] * 3 and over.moves.tolist() == [0] * 3


def test_durak_batch_playouts_play_the_api_game() -> None:
    game = load_game("durak")
    batch = game.random_playouts(4_000, seed=3)  # type: ignore[attr-defined]
    again = game.random_playouts(4_000, seed=3)  # type: ignore[attr-defined]
    assert (again.returns == batch.returns).all() and (again.moves == batch.moves).all()
    assert batch.returns.shape == (4_000, 2)
    assert set(map(tuple, batch.returns.tolist())) <= {(-1.0, 1.0), (1.0, -1.0), (0.0, 0.0)}
    returns, moves = api_playouts(game, 400, seed=9)
    assert_same_mean(batch.moves.astype(float), moves.astype(float), "durak actions")
    assert_same_mean(batch.returns[:, 0], returns[:, 0], "durak seat 0 return")


@pytest.mark.parametrize("spec", ["skat", "skat(players=4,ramsch=true)"])
def test_skat_batch_playouts_play_the_api_game(spec: str) -> None:
    game = load_game(spec)
    batch = game.random_playouts(1_500, seed=4)  # type: ignore[attr-defined]
    assert batch.returns.shape == (1_500, game.num_players)
    assert (batch.moves >= 32).all()  # the deal alone is 32 chance actions
    assert np.allclose(batch.returns.sum(axis=1), 0.0)
    again = game.random_playouts(1_500, seed=4)  # type: ignore[attr-defined]
    assert (again.returns == batch.returns).all() and (again.moves == batch.moves).all()
    other = game.random_playouts(200, seed=5)  # type: ignore[attr-defined]
    assert (other.moves != batch.moves[:200]).any()
    returns, moves = api_playouts(game, 600, seed=9)
    assert_same_mean(batch.moves.astype(float), moves.astype(float), f"{spec} actions")
    for seat in range(game.num_players):
        assert_same_mean(batch.returns[:, seat], returns[:, seat], f"{spec} seat {seat}")


def test_skat_batch_from_a_position_leaves_it_unchanged() -> None:
    game = load_game("skat")
    mid_deal = game.new_initial_state()
    for card in (31, 0, 7, 12):
        mid_deal.apply(card)
    bidding = game.new_initial_state()
    for card in range(32):
        bidding.apply(card)
    for state in (mid_deal, bidding):
        before = (state.fingerprint(), list(state.history))
        batch = game.random_playouts(40, seed=2, state=state)  # type: ignore[attr-defined]
        assert (state.fingerprint(), state.history) == before
        assert (batch.moves > len(state.history)).all()
    # with the deal complete, every game plays on from the same hands
    dealt = game.random_playouts(1, seed=0, state=bidding)  # type: ignore[attr-defined]
    assert dealt.moves[0] >= 33


def test_skat_deal_cards_deals_like_apply_and_refuses_wrong_cards() -> None:
    game = load_game("skat")
    cards = list(np.random.default_rng(1).permutation(32).tolist())
    one_by_one = game.new_initial_state()
    for card in cards:
        one_by_one.apply(card)
    at_once = game.new_initial_state()
    at_once.deal_cards(cards[:5])  # type: ignore[attr-defined]
    at_once.deal_cards(cards[5:])  # type: ignore[attr-defined]
    assert at_once.fingerprint() == one_by_one.fingerprint()
    assert at_once.history == one_by_one.history
    for bad in ([0, 0], [32], cards + [cards[0]]):
        fresh = game.new_initial_state()
        with pytest.raises(SpielwerkError, match="deal_cards"):
            fresh.deal_cards(bad)  # type: ignore[attr-defined]
        assert fresh.history == [] and fresh.legal_actions() == list(range(32))


@pytest.mark.parametrize("spec", ["skat", "skat(players=4,ramsch=true)"])
def test_skat_legal_action_masks_equal_legal_actions(spec: str) -> None:
    game = load_game(spec)
    states = random_states(game, 40, seed=8)
    assert any(s.phase == PLAY for s in states)  # type: ignore[attr-defined]
    masks = game.legal_action_masks(states)  # type: ignore[attr-defined]
    assert masks.shape == (len(states), SKAT_ACTIONS) and masks.dtype == bool
    for state, row in zip(states, masks, strict=True):
        assert np.flatnonzero(row).tolist() == state.legal_actions()
    assert game.legal_action_masks([]).shape == (0, SKAT_ACTIONS)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("n", "seed"), [(-1, 0), (2.5, 0), (3, -1), (3, 2**40), (True, 1)])
def test_batch_playouts_refuse_bad_arguments(n: object, seed: object) -> None:
    for spec in ("kalah", "durak", "skat"):
        with pytest.raises(SpielwerkError, match="random_playouts"):
            load_game(spec).random_playouts(n, seed)  # type: ignore[arg-type]


def _skat_start_states() -> list[State]:
    """Start states for the Skat batch path: mid-deal, dealt, all passed (Ramsch or passed
    in), in the card play with a trick open, and over."""
    from spielwerk.games.skat.rules import PASS

    out: list[State] = []
    for spec in ("skat", "skat(players=4,dealer=3,ramsch=true)"):
        game = load_game(spec)
        state = game.new_initial_state()
        for card in (31, 0, 7, 12):
            state.apply(card)
        out.append(state.clone())
        for card in (c for c in range(32) if c not in state.history):
            state.apply(card)
        out.append(state.clone())
        for _ in range(3):
            state.apply(PASS)
        out.append(state)  # a Ramsch to play, or passed in (over)
    rng = random.Random(3)
    for state in random_states(load_game("skat"), 12, seed=5):
        if state.phase == PLAY and state.trick and rng.random() < 0.5:  # type: ignore[attr-defined]
            out.append(state)
    return out


@pytest.mark.parametrize("spec", ["skat", "skat(players=4,ramsch=true)", "skat(dealer=1)"])
def test_skat_numba_playouts_are_the_state_games_action_for_action(spec: str) -> None:
    from spielwerk.games.skat.batch import playout_histories

    game = load_game(spec)
    fast, fast_games = playout_histories(game, 200, seed=21)  # type: ignore[arg-type]
    slow, slow_games = playout_histories(game, 200, seed=21, engine="python")  # type: ignore[arg-type]
    assert fast_games == slow_games
    assert (fast.returns == slow.returns).all() and (fast.moves == slow.moves).all()
    assert len({tuple(h[32:]) for h in fast_games}) > 150  # the games differ
    assert (fast.moves == [len(h) for h in fast_games]).all()


def test_skat_numba_playouts_from_start_states_replay_them() -> None:
    from spielwerk.games.skat.batch import playout_histories

    states = _skat_start_states()
    assert any(s.is_terminal() for s in states) and any(s.is_ramsch for s in states)  # type: ignore[attr-defined]
    for state in states:
        game = state.game
        before = (state.fingerprint(), list(state.history))
        fast, fast_games = playout_histories(game, 30, seed=4, state=state)  # type: ignore[arg-type]
        slow, slow_games = playout_histories(game, 30, seed=4, state=state, engine="python")  # type: ignore[arg-type]
        assert (state.fingerprint(), state.history) == before
        assert fast_games == slow_games and (fast.returns == slow.returns).all()
        for played in fast_games:
            if state.phase != 0:  # type: ignore[attr-defined]  # past the deal: its history replayed
                assert played[: len(state.history)] == state.history
            else:
                assert played[: len(state.history)] == state.history and len(set(played[:32])) == 32
        if state.is_terminal():
            assert fast.returns.tolist() == [state.returns()] * 30


def test_skat_playouts_refuse_an_unknown_engine() -> None:
    from spielwerk.games.skat.batch import random_playouts

    with pytest.raises(SpielwerkError, match="engine"):
        random_playouts(load_game("skat"), 3, 0, engine="fast")  # type: ignore[arg-type]
