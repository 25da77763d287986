"""``spielwerk skat calibration --resume / --fresh / --summarize``: a record file is never
overwritten by accident, a killed run continues to the same records, and several runs pool
with the spread between them computed by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app
from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat_ai.calibration import GAME_TYPES, CalibrationConfig, type_figures
from spielwerk.games.skat_ai.calibration_runs import open_records, pool, read_run, spread_lines

runner = CliRunner()
FAST = "knn:play=rule"  # the knn decisions before the first card, the rule agent's cards


def _run(*args: str) -> tuple[int, str, str, BaseException | None]:
    result = runner.invoke(app, ["skat", "calibration", *args], env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr, result.exception


def _play(out: Path, seed: int, *extra: str) -> tuple[int, str, str, BaseException | None]:
    return _run("--agent", FAST, "--defence", "rule", "--deals", "2", "--seed", str(seed),
                "--workers", "1", "--json", "--out", str(out), *extra)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """Seeds 11 and 12, 2 deals each, with seed 11's JSON figures."""
    folder = tmp_path_factory.mktemp("runs")
    code, stdout, _, exc = _play(folder / "s11.jsonl", 11)
    assert code == 0, exc
    assert _play(folder / "s12.jsonl", 12)[0] == 0
    return folder / "s11.jsonl", folder / "s12.jsonl", json.loads(stdout)


def test_an_existing_file_is_kept_unless_asked(two_runs: tuple[Path, Path, dict],
                                               tmp_path: Path) -> None:
    whole = two_runs[0].read_text()
    out = tmp_path / "run.jsonl"
    out.write_text(whole)
    code, _, _, exc = _play(out, 11)
    assert isinstance(exc, SpielwerkError) and "already exists: add --resume" in str(exc)
    assert out.read_text() == whole
    # --resume of another run (another seed) is refused, naming the difference
    code, _, _, exc = _play(out, 12, "--resume")
    assert isinstance(exc, SpielwerkError) and "seed: file has 11, now 12" in str(exc)
    assert out.read_text() == whole
    # --fresh overwrites a record file (with the new run) but nothing else
    assert _play(out, 12, "--fresh")[0] == 0
    assert out.read_text() == two_runs[1].read_text()
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    code, _, _, exc = _play(other, 11, "--fresh")
    assert isinstance(exc, SpielwerkError) and "refusing to overwrite" in str(exc)
    assert other.read_text() == "my notes\n"


@pytest.mark.parametrize(("extra", "message"), [
    (["--resume", "--fresh"], "either --resume or --fresh"),
    (["--resume"], "does not exist"),
])
def test_bad_resume_requests(tmp_path: Path, extra: list[str], message: str) -> None:
    code, _, _, exc = _play(tmp_path / "none.jsonl", 11, *extra)
    assert isinstance(exc, SpielwerkError) and message in str(exc)
    assert not (tmp_path / "none.jsonl").exists()


def test_resume_and_fresh_need_out() -> None:
    code, _, _, exc = _run("--agent", FAST, "--defence", "rule", "--deals", "2", "--resume")
    assert isinstance(exc, SpielwerkError) and "need --out" in str(exc)


def test_a_killed_run_continues_to_the_same_records(two_runs: tuple[Path, Path, dict],
                                                    tmp_path: Path) -> None:
    whole = two_runs[0].read_text()
    lines = whole.splitlines()
    out = tmp_path / "run.jsonl"
    out.write_text("\n".join(lines[:3]) + "\n" + lines[3][:15])  # killed mid-line
    code, stdout, _, exc = _play(out, 11, "--resume")
    assert code == 0, exc
    assert out.read_text() == whole  # the cut line dropped, the other four played
    assert json.loads(stdout) == two_runs[2]
    # a complete file resumed plays nothing and gives the same figures
    code, stdout, _, _ = _play(out, 11, "--resume")
    assert code == 0 and json.loads(stdout) == two_runs[2] and out.read_text() == whole


def test_a_damaged_line_is_refused_and_kept(two_runs: tuple[Path, Path, dict],
                                            tmp_path: Path) -> None:
    lines = two_runs[0].read_text().splitlines()
    out = tmp_path / "run.jsonl"
    damaged = "\n".join([*lines[:2], "{not json", *lines[3:]]) + "\n"
    out.write_text(damaged)
    code, _, _, exc = _play(out, 11, "--resume")
    assert isinstance(exc, SpielwerkError) and "line 3: not JSON" in str(exc)
    assert out.read_text() == damaged
    out.write_text("\n".join([*lines[:2], lines[1]]) + "\n")
    with pytest.raises(SpielwerkError, match="line 3: deal .* appears twice"):
        read_run(out)


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    config = CalibrationConfig(FAST, "rule", 2, 11)
    handle, done = open_records(tmp_path / "run.jsonl", config)
    try:
        assert done == []
        with pytest.raises(SpielwerkError, match="being written by another run"):
            open_records(tmp_path / "run.jsonl", config, resume=True)
    finally:
        handle.close()


def _write(path: Path, seed: int, deals: int, games: list[tuple[str, float, int]],
           agent: str = "knn") -> Path:
    """A record file whose deal d's seat 0 declared games[d] (type, predicted, won)."""
    rows = [{"agent": agent, "defence": "knn", "deals": deals, "seed": seed}]
    for deal in range(deals):
        for seat in range(3):
            if seat == 0 and deal < len(games):
                kind, told, won = games[deal]
                rows.append({"deal": deal, "seat": 0, "declared": True, "type": kind,
                             "predicted": told, "won": bool(won), "sf": 60 if won else -100})
            else:
                rows.append({"deal": deal, "seat": seat, "declared": False})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_pooled_figures_and_the_spread_by_hand(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", 1, 5, [("suit", 0.5, w) for w in (1, 1, 1, 0)]
               + [("grand", 0.9, True)])
    b = _write(tmp_path / "b.jsonl", 2, 6, [("suit", 0.5, w) for w in (1, 1, 0, 0, 0, 0)])
    summary = pool([read_run(a), read_run(b)])
    assert (summary["deals"], summary["seeds"], summary["seat_games"]) == (11, [1, 2], 33)
    assert summary["complete"] is True
    every = [r for p in (a, b) for r in read_run(p).records if r["declared"]]
    assert summary["types"]["suit"] == type_figures([r for r in every if r["type"] == "suit"])
    assert summary["all"] == type_figures(every)
    # suit: run 1 won 3 of 4 told 0.5 (+0.25), run 2 won 2 of 6 (-1/6); pooled rate 1/2,
    # so the weights are 4/0.25 and 6/0.25, their centre 0, Q = 16/16 + 24/36
    spread = summary["spread"]["suit"]
    assert spread["per_run"] == {"1": 0.25, "2": round(-1 / 6, 4)}
    assert spread["q"] == round(1 + 24 / 36, 2) and spread["df"] == 1
    assert spread["p"] == pytest.approx(math.erfc(math.sqrt((1 + 24 / 36) / 2)), rel=3e-3)
    assert "grand" not in summary["spread"]  # declared in one run only
    text = spread_lines(summary, min_games=5)
    assert text[1].split() == ["seed", "suit"]
    assert text[2].split() == ["1", "+0.250"] and text[3].split() == ["2", "-0.167"]
    assert spread_lines(summary, min_games=50) == []


def test_pooling_refuses_mixed_runs(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", 1, 2, [("suit", 0.5, True)])
    again = _write(tmp_path / "b.jsonl", 1, 2, [("suit", 0.5, False)])
    other = _write(tmp_path / "c.jsonl", 3, 2, [("suit", 0.5, False)], agent="rule")
    with pytest.raises(SpielwerkError, match="both seed 1"):
        pool([read_run(a), read_run(again)])
    with pytest.raises(SpielwerkError, match="agent 'rule'"):
        pool([read_run(a), read_run(other)])
    (tmp_path / "d.jsonl").write_text('{"deal": 0}\n')
    with pytest.raises(SpielwerkError, match="not a skat calibration record file"):
        read_run(tmp_path / "d.jsonl")


def test_summarize_on_the_command_line(two_runs: tuple[Path, Path, dict]) -> None:
    s11, s12, figures = two_runs
    code, stdout, _, exc = _run("--summarize", str(s11), "--json")
    assert code == 0, exc
    one = json.loads(stdout)
    assert one["types"] == figures["types"] and one["all"] == figures["all"]
    assert one["seeds"] == [11] and one["spread"] == {}
    code, stdout, _, _ = _run("--summarize", str(s11), "--summarize", str(s12))
    assert code == 0
    lines = stdout.splitlines()
    assert lines[0].startswith("agent knn:play=rule against rule: 2 runs (seeds 11, 12): "
                               "12 of 12 seat-games (4 deals x 3 seats)")
    assert [x.split()[0] for x in lines[2:2 + len(GAME_TYPES) + 1]] == [*GAME_TYPES, "all"]
    code, _, _, exc = _run("--deals", "2")
    assert isinstance(exc, SpielwerkError) and "--agent and --defence are needed" in str(exc)


def test_summarize_tells_a_run_that_is_not_complete(two_runs: tuple[Path, Path, dict],
                                                     tmp_path: Path) -> None:
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join(two_runs[0].read_text().splitlines()[:4]) + "\n")
    code, stdout, stderr, _ = _run("--summarize", str(part), "--json")
    assert code == 0
    summary = json.loads(stdout)
    assert summary["complete"] is False and summary["seat_games"] == 3
    assert summary["runs"][0]["complete"] is False
    assert f"not complete: {part} (3 of 6)" in stderr


def test_an_unknown_executor_is_refused_before_any_game(tmp_path: Path) -> None:
    code, _, _, exc = _play(tmp_path / "x.jsonl", 11, "--executor", "cloud")
    assert isinstance(exc, SpielwerkError) and "unknown executor 'cloud'" in str(exc)
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.slow
def test_a_dask_cluster_plays_the_same_records(two_runs: tuple[Path, Path, dict],
                                               tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", dashboard_address=None) as cluster:
        code, stdout, _, exc = _play(tmp_path / "dask.jsonl", 11, "--executor",
                                     cluster.scheduler_address)
    assert code == 0, exc
    assert json.loads(stdout) == two_runs[2]
    key = lambda r: (r["deal"], r["seat"])  # noqa: E731 - the order games finish in varies
    mine = read_run(tmp_path / "dask.jsonl")
    assert mine.header == read_run(two_runs[0]).header
    assert sorted(mine.records, key=key) == sorted(read_run(two_runs[0]).records, key=key)
