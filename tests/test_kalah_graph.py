"""Full game graph: counts against an independent enumeration, values against solver and
brute force, the seed's Kalah(4,3) size."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from spielwerk.core.registry import load_game
from spielwerk.games.kalah.graph import full_graph
from spielwerk.games.kalah.solver import Solver

sys.path.insert(0, str(Path(__file__).parent))
from test_kalah_solver_oracle import Oracle  # noqa: E402


def _enumerate(m: int, n: int, empty_capture: bool) -> tuple[set, set]:  # type: ignore[type-arg]
    """Reachable (board, mover) and finished boards via the public game API (plain search)."""
    game = load_game(f"kalah(pits={m},seeds={n},empty_capture={str(empty_capture).lower()})")
    start = game.new_initial_state()
    seen = {start.fingerprint()}
    over: set = set()  # type: ignore[type-arg]
    stack = [start]
    while stack:
        state = stack.pop()
        for a in state.legal_actions():
            child = state.clone()
            child.apply(a)
            if child.is_terminal():
                over.add(child.board.tobytes())
            elif child.fingerprint() not in seen:
                seen.add(child.fingerprint())
                stack.append(child)
    return seen, over


@pytest.mark.parametrize("m,n", [(2, 2), (2, 3), (3, 2), (3, 3), (4, 2)])
@pytest.mark.parametrize("empty_capture", [False, True])
def test_counts_match_an_independent_enumeration(m: int, n: int, empty_capture: bool) -> None:
    result = full_graph(m, n, empty_capture)
    positions, finished = _enumerate(m, n, empty_capture)
    assert result.positions == len(positions)
    assert result.terminal_positions == len(finished)
    assert result.wins + result.losses + result.draws == result.positions
    pit_configs = set()
    for raw, mover in positions:
        board = np.frombuffer(raw, dtype=np.int32)
        pit_configs.add((board[:m].tobytes(), board[m + 1 : 2 * m + 1].tobytes(), mover))
    assert result.pit_positions == len(pit_configs)


@pytest.mark.parametrize("m,n", [(2, 3), (3, 2), (3, 3)])
@pytest.mark.parametrize("empty_capture", [False, True])
def test_every_position_agrees_with_solver_and_brute_force(m: int, n: int,
                                                           empty_capture: bool) -> None:
    result = full_graph(m, n, empty_capture)
    solver = Solver(m, empty_capture, max_seeds=2 * m * n, tt_log2=14, depth_step=0)
    oracle = Oracle(m, empty_capture)
    checked = 0
    for board, mover, value in result.values():
        if mover is None:
            assert value == board[m] - board[2 * m + 1]
            continue
        rel = solver.relative(board, mover)
        sign = 1 if mover == 0 else -1
        stores = int(board[m] - board[2 * m + 1])
        assert value == stores + sign * solver.value(rel)
        assert value == stores + sign * oracle.value(rel)
        checked += 1
    assert checked == result.positions


def test_start_values_of_small_instances() -> None:
    # values agree with the solver's root analysis (and both with the brute force above)
    for m, n in [(3, 3), (4, 2)]:
        for ec in (False, True):
            result = full_graph(m, n, ec)
            solver = Solver(m, ec, max_seeds=2 * m * n)
            assert result.start_value == solver.value(solver.relative(
                load_game(f"kalah(pits={m},seeds={n})").new_initial_state().board, 0))


@pytest.mark.slow
def test_kalah_4_3_matches_the_seed_size() -> None:
    """The seed: Kalah(4,3) has "about 4.6 million" reachable positions; with empty capture
    and our convention (whole board + mover, finished games apart) we count 4.58 million."""
    progress: list[str] = []
    result = full_graph(4, 3, True, progress=progress.append)
    assert abs(result.positions - 4_600_000) < 50_000
    assert result.wins + result.losses + result.draws == result.positions
    solver = Solver(4, True, max_seeds=24)
    start = load_game("kalah(pits=4,seeds=3,empty_capture=true)").new_initial_state().board
    assert result.start_value == solver.value(solver.relative(start, 0))


def test_graph_command_prints_the_table() -> None:
    from spielwerk.cli.main import app

    out = CliRunner().invoke(app, ["kalah", "graph", "--pits", "3", "--seeds", "2", "-q"],
                             env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    positions, _ = _enumerate(3, 2, False)
    assert f"{len(positions):,}" in out.output
    assert "start value +4" in out.output
