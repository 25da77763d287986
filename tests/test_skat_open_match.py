"""The open-hand duplicate match (:mod:`spielwerk.games.skat_ai.open_match`). Two agents
that decide alike play alike there (the seeds depend on the deal and the seat, not the
seating), so their difference is exactly 0."""

from __future__ import annotations

import pytest

from spielwerk.games.skat_ai.open_match import ORDERS, OpenMatch, match_figures


def test_the_six_seatings_are_skat_matchs() -> None:
    from spielwerk.arena.duplicate import arrangements

    assert ORDERS == arrangements(2, 3, "pairs")


def test_agents_that_decide_alike_score_alike() -> None:
    specs = ["knn3:worlds=1",  # knn3 is this, frozen
             "knn:play=pimc:worlds=1:caution=0:put_grand_shift=0:put_null_shift=0:null_model=knn"]
    match = OpenMatch(specs)
    rows = [match.play_deal(3, d) for d in range(3)]
    for row in rows:
        by_order = {tuple(g["order"]): g["details"] for g in row["games"]}
        for seat in range(3):  # agent 0 alone in the seat against agent 1 alone there
            a = by_order[tuple(0 if s == seat else 1 for s in range(3))]
            b = by_order[tuple(1 if s == seat else 0 for s in range(3))]
            assert a == b
        assert row["played"] <= len(row["games"])
    figures = match_figures(specs, rows)
    assert figures.deals == 3
    assert [d.mean for d in figures.differences] == [0.0]


def test_a_cautious_agent_declares_no_more_and_the_figures_count_every_game() -> None:
    specs = ["knn:worlds=1:caution=1", "knn3:worlds=1"]
    match = OpenMatch(specs)
    rows = [match.play_deal(11, d) for d in range(4)]
    figures = match_figures(specs, rows)
    assert figures.games == 24
    careful, plain = figures.agents
    assert careful.seat_games == plain.seat_games == 36
    assert careful.declared <= plain.declared


def test_two_agents_only() -> None:
    with pytest.raises(ValueError, match="2 agents"):
        OpenMatch(["knn"])


def _cli(*args: str):  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from spielwerk.cli.main import app

    return CliRunner().invoke(app, ["skat", "match", *args])


def test_the_command_line_plays_resumes_and_summarizes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    out = tmp_path / "open.jsonl"
    specs = ["knn:worlds=1:caution=1", "knn3:worlds=1"]
    first = _cli(*specs, "--defence", "open", "--deals", "2", "--seed", "5", "--workers", "1",
                 "-o", str(out), "--json")
    assert first.exit_code == 0, first.output
    shown = json.loads(first.stdout.strip().splitlines()[-1])
    assert shown["defence"] == "open" and shown["figures"]["deals"] == 2
    more = _cli(*specs, "--defence", "open", "--deals", "3", "--seed", "5", "--workers", "1",
                "-o", str(out), "--resume", "--json")
    assert more.exit_code == 0, more.output
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["deals"] == 3 and len(lines) == 4  # header + 3 deals
    match = OpenMatch(specs)  # the resumed file holds what one run plays
    assert [json.loads(x) for x in lines[1:]] == [match.play_deal(5, d) for d in range(3)]
    summary = _cli("--summarize", str(out), "--json")
    assert summary.exit_code == 0, summary.output
    figures = json.loads(summary.stdout)["figures"]
    assert figures["deals"] == 3 and figures["games"] == 18
    assert figures == match_figures(specs, [json.loads(x) for x in lines[1:]]).to_dict()


@pytest.mark.parametrize(("args", "message"), [
    (["knn", "rule", "random", "--defence", "open"], "between 2 agents"),
    (["knn", "rule", "--defence", "shut"], "agents or open"),
    (["knn", "rule", "--defence", "open", "--executor", "dask://h:1"], "this machine"),
    (["knn:nope=1", "rule", "--defence", "open"], "nope"),
])
def test_bad_input_is_a_spielwerk_error(args: list[str], message: str) -> None:
    """A SpielwerkError: the command line prints it as one line (``error: ...``)."""
    from spielwerk.core.errors import SpielwerkError

    result = _cli(*args, "--deals", "1")
    assert result.exit_code != 0
    assert isinstance(result.exception, SpielwerkError), result.exception
    assert message in str(result.exception)


def test_another_matchs_file_is_not_resumed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "open.jsonl"
    ok = _cli("rule", "random", "--defence", "open", "--deals", "1", "--workers", "1",
              "-o", str(out))
    assert ok.exit_code == 0, ok.output
    before = out.read_text()
    other = _cli("rule", "rule", "--defence", "open", "--deals", "1", "--workers", "1",
                 "-o", str(out), "--resume")
    assert other.exit_code != 0 and "another match" in str(other.exception)
    again = _cli("rule", "random", "--defence", "open", "--deals", "1", "--workers", "1",
                 "-o", str(out))
    assert again.exit_code != 0 and "--resume" in str(again.exception)
    assert out.read_text() == before


def test_a_spec_that_now_means_other_settings_is_not_resumed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The header records what each spec meant; a ``knn`` resumed after the default moved
    is refused, naming the setting; a file from before settings were recorded resumes."""
    import json

    out = tmp_path / "open.jsonl"
    specs = ["knn:worlds=1:play=rule", "rule"]
    ok = _cli(*specs, "--defence", "open", "--deals", "1", "--workers", "1", "-o", str(out))
    assert ok.exit_code == 0, ok.output
    lines = out.read_text().splitlines()
    header = json.loads(lines[0])
    assert list(header["settings"]) == [specs[0]]  # rule tells none
    assert header["settings"][specs[0]]["worlds"] == 1
    header["settings"][specs[0]]["null_floor"] = 0.55  # as if written under another default
    out.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    before = out.read_text()
    moved = _cli(*specs, "--defence", "open", "--deals", "2", "--workers", "1", "-o", str(out),
                 "--resume")
    assert moved.exit_code != 0
    assert "null_floor 0.55 -> 0.0" in str(moved.exception), moved.exception
    assert out.read_text() == before
    del header["settings"]  # an older file: taken at its specs' word, and left so
    out.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    more = _cli(*specs, "--defence", "open", "--deals", "2", "--workers", "1", "-o", str(out),
                "--resume")
    assert more.exit_code == 0, more.output
    lines = out.read_text().splitlines()
    assert len(lines) == 3 and "settings" not in json.loads(lines[0])
