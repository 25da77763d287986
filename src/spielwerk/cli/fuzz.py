"""``spielwerk fuzz GAME --games N``: seeded random games, every invariant after every move."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from spielwerk.cli.options import workers_option
from spielwerk.core.fuzz import BatchResult, FuzzSummary, check_fuzz_size, default_workers, run_fuzz
from spielwerk.core.registry import load_game


def fuzz(
    game: str = typer.Argument(
        ..., help='game spec as for load_game, e.g. "kalah(pits=4,seeds=3)"'
    ),
    games: int = typer.Option(1000, "--games", "-n", min=1, help="number of random games"),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="game i uses seed SEED+i"),
    workers: int = workers_option(
        0, help="processes (0: all cores; 1: run in this process)", low=0),
    max_moves: int = typer.Option(
        10_000, "--max-moves", min=1, help="a game not over after this many actions fails"
    ),
    max_failures: int = typer.Option(
        10, "--max-failures", min=1, help="stop after this many failing games"
    ),
) -> None:
    """Play N seeded random games and check every invariant of check_game after every move.

    Prints games/s and moves/s; for each failing game its seed, the broken
    invariant and the command that replays it. Exit code 1 if any game fails.
    """
    console = Console()
    loaded = load_game(game)  # a bad spec fails here, before any progress display
    spec = loaded.spec()
    n_workers = workers or default_workers()
    check_fuzz_size(spec, games, seed, n_workers, max_moves)  # a run of years: refused now
    progress = Progress(
        TextColumn("[bold]fuzz[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} games/s"),
        TextColumn("[red]{task.fields[failed]}[/] failed"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )
    with progress:
        task = progress.add_task(escape(loaded.name), total=games, rate="-", failed=0)
        failed = 0

        def on_batch(result: BatchResult) -> None:
            nonlocal failed
            failed += len(result.failures)
            progress.advance(task, result.games)
            elapsed = progress.tasks[0].elapsed or 0.0
            done = progress.tasks[0].completed
            rate = f"{done / elapsed:,.0f}" if elapsed > 0 else "-"
            progress.update(task, rate=rate, failed=failed)

        summary = run_fuzz(
            spec,
            games,
            seed,
            n_workers,
            max_moves=max_moves,
            max_failures=max_failures,
            on_batch=on_batch,
        )
    last = summary.seed + summary.requested - 1
    console.print(
        f"{escape(summary.spec)}: {summary.games:,} game{'s' if summary.games != 1 else ''} "
        f"(seeds {summary.seed}..{last}), "
        f"{summary.moves + summary.chance_moves:,} moves in {summary.seconds:.2f} s "
        f"on {summary.workers} worker{'s' if summary.workers != 1 else ''}: "
        f"[bold]{summary.games_per_second:,.1f} games/s[/], "
        f"[bold]{summary.moves_per_second:,.0f} moves/s[/]",
        highlight=False,
        soft_wrap=True,
    )
    if summary.ok:
        console.print("[green]all invariants held[/]")
        _stop_if_interrupted(console, summary)
        return
    console.print(
        f"[bold red]{len(summary.failures)} failing game"
        f"{'s' if len(summary.failures) != 1 else ''}[/]"
        + (" (stopped early)" if summary.stopped_early else ""),
        highlight=False,
    )
    for failure in summary.failures:
        console.print(
            f"[red]seed {failure.seed}[/]: {escape(failure.invariant)}",
            highlight=False,
            soft_wrap=True,
        )
        console.print(escape(failure.message), highlight=False, soft_wrap=True)
    _stop_if_interrupted(console, summary)
    raise typer.Exit(code=1)


def _stop_if_interrupted(console: Console, summary: FuzzSummary) -> None:
    """After Ctrl-C (the figures above are the finished games'): where to continue, exit 130."""
    if not summary.interrupted or summary.next_seed is None:
        return
    end = summary.seed + summary.requested
    left = f"continue with --seed {summary.next_seed} --games {end - summary.next_seed}"
    played = (f"every seed below {summary.next_seed} was played"
              if summary.next_seed > summary.seed else "no seed range finished")
    console.print(f"interrupted after {summary.games:,} of {summary.requested:,} games; "
                  f"{played}: {left}", highlight=False)
    raise typer.Exit(130)


def register(app: typer.Typer) -> None:
    """Add the ``fuzz`` command to the spielwerk app."""
    app.command("fuzz")(fuzz)
