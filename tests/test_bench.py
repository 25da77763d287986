"""``spielwerk bench``: the node totals are the recorded signature, and they agree
position by position with the solvers' own signature tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spielwerk import bench
from spielwerk.cli.main import app
from spielwerk.core.errors import SpielwerkError
from spielwerk.games.durak import bench as durak_bench
from spielwerk.games.kalah import bench as kalah_bench
from spielwerk.games.skat import bench as skat_bench
from spielwerk.plugins import BenchWorkload

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="module")
def per_position() -> dict[str, list[tuple[str, int, float]]]:
    return {game: list(bench.workload(game).positions()) for game in bench.bench_games()}


def test_the_built_in_games_are_benched_in_the_documented_order() -> None:
    # docs/performance.md records the signature as skat-kalah-durak
    assert bench.bench_games()[:3] == ("skat", "kalah", "durak")


def test_node_totals_are_the_signature(
    per_position: dict[str, list[tuple[str, int, float]]],
) -> None:
    totals = {game: sum(n for _, n, _ in rows) for game, rows in per_position.items()}
    assert totals == {game: bench.signature(game) for game in bench.bench_games()}


def test_skat_positions_agree_with_the_dds_signature_test(
    per_position: dict[str, list[tuple[str, int, float]]],
) -> None:
    from test_skat_dds import SIGNATURE

    got = [n for _, n, _ in per_position["skat"]]
    assert got == [SIGNATURE[key][1] for key in skat_bench.SKAT_POSITIONS]


def test_kalah_positions_agree_with_the_solver_signature_test(
    per_position: dict[str, list[tuple[str, int, float]]],
) -> None:
    from test_kalah_solver import SIGNATURE, SIGNATURE_POSITIONS

    assert list(kalah_bench.KALAH_POSITIONS[: len(SIGNATURE_POSITIONS)]) == SIGNATURE_POSITIONS
    got = [n for _, n, _ in per_position["kalah"]]
    assert got[: len(SIGNATURE)] == [nodes for _, nodes in SIGNATURE]


def test_durak_positions_are_endgames_of_two_players() -> None:
    for seed in durak_bench.DURAK_SEEDS:
        state = durak_bench.durak_endgame(seed)
        info = state.info_state(0)  # type: ignore[attr-defined]
        assert info.stock == 0 and not state.is_terminal()  # type: ignore[attr-defined]
        assert state.game.num_players == 2  # type: ignore[attr-defined]


def _fake_kalah(monkeypatch: pytest.MonkeyPatch, recorded: int) -> None:
    # the printing, on two made-up positions (the real counts are checked above)
    rows = [("a", 700, 0.5), ("b", 300, 0.5)]
    fake = BenchWorkload(positions=lambda: iter(rows), warm_up=lambda: None)
    monkeypatch.setattr(bench, "workload", lambda game: fake)
    monkeypatch.setattr(bench, "signature", lambda game: recorded)


def test_cli_prints_totals_rates_and_the_signature(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_kalah(monkeypatch, 1000)
    result = CliRunner().invoke(app, ["bench", "--game", "kalah"])
    assert result.exit_code == 0, result.output
    assert "kalah  a" in result.output  # a line per position
    assert "kalah          2        1,000     1.00       1,000  ok" in result.output
    assert "signature: 1000" in result.output


def test_cli_refuses_an_unknown_game_in_one_line() -> None:
    # main() prints a SpielwerkError as one line (exit 2); the app itself raises it
    result = CliRunner().invoke(app, ["bench", "--game", "chess"])
    assert isinstance(result.exception, SpielwerkError)
    assert "chess" in str(result.exception) and "\n" not in str(result.exception)


def test_a_changed_count_is_reported_as_differing(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_kalah(monkeypatch, 1)
    result = CliRunner().invoke(app, ["bench", "-g", "kalah", "-q"])
    assert "DIFFERS (recorded 1)" in result.output and "kalah  a" not in result.output
