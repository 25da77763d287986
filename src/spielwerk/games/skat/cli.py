"""``spielwerk skat ...``: replay ISS records against the engine, play in the terminal.

``spielwerk skat replay FILE`` streams a file of ISS records, replays each
through the engine and prints one row per record (exit code 1 if any record
disagrees with the server's result or cannot be replayed; exit code 2 for a
file that holds no ISS record at all).
``spielwerk skat play`` (and ``spielwerk play skat``: :func:`front_end` is the terminal
front end in Skat's plug-in record) lets a person play a deal against two agents.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import typer
from rich.console import Console
from rich.markup import escape

from spielwerk.core.agent import Agent, default_opponent, make_agent
from spielwerk.core.errors import GameParameterError
from spielwerk.core.game import CHANCE, Game, State
from spielwerk.core.play import Chooser, play
from spielwerk.core.registry import load_game
from spielwerk.games.skat import iss
from spielwerk.games.skat.bidding import POSITION_NAMES
from spielwerk.games.skat.cards import DISPLAY_ORDER, mask_to_string
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.plugin import PLUGIN
from spielwerk.games.skat.rules import (
    BID_BASE,
    CLAIM,
    DECLARATIONS,
    DECLARE_BASE,
    HOLD,
    PASS,
    PICKUP,
    PLAY_ON,
    PUT,
    RESIGN,
    SkatGame,
    SkatState,
)

skat_app = typer.Typer(
    help=PLUGIN.summary,
    no_args_is_help=True,
)

_ROW = "{:>10}  {:<14} {:<6} {:>6} {:>6}  {}"


@skat_app.command("replay")
def replay_command(
    file: Path = typer.Argument(..., help="file of ISS records, one per line (any size)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="print only disagreements"),
) -> None:
    """Replay every ISS record through the engine and compare with the server's result."""
    console = Console(highlight=False)
    total = agree = 0
    texts = iss.iter_record_texts(file)
    first = next(texts, None)  # a missing file fails here, before the table header
    if first is None:
        raise iss.IssRecordError(f"{file} holds no ISS records")
    if not iss.holds_records(file):  # JSON, binary, prose: no record that could disagree
        raise iss.IssRecordError(f"{file} is not an ISS record file (no readable record "
                                 "'(;GM[Skat]...;)' in it)")
    console.print(_ROW.format("game", "declarer", "game", "value", "points", "agree?"))
    for line, text in itertools.chain([first], texts):
        total += 1
        try:
            record = iss.parse_record(text, line)
        except iss.IssRecordError as exc:
            console.print(_ROW.format("?", "", "", "", "", f"NO: {escape(str(exc))}"))
            continue
        cmp = iss.compare(record)
        if cmp.agree:
            agree += 1
        if quiet and cmp.agree:
            continue
        declarer = game_name = value = points = ""
        rep = cmp.replay
        if rep is not None and rep.result is not None:
            res = rep.result
            if res.passed:
                game_name = "passed"
            else:
                d = res.declarer
                declarer = f"{d} {record.players[d]}"[:14]
                assert res.contract is not None
                game_name = res.contract.iss()
                value = str(res.score)
                points = str(res.declarer_points)
        elif rep is not None and rep.aborted:
            game_name = "stopped"
        verdict = "yes" if cmp.agree else "NO: " + (cmp.error or "; ".join(cmp.mismatches))
        console.print(
            _ROW.format(record.game_id, declarer, game_name, value, points, escape(verdict))
        )
    console.print(f"{agree} of {total} records agree with the server")
    if agree != total:
        raise typer.Exit(1)


@skat_app.command("play")
def play_command(
    vs: list[str] | None = typer.Option(
        None, "--vs", help="agent spec for the other seats (repeatable; default: the web "
        "table's default opponent, the strongest measured agent)"
    ),
    seat: int = typer.Option(0, min=0, max=2,
                             help="your seat (0 is forehand with the default dealer)"),
    seed: int = typer.Option(0, min=0, help="seed of the deal and the agents"),
    dealer: int = typer.Option(2, min=0, max=2, help="the dealer's seat"),
    ramsch: bool = typer.Option(False, help="play Ramsch when all pass (house rule)"),
) -> None:
    """Play one deal of Skat against two agents (bidding, skat and declaration prompts)."""
    game = load_game(f"skat(players=3,dealer={dealer},ramsch={str(ramsch).lower()})")
    front_end(game, vs=vs or [default_opponent(game)], seat=seat, seed=seed)


def _describe(state: SkatState, seat: int, action: int) -> str:
    name = state.action_to_string(action)
    pos = state.sgame.position_of(seat)
    who = f"seat {seat} ({POSITION_NAMES[pos]})" if pos >= 0 else f"seat {seat}"
    if BID_BASE <= action < HOLD:
        return f"{who} bids {name}"
    if action == HOLD:
        return f"{who} holds"
    if action == PASS:
        return f"{who} passes"
    if action == PICKUP:
        return f"{who} picks up the skat"
    if action == CLAIM:
        return f"{who} claims the rest"
    if action == RESIGN:
        return f"{who} resigns"
    if action == PLAY_ON:
        return f"{who} plays on"
    if state.phase == PUT:
        return f"{who} puts a card into the skat"
    if action >= 32:
        return f"{who} declares {name}"
    return f"{who} plays {name}"


def _show(info: SkatInfoState, console: Console) -> None:
    pos = info.position
    console.print(f"[bold]you are seat {info.player} ({POSITION_NAMES[pos]})[/]")
    console.print(f"your cards: {mask_to_string(info.hand)}")
    if info.skat is not None and info.phase == PUT:
        console.print(f"the skat was: {mask_to_string(info.skat)}")
    if info.contract is not None:
        console.print(f"game: {info.contract} (seat {info.declarer}, bid {info.bid})")
        shown = info.declarer_hand_known()
        if shown is not None and info.player != info.declarer:
            console.print(f"declarer's cards (open): {mask_to_string(shown)}")
    elif info.bid:
        console.print(f"bid so far: {info.bid}")
    if info.trick:
        console.print("trick: " + " ".join(info.action_to_string(c) for c in info.trick))


def _help(legal: list[int]) -> str:
    """The ``?`` text: the general notation plus every special code legal now."""
    lines = [
        "a number bids that value; y holds (says yes to a bid), p passes, s picks up the skat",
        "cards: suit C S H D (clubs spades hearts diamonds) + rank J A T K Q 9 8 7, e.g. CJ ST H7",
        "games: D H S C (trump suit), G grand (jacks only), N null (no trumps, take no trick);",
        "  H after the letter: hand (without the skat), S schneider announced, "
        "Z schwarz announced, O ouvert (open cards)",
    ]
    for a in legal:
        if DECLARE_BASE <= a < CLAIM:
            c = DECLARATIONS[a - DECLARE_BASE]
            lines.append(f"  {c.iss():<4} {c}")
    if CLAIM in legal:
        lines.append("SC  claim the rest: show your cards, the remaining tricks are yours "
                     "if the defenders agree")
    if RESIGN in legal:
        lines.append("RE  resign (give up the game; as a defender: agree to a claim)")
    if PLAY_ON in legal:
        lines.append("PLAY  refuse the claim or resignation and play on")
    return "\n".join(lines)


def _ask(info: SkatInfoState, console: Console) -> int | None:
    legal = info.legal_actions()
    names = [info.action_to_string(a) for a in legal]
    bids = [n for a, n in zip(legal, names, strict=True) if BID_BASE <= a < HOLD]
    others = [n for a, n in zip(legal, names, strict=True) if not BID_BASE <= a < HOLD]
    # cards in the order the hand is shown (jacks, then clubs .. diamonds, high to low)
    rank = {c: i for i, c in enumerate(DISPLAY_ORDER)}
    order = sorted(range(len(legal)), key=lambda i: (legal[i] >= 32, rank.get(legal[i], 0)))
    others = [names[i] for i in order if not BID_BASE <= legal[i] < HOLD]
    menu = ([f"bid {bids[0]}..{bids[-1]}"] if len(bids) > 3 else bids) + others
    help_text = _help(legal)
    while True:
        try:
            text = input(f"your move ({', '.join(menu)}; ? help, q quits): ").strip()
        except EOFError:
            return None
        if text.lower() in ("q", "quit", "exit"):
            return None
        if text == "?":
            console.print(help_text)
            continue
        for a, name in zip(legal, names, strict=True):
            if text and name.upper() == text.upper():
                return a
        if text:
            console.print(f"[red]{escape(text)!r} is not legal here.[/] Legal: {', '.join(names)}")


def front_end(game: Game, vs: list[str], seat: int, seed: int) -> SkatState | None:
    """Run one deal with a person at ``seat`` and agents elsewhere; None if they quit."""
    if not isinstance(game, SkatGame):
        raise GameParameterError("the Skat front end plays Skat only")
    if game.players != 3:
        raise GameParameterError("the terminal table has 3 players")
    if not 0 <= seat < 3:
        raise GameParameterError("seat must be 0, 1 or 2")
    others = [p for p in range(3) if p != seat]
    if len(vs) == 1:
        vs = vs * 2
    if len(vs) != 2:
        raise GameParameterError(f"Skat needs 2 opponents (--vs), got {len(vs)}")
    agents: dict[int, Agent] = {
        p: make_agent(spec, game, seed=seed * 10 + p) for p, spec in zip(others, vs, strict=True)
    }
    console = Console(highlight=False)

    def person(state: State, player: int) -> int | None:
        info = state.info_state(player)
        assert isinstance(info, SkatInfoState)
        _show(info, console)
        return _ask(info, console)

    def describe(state: State, player: int, action: int) -> None:
        if player != CHANCE:
            assert isinstance(state, SkatState)
            console.print(escape(_describe(state, player, action)))

    tricks_seen = [0]

    def after(state: State, player: int, action: int) -> None:
        assert isinstance(state, SkatState)
        if state.tricks_done > tricks_seen[0]:
            tricks_seen[0] = state.tricks_done
            leader, cards, winner = state.trick_history[-1]
            names = " ".join(state.action_to_string(c) for c in cards)
            console.print(f"[cyan]trick {state.tricks_done}: {names} - seat {winner} takes it[/]")

    seats: dict[int, Agent | Chooser] = {**agents, seat: person}
    played = play(game.new_initial_state(), seats, np.random.default_rng(seed),
                  before=describe, after=after)
    if played.stopped:
        console.print("You left the game.")
        return None
    state = played.state
    assert isinstance(state, SkatState)
    res = state.result
    if state.picked_up:
        console.print(f"skat: {mask_to_string(state.put)} (put by the declarer; "
                      f"dealt: {mask_to_string(state.skat)})")
    else:
        console.print(f"skat: {mask_to_string(state.skat)}")
    if state.ramsch_result is not None:
        console.print(f"[bold]{escape(state.ramsch_result.describe())}[/]")
    elif res is None:
        raise GameParameterError("the deal ended without a result")
    elif res.passed:
        console.print("[bold]all passed: the deal is passed in[/]")
    else:
        console.print(f"[bold]seat {res.declarer}: {escape(res.describe())}[/]")
    console.print(
        "returns: " + ", ".join(f"seat {i} {r:+g}" for i, r in enumerate(state.returns()))
    )
    return state


def register(app: typer.Typer) -> None:
    from spielwerk.games.skat.cli_dds import register_dds_commands

    register_dds_commands(skat_app)
    from spielwerk.games.skat_ai.cli_kb import register_kb_commands

    register_kb_commands(skat_app)
    from spielwerk.games.skat.cli_match import register_match_command

    register_match_command(skat_app)
    from spielwerk.games.skat.cli_calibration import register_calibration_command

    register_calibration_command(skat_app)
    app.add_typer(skat_app, name="skat")
