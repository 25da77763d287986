"""ISS records: every real sample record replays with exact agreement; errors are clear."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app
from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat import iss

SAMPLE = Path(__file__).parent / "data" / "iss_sample.sgf"
RECORDS = list(iss.iter_records(SAMPLE))


def test_the_sample_has_twelve_records() -> None:
    assert len(RECORDS) == 12


@pytest.mark.parametrize("record", RECORDS, ids=[r.game_id for r in RECORDS])
def test_every_sample_record_agrees_with_the_server(record: iss.IssRecord) -> None:
    cmp = iss.compare(record)
    assert cmp.error == ""
    assert cmp.mismatches == []
    if not (record.passed or record.penalty):
        # the compared fields really were present in the server's block
        assert all(k in record.result for k in iss.COMPARED)


def test_replay_details_of_an_overbid_record() -> None:
    rep = iss.replay(next(r for r in RECORDS if r.game_id == "596891"))
    res = rep.result
    assert res is not None and res.overbid and res.bid == 36 and res.value == 36
    assert rep.state.contract is not None and rep.state.contract.iss() == "D"
    assert rep.state.is_terminal()


def test_server_result_is_read() -> None:
    r = RECORDS[0]
    assert r.result["d"] == "2" and r.result["outcome"] == "loss" and r.result["v"] == "-54"
    assert r.players == ["zoot", "kermit", "foo"]
    assert next(x for x in RECORDS if x.game_id == "756788").passed


def _tampered(old: str, new: str, game_id: str = "541932") -> str:
    line = next(
        x for x in SAMPLE.read_text().splitlines() if f"ID[{game_id}]" in x
    )
    assert old in line
    return line.replace(old, new, 1)


def test_a_wrong_result_is_a_disagreement() -> None:
    cmp = iss.compare(iss.parse_record(_tampered("v:-54", "v:-56")))
    assert not cmp.agree and any(m.startswith("v:") for m in cmp.mismatches)


def test_illegal_card_names_the_move_and_the_reason() -> None:
    # in 541932 forehand leads SA; make middlehand play a diamond instead of following
    text = _tampered("0 SA 1 S7", "0 SA 1 D9")
    with pytest.raises(iss.IssRecordError) as err:
        iss.replay(text)
    msg = str(err.value)
    assert "541932" in msg and "'1 D9'" in msg and "move" in msg and "not legal" in msg


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("1 p 2 18", "1 p 2 19", "not a valid bid"),
        ("1 p 2 18", "2 p 2 18", "turn"),
        ("w HA.SK", "w HA.HA", "repeats a card"),
        ("2 D.ST.H8", "2 D.ST", "discard"),
        ("2 D.ST.H8", "2 X.ST.H8", "not a declaration"),
        ("w H8.CK", "w H8.C7", "skat shown"),
    ],
)
def test_malformed_records_raise(old: str, new: str, reason: str) -> None:
    with pytest.raises(iss.IssRecordError) as err:
        iss.replay(_tampered(old, new))
    assert reason in str(err.value)


def test_unreadable_text_raises() -> None:
    with pytest.raises(iss.IssRecordError):
        iss.parse_record("(;GM[Skat]ID[1]R[passed] ;)")  # no moves
    with pytest.raises(iss.IssRecordError):
        iss.parse_record("GM[Skat]")
    with pytest.raises(iss.IssRecordError):
        list(iss.iter_records(io.StringIO("(;GM[Skat]MV[w")))


def test_write_then_replay_reproduces_sample_results() -> None:
    for record in RECORDS:
        rep = iss.replay(record)
        if not rep.state.is_terminal():
            continue
        text = iss.write_record(rep.state, record.game_id)
        again = iss.compare(iss.parse_record(text))
        assert again.agree, (again.mismatches, again.error, text)


def test_write_and_replay_agent_games() -> None:
    game = load_game("skat")
    rng = np.random.default_rng(0)
    for seed in range(20):
        agents = [make_agent("rule", game, seed=seed * 3 + i) for i in range(3)]
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                legal = s.legal_actions()
                s.apply(legal[int(rng.integers(len(legal)))])
            else:
                s.apply(agents[s.current_player].act(s.info_state(s.current_player)))
        rep = iss.replay(iss.write_record(s, str(seed)))
        assert rep.state.history == s.history
        assert rep.result == s.result


def test_cli_replay_table_and_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["skat", "replay", str(SAMPLE)])
    assert ok.exit_code == 0, ok.output
    assert "12 of 12 records agree" in ok.output
    assert "541932" in ok.output and "-54" in ok.output
    bad = tmp_path / "bad.sgf"
    bad.write_text(SAMPLE.read_text() + _tampered("v:-54", "v:-56") + "\nnot a record ;)\n")
    res = runner.invoke(app, ["skat", "replay", str(bad)])
    assert res.exit_code == 1
    assert "12 of 14 records agree" in res.output and "NO" in res.output
    missing = runner.invoke(app, ["skat", "replay", str(tmp_path / "none.sgf")])
    assert missing.exit_code != 0
    assert isinstance(missing.exception, iss.IssRecordError)


def test_card_errors_say_why() -> None:
    with pytest.raises(iss.IssRecordError, match="does not follow suit"):
        iss.replay(_tampered("0 SA 1 S7", "0 SA 1 D9"))
    with pytest.raises(iss.IssRecordError, match="does not hold"):
        iss.replay(_tampered("0 SA 1 S7", "0 SA 1 HA"))
