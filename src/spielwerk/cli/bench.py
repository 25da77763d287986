"""``spielwerk bench``: solve a fixed set of positions per game; print nodes, nodes/s, signature.

The positions are each game's bench workload and the recorded signatures are in its plug-in
record (:mod:`spielwerk.bench`, :mod:`spielwerk.plugins`); this module parses the options
and prints.
"""

from __future__ import annotations

from typing import Annotated

import typer

from spielwerk.core.errors import SpielwerkError

GameOpt = Annotated[list[str] | None, typer.Option(
    "--game", "-g", help="a game with a bench workload (repeatable; default: all of them)")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no line per position")]


def bench_command(game: GameOpt = None, quiet: Quiet = False) -> None:
    """Solve fixed positions per game with its exact solver: total nodes and nodes per
    second; the total node count is the signature."""
    from spielwerk.bench import bench_games, run_bench, signature

    known = bench_games()
    games = list(dict.fromkeys(game or known))
    unknown = [g for g in games if g not in known]
    if unknown:
        raise SpielwerkError(f"bench: no positions for {', '.join(unknown)} "
                             f"(games: {', '.join(known)})")
    from spielwerk.core.machine import describe

    typer.echo(f"machine: {describe()}")
    rows = run_bench(games, None if quiet else typer.echo)
    typer.echo(f"{'game':6s} {'positions':>9s} {'nodes':>12s} {'seconds':>8s} {'nodes/s':>11s}  "
               "signature")
    for row in rows:
        recorded = signature(row.game)
        mark = ("ok" if row.signature_ok else "none recorded" if recorded is None
                else f"DIFFERS (recorded {recorded:,})")
        typer.echo(f"{row.game:6s} {row.positions:9d} {row.nodes:12,d} {row.seconds:8.2f} "
                   f"{row.nodes_per_second:11,.0f}  {mark}")
    nodes = sum(r.nodes for r in rows)
    seconds = sum(r.seconds for r in rows)
    typer.echo(f"total nodes {nodes:,} in {seconds:.2f} s: {nodes / max(seconds, 1e-9):,.0f} "
               "nodes/s")
    typer.echo(f"signature: {'-'.join(str(r.nodes) for r in rows)}")


def register(app: typer.Typer) -> None:
    app.command("bench")(bench_command)
