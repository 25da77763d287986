"""``spielwerk skat match AGENT...``: a duplicate-deal Skat match with Seeger-Fabian figures.

A shortcut of ``spielwerk arena skat AGENT... --seating duplicate`` (same games, same
figures; with three agents it plays the three rotations of a deal unless ``--seating
permutations``): the match is :mod:`spielwerk.arena.duplicate`, its running and tables
:mod:`spielwerk.cli.arena_duplicate`, the figures Skat's report
(:mod:`spielwerk.games.skat_ai.match_report`). :func:`register_match_command` adds the
command to the ``skat`` sub-app.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from spielwerk.arena.duplicate import DuplicateConfig, default_seating, read_duplicate
from spielwerk.arena.match import ArenaError, GameResult
from spielwerk.arena.stats import z_value
from spielwerk.arena.tournament import TournamentResult
from spielwerk.cli.arena_duplicate import play_duplicate
from spielwerk.cli.arena_duplicate import summarize as summarize_file
from spielwerk.cli.options import OptionValueError, range_text, workers_option
from spielwerk.games.skat.cli_open_match import (
    OPEN,
    is_open_file,
    play_open_match,
    summarize_open,
)
from spielwerk.games.skat_ai.match_stats import SkatMatchStats, skat_match_stats

SKAT_GAME = "skat(players=3)"


def skat_match_config(agents: Sequence[str], deals: int, seed: int = 0,
                      seating: str | None = None, check_agents: bool = True) -> DuplicateConfig:
    """The duplicate match ``spielwerk skat match`` plays: 2 or 3 agents; ``seating`` None
    is ``pairs`` for two agents and the three ``rotations`` for three."""
    if len(agents) not in (2, 3):
        raise ArenaError(f"a Skat match is between 2 or 3 agents (one of them may be "
                         f"repeated), got {len(agents)}")
    return DuplicateConfig.create_match(
        SKAT_GAME, agents, deals, seed, seating or default_seating(len(agents), 3, False),
        check_agents=check_agents)


def match_stats(result: TournamentResult, confidence: float = 0.95) -> SkatMatchStats:
    """The Seeger-Fabian figures of a finished (or partial) match."""
    config = result.config
    if not isinstance(config, DuplicateConfig):
        raise ArenaError("not a duplicate match")
    return skat_match_stats(result.results, config.labels, len(config.arrangements), confidence)


def read_match(path: Path) -> tuple[DuplicateConfig, list[GameResult]]:
    """The configuration and games of a Skat match results file."""
    return read_duplicate(path, "skat")

HELP = """Play a duplicate-deal Skat match between 2 or 3 AGENTS and print Seeger-Fabian figures.

Every deal is played once for each seating: with two agents A and B the six
arrangements BAA ABA AAB ABB BAB BBA (each agent alone in each seat and
twice with itself), with three agents the three rotations (--seating
permutations: all six orders). Reported per agent: games declared, declarer
win rate, seat-games passed in, mean game value, Seeger-Fabian points per 36
games with a 95% interval (deals as the units), counts per game type and
announcement, and the paired difference between agents on the same deals.

Results are written to --output as each game finishes; an interrupted run
(Ctrl-C, kill -9) continues with --resume. --summarize FILE prints the
figures of a results file, also while a run is still writing it.

The same as spielwerk arena skat AGENTS --seating duplicate (with three agents
add --seating permutations here, or this plays the rotations only).

--defence open (two agents, for measuring): the agents bid, put and declare
as they do and the declarer plays its cards, but every defending seat plays
the open-hand defence (it sees every card and plays the double-dummy best
one): who loses less to a perfect defence. A declaration reached again in
another seating is played out once. Runs on this machine (local or serial).

Example: spielwerk skat match knn rule --deals 2000 --seed 1 -o knn-rule.jsonl --workers 2
"""


def match_command(
    agents: list[str] | None = typer.Argument(
        None, help="2 or 3 agent specs, e.g. knn rule or 'pimc:worlds=16' rule"
    ),
    deals: int = typer.Option(100, "--deals", "-n", min=1, help="number of deals (each is played "
                              "once per seating)"),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="match seed: same seed, same deals"),
    seating: str | None = typer.Option(
        None, "--seating", help="pairs (2 agents, the default), rotations (3 agents, the "
        "default) or permutations (3 agents)"
    ),
    executor: str = typer.Option(
        "local", "--executor", "-e", help="local (process pool), serial or dask://HOST:PORT"
    ),
    workers: int | None = workers_option(
        help="worker processes for --executor local (default: all cores)"),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="results file (JSON Lines), appended as games finish"
    ),
    resume: bool = typer.Option(False, "--resume", help="continue the games in --output"),
    fresh: bool = typer.Option(False, "--fresh", help="overwrite --output if it is ours"),
    summarize: Path | None = typer.Option(
        None, "--summarize", help="only print the figures of this results file"
    ),
    as_json: bool = typer.Option(False, "--json", help="print machine-readable results only"),
    confidence: float = typer.Option(0.95, "--confidence",
                                     help="level of the intervals (between 0 and 1)"),
    defence: str = typer.Option("agents", "--defence", help="agents (each seat plays as its "
                                "agent) or open (every defending seat plays the open-hand "
                                "defence; 2 agents)"),
) -> None:
    if not 0.0 < confidence < 1.0:  # a bad level fails before any game is played
        raise OptionValueError(f"--confidence must be {range_text(0, 1, True, True)} "
                               f"(e.g. 0.95), not {confidence:g}")
    z_value(confidence)
    if defence not in ("agents", OPEN):
        raise OptionValueError(f"--defence must be agents or open, not {defence!r}")
    if summarize is not None:
        if agents:
            raise ArenaError("--summarize reads a results file: give no agents with it")
        if is_open_file(summarize):
            summarize_open(summarize, confidence, as_json)
        else:
            summarize_file(summarize, "skat", confidence, as_json)
        return
    if not agents:
        raise ArenaError("give 2 or 3 agent specs, e.g. spielwerk skat match knn rule")
    if defence == OPEN:
        if seating not in (None, "pairs"):
            raise ArenaError("--defence open seats two agents in pairs")
        play_open_match(agents, deals, seed, executor, workers, output, resume, fresh,
                        as_json, confidence)
        return
    config = skat_match_config(agents, deals, seed, seating)
    play_duplicate(config, executor, workers, output, resume, fresh, as_json, confidence,
                   "skat match")


def register_match_command(skat_app: typer.Typer) -> None:
    """Add ``match`` to the ``skat`` sub-app."""
    skat_app.command("match", help=HELP)(match_command)
