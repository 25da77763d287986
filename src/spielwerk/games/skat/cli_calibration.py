"""``spielwerk skat calibration``: how well a Skat agent's expected win chances match the
games it wins, per game type (:mod:`spielwerk.games.skat_ai.calibration`).
:func:`register_calibration_command` adds the command to the ``skat`` sub-app."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from spielwerk.cli.options import file_target, workers_option
from spielwerk.cli.progress import GamesProgress, stream
from spielwerk.core.parallel import check_executor_spec
from spielwerk.games.skat_ai.calibration import (
    CalibrationConfig,
    CalibrationError,
    check_config,
    play_seat,
    reliability,
    reliability_lines,
    summarize,
    table_lines,
)
from spielwerk.games.skat_ai.calibration_runs import open_records, pool, read_run, spread_lines

HELP = """Compare the win chances a Skat AGENT expects when it declares with the games it wins.

Every deal (--deals, fresh and seeded by --seed) is played three times: the
agent in each seat in turn, the other two seats playing --defence. Only the
agent's own declarations count (its bidding, hand or pick-up, putting and
declaration; it plays the cards as declarer). A rotation in which another
seat declares, or all pass, ends at the declaration. --defence is an agent
spec (knn, rule, ...) or open: the two seats bid as the agent does and defend
with open hands (they see every card and play the double-dummy best one).

Per game type (suit, suit_hand, grand, grand_hand, null, null_hand,
null_ouvert; null ouvert with or without the skat): games declared, the mean
predicted win chance (the chance the agent's calibration gave the game it
declared; - for an agent that tells none), the observed win rate with its 95%
Wilson interval, and the declarer's Seeger-Fabian points per declared game
(won: value + 50, lost: -2 x value - 50). Every type is listed; one the agent
never declared shows 0 and - (null in --json).

--json prints {"types": {TYPE: {"declared", "predicted", "observed", "low",
"high", "sf_per_game"}}, "all": {...}, "agent", "defence", "deals", "seed",
"seat_games", "complete"}. --out FILE writes one JSON line per seat-game as it
finishes (a header line first); a declared game's line also holds "decided", the
chance the agent's decisions compared (below "predicted" where the knn agent's
caution moves its chances towards the open-hand bound). Progress goes to stderr (with --json too);
Ctrl-C prints the figures of the games that finished. Same seed, same figures.
An existing --out file is kept: --resume continues it (the same agent, defence,
deals and seed; the seat-games in it are not played again), --fresh overwrites it.
The header records what the specs meant (the knn family's every setting and its
base's manifest): --resume refuses a run whose spec now means another bot (the
default moved), and --summarize pools runs by that, so knn10 and knn pool while
they are the same bot.

--summarize FILE (repeat it for several runs) plays nothing: it prints the
figures of record files of one agent and defence on different seeds, all their
games together, and per type how far the runs differ: each run's observed
minus predicted rate and Cochran's Q with its p-value (a small p: the runs
differ by more than chance; --json adds "runs", "seeds" and "spread").

--bins N adds, per type, the games grouped by the chance told into N equal
slices of 0-1 (10: 0.0-0.1, ..., 0.9-1.0; the slices with games), each with
its figures: where the chances miss, not only by how much on average
(--json: "bins": {TYPE: [{"from", "to", "declared", "predicted", "observed",
"low", "high", "sf_per_game"}]}). It goes with playing and with --summarize.

--executor dask://HOST:PORT plays the seat-games on a Dask cluster (the
workers need spielwerk installed); the records and figures are those of a
local run of the same seed.

Example: spielwerk skat calibration --agent knn --defence open --deals 200 --seed 1 --workers 2
"""


def _print(summary: dict[str, Any], head: str, as_json: bool) -> None:
    if as_json:
        print(json.dumps(summary))
        return
    print(head)
    print("\n".join(table_lines(summary)))
    if "bins" in summary:
        print()
        print("by the chance told (the slices of 0-1 with games)")
        print("\n".join(reliability_lines(summary["bins"])))
    more = spread_lines(summary) if "spread" in summary else []
    if more:
        print()
        print("\n".join(more))


def _summarize(files: list[Path], as_json: bool, bins: int) -> None:
    runs = [read_run(path) for path in files]
    summary = pool(runs)
    if bins:
        summary["bins"] = reliability(
            [r for run in runs for r in run.records if r["declared"]], bins)
    incomplete = [f"{r['path']} ({r['seat_games']} of {3 * r['deals']})"
                  for r in summary["runs"] if not r["complete"]]
    head = (f"agent {summary['agent']} against {summary['defence']}: {len(files)} run"
            f"{'s' if len(files) > 1 else ''} (seed{'s' if len(files) > 1 else ''} "
            f"{', '.join(map(str, summary['seeds']))}): {summary['seat_games']} of "
            f"{3 * summary['deals']} seat-games ({summary['deals']} deals x 3 seats), "
            f"{summary['all']['declared']} declared by the agent")
    _print(summary, head, as_json)
    sys.stdout.flush()  # the table before the note on stderr
    if incomplete:
        Console(stderr=True).print("not complete: " + "; ".join(incomplete), highlight=False)


def calibration_command(
    agent: str | None = typer.Option(None, "--agent", "-a", help="the agent whose declarations "
                                     "are measured, e.g. knn or 'knn:worlds=16' (needed to "
                                     "play)"),
    defence: str | None = typer.Option(None, "--defence", "-d", help="the two other seats: an "
                                       "agent spec, or open (the open-hand defence; needed to "
                                       "play)"),
    deals: int = typer.Option(100, "--deals", "-n", help="fresh deals, each played with the "
                              "agent in each of the three seats"),
    seed: int = typer.Option(0, "--seed", "-s", help="run seed: same seed, same deals"),
    executor: str | None = typer.Option(
        None, "--executor", "-e", help="local (process pool; serial with --workers 1), "
        "serial or dask://HOST:PORT"),
    workers: int | None = workers_option(
        help="worker processes for --executor local (default: all cores)"),
    as_json: bool = typer.Option(False, "--json", help="print the figures as JSON only"),
    out: Path | None = typer.Option(None, "--out", "-o", help="one JSON line per seat-game "
                                    "(JSON Lines, a header line first)"),
    resume: bool = typer.Option(False, "--resume", help="continue the run in --out"),
    fresh: bool = typer.Option(False, "--fresh", help="overwrite --out if it is a record file"),
    summarize_files: list[Path] | None = typer.Option(
        None, "--summarize", help="only print the figures of this record file (repeat it to "
        "pool runs)"),
    bins: int = typer.Option(0, "--bins", min=0, max=100, help="also per type by the chance "
                             "told, in this many equal slices of 0-1 (0: not)"),
) -> None:
    if summarize_files:
        _summarize(summarize_files, as_json, bins)
        return
    if agent is None or defence is None:
        raise CalibrationError("--agent and --defence are needed to play (or --summarize FILE "
                               "to read record files)")
    config = CalibrationConfig(agent, defence, deals, seed)
    check_config(config)  # one line, before any game
    runner = (check_executor_spec(executor) if executor is not None
              else "local" if workers != 1 else "serial")
    if (resume or fresh) and out is None:
        raise CalibrationError("--resume and --fresh need --out FILE")
    console = Console(stderr=True)
    started = time.perf_counter()
    done: list[dict[str, Any]] = []
    fh = None
    if out is not None:
        file_target("--out", out)
        fh, done = open_records(out, config, resume, fresh)
    have = {(r["deal"], r["seat"]) for r in done}
    tasks = [t for t in config.tasks() if (t[1], t[2]) not in have]
    total = len(tasks) + len(done)
    progress = GamesProgress(console, "skat calibration")  # stderr: --json keeps stdout
    try:
        played, interrupted = stream(play_seat, tasks, runner, workers, progress, total,
                                     len(done), fh)
    finally:
        if fh is not None:
            fh.close()
    records = done + played
    summary = summarize(config, records)
    if bins:
        summary["bins"] = reliability([r for r in records if r["declared"]], bins)
    head = (f"agent {agent} against {defence}: {len(records)} of {total} seat-games "
            f"({deals} deals x 3 seats, seed {seed}), "
            f"{summary['all']['declared']} declared by the agent")
    _print(summary, head, as_json)
    if not as_json:
        console.print(f"{time.perf_counter() - started:.1f} s"
                      + (f" ({len(done)} seat-games read back from {out})" if done else ""),
                      highlight=False)
    if interrupted:
        hint = (f"; continue with --resume -o {out}" if out is not None else
                "; add -o FILE to keep them and continue a long run with --resume")
        console.print(f"interrupted after {len(records)} of {total} seat-games (the "
                      f"figures above are theirs){hint}", highlight=False)
        raise typer.Exit(130)


def register_calibration_command(skat_app: typer.Typer) -> None:
    """Add ``calibration`` to the ``skat`` sub-app."""
    skat_app.command("calibration", help=HELP)(calibration_command)
