"""A sequential round robin on the command line, for any two-player game: win rates over
decisive games, undecided pairings extended round after round
(:mod:`spielwerk.arena.sequential`), a table, ``--json`` lines and a heat-map PNG.

``spielwerk arena GAME A B C --seating sequential --extend N`` and the shortcut ``spielwerk
durak tournament`` both come here: the same configuration gives the same games and table.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from spielwerk.arena.match import ArenaError, GameResult
from spielwerk.arena.results import read_results
from spielwerk.arena.sequential import Extension, extend_undecided
from spielwerk.arena.stats import DecisiveRecord, decisive_records, wilson_interval
from spielwerk.arena.tournament import TournamentConfig, run_tournament
from spielwerk.cli.progress import GamesProgress
from spielwerk.core.parallel import make_executor
from spielwerk.core.process import ignore_further_interrupts
from spielwerk.core.registry import load_game

DEFAULT_EXTEND_FACTOR = 10
"""``--extend`` without ``--max-games`` stops a pairing at this many times ``--games``."""


def play_sequential(
    config: TournamentConfig, *, extend: int, max_games: int, confidence: float,
    executor: str, workers: int | None, output: Path | None, resume: bool, fresh: bool,
    partial: bool, as_json: bool, heatmap_path: Path | None, heatmap_budget: str = "",
    differ: str = "",
) -> None:
    """Play ``config`` (a round robin of a two-player game; its labels name the agents),
    extend the undecided pairings by ``extend`` games per round up to ``max_games`` (0: ten
    times the games per pairing) and print the table (``--partial``: the table of the games
    already in ``output``, playing nothing). After Ctrl-C: the table of the games that
    finished and how to continue (exit 130). ``heatmap_budget`` is said in the heat map's
    title; ``differ`` names the game's own options in a refusal of another file's."""
    game = load_game(config.game)
    name = game.game_type.long_name
    labels = list(config.labels)
    games = config.games_per_group
    err = Console(stderr=True)
    start = time.perf_counter()
    progress = GamesProgress(err, name, quiet=as_json)
    finished: list[GameResult] = []  # this run's games, for the table after Ctrl-C

    def on_result(result: GameResult) -> None:
        finished.append(result)
        progress.result(result)

    try:
        with contextlib.nullcontext() if partial else make_executor(executor, workers) as ex:
            if partial:
                if output is None:
                    raise ArenaError("--partial reads the games in --output FILE: give -o")
                results = partial_results(output, config.config_hash(), differ)
            else:
                results = run_tournament(config, ex, output, resume=resume, fresh=fresh,
                                         on_start=progress.start, on_result=on_result).results
            pairs = decisive_records(results, labels)
            if extend > 0 and not partial:
                cap = max_games if max_games > 0 else DEFAULT_EXTEND_FACTOR * max(games, extend)
                ext = Extension(config.game, config.agents, labels, config.seed, extend, cap,
                                confidence)
                results += extend_undecided(
                    pairs, ext, ex, output, resume=resume, fresh=fresh,
                    on_start=progress.start, on_result=on_result,
                    on_extended=None if as_json else lambda p: err.print(
                        f"extended {p.agent} vs {p.opponent}: {p.games} games"))
    except KeyboardInterrupt:
        ignore_further_interrupts()  # a second Ctrl-C cannot cut the table short
        progress.stop()  # the bar as it stands, then the table
        # what finished is printed, not lost: the table of this run's games, and where
        # (or that) they are kept
        pairs = decisive_records(finished, labels)
        if as_json:
            for p in pairs.values():
                print(json.dumps(p.to_dict(confidence)))
        else:
            print_table(pairs, labels, name, confidence, len(finished),
                        time.perf_counter() - start)
        kept = (f"every finished game is in {output}: continue with --resume -o {output}"
                if output is not None else "they are not saved: add -o FILE to keep the games "
                "of a long run and continue it with --resume")
        err.print(f"interrupted: the table above has the {len(finished)} games finished in "
                  f"this run; {kept}", highlight=False)
        raise typer.Exit(130) from None
    finally:
        progress.stop()
    wall = time.perf_counter() - start
    if as_json:
        for p in pairs.values():
            print(json.dumps(p.to_dict(confidence)))
    else:
        print_table(pairs, labels, name, confidence, len(results), wall)
    if heatmap_path is not None:
        budget = heatmap_budget or "search budgets as in the agent specs"
        heatmap(pairs, labels, heatmap_path, f"{name}\nrow agent's win rate over decisive "
                f"games, {budget}")
        if not as_json:
            err.print(f"heat map written to {heatmap_path}")


def heatmap_target(path: Path) -> Path:
    """Check ``--heatmap PATH`` before any game is played: matplotlib is installed, the
    path is a file (``.png`` is added when it has no suffix, as matplotlib would) and its
    folder takes a new file. Returns the path that will be written."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ArenaError(
            "--heatmap needs matplotlib: pip install 'spielwerk[plots]' (or leave out --heatmap)"
        ) from None
    if path.is_dir():
        raise ArenaError(f"--heatmap {path} is a folder; give a file name such as "
                            f"{path / 'heatmap.png'}")
    if not path.suffix:
        path = path.with_suffix(".png")
    if path.is_file():
        with path.open("rb") as fh:
            if fh.read(8) != b"\x89PNG\r\n\x1a\n":  # only an earlier picture is replaced
                raise ArenaError(f"--heatmap: {path} exists and is not a PNG picture; "
                                    "refusing to overwrite it")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ArenaError(f"--heatmap: the folder {folder} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".spielwerk-check-"):
            pass
    except OSError as exc:
        raise ArenaError(f"--heatmap: cannot write in {folder}: {exc.strerror}") from None
    return path


def heatmap(pairs: dict[tuple[str, str], DecisiveRecord], labels: list[str], path: Path,
            title: str) -> None:
    """Row agent's win rate over decisive games against each column agent, as a PNG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ArenaError("--heatmap needs matplotlib (pip install matplotlib)") from exc
    n = len(labels)
    grid = np.full((n, n), np.nan)
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            if (a, b) in pairs:
                grid[i, j] = pairs[(a, b)].win_rate
            elif (b, a) in pairs:
                grid[i, j] = 1.0 - pairs[(b, a)].win_rate
    fig, ax = plt.subplots(figsize=(1.4 * n + 2, 1.2 * n + 1.5))
    im = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="RdYlGn")
    ax.set_xticks(range(n), labels, rotation=30, ha="right")
    ax.set_yticks(range(n), labels)
    for i in range(n):
        for j in range(n):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{100 * grid[i, j]:.1f}%", ha="center", va="center", fontsize=9)
    ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax, label="row agent's win rate (decisive games)")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as exc:
        raise ArenaError(f"cannot write the heat map {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)


def partial_results(output: Path, config_hash: str, differ: str = "") -> list[GameResult]:
    """Games already in ``output`` (a file of this very configuration)."""
    if not output.exists():
        raise ArenaError(f"{output} does not exist")
    back = read_results(output)
    if back.header is None:
        if back.discarded_tail.strip() and not back.discarded_tail.startswith(b'{"format":'):
            raise ArenaError(f"{output} is not a spielwerk results file")
        return []
    if back.header.get("config_hash") != config_hash:
        raise ArenaError(
            f"{output} was written by another configuration (agents, games, seed{differ} "
            "differ)")
    return back.results


def print_table(pairs: dict[tuple[str, str], DecisiveRecord], labels: list[str], name: str,
                 confidence: float, n_games: int, wall: float) -> None:
    out = Console() if Console().is_terminal else Console(width=200)
    table = Table(title=f"{name}: row agent's win rate over decisive games "
                        f"({100 * confidence:g}% Wilson interval), n = decisive games, d = draws")
    table.add_column("agent")
    for b in labels:
        table.add_column(b, justify="center")
    for a in labels:
        row = [a]
        for b in labels:
            p = pairs.get((a, b))
            flip = False
            if p is None and (b, a) in pairs:
                p, flip = pairs[(b, a)], True
            if p is None:
                row.append("-")
                continue
            w, lo_ = (p.losses, p.wins) if flip else (p.wins, p.losses)
            n = w + lo_
            lo, hi = wilson_interval(w, n, confidence)
            if n == 0:  # no decisive game yet: no rate to show
                row.append(f"-\nn=0 d={p.draws}")
                continue
            rate = w / n
            row.append(f"{100 * rate:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}]\nn={n} d={p.draws}")
        table.add_row(*row)
    out.print(table)
    out.print(f"{n_games} games in {wall:.1f} s", highlight=False)
