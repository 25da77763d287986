"""``spielwerk nim ...`` (the record's command group) and Nim's terminal front end."""

from __future__ import annotations

import typer
from rich.console import Console

from spielwerk.cli.play import play_in_terminal, seat_opponents
from spielwerk.core.game import Game
from spielwerk_nim.plugin import PLUGIN
from spielwerk_nim.rules import winning_take

nim_app = typer.Typer(help=PLUGIN.summary, no_args_is_help=True)


@nim_app.command("solve")
def solve(stones: int = typer.Option(7, min=1, help="stones on the pile"),
          take: int = typer.Option(3, min=1, help="most stones one move takes")) -> None:
    """Say who wins the pile with perfect play, and the winning move."""
    best = winning_take(stones, take)
    if best is None:
        typer.echo(f"{stones} stones, take 1-{take}: the player to move loses")
    else:
        typer.echo(f"{stones} stones, take 1-{take}: the player to move wins by taking {best + 1}")


def front_end(game: Game, vs: list[str], seat: int, seed: int) -> None:
    """``spielwerk play nim``: a line of rules, then the generic terminal loop."""
    console = Console()
    console.print(f"Nim: take 1 to {game.params['take']} stones; the last stone wins")
    play_in_terminal(game, seat_opponents(game, vs, seat, seed), seat, seed, console)


def register(app: typer.Typer) -> None:
    app.add_typer(nim_app, name="nim")
