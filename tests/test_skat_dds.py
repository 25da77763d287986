"""Double-dummy solver against an independent brute-force minimax (no pruning, no table).

Random endgames with 2-5 tricks left, every trick position (0, 1 or 2 cards on
the table), suit, grand and null games, all three objectives. The oracle
below walks the full game tree; it shares only the rule kernel
(``legal_cards``, ``trick_winner``) with the solver, since the rules exist once.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from spielwerk.games.skat.cards import CLUBS, GRAND, points_of
from spielwerk.games.skat.dds import (
    MODE_DECLARER_TRICKS,
    MODE_DEFENDER_TRICKS,
    MODE_POINTS,
    ORDER_FOLLOW,
    ORDER_HASH_MOVE,
    ORDER_HISTORY,
    ORDER_KILLERS,
    ORDER_LEAD,
    DealPosition,
    Solver,
    SolverConfig,
    SolverError,
    best_cards,
)
from spielwerk.games.skat.kernel import legal_cards, trick_winner
from spielwerk.games.skat_ai.knowledge.deals import WEAK_ACCEPT, make_deal

POINTS = np.array([(0, 0, 0, 3, 4, 10, 11, 2)[c & 7] for c in range(32)], dtype=np.int64)


@njit
def _brute(hands, table, nt, leader, game, decl, mode, points):  # type: ignore[no-untyped-def]
    """Minimax value of the rest of the game (plain recursion over every card)."""
    if nt == 0 and (hands[0] | hands[1] | hands[2]) == 0:
        return 0
    p = (leader + nt) % 3
    led = table[0] if nt > 0 else -1
    legal = legal_cards(hands[p], led, game)
    best = -1 if p == decl else 1000
    for c in range(32):
        if (legal >> c) & 1:
            hands[p] ^= 1 << c
            if nt < 2:
                t2 = table.copy()
                t2[nt] = c
                v = _brute(hands, t2, nt + 1, leader, game, decl, mode, points)
            else:
                w = (leader + trick_winner(table[0], table[1], c, game)) % 3
                gain = 0
                if mode == 0 and w == decl:
                    gain = points[table[0]] + points[table[1]] + points[c]
                elif mode == 1 and w == decl:
                    gain = 1
                elif mode == 2 and w != decl:
                    gain = 1
                v = gain + _brute(hands, np.full(3, -1, np.int64), 0, w, game, decl, mode, points)
            hands[p] ^= 1 << c
            if p == decl:
                best = max(best, v)
            else:
                best = min(best, v)
    return best


def brute_moves(pos: DealPosition, mode: int) -> dict[int, int]:
    """Value of the rest of the game after each legal card (brute force)."""
    hands = np.array(pos.hands, dtype=np.int64)
    table = np.full(3, -1, dtype=np.int64)
    for i, c in enumerate(pos.trick):
        table[i] = c
    nt = len(pos.trick)
    p = pos.to_move
    legal = legal_cards(hands[p], table[0] if nt else -1, pos.game)
    out = {}
    for c in range(32):
        if legal >> c & 1:
            hands[p] ^= 1 << c
            if nt < 2:
                t2 = table.copy()
                t2[nt] = c
                v = _brute(hands, t2, nt + 1, pos.leader, pos.game, pos.declarer, mode, POINTS)
            else:
                w = (pos.leader + trick_winner(table[0], table[1], c, pos.game)) % 3
                gain = 0
                if mode == 0 and w == pos.declarer:
                    gain = int(POINTS[table[0]] + POINTS[table[1]] + POINTS[c])
                elif mode == 1 and w == pos.declarer:
                    gain = 1
                elif mode == 2 and w != pos.declarer:
                    gain = 1
                v = gain + _brute(hands, np.full(3, -1, np.int64), 0, w, pos.game,
                                  pos.declarer, mode, POINTS)
            hands[p] ^= 1 << c
            out[c] = int(v)
    return out


def random_endgame(rng: np.random.Generator, game: int, tricks: int, on_table: int) -> DealPosition:
    """``tricks`` tricks left, ``on_table`` cards of the current trick already played."""
    cards = [int(c) for c in rng.permutation(32)[: 3 * tricks]]
    hands = [sum(1 << c for c in cards[i * tricks:(i + 1) * tricks]) for i in range(3)]
    leader = int(rng.integers(3))
    declarer = int(rng.integers(3))
    trick: list[int] = []
    for i in range(on_table):
        seat = (leader + i) % 3
        legal = legal_cards(hands[seat], trick[0] if trick else -1, game)
        choices = [c for c in range(32) if legal >> c & 1]
        card = choices[int(rng.integers(len(choices)))]
        hands[seat] &= ~(1 << card)
        trick.append(card)
    done = 10 - tricks
    decl_tricks = int(rng.integers(done + 1))
    return DealPosition(
        game=game, declarer=declarer, hands=(hands[0], hands[1], hands[2]), trick=tuple(trick),
        leader=leader, declarer_points=int(rng.integers(0, 60)) if done else 0,
        declarer_tricks=decl_tricks, defender_tricks=done - decl_tricks,
    )


def _positions(seed: int, games: tuple[int, ...], count: int) -> list[DealPosition]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        game = games[i % len(games)]
        tricks = 2 + (i // len(games)) % 4  # 2..5
        on_table = int(rng.integers(3))
        out.append(random_endgame(rng, game, tricks, on_table))
    return out


@pytest.mark.parametrize(
    "games,seed,count",
    [((0, 1, 2, 3), 11, 600), ((4,), 12, 400), ((5,), 13, 500)],
    ids=["suit", "grand", "null"],
)
def test_values_and_optimal_moves_match_brute_force(
    games: tuple[int, ...], seed: int, count: int
) -> None:
    solver = Solver(SolverConfig(tt_log2=16))
    modes = (MODE_DEFENDER_TRICKS,) if games == (5,) else (MODE_POINTS, MODE_DECLARER_TRICKS)
    checked = 0
    for pos in _positions(seed, games, count):
        maximize = pos.to_move == pos.declarer
        for mode in modes:
            expected = brute_moves(pos, mode)
            got = solver._run_moves(pos, mode, 0, 0)
            assert got == expected, (pos, mode)
            assert best_cards(got, maximize) == best_cards(expected, maximize)
            # the root value from the value driver agrees as well
            root = max(expected.values()) if maximize else min(expected.values())
            assert solver._run_value(pos, mode, 0, 0) == root
            checked += 1
    assert checked >= count


def test_thresholds_agree_with_exact_values() -> None:
    solver = Solver(SolverConfig(tt_log2=16))
    for pos in _positions(21, (0, 1, 2, 3, 4), 400):
        exact = solver.exact(pos)
        assert exact == pos.declarer_points + solver._run_value(pos, MODE_POINTS, 0, 0)
        assert solver.query(pos, "61") == (exact >= 61)
        assert solver.query(pos, "90") == (exact >= 90)
        for t in (exact - 1, exact, exact + 1):
            assert solver.reaches(pos, t) == (exact >= t)
        tricks = brute_moves(pos, MODE_DECLARER_TRICKS)
        best = max(tricks.values()) if pos.to_move == pos.declarer else min(tricks.values())
        schwarz = pos.defender_tricks == 0 and best == pos.tricks_left
        assert solver.query(pos, "schwarz") == schwarz
        moves = solver.move_values(pos, "61")
        exact_moves = solver.move_values(pos, "exact")
        assert moves == {c: v >= 61 for c, v in exact_moves.items()}
    for pos in _positions(22, (5,), 300):
        tricks = brute_moves(pos, MODE_DEFENDER_TRICKS)
        best = max(tricks.values()) if pos.to_move == pos.declarer else min(tricks.values())
        wins = pos.declarer_tricks == 0 and best == pos.tricks_left
        assert solver.query(pos, "null") == wins
        if pos.declarer_tricks == 0:
            assert solver.move_values(pos, "null") == {
                c: v == pos.tricks_left for c, v in tricks.items()
            }


@pytest.mark.parametrize(
    "config",
    [
        SolverConfig(transposition_table=False, tt_log2=12),
        SolverConfig(equivalence=False, tt_log2=12),
        SolverConfig(move_ordering=False, tt_log2=12),
        SolverConfig(null_window=False, tt_log2=12),
        SolverConfig(history=True, killers=True, tt_log2=12),
        SolverConfig(tt_log2=4),  # a tiny table: constant replacement must stay correct
        SolverConfig(quick_tricks=False, tt_log2=12),
        SolverConfig(move_ordering=False, history=True, killers=True, tt_log2=12),
    ],
    ids=["no-tt", "no-equiv", "no-order", "no-null-window", "history-killers", "tiny-tt",
         "no-quick", "only-history-killers"],
)
def test_every_switch_keeps_the_values(config: SolverConfig) -> None:
    solver = Solver(config)
    for pos in _positions(31, (0, 3, 4, 5), 120):
        mode = MODE_DEFENDER_TRICKS if pos.game == 5 else MODE_POINTS
        assert solver._run_moves(pos, mode, 0, 0) == brute_moves(pos, mode)


def _total_nodes(config: SolverConfig, positions: list[DealPosition]) -> tuple[int, list[int]]:
    values = []
    nodes = 0
    for pos in positions:
        solver = Solver(config)
        values.append(solver.exact(pos))
        nodes += solver.nodes
    return nodes, values


def test_each_switch_works_on_its_own() -> None:
    """Quick tricks no longer ride on the move-ordering switch (the old bug), and history
    and killers order moves even with the static ordering off."""
    assert SolverConfig().order_flags() == ORDER_HASH_MOVE | ORDER_LEAD | ORDER_FOLLOW
    assert SolverConfig(move_ordering=False).order_flags() == 0
    assert SolverConfig(move_ordering=False, history=True).order_flags() == ORDER_HISTORY
    assert SolverConfig(move_ordering=False, killers=True).order_flags() == ORDER_KILLERS
    positions = [p for p in _positions(61, (0, 2, 4), 60) if p.tricks_left >= 4]
    assert len(positions) >= 20
    quick, v1 = _total_nodes(SolverConfig(move_ordering=False, tt_log2=14), positions)
    neither, v2 = _total_nodes(SolverConfig(move_ordering=False, quick_tricks=False, tt_log2=14),
                               positions)
    history, v3 = _total_nodes(SolverConfig(move_ordering=False, history=True, tt_log2=14),
                               positions)
    assert v1 == v2 == v3
    assert quick < neither  # the sure points cut with move ordering off
    assert history != quick  # the history orders moves with the static ordering off


def test_table_entries_are_reused_across_deals() -> None:
    """One solver for many positions gives the same answers as fresh solvers."""
    shared = Solver(SolverConfig(tt_log2=14))
    for pos in _positions(41, (2, 4), 150):
        fresh = Solver(SolverConfig(tt_log2=14))
        assert shared.exact(pos) == fresh.exact(pos)


def _full_deal(seed: int, game: int) -> DealPosition:
    rng = np.random.default_rng(seed)
    perm = [int(c) for c in rng.permutation(32)]
    hands = tuple(sum(1 << c for c in perm[i * 10:(i + 1) * 10]) for i in range(3))
    skat_points = int(sum(POINTS[c] for c in perm[30:]))
    return DealPosition(game=game, declarer=0, hands=hands,  # type: ignore[arg-type]
                        declarer_points=skat_points if game != 5 else 0)


# Regression signature: node counts of fresh solvers on fixed positions. The values
# are checked against brute force above; these numbers only pin the search itself,
# so a change to pruning or ordering shows up here and must be made on purpose.
# Re-derived after the last-trick shortcut, the quick-trick bounds and the top-trump bound,
# and again after the opponents' forced cards joined the sure points and the table probe
# moved before them, after the two-trick shortcut and after the follower ordering change
# (last to play with the partner winning: most points first) and the defenders' lead
# look-ahead (null: a lead the declarer must win), and after four-entry table buckets.
SIGNATURE = {
    ("61", 0, 3): (False, 1153),
    ("61", 5, 4): (False, 51881),
    ("exact", 1, 4): (27, 590478),
    ("exact", 7, 2): (31, 120069),
    ("90", 4, 1): (False, 312),
    ("null", 2, 5): (False, 93),
    ("null", 6, 5): (False, 47),
    ("schwarz", 3, 0): (False, 22),
}


@pytest.mark.parametrize("key", list(SIGNATURE), ids=lambda k: f"{k[0]}-{k[1]}-{k[2]}")
def test_node_count_signature(key: tuple[str, int, int]) -> None:
    query, seed, game = key
    results = []
    for _ in range(2):
        solver = Solver()
        value = solver.query(_full_deal(seed, game), query)
        results.append((value, solver.nodes))
    assert results[0] == results[1] == SIGNATURE[key]


def test_bad_queries_raise() -> None:
    solver = Solver()
    pos = _full_deal(1, 4)
    with pytest.raises(SolverError):
        solver.query(pos, "null")
    with pytest.raises(SolverError):
        solver.query(pos, "70")
    with pytest.raises(SolverError):
        solver.query(_full_deal(1, 5), "exact")
    with pytest.raises(SolverError):
        solver.exact(DealPosition(game=9, declarer=0, hands=(1, 2, 4)))
    with pytest.raises(SolverError):  # a table smaller than one bucket of four entries
        Solver(SolverConfig(tt_log2=1))


def test_node_limit_gives_up_cleanly() -> None:
    from spielwerk.games.skat.dds import SearchLimitError

    pos = _full_deal(1, 4)
    limited = Solver(SolverConfig(node_limit=2000))
    with pytest.raises(SearchLimitError):
        limited.exact(pos)
    small = [p for p in _positions(51, (4,), 12) if p.tricks_left <= 3]
    for p in small:  # afterwards the same solver still answers correctly
        assert limited._run_moves(p, MODE_POINTS, 0, 0) == brute_moves(p, MODE_POINTS)


def test_a_search_given_up_and_started_again_goes_on_from_its_table() -> None:
    """``keep_table_on_abort``: a search cut by its node limit keeps the table (it holds only
    nodes searched to the end), so searching again in slices of nodes - as a deadline does,
    reading the clock between them - reaches the unlimited solver's values in about as many
    nodes (a table emptied at each cut would never get there)."""
    from spielwerk.games.skat.dds import SearchLimitError

    for seed, game in ((1, 4), (2, CLUBS)):
        pos = _full_deal(seed, game)
        plain = Solver(SolverConfig(tt_log2=18))
        want = plain._run_moves(pos, MODE_POINTS, False, 0)
        sliced = Solver(SolverConfig(tt_log2=18, keep_table_on_abort=True,
                                     node_limit=max(1000, plain.nodes // 20)))
        cuts = 0
        while True:
            try:
                got = sliced._run_moves(pos, MODE_POINTS, False, 0)
                break
            except SearchLimitError:
                cuts += 1
                assert cuts < 200
        assert cuts >= 2 and got == want
        assert sliced.nodes <= 1.2 * plain.nodes


# final card points left possible by the answers won (61) and schneider (90, or 30 when lost)
BOUNDS = {(True, False): (61, 89), (True, True): (90, 120),
          (False, False): (31, 60), (False, True): (0, 30)}


def test_exact_within_the_threshold_bounds_equals_the_exact_solve() -> None:
    """MTD-bi started inside the bounds that threshold answers leave (won without
    schneider: 61..89, ...; experiments/skat_selection_exact.py relies on it) finds the
    value of the unbounded exact solve."""
    plain, bounded = Solver(SolverConfig(tt_log2=16)), Solver(SolverConfig(tt_log2=16))
    seen = set()
    for deal in range(4):
        position, hands, skat = make_deal(7, deal, WEAK_ACCEPT)
        twelve = hands[position] | skat
        cards = sorted(c for c in range(32) if twelve >> c & 1)
        for game, put in ((CLUBS, (1 << cards[0]) | (1 << cards[1])),
                          (GRAND, (1 << cards[-1]) | (1 << cards[-3]))):
            h3 = list(hands)
            h3[position] = twelve & ~put
            pos = DealPosition(game, position, (h3[0], h3[1], h3[2]),
                               declarer_points=points_of(put))
            v = plain.exact(pos)
            won = plain.reaches(pos, 61)
            schneider = plain.reaches(pos, 90) if won else not plain.reaches(pos, 31)
            lo, hi = BOUNDS[won, schneider]
            assert lo <= v <= hi
            assert bounded.exact_within(pos, lo, hi) == v
            assert bounded.exact_within(pos, 0, 120) == v
            assert bounded.exact_within(pos, v, v) == v
            seen.add((won, schneider))
    assert len(seen) >= 2  # more than one kind of bound was used
    with pytest.raises(SolverError, match="empty bounds"):
        bounded.exact_within(pos, 70, 60)
