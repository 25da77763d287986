"""``spielwerk warmup``: compile the numba kernels now, not on the first real command."""

from __future__ import annotations

from typing import Annotated

import typer

GameOpt = Annotated[list[str] | None, typer.Option(
    "--game", "-g", help="a game to warm up (repeatable; default: every game)")]


def warmup_command(game: GameOpt = None) -> None:
    """Compile the game kernels into the user's cache folder so the first command starts at once."""
    from spielwerk._jit import kernel_folder
    from spielwerk.warmup import warm_up

    typer.echo(f"compiling kernels into {kernel_folder()} (once; later runs load them)")
    took = warm_up(progress=lambda line: typer.echo("  " + line), games=game or None)
    typer.echo(f"done in {took:.1f} s")


def register(app: typer.Typer) -> None:
    app.command("warmup")(warmup_command)
