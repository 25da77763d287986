"""Skat commands and their errors: every ISS record is replayed or reported,
``analyze --game`` gets past broken records, clear errors, the terminal table's defaults,
skat and help text."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import spielwerk
from spielwerk.cli.main import app
from spielwerk.games.skat import cli as skat_cli
from spielwerk.games.skat import iss
from spielwerk.games.skat.cards import mask_to_string
from spielwerk.games.skat.rules import BID_BASE, DECLARE_BASE, HOLD, PICKUP, PLAY, PUT

SAMPLE = Path(__file__).parent / "data" / "iss_sample.sgf"
runner = CliRunner()


def _run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def _main(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    """Run the ``spielwerk`` script's main() on ``args``: (exit code, stdout, stderr)."""
    from spielwerk.cli import main as cli_main

    monkeypatch.setattr(sys, "argv", ["spielwerk", *args])
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as info:
        cli_main.main()
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


HAND = "CJ SJ CA CT C9 SA HT H7 D7 D8".split()
TWELVE = [*HAND, "HA", "HK"]


def test_a_truncated_record_does_not_swallow_the_next_one(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines()
    bad = tmp_path / "t.sgf"
    bad.write_text(SAMPLE.read_text()[:248] + "\n" + "\n".join(lines) + "\n")
    texts = list(iss.iter_record_texts(bad))
    assert len(texts) == len(lines) + 1
    result = _run("skat", "replay", str(bad))
    assert f"{len(lines)} of {len(lines) + 1} records agree" in result.stdout
    assert result.exit_code == 1  # the broken record is reported, not lost


def test_two_records_on_one_line_count_as_two(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines()
    two = tmp_path / "two.sgf"
    two.write_text(lines[0] + " " + lines[1] + "\n")
    result = _run("skat", "replay", str(two))
    assert "2 of 2 records agree" in result.stdout and result.exit_code == 0


def test_text_outside_records_is_reported_not_skipped(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines()
    f = tmp_path / "junk.sgf"
    f.write_text("hello\n" + lines[0] + " trailing words\n" + lines[1] + "\n")
    texts = [t for _, t in iss.iter_record_texts(f)]
    assert len(texts) == 4 and "hello" in texts[0]


def test_analyze_finds_a_valid_record_after_a_broken_one(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines()
    wanted = iss.parse_record(lines[0]).game_id
    f = tmp_path / "t.sgf"
    f.write_text(lines[0][:200] + "\n" + lines[0] + "\n")
    result = _run("skat", "analyze", str(f), "--game", wanted)
    assert result.exit_code == 0, result.exception
    assert f"game {wanted}:" in result.stdout


def test_analyze_messages(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sgf"
    empty.write_text("")
    result = _run("skat", "analyze", str(empty))
    assert "holds no ISS records" in str(result.exception) and "None" not in str(
        result.exception)
    missing = _run("skat", "analyze", str(SAMPLE), "--game", "nope")
    assert "no record with ID nope" in str(missing.exception)
    stopped = [r for r in iss.iter_records(SAMPLE) if iss.replay(r).aborted
               and iss.replay(r).state.contract is None]
    assert stopped, "the sample has a deal stopped before the game"
    result = _run("skat", "analyze", str(SAMPLE), "--game", stopped[0].game_id)
    text = str(result.exception)
    assert "stopped before a game was declared" in text and "Ramsch" not in text


def test_solve_of_a_non_utf8_file_is_a_one_line_error(tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_bytes(b"\xff\xfe{\x00")
    result = _run("skat", "solve", str(f))
    text = str(result.exception)
    assert "UTF-8" in text and "\n" not in text
    assert isinstance(result.exception, spielwerk.core.errors.SpielwerkError)


def test_play_skat_without_vs_has_an_opponent() -> None:
    result = runner.invoke(app, ["play", "skat"], input="q\n")
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "You left the game." in result.stdout


def test_help_explains_the_codes_that_are_legal() -> None:
    text = skat_cli._help([DECLARE_BASE, DECLARE_BASE + 1, 127, 128])
    assert "SC" in text and "claim" in text and "RE" in text and "resign" in text
    assert "hand" in text


def test_the_end_shows_the_skat_the_declarer_put(monkeypatch, capsys) -> None:
    chosen: list[int] = []

    def ask(info, console):  # type: ignore[no-untyped-def]
        legal = info.legal_actions()
        if PICKUP in legal:
            return PICKUP
        if info.phase == PUT:  # put two cards that were not in the skat
            own = [c for c in legal if c < 32 and not (info.skat >> c & 1)]
            chosen.append(own[0])
            return own[0]
        bids = [a for a in legal if BID_BASE <= a < HOLD]
        if bids:
            return bids[0]
        if HOLD in legal:
            return HOLD
        return legal[0]

    monkeypatch.setattr(skat_cli, "_ask", ask)
    game = spielwerk.load_game("skat")
    state = skat_cli.front_end(game, vs=["rule"], seat=0, seed=0)
    assert state is not None and state.picked_up and state.declarer == 0
    out = capsys.readouterr().out
    assert mask_to_string(state.put) == mask_to_string(sum(1 << c for c in chosen))
    assert f"skat: {mask_to_string(state.put)} (put by the declarer" in out


def test_move_menu_lists_cards_in_the_order_of_the_hand(monkeypatch) -> None:
    prompts: list[str] = []

    def fake_input(prompt: str) -> str:
        prompts.append(prompt)
        return "q"

    monkeypatch.setattr("builtins.input", fake_input)
    game = spielwerk.load_game("skat")
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while state.phase != PLAY or state.is_chance_node():  # to the first card of the play
        if state.is_chance_node():
            state.apply(state.chance_outcomes()[0][0])
        else:
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    info = state.info_state(state.current_player)
    assert len(info.legal_actions()) >= 5
    from rich.console import Console

    skat_cli._ask(info, Console())
    hand = mask_to_string(info.hand).split()
    menu = prompts[0].split("(")[1].split(";")[0].split(", ")
    cards = [m for m in menu if m in hand]
    assert cards == [c for c in hand if c in cards]


def test_replay_of_a_folder_or_an_empty_file_is_an_error(tmp_path: Path) -> None:
    result = _run("skat", "replay", str(tmp_path))
    assert "is a folder" in str(result.exception) and "game" not in result.stdout
    empty = tmp_path / "e.sgf"
    empty.write_text("\n")
    result = _run("skat", "replay", str(empty))
    assert "holds no ISS records" in str(result.exception)



NOT_ISS = {
    "json": b'{"game": "skat", "history": [1, 2, 3]}\n',
    "binary": bytes(range(256)) * 8,
    "text": b"hello\nthese are no ISS records\n",
    # prose that quotes a record's shape, as the README does; and a record cut in half
    "prose": b"files hold one (;GM[Skat]...;) per line, which skat replay reads\n",
    "truncated": SAMPLE.read_bytes().splitlines()[0][:300] + b"\n",
}


@pytest.mark.parametrize("kind", sorted(NOT_ISS))
def test_replay_of_a_file_that_is_not_iss_says_so_in_one_line(monkeypatch, capsys, tmp_path,
                                                              kind: str) -> None:
    f = tmp_path / f"not-iss.{kind}"
    f.write_bytes(NOT_ISS[kind])
    code, out, err = _main(monkeypatch, capsys, "skat", "replay", str(f))
    assert code == 2, (out, err)
    assert out == "" and "agree" not in err
    assert err.count("\n") == 1 and f"{f} is not an ISS record file" in err, err


def test_replay_of_a_disagreeing_iss_record_still_exits_1(monkeypatch, capsys, tmp_path) -> None:
    first = SAMPLE.read_text().splitlines()[0]
    assert "v:-54" in first
    f = tmp_path / "changed.sgf"
    f.write_text(first.replace("v:-54", "v:-60") + "\n")
    code, out, _ = _main(monkeypatch, capsys, "skat", "replay", str(f))
    assert code == 1 and "0 of 1 records agree with the server" in out, out


# --------------------------------------------------------------------------- issue 12: skat CLI
@pytest.mark.parametrize("bid", ["19", "-5", "265", "0"])
def test_put_refuses_a_bid_that_is_no_bid_value(monkeypatch, capsys, bid: str) -> None:
    code, out, err = _main(monkeypatch, capsys, "skat", "put", *TWELVE, "--bid", bid)
    assert code == 2 and out == "", out
    assert "--bid must be a bid value (18, 20, 22, 23, 24, 27," in err and f"not {bid}" in err
    assert len(err.strip().splitlines()) == 1, err
    if bid == "19":
        assert "the nearest are 18 and 20" in err


def test_put_with_a_fixed_game_refuses_a_bid_that_is_no_bid_value(monkeypatch, capsys) -> None:
    code, _, err = _main(monkeypatch, capsys, "skat", "put", *TWELVE, "--game", "grand",
                         "--putting", "refined", "--bid", "25")
    assert code == 2 and "--bid must be a bid value" in err and "not 25" in err


@pytest.mark.parametrize("command", [["bid", *HAND], ["put", *TWELVE]])
def test_k_is_at_most_the_hands_in_the_knowledge_base(monkeypatch, capsys,
                                                      command: list[str]) -> None:
    from spielwerk.games.skat_ai.knowledge.store import default_base_dir, read_manifest

    hands = read_manifest(default_base_dir())["counts"]["deals"]
    code, out, err = _main(monkeypatch, capsys, "skat", *command, "--k", "1000000")
    assert code == 2 and out == ""
    assert err.strip() == (f"error: --k must be at most {hands} (the hands in the shipped "
                           f"knowledge base), not 1000000"), err
    code, _, err = _main(monkeypatch, capsys, "skat", *command, "--k", "0")
    assert code == 2 and "--k must be at least 1, not 0" in err, err


@pytest.mark.parametrize(("args", "text"), [
    (["play", "--seed", "-3"], "--seed must be at least 0, not -3"),
    (["play", "--dealer", "3"], "--dealer must be in 0..2, not 3"),
    (["kb", "build", "--deals", "5", "--out", "{tmp}", "--seed", "-1"],
     "--seed must be at least 0, not -1"),
    (["kb", "build", "--deals", "5", "--out", "{tmp}", "--put-k", "0"],
     "--put-k must be at least 1, not 0"),
    (["match", "knn", "rule", "--confidence", "1.5"],
     "--confidence must be greater than 0 and less than 1 (e.g. 0.95), not 1.5"),
])
def test_skat_number_options_are_refused_in_one_line_before_any_work(
        monkeypatch, capsys, tmp_path: Path, args: list[str], text: str) -> None:
    out_dir = tmp_path / "kb"
    code, out, err = _main(monkeypatch, capsys, "skat",
                           *[a.replace("{tmp}", str(out_dir)) for a in args])
    assert code == 2 and text in err and len(err.strip().splitlines()) == 1, err
    assert not out_dir.exists()  # nothing written


def test_a_huge_kb_build_is_refused_at_once_with_an_estimate(tmp_path: Path) -> None:
    import subprocess

    out_dir = tmp_path / "kb"
    # Python's own allocations, traced: ru_maxrss would carry the forking pytest's size
    # across exec (about 1 GB late in a full run), whatever the command allocates
    script = ("import sys, tracemalloc\n"
              "tracemalloc.start()\n"
              "from spielwerk.cli.main import main\n"
              "try:\n    main()\nfinally:\n"
              "    print('peak', tracemalloc.get_traced_memory()[1], file=sys.stderr)\n")
    for deals, text in (("1000000000", "--deals 1000000000 cannot be built here: solving "
                                       "takes about 26 years on 1 worker"),
                        ("10000000000000", "--deals must be in 1..2147483647")):
        run = subprocess.run(
            [sys.executable, "-c", script, "skat", "kb", "build", "--deals", deals, "--out",
             str(out_dir)], capture_output=True, text=True, timeout=120,
            env={**os.environ, "COLUMNS": "1000"})
        err = run.stderr
        assert run.returncode == 2 and text in err, err
        assert "at most about" in err or "must be in" in err
        peak = int(err.split("peak")[1])
        assert peak < 200_000_000, peak  # nothing big: the imports (about 60 MB traced)
        assert not out_dir.exists()


def test_kb_build_streams_its_chunks(monkeypatch, tmp_path: Path) -> None:
    import tracemalloc

    from spielwerk.core.parallel import SerialExecutor
    from spielwerk.games.skat_ai.knowledge import build

    seen: list[int] = []
    calls: list[tuple[str, int, int]] = []

    class Stop(Exception):
        pass

    class Recording(SerialExecutor):
        def map_unordered(self, fn, tasks):  # type: ignore[no-untyped-def]
            seen.append(len(tasks))
            raise Stop

    # this machine's memory must not refuse the build: the test is about the task lists
    monkeypatch.setattr(build, "physical_memory", lambda: None, raising=False)
    deals = 2_000_000
    tracemalloc.start()
    try:
        with pytest.raises(Stop):
            build.build_base(tmp_path / "kb", deals, chunk=1, executor=Recording(),
                             progress=lambda *a: calls.append(a))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert calls == [("hand", 0, deals)]  # progress before the first chunk is solved
    assert seen and seen[0] <= 4096, seen  # a window of tasks, not two million
    assert peak < 30_000_000, peak


@pytest.mark.parametrize("putting", ["refined", "random"])
def test_put_table_and_decision_agree_on_one_scale(monkeypatch, capsys, putting: str) -> None:
    import json
    import re

    from spielwerk.games.skat.cards import GAME_NAMES, string_to_card
    from spielwerk.games.skat_ai.knn import KnnModel

    code, out, _ = _main(monkeypatch, capsys, "skat", "put", *TWELVE, "--putting", putting)
    assert code == 0
    decision = next(line for line in out.splitlines() if line.startswith("decision:"))
    found = re.match(r"decision: put (\S+ \S+) .*declare (\w+).*, value ([\d.]+)$", decision)
    assert found, decision
    put, game, value = found.groups()
    rows = [line for line in out.splitlines() if put in line and game in line]
    assert any(line.split("│")[-2].strip() == value for line in rows), (decision, out)
    assert "expected card points" in out  # what the value means is said
    code, out, _ = _main(monkeypatch, capsys, "skat", "put", *TWELVE, "--putting", putting,
                         "--json")
    d = json.loads(out)
    twelve = sum(1 << string_to_card(c) for c in TWELVE)
    mask = sum(1 << string_to_card(c) for c in d["put"])
    knn = KnnModel.load().put_values(twelve, GAME_NAMES.index(d["game"]), [mask])[0]
    assert d["value"] == pytest.approx(knn, abs=1e-3)  # the neighbours' value of the put made
