"""Kalah solver: agreement with an independent brute force, published values, signatures."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.notation import NotationError, format_position, parse_position
from spielwerk.games.kalah.perfect import search_move
from spielwerk.games.kalah.solver import Solver, SolverError

sys.path.insert(0, str(Path(__file__).parent))
from test_kalah_solver_oracle import Oracle  # noqa: E402

# Every Kalah(m, n) with m * n <= 12 whose brute force takes seconds; the bigger ones are
# slow-marked; (6,2), (8,1) and empty-capture (9,1) hold 10^7-10^8 positions each (up to
# 7.3 GB) and run only with --run-huge. The rest of (9..12,1) is out of reach of a memoised
# brute force: the count grows ~16-fold per pit ((7,1): 5.9 M, (8,1): 98 M positions with
# standard capture), so standard (9,1) needs ~1.6e9 positions (~40 GB of table).
FAST = [(m, n) for m in range(1, 8) for n in range(1, 13) if m * n <= 12
        and (m, n) not in {(4, 3), (5, 2), (6, 2), (7, 1)}]
SLOW = [(4, 3), (5, 2), (7, 1)]
HUGE = [(6, 2, False), (6, 2, True), (8, 1, False), (8, 1, True), (9, 1, True)]


def _check_root_moves(m: int, n: int, empty_capture: bool, egdb_seeds: int, tmp: Path) -> None:
    start = kernel.initial_board(m, n)
    oracle = Oracle(m, empty_capture)
    expected = oracle.move_values(start)
    solver = Solver(m, empty_capture, max_seeds=2 * m * n, egdb_seeds=egdb_seeds,
                    egdb_path=str(tmp), tt_log2=16)
    assert solver.move_values(solver.relative(start, 0)) == expected


@pytest.mark.parametrize("m,n", FAST)
@pytest.mark.parametrize("empty_capture", [False, True])
def test_every_root_move_agrees_with_brute_force(m: int, n: int, empty_capture: bool,
                                                 tmp_path: Path) -> None:
    _check_root_moves(m, n, empty_capture, 0, tmp_path)


@pytest.mark.parametrize(
    "m,n,empty_capture",
    [pytest.param(m, n, ec, marks=pytest.mark.slow) for m, n in SLOW for ec in (False, True)]
    + [pytest.param(m, n, ec, marks=pytest.mark.huge) for m, n, ec in HUGE],
)
def test_every_root_move_agrees_with_brute_force_larger(m: int, n: int, empty_capture: bool,
                                                        tmp_path: Path) -> None:
    _check_root_moves(m, n, empty_capture, 0, tmp_path)


@pytest.mark.parametrize("empty_capture", [False, True])
def test_root_moves_agree_with_an_endgame_database(empty_capture: bool, tmp_path: Path) -> None:
    _check_root_moves(3, 4, empty_capture, 9, tmp_path)
    _check_root_moves(4, 2, empty_capture, 6, tmp_path)


def _random_positions(m: int, n: int, count: int, max_pit_seeds: int, seed: int
                      ) -> list[np.ndarray]:
    """Positions met in random games, taken once few seeds are left in the pits."""
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    while len(out) < count:
        b = kernel.initial_board(m, n)
        player = 0
        while player >= 0:
            pits = int(b[:m].sum() + b[m + 1 : 2 * m + 1].sum())
            if pits <= max_pit_seeds and rng.random() < 0.3:
                rel = b.copy()
                if player == 1:
                    rel = np.concatenate([b[m + 1 :], b[: m + 1]]).astype(np.int32)
                rel[m] = 0
                rel[2 * m + 1] = 0
                out.append(rel)
                break
            legal = [i for i in range(m) if b[player * (m + 1) + i] > 0]
            player = kernel.sow(b, player, int(rng.choice(legal)), m, False,
                                kernel.END_EITHER_EMPTY)
    return out


@pytest.mark.parametrize("empty_capture", [False, True])
def test_midgame_positions_agree_with_brute_force(empty_capture: bool, tmp_path: Path) -> None:
    oracle = Oracle(6, empty_capture)
    solver = Solver(6, empty_capture, max_seeds=48, egdb_seeds=6, egdb_path=str(tmp_path),
                    tt_log2=18)
    for rel in _random_positions(6, 4, 12, 12, seed=11 + empty_capture):
        assert solver.move_values(rel) == oracle.move_values(rel), rel.tolist()


@pytest.mark.parametrize("iterative", [False, True])
def test_value_best_move_and_pv_are_consistent(iterative: bool) -> None:
    m, n = 4, 2
    solver = Solver(m, False, max_seeds=16, tt_log2=14, depth_step=3 if iterative else 0)
    start = kernel.initial_board(m, n)
    rel = solver.relative(start, 0)
    res = solver.analyze(rel)
    assert res.value == max(res.move_values.values())
    assert res.move_values[res.best_move] == res.value
    # playing the principal variation from the start reaches exactly the value
    b = start.copy()
    player = 0
    for pit in res.pv:
        assert player >= 0
        player = kernel.sow(b, player, pit, m, False, kernel.END_EITHER_EMPTY)
    assert player < 0
    assert b[m] - b[2 * m + 1] == res.value


def _fresh_nodes(board: np.ndarray, player: int, empty_capture: bool) -> tuple[int, int]:
    solver = Solver(6, empty_capture, max_seeds=48, tt_log2=16, depth_step=0)
    v = solver.value(solver.relative(board, player))
    return v, solver.stats.nodes


SIGNATURE_POSITIONS = [
    ("3,0,2,1,2,0|2,1,0,3,1,0|20-13 S", False),
    ("0,1,3,0,2,2|2,0,1,1,1,1|15-18 N", True),
    ("1,1,1,1,1,1|1,1,1,1,1,1|18-18 S", False),
]


@pytest.mark.parametrize("text,empty_capture", SIGNATURE_POSITIONS)
def test_node_counts_are_deterministic(text: str, empty_capture: bool) -> None:
    board, player = parse_position(text)
    first = _fresh_nodes(board, player, empty_capture)
    second = _fresh_nodes(board, player, empty_capture)
    assert first == second
    oracle = Oracle(6, empty_capture)
    solver = Solver(6, empty_capture, max_seeds=48)
    assert first[0] == oracle.value(solver.relative(board, player))


def test_node_count_signature() -> None:
    """Golden node counts (a regression signature of search order, pruning and the table):
    a change here must be deliberate - update the numbers with the reason in the commit."""
    got = [_fresh_nodes(*parse_position(t), ec) for t, ec in SIGNATURE_POSITIONS]
    assert got == SIGNATURE


SIGNATURE: list[tuple[int, int]] = [(-1, 693), (4, 1290), (2, 561)]


@pytest.mark.parametrize("empty_capture", [False, True])
def test_published_kalah_6_3_value(empty_capture: bool) -> None:
    """Irving, Donkers & Uiterwijk (2000) and CMancala: Kalah(6,3) is +2 for the first player
    under both capture rules."""
    solver = Solver(6, empty_capture, max_seeds=36, tt_log2=20, depth_step=0)
    assert solver.value(solver.relative(kernel.initial_board(6, 3), 0)) == 2


def test_perfect_agent_plays_exactly_in_small_games() -> None:
    game = load_game("kalah(pits=3,seeds=2)")
    agent = make_agent("perfect:time=5", game, seed=1)
    oracle = Oracle(3, False)
    state = game.new_initial_state()
    while not state.is_terminal():
        move = agent.act(state.info_state(state.current_player))
        solver = Solver(3, False, max_seeds=12)
        rel = solver.relative(state.board, state.current_player)
        values = oracle.move_values(rel)
        assert values[move] == max(values.values())
        state.apply(move)
    assert state.margin() == 4  # Kalah(3,2) is +4 for South with perfect play


def test_perfect_agent_respects_a_tiny_budget() -> None:
    game = load_game("kalah(pits=6,seeds=6)")
    state = game.new_initial_state()
    solver = Solver(6, False, max_seeds=72, tt_log2=16)
    move, _value, depth = search_move(solver, solver.relative(state.board, 0), 0.05)
    assert move in state.legal_actions()
    assert depth != -1  # far from solved in 50 ms


def test_bad_input_raises_clear_errors() -> None:
    with pytest.raises(SolverError):
        Solver(0)
    with pytest.raises(SolverError):
        Solver(6, max_seeds=10).relative(kernel.initial_board(6, 4), 0)
    with pytest.raises(NotationError):
        parse_position("1,2,3|1,2")
    with pytest.raises(NotationError):
        parse_position("1,2|1,x")
    with pytest.raises(NotationError):
        parse_position("1,2|1,1|3:4 S")
    with pytest.raises(NotationError):
        parse_position("start")


def test_notation_round_trips() -> None:
    board, player = parse_position(" 3,0,5 | 2,2,0 | 10-9  N")
    assert board.tolist() == [3, 0, 5, 10, 2, 2, 0, 9]
    assert player == 1
    assert format_position(board, player) == "3,0,5|2,2,0|10-9 N"
    assert parse_position(format_position(board, player))[0].tolist() == board.tolist()
    start, p = parse_position("start", 6, 4)
    assert p == 0 and start.tolist() == kernel.initial_board(6, 4).tolist()


def test_cli_solve_and_analyze() -> None:
    from typer.testing import CliRunner

    from spielwerk.cli.main import app

    runner = CliRunner()
    out = runner.invoke(app, ["kalah", "solve", "-m", "3", "-n", "3", "-q"],
                        env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    oracle = Oracle(3, False)
    value = max(oracle.move_values(kernel.initial_board(3, 3)).values())
    assert f"value {value:+d} for South" in out.output
    out = runner.invoke(app, ["kalah", "analyze", "0,0,1|0,0,1|5-3 N", "-q"],
                        env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    # North's only move sows into its store (3 -> 4) and empties its side: the game ends,
    # South keeps its last seed (5 -> 6), so North finishes 4 - 6 = -2
    assert "value -2 for North" in out.output


def test_cli_reports_bad_positions_in_one_line() -> None:
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "spielwerk.cli.main", "kalah", "analyze",
                           "1,2,3|4,5"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "error:" in proc.stderr and "Traceback" not in proc.stderr
    assert "South has 3 pits but North 2" in proc.stderr


def test_solves_with_and_without_a_database_share_one_compiled_search(
        tmp_path: Path) -> None:
    """numba compiles a kernel once per argument types, and a writable and a read-only
    array are two types: the solver hands the search a read-only database in every case
    (none, a loaded file, values just built), so the warm-up's solve without a database
    also compiles the one with it (3 s of the first solve after it, before)."""
    from spielwerk.games.kalah import egdb, solver_kernel

    built = egdb.build(3, 8, False)
    assert built.flags.writeable
    loaded = egdb.open_egdb(3, 8, False, path=tmp_path).values
    rel = kernel.initial_board(3, 2)
    values = []
    for kwargs in ({"egdb_seeds": 0}, {"egdb_seeds": 8, "egdb_values": built},
                   {"egdb_seeds": 8, "egdb_values": loaded}):
        solver = Solver(3, False, kernel.END_EITHER_EMPTY, max_seeds=12, tt_log2=12,
                        **kwargs)  # type: ignore[arg-type]
        assert not solver.db.flags.writeable
        values.append(solver.value(solver.relative(rel, 0)))
    assert len(set(values)) == 1 and built.flags.writeable  # the caller's array untouched
    assert len(solver_kernel.nws.signatures) == 1, solver_kernel.nws.signatures
