"""``spielwerk play GAME --vs AGENT``: a person plays in the terminal against agents.

The generic loop works for every game: the person sees their own info state
(never hidden cards), types a move in the game's notation, and gets a clear
message for bad input. A game with a richer terminal front end names it in its
plug-in record (:mod:`spielwerk.plugins`), as it names its seats. Without ``--vs`` the
opponents are the game's default, read from its table face
(:func:`spielwerk.core.agent.default_opponent`), so the terminal and the web table agree.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import typer
from rich.console import Console

from spielwerk.core.agent import Agent, default_opponent, make_agent
from spielwerk.core.errors import GameParameterError
from spielwerk.core.game import Game, State
from spielwerk.core.play import Chooser, play
from spielwerk.core.registry import load_game
from spielwerk.plugins import game_plugin, load_object

_VS_HELP = ("opponent agent spec (repeat for more seats; default: the game's default "
            "opponent, the same as at the web table, its strongest measured agent: "
            "`spielwerk games` lists the agents)")


def front_end(game: Game) -> Callable[..., None] | None:
    """The game's own ``front_end(game, vs=, seat=, seed=)`` replacing the generic loop, from
    its plug-in record (None: the generic loop)."""
    record = game_plugin(game.name)
    if record is None or record.front_end is None:
        return None
    made: Callable[..., None] = load_object(record.front_end)
    return made


def _ask_move(state: State, seat: int, console: Console) -> int | None:
    info = state.info_state(seat)
    legal = info.legal_actions()
    names = [info.action_to_string(a) for a in legal]
    while True:
        try:
            text = input(f"your move ({', '.join(names)}; q quits): ").strip()
        except EOFError:
            return None
        if text.lower() in ("q", "quit", "exit"):
            return None
        if not text:
            continue
        for a, name in zip(legal, names, strict=True):
            if name.upper() == text.upper():
                return a
        console.print(f"[red]{text!r} is not a legal move here.[/] Legal: {', '.join(names)}")


def _seat_name(game: Game, seat: int, short: bool = False) -> str:
    record = game_plugin(game.name)
    names = record.seat_names if record is not None else ()
    if not 0 <= seat < len(names):
        return ""
    name = names[seat]
    return f", {name.split(':')[0]}" if short else f", {name}"


def seat_opponents(game: Game, vs: list[str], seat: int, seed: int) -> dict[int, Agent]:
    """Agents for every seat but the person's; one ``--vs`` spec fills all of them."""
    n = game.num_players
    if not 0 <= seat < n:
        raise GameParameterError(f"seat must be between 0 and {n - 1}")
    others = [p for p in range(n) if p != seat]
    if len(vs) == 1:
        vs = vs * len(others)
    if len(vs) != len(others):
        raise GameParameterError(f"{game.name} needs {len(others)} opponents (--vs), got {len(vs)}")
    return {p: make_agent(spec, game, seed=seed + p) for p, spec in zip(others, vs, strict=True)}


def play_in_terminal(game: Game, agents: dict[int, Agent], human_seat: int, seed: int,
                     console: Console) -> State | None:
    """Run one game through :func:`spielwerk.core.play.play`; the final state, None if the
    person quit."""
    for i, agent in agents.items():
        agent.reset(seed * 1000 + i)
    console.print(f"[bold]you are seat {human_seat}"
                  f"{_seat_name(game, human_seat)}[/]; you move when it says so")

    def person(state: State, seat: int) -> int | None:
        console.print(str(state.info_state(seat)))
        return _ask_move(state, seat, console)

    def announce(state: State, player: int, action: int) -> None:
        if player == human_seat:
            console.print(f"you play {state.action_to_string(action)}")
        elif player >= 0:
            console.print(f"[cyan]seat {player} plays {state.action_to_string(action)}[/]")

    seats: dict[int, Agent | Chooser] = {**agents, human_seat: person}
    played = play(game.new_initial_state(), seats, np.random.default_rng(seed), before=announce)
    if played.stopped:
        console.print("You left the game.")
        return None
    state = played.state
    console.print(str(state.info_state(human_seat)))
    returns = state.returns()
    console.print(f"returns: {', '.join(f'{r:+g}' for r in returns)} "
                  f"(you are seat {human_seat}{_seat_name(game, human_seat, short=True)})")
    return state


def play_command(
    game_spec: str = typer.Argument(..., metavar="GAME", help='game spec, e.g. "kalah(pits=6)"'),
    vs: list[str] | None = typer.Option(
        None, "--vs", help=_VS_HELP
    ),
    seat: int = typer.Option(0, min=0, help="your seat (0: the first)"),
    seed: int = typer.Option(0, min=0, help="seed for agents and chance"),
) -> None:
    """Play a game in the terminal against agents (type 'q' to quit)."""
    game = load_game(game_spec)
    if not vs:
        vs = [default_opponent(game)]
    own = front_end(game)
    if own is not None:
        own(game, vs=vs, seat=seat, seed=seed)
        return
    play_in_terminal(game, seat_opponents(game, vs, seat, seed), seat, seed, Console())


def register(app: typer.Typer) -> None:
    app.command("play")(play_command)
