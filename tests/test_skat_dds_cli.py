"""JSON position notation, ``skat solve`` and ``skat analyze``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from spielwerk.games.skat import iss
from spielwerk.games.skat.cards import points_of, string_to_card
from spielwerk.games.skat.cli_dds import AnalysisError, analyze_state_history, register_dds_commands
from spielwerk.games.skat.dds import MODE_POINTS, DealPosition, Solver
from spielwerk.games.skat.position import (
    PositionError,
    deal_from_state,
    parse_position,
    position_to_json,
)
from spielwerk.games.skat.rules import PLAY

DATA = Path(__file__).parent / "data" / "iss_sample.sgf"

EXAMPLE: dict[str, Any] = {
    "game": "grand",
    "declarer": 0,
    "hands": [["CJ", "SJ", "SA"], ["HA", "H7"], ["DA", "D7", "S7"]],
    "to_move": 2,
    "trick": ["ST"],
    "declarer_points": 40,
    "defender_points": 33,
    "declarer_tricks": 4,
    "defender_tricks": 3,
    "skat": ["D8", "D9"],
}


def _bad(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(EXAMPLE)
    for k, v in changes.items():
        if v is None:
            data.pop(k)
        else:
            data[k] = v
    return data


def test_example_parses_into_solver_arrays() -> None:
    pos = parse_position(EXAMPLE)
    d = pos.deal
    assert d.game == 4 and d.declarer == 0 and d.to_move == 2
    assert d.leader == 1  # seat 1 led ST, seat 2 is to move
    assert d.hands[0] == sum(1 << string_to_card(c) for c in ("CJ", "SJ", "SA"))
    assert d.trick == (string_to_card("ST"),)
    assert d.declarer_points == 40  # the skat D8 D9 is worth nothing
    assert d.tricks_left == 3
    again = parse_position(position_to_json(d, pos.skat))
    assert again == pos


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"game": "ramsch"}, "'game' must be one of"),
        ({"declarer": 3}, "'declarer' must be in 0..2"),
        ({"to_move": None}, "missing field 'to_move'"),
        ({"hands": [["CJ"], ["HA"]]}, "three card lists"),
        ({"hands": [["CJ", "SJ", "SA"], ["HA", "H7"], ["DA", "D7", "CJ"]]}, "CJ appears twice"),
        ({"hands": [["CJ", "SJ", "XX"], ["HA", "H7"], ["DA", "D7", "S7"]]}, "is not a card"),
        ({"hands": [["CJ", "SJ"], ["HA", "H7"], ["DA", "D7", "S7"]]}, "seat 0 holds 2 cards"),
        ({"trick": ["ST", "S8", "S9"]}, "at most 2 cards"),
        ({"skat": ["D8"]}, "the skat has 2 cards"),
        ({"declarer_tricks": 5}, "tricks taken"),
        ({"defender_points": 30}, "worth 73 points"),
        ({"surprise": 1}, "unknown field"),
        ({"hands": [["CJ", "SJ", "SA"], ["H7"], ["DA", "D7", "S7"]], "trick": ["ST", "HA"],
          "to_move": 0}, "seat 1 holds 1 cards but should hold 2"),
    ],
)
def test_bad_positions_are_rejected_with_a_reason(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(PositionError, match=message):
        parse_position(_bad(**changes))


def test_a_card_that_did_not_follow_suit_is_rejected() -> None:
    # seat 0 led SA, seat 1 played HA although it still holds S8
    data = _bad(
        hands=[["CJ", "SJ"], ["S8", "H7"], ["DA", "D7", "S7"]],
        trick=["SA", "HA"],
        to_move=2,
    )
    with pytest.raises(PositionError, match="still holds S8"):
        parse_position(data)


def _runner_app() -> typer.Typer:
    app = typer.Typer()
    register_dds_commands(app)

    @app.callback()
    def _main() -> None:  # a group, so that "solve" is a subcommand
        pass

    return app


def test_solve_json_output_matches_the_solver(tmp_path: Path) -> None:
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(EXAMPLE))
    result = CliRunner().invoke(_runner_app(), ["solve", str(path), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert set(out) == {"value", "best", "moves", "nodes", "seconds"}
    deal = parse_position(EXAMPLE).deal
    moves = Solver().remaining_move_values(deal, MODE_POINTS)
    expected = {c: deal.declarer_points + v for c, v in moves.items()}
    assert {string_to_card(k): v for k, v in out["moves"].items()} == expected
    # seat 2 defends: the value is the minimum, the best card reaches it
    assert out["value"] == min(expected.values())
    assert expected[string_to_card(out["best"])] == out["value"]
    threshold = CliRunner().invoke(_runner_app(), ["solve", str(path), "--json", "--query", "61"])
    t = json.loads(threshold.output)
    assert t["value"] == (out["value"] >= 61)
    assert t["moves"] == {k: v >= 61 for k, v in out["moves"].items()}


def test_solve_reports_user_errors_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(_bad(skat=["D8"])))
    result = CliRunner().invoke(_runner_app(), ["solve", str(path)])
    assert result.exit_code != 0
    assert isinstance(result.exception, PositionError)
    bad_query = tmp_path / "ok.json"
    bad_query.write_text(json.dumps(EXAMPLE))
    result = CliRunner().invoke(_runner_app(), ["solve", str(bad_query), "--query", "null"])
    assert "null" in str(result.exception)


def test_analysis_values_never_move_in_favour_of_the_mover_s_opponents() -> None:
    """Minimax invariant: no declarer card raises the value, no defender card lowers it."""
    analysed = 0
    for record in iss.iter_records(DATA):
        rep = iss.replay(record)
        if rep.state.contract is None or rep.state.contract.game == 5:
            continue
        items = analyze_state_history(rep.state)
        assert items
        for prev, nxt in zip(items, items[1:], strict=False):
            assert prev.value_after == nxt.value_before
        for it in items:
            assert it.value_before is not None and it.value_after is not None
            if it.declarer_side:
                assert it.value_after <= it.value_before
            else:
                assert it.value_after >= it.value_before
            assert it.mistake == (it.value_after != it.value_before or it.decisive)
        last = items[-1]
        assert rep.state.result is not None
        if len(items) == 30:  # played out: the last value is the real result
            assert last.value_after == rep.state.result.declarer_points
        analysed += 1
        if analysed == 3:
            break
    assert analysed == 3


def test_analysis_of_a_passed_deal_is_an_error() -> None:
    for record in iss.iter_records(DATA):
        rep = iss.replay(record)
        if rep.state.contract is None:
            with pytest.raises(AnalysisError):
                analyze_state_history(rep.state)
            return
    pytest.skip("no passed-in deal in the sample")


def test_deal_from_state_counts_the_skat_for_the_declarer() -> None:
    for record in iss.iter_records(DATA):
        rep = iss.replay(record)
        if rep.state.contract is None or rep.state.contract.game == 5:
            continue
        state = rep.state.game.new_initial_state()
        for a in rep.state.history:
            state.apply(a)
            if state.phase == PLAY and state.contract is not None and not state.trick:
                deal = deal_from_state(state)
                assert isinstance(deal, DealPosition)
                assert deal.tricks_left == 10 - state.tricks_done
                skat = state.put if state.picked_up else state.skat
                assert deal.declarer_points == points_of(state.won[state.declarer]) + points_of(
                    skat
                )
                return


def test_the_documented_example_gives_the_documented_answer(tmp_path: Path) -> None:
    doc = (Path(__file__).parent.parent / "docs" / "skat-dds.md").read_text()
    blocks = [b.split("```", 1)[0] for b in doc.split("```json")[1:]]
    position, output = json.loads(blocks[0]), json.loads(blocks[1])
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(position))
    result = CliRunner().invoke(_runner_app(), ["solve", str(path), "--json"])
    out = json.loads(result.output)
    for key in ("value", "best", "moves", "nodes"):
        assert out[key] == output[key]
