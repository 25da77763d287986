"""``spielwerk skat calibration``: how well a Skat agent's expected win chances match the
games it wins, per game type (:mod:`spielwerk.games.skat_ai.calibration`).
:func:`register_calibration_command` adds the command to the ``skat`` sub-app."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from spielwerk.cli.options import file_target, workers_option
from spielwerk.cli.progress import GamesProgress, stream
from spielwerk.games.skat_ai.calibration import (
    CalibrationConfig,
    check_config,
    play_seat,
    summarize,
    table_lines,
)

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

Example: spielwerk skat calibration --agent knn --defence open --deals 200 --seed 1 --workers 2
"""


def _write_header(out: Path, config: CalibrationConfig) -> Any:
    file_target("--out", out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fh = out.open("w")
    fh.write(json.dumps({"agent": config.agent, "defence": config.defence,
                         "deals": config.deals, "seed": config.seed}) + "\n")
    fh.flush()
    return fh


def calibration_command(
    agent: str = typer.Option(..., "--agent", "-a", help="the agent whose declarations are "
                              "measured, e.g. knn or 'knn:worlds=16'"),
    defence: str = typer.Option(..., "--defence", "-d", help="the two other seats: an agent "
                                "spec, or open (the open-hand defence)"),
    deals: int = typer.Option(100, "--deals", "-n", help="fresh deals, each played with the "
                              "agent in each of the three seats"),
    seed: int = typer.Option(0, "--seed", "-s", help="run seed: same seed, same deals"),
    workers: int | None = workers_option(help="worker processes (default: all cores)"),
    as_json: bool = typer.Option(False, "--json", help="print the figures as JSON only"),
    out: Path | None = typer.Option(None, "--out", "-o", help="one JSON line per seat-game "
                                    "(JSON Lines, a header line first)"),
) -> None:
    config = CalibrationConfig(agent, defence, deals, seed)
    check_config(config)  # one line, before any game
    console = Console(stderr=True)
    started = time.perf_counter()
    fh = _write_header(out, config) if out is not None else None
    tasks = config.tasks()
    progress = GamesProgress(console, "skat calibration")  # stderr: --json keeps stdout
    try:
        records, interrupted = stream(play_seat, tasks, "local" if workers != 1 else "serial",
                                      workers, progress, len(tasks), 0, fh)
    finally:
        if fh is not None:
            fh.close()
    summary = summarize(config, records)
    if as_json:
        print(json.dumps(summary))
    else:
        head = (f"agent {agent} against {defence}: {len(records)} of {len(tasks)} seat-games "
                f"({deals} deals x 3 seats, seed {seed}), "
                f"{summary['all']['declared']} declared by the agent")
        print(head)
        print("\n".join(table_lines(summary)))
        console.print(f"{time.perf_counter() - started:.1f} s", highlight=False)
    if interrupted:
        console.print(f"interrupted after {len(records)} of {len(tasks)} seat-games (the "
                      "figures above are theirs)", highlight=False)
        raise typer.Exit(130)


def register_calibration_command(skat_app: typer.Typer) -> None:
    """Add ``calibration`` to the ``skat`` sub-app."""
    skat_app.command("calibration", help=HELP)(calibration_command)
