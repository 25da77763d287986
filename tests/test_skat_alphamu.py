"""αμ endgame search: exact on one world, never above PIMC, equal to brute force over the
player's strategies, and the ``endgame`` option of the pimc and knn agents."""

from __future__ import annotations

import functools
import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.dds import DealPosition, Solver
from spielwerk.games.skat.kernel import legal_cards, points, trick_winner
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai.alphamu import (
    AlphaMu,
    AlphaMuError,
    AlphaMuLimit,
    alphamu_card,
    pareto,
)
from spielwerk.games.skat_ai.pimc_agent import SkatPimcAgent, enumerate_deals, goal_query
from test_pimc import _endgames  # noqa: E402


def _bits(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


def _worlds(state: object, count: int, seed: int) -> list[DealPosition]:
    info = state.info_state(state.current_player)  # type: ignore[attr-defined]
    listed = enumerate_deals(info, 64)
    if listed is not None:
        return listed
    rng = np.random.default_rng(seed)
    return [deal_from_state(info.sample_world(rng)) for _ in range(count)]


def _pimc_counts(worlds: list[DealPosition], query: str, me_declarer: bool) -> dict[int, int]:
    solver = Solver()
    counts: dict[int, int] = {}
    for w in worlds:
        for c, v in solver.move_values(w, query).items():
            counts[c] = counts.get(c, 0) + int(bool(v) == me_declarer)
    return counts


def test_pareto_keeps_the_vectors_no_other_covers() -> None:
    assert pareto([0b011, 0b001, 0b110, 0b010, 0b011]) == [0b011, 0b110]
    assert pareto([0]) == [0]
    assert sorted(pareto([0b100, 0b010, 0b001])) == [0b001, 0b010, 0b100]


@pytest.mark.parametrize("tricks", [2, 3])
def test_one_world_gives_the_solver_s_values(tricks: int) -> None:
    solver = Solver()
    for state in _endgames(8, tricks):
        info = state.info_state(state.current_player)
        query = goal_query(info)
        me_declarer = info.player == info.declarer
        truth = deal_from_state(state)
        res = alphamu_card([truth], query)
        expected = {c: float(bool(v) == me_declarer) for c, v in solver.move_values(
            truth, query).items()}
        assert res.scores == expected


def test_never_more_than_pimc_and_sometimes_less() -> None:
    """A strategy that plays one card for all worlds the player cannot tell apart wins in
    no more worlds than PIMC's count, which lets each world choose its own continuation;
    in some endgames it wins in fewer (strategy fusion, which αμ sees and PIMC does not)."""
    fused = 0
    for state in _endgames(24, 3):
        info = state.info_state(state.current_player)
        query = goal_query(info)
        worlds = _worlds(state, 32, 0)
        res = alphamu_card(worlds, query, node_limit=10**7)
        pimc = _pimc_counts(worlds, query, info.player == info.declarer)
        assert set(res.scores) == set(pimc)
        assert all(res.scores[c] <= pimc[c] for c in pimc)
        fused += any(res.scores[c] < pimc[c] for c in pimc)
        assert res.total == len(worlds)
    assert fused >= 1


def _brute_force(worlds: list[DealPosition], goal: str) -> dict[int, int]:
    """Each first card's best count of worlds won over every pure strategy of the player to
    move (a card for each history of cards it can see), the other seats answering in each
    world with full knowledge: the opponents against, the partner for the player."""
    first = worlds[0]
    me, game, declarer = first.to_move, first.game, first.declarer
    team = {me} if me == declarer else {s for s in range(3) if s != declarer}

    @functools.cache
    def children(pos: DealPosition) -> list[tuple[int, DealPosition]]:
        mover = pos.to_move
        lead = pos.trick[0] if pos.trick else -1
        out = []
        for c in _bits(int(legal_cards(pos.hands[mover], lead, game))):
            hands = list(pos.hands)
            hands[mover] &= ~(1 << c)
            trick = (*pos.trick, c)
            nxt = DealPosition(game, declarer, tuple(hands), trick, pos.leader,  # type: ignore[arg-type]
                               pos.declarer_points, pos.defender_points, pos.declarer_tricks,
                               pos.defender_tricks)
            if len(trick) == 3:
                winner = (pos.leader + int(trick_winner(*trick, game))) % 3
                pts = int(points(sum(1 << x for x in trick)))
                d = winner == declarer
                nxt = DealPosition(game, declarer, tuple(hands), (), winner,  # type: ignore[arg-type]
                                   pos.declarer_points + pts * d,
                                   pos.defender_points + pts * (not d),
                                   pos.declarer_tricks + d, pos.defender_tricks + (not d))
            out.append((c, nxt))
        return out

    def declarer_won(pos: DealPosition) -> bool:
        if goal == "null":
            return pos.declarer_tricks == 0
        if goal == "schwarz":
            return pos.defender_tricks == 0
        return pos.declarer_points >= int(goal)

    # the player's decision points: histories of cards since the root
    decisions: dict[tuple[int, ...], list[int]] = {}

    def collect(pos: DealPosition, hist: tuple[int, ...]) -> None:
        kids = children(pos)
        if not kids:
            return
        if pos.to_move == me:
            decisions[hist] = [c for c, _ in kids]
        for c, nxt in kids:
            collect(nxt, (*hist, c))

    for w in worlds:
        collect(w, ())

    def value(pos: DealPosition, hist: tuple[int, ...], plan: dict[tuple[int, ...], int]) -> int:
        kids = children(pos)
        if not kids:
            return int(declarer_won(pos) == (me == declarer))
        if pos.to_move == me:
            c = plan[hist]
            return value(next(n for k, n in kids if k == c), (*hist, c), plan)
        vals = [value(n, (*hist, c), plan) for c, n in kids]
        return max(vals) if pos.to_move in team else min(vals)

    best: dict[int, int] = {}
    for first_card in decisions[()]:
        keys = [k for k in decisions if k and k[0] == first_card and len(decisions[k]) > 1]
        if np.prod([len(decisions[k]) for k in keys], dtype=float) > 4096:
            raise OverflowError("too many strategies for the brute force")
        forced = {k: v[0] for k, v in decisions.items() if len(v) == 1}
        for choice in itertools.product(*(decisions[k] for k in keys)):
            plan = {**forced, **dict(zip(keys, choice, strict=True)), (): first_card}
            won = sum(value(w, (), plan) for w in worlds)
            best[first_card] = max(best.get(first_card, 0), won)
    return best


def test_alphamu_equals_brute_force_over_strategies() -> None:
    checked = 0
    rng = np.random.default_rng(3)
    for i, state in enumerate(_endgames(40, 3)):
        info = state.info_state(state.current_player)
        query = goal_query(info)
        pool = _worlds(state, 16, 1)
        worlds = [pool[int(i)] for i in rng.choice(len(pool), min(2 + i % 2, len(pool)),
                                                  replace=False)]
        worlds = list(dict.fromkeys(worlds))
        res = alphamu_card(worlds, query, node_limit=10**7)
        try:
            brute = _brute_force(worlds, query)
        except OverflowError:
            continue
        assert {c: int(v) for c, v in res.scores.items()} == brute
        checked += 1
    assert checked >= 10


def test_bad_input_is_refused_and_limits_raise() -> None:
    state = _endgames(1, 4)[0]
    info = state.info_state(state.current_player)
    truth = deal_from_state(state)
    with pytest.raises(AlphaMuError):
        alphamu_card([], goal_query(info))
    with pytest.raises(AlphaMuError):
        alphamu_card([truth], "maybe")
    other = DealPosition(truth.game, truth.declarer, truth.hands, truth.trick, truth.leader,
                         truth.declarer_points, truth.defender_points + 1,
                         truth.declarer_tricks, truth.defender_tricks)
    with pytest.raises(AlphaMuError):
        AlphaMu([truth, other], [1.0, 1.0], goal_query(info))
    worlds = _worlds(state, 32, 0)
    with pytest.raises(AlphaMuLimit):
        alphamu_card(worlds, goal_query(info), node_limit=5)


def test_endgame_option_is_checked_and_passed_on() -> None:
    """``endgame`` is at most 4 (more is too slow to search), and ``knn`` hands it to its
    card player (the games played with it: tests/test_pimc.py)."""
    game = load_game("skat")
    with pytest.raises(AgentSpecError):
        make_agent("pimc:endgame=5", game)
    agent = make_agent("knn:endgame=3:worlds=8", game, seed=1)
    assert isinstance(agent.player, SkatPimcAgent)  # type: ignore[attr-defined]
    assert agent.player.settings.endgame == 3  # type: ignore[attr-defined]


def test_benchmark_prints_its_table() -> None:
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "skat_alphamu.py"
    out = subprocess.run([sys.executable, str(script), "--positions", "2", "--tricks", "2"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    assert "machine:" in out
    row = [line.split() for line in out.splitlines() if line.split()[:1] == ["2"]]
    assert len(row) == 1 and row[0][1] == "2"
