"""``spielwerk games``: the registered games with their parameters and agents."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from spielwerk.core.agent import list_agents
from spielwerk.core.registry import list_games


def games_command() -> None:
    """List the registered games, their parameters (with defaults) and their agents."""
    console = Console()
    table = Table(title="spielwerk games", show_lines=True)
    table.add_column("game", style="bold", overflow="fold")
    table.add_column("description", overflow="fold")
    table.add_column("parameters (default)", overflow="fold")
    table.add_column("agents", overflow="fold")
    for entry in list_games():
        params = "\n".join(
            f"{k}={str(v).lower() if isinstance(v, bool) else v}"
            + (f"  [dim]{entry.parameter_help[k]}[/]" if k in entry.parameter_help else "")
            for k, v in entry.defaults.items()
        )
        agents = ", ".join(a.name for a in list_agents(entry.name))
        table.add_row(entry.name, entry.description, params or "-", agents or "-")
    console.print(table)
    # full agent specs below the table, one per line and never cut at the terminal width
    # (a spec is copied into a command line, so it must stay whole)
    for entry in list_games():
        console.print(f"\n[bold]{entry.name}[/] agents (spec with defaults - description):")
        for a in list_agents(entry.name):
            console.print(f"  {escape(a.usage())}  [dim]- {escape(a.description)}[/]",
                          soft_wrap=True)
    console.print('Load a variant with e.g. [bold]"kalah(pits=4,seeds=3,empty_capture=true)"[/].')


def register(app: typer.Typer) -> None:
    app.command("games")(games_command)
