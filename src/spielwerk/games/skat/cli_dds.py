"""``spielwerk skat solve`` and ``spielwerk skat analyze``: the double-dummy solver for players.

``solve POSITION.json`` answers a query for a position in the JSON notation of
``docs/skat-dds.md``; ``analyze FILE.sgf`` replays an ISS record and prints,
after every card, the double-dummy value and whether the card changed the
outcome, marking the decisive mistakes. :func:`register_dds_commands` adds
both to the ``skat`` sub-app.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat import iss
from spielwerk.games.skat.analysis import AnalysisError, analyze_state_history
from spielwerk.games.skat.cards import DISPLAY_ORDER, card_to_string
from spielwerk.games.skat.dds import QUERIES, DealPosition, Solver
from spielwerk.games.skat.kernel import NULL
from spielwerk.games.skat.position import load_position


def _ordered(moves: dict[int, int | bool]) -> dict[str, int | bool]:
    return {card_to_string(c): moves[c] for c in DISPLAY_ORDER if c in moves}


def solve_position(path: Path, query: str | None) -> dict[str, object]:
    """Solve a position file; the dict is the ``--json`` output."""
    position = load_position(path)
    q = query if query is not None else ("null" if position.deal.game == NULL else "exact")
    if q not in QUERIES:
        raise SpielwerkError(f"unknown query {q!r}; choose one of {', '.join(QUERIES)}")
    solver = Solver()
    warm = DealPosition(game=4, declarer=0, hands=(1, 2, 4))
    solver.solve(warm, "exact")  # load the compiled kernels before timing
    solver.solve(warm, "61")
    result = solver.solve(position.deal, q)
    return {
        "value": result.value,
        "best": card_to_string(result.best),
        "moves": _ordered(result.moves),
        "nodes": result.nodes,
        "seconds": round(result.seconds, 6),
    }


def select_record(file: Path, game_id: str | None) -> tuple[iss.IssRecord, list[str]]:
    """The record with ``game_id`` (the first readable one if None) and the errors of
    the unreadable records passed on the way; an unreadable record does not hide the
    valid ones after it."""
    skipped: list[str] = []
    count = 0
    broken = ""  # the read error of an unreadable record that carries the ID asked for
    for line, text in iss.iter_record_texts(file):
        count += 1
        try:
            rec = iss.parse_record(text, line)
        except iss.IssRecordError as exc:
            if game_id is not None and f"ID[{game_id}]" in text and not broken:
                broken = str(exc)
            skipped.append(str(exc))
            continue
        if game_id is None or rec.game_id == game_id:
            return rec, skipped
    if count == 0:
        raise AnalysisError(f"{file} holds no ISS records")
    if broken:
        raise AnalysisError(f"record {game_id} in {file} cannot be read: {broken}")
    unreadable = f", {len(skipped)} of them unreadable" if skipped else ""
    if game_id is None:
        raise AnalysisError(f"no readable record in {file} ({count} records{unreadable})")
    raise AnalysisError(f"no record with ID {game_id} in {file} ({count} records{unreadable})")


def register_dds_commands(skat_app: typer.Typer) -> None:
    """Add ``solve`` and ``analyze`` to the ``skat`` sub-app."""

    @skat_app.command("solve")
    def solve_command(
        position: Path = typer.Argument(..., help="position file in the JSON notation"),
        query: str | None = typer.Option(
            None, "--query", help="exact | 61 | 90 | schwarz | null (default: exact, null)"
        ),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    ) -> None:
        """Double-dummy solve a position: value, best card and the value of every card."""
        out = solve_position(position, query)
        if as_json:
            print(json.dumps(out))
            return
        console = Console(highlight=False)
        pos = load_position(position)
        console.print(pos.describe())
        q = query or ("null" if pos.deal.game == NULL else "exact")
        console.print(f"query {q}: value {out['value']}, best card {out['best']}")
        moves = out["moves"]
        assert isinstance(moves, dict)
        console.print("cards: " + ", ".join(f"{c} {v}" for c, v in moves.items()))
        console.print(f"{out['nodes']} nodes, {out['seconds']:.3f} s")

    @skat_app.command("analyze")
    def analyze_command(
        file: Path = typer.Argument(..., help="file of ISS records"),
        game_id: str | None = typer.Option(
            None, "--game", help="ID of the record to analyse (default: the first)"
        ),
    ) -> None:
        """Replay a recorded game; after every card the double-dummy value and any mistake."""
        record, skipped = select_record(file, game_id)
        console = Console(highlight=False)
        if skipped:
            Console(stderr=True, highlight=False, soft_wrap=True).print(
                f"note: skipped {len(skipped)} unreadable record(s) before it: "
                + "; ".join(skipped[:3]) + (" ..." if len(skipped) > 3 else ""))
        rep = iss.replay(record)
        if rep.state.contract is None:
            if rep.aborted:
                why = f"the deal stopped before a game was declared ({rep.aborted})"
            elif rep.state.ramsch_result is not None:
                why = "the deal was played as Ramsch (no declarer)"
            else:
                why = "all players passed: the deal was passed in"
            raise AnalysisError(f"game {record.game_id}: {why}; nothing to analyse")
        items = analyze_state_history(rep.state)
        contract = rep.state.contract
        console.print(f"game {record.game_id}: {contract} (seats are positions, 0 forehand)")
        null = contract is not None and contract.game == NULL
        if not items:
            console.print("no card was played in this record (it ended before the first trick)")
            return
        console.print("trick  seat  side      card  value        goal reachable")
        decisive = 0
        for it in items:
            side = "declarer" if it.declarer_side else "defender"
            value = "" if null else f"{it.value_before:>3} -> {it.value_after:<3}"
            goal = f"{'yes' if it.win_before else 'no'} -> {'yes' if it.win_after else 'no'}"
            mark = ""
            if it.decisive:
                decisive += 1
                better = " ".join(card_to_string(c) for c in it.better)
                mark = f"  DECISIVE MISTAKE (keeps it: {better})"
            elif it.mistake:
                mark = "  mistake"
            console.print(
                f"{it.trick:>5}  {it.position:>4}  {side:<8}  {card_to_string(it.card):<4}  "
                f"{value:<11}  {goal}{mark}"
            )
        first = items[0] if items else None
        if first is not None:
            verdict = "could win" if first.win_before else "could not win"
            console.print(f"at the first card the declarer {verdict} under perfect play; "
                          f"{decisive} decisive mistake(s)")
