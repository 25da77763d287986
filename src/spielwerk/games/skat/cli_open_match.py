"""``spielwerk skat match A B --defence open``: the open-hand duplicate match from the command
line (:mod:`spielwerk.games.skat_ai.open_match`), with ``skat match``'s tables.

The results file holds a header line (the agents, seed, deals, ``"defence": "open"`` and
what each spec meant: the ``knn`` family's settings) and one line per deal; ``--resume``
continues it (refused where a spec now means other settings), ``--summarize`` reads it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from spielwerk.arena.match import ArenaError
from spielwerk.cli.options import file_target
from spielwerk.cli.progress import GamesProgress, stream
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.append_file import differences
from spielwerk.core.registry import load_game
from spielwerk.games.skat_ai.match_report import stats_tables, title
from spielwerk.games.skat_ai.open_match import ORDERS, match_figures, play_open_deal

OPEN = "open"


def is_open_file(path: Path) -> bool:
    """Whether ``path`` is an open-hand match's results file (its header says so)."""
    try:
        with path.open() as fh:
            return bool(json.loads(fh.readline()).get("defence") == OPEN)
    except (OSError, ValueError, AttributeError):
        return False


def read_open_match(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An open-hand match file's header and its deals' rows."""
    lines = path.read_text().splitlines()
    try:
        header = json.loads(lines[0])
        rows = [json.loads(x) for x in lines[1:] if x.strip()]
    except (IndexError, ValueError) as exc:
        raise ArenaError(f"{path} is not an open-hand match results file: {exc}") from None
    return header, rows


def print_open_figures(header: dict[str, Any], rows: list[dict[str, Any]], confidence: float,
                       as_json: bool) -> None:
    """The match's figures: ``skat match``'s tables, or JSON with ``--json``."""
    stats = match_figures(header["agents"], rows, confidence)
    if as_json:
        print(json.dumps({**header, "figures": stats.to_dict()}))
        return
    described = (f"{' vs '.join(header['agents'])}, seed {header['seed']}, the open-hand "
                 f"defence in every defending seat; {len(rows)} of {header['deals']} deals")
    console = Console()
    for table in stats_tables(stats, title(stats, described)):
        console.print(table)


def summarize_open(path: Path, confidence: float, as_json: bool) -> None:
    header, rows = read_open_match(path)
    print_open_figures(header, rows, confidence, as_json)


def _settings_differ(old: dict[str, Any], new: dict[str, Any]) -> str:
    """The settings that differ, per spec: "knn: null_floor 0.55 -> 0.0"."""
    parts = []
    for spec in sorted(set(old) | set(new)):
        changed = differences(old.get(spec) or {}, new.get(spec) or {})
        if changed:
            parts.append(f"{spec}: " + ", ".join(f"{k} {a!r} -> {b!r}" for k, a, b in changed))
    return "; ".join(parts)


def play_open_match(agents: list[str], deals: int, seed: int, executor: str,
                    workers: int | None, output: Path | None, resume: bool, fresh: bool,
                    as_json: bool, confidence: float) -> None:
    """Play the deals not yet in ``output`` (process pool or serial), then the figures."""
    if len(agents) != 2:
        raise ArenaError(f"--defence open plays a match between 2 agents, got {len(agents)}")
    if executor not in ("local", "serial"):
        raise ArenaError(f"--defence open runs on this machine (--executor local or serial), "
                         f"not {executor!r}")
    game = load_game("skat")
    told: dict[str, Any] = {}
    for spec in agents:
        try:
            tell = getattr(make_agent(spec, game, 0), "provenance", None)
        except AgentSpecError as exc:
            raise ArenaError(f"agent {spec!r}: {exc}") from None
        if callable(tell):
            told[spec] = tell()
    header = {"agents": agents, "seed": seed, "deals": deals, "defence": OPEN,
              "seatings": [list(o) for o in ORDERS], "settings": told}
    rows: list[dict[str, Any]] = []
    if output is not None:
        file_target("--output", output)
        if output.exists() and resume:
            found, rows = read_open_match(output)
            if (found.get("agents"), found.get("seed")) != (agents, seed):
                raise ArenaError(f"{output} holds another match ({found.get('agents')}, seed "
                                 f"{found.get('seed')})")
            if "settings" not in found:  # written before settings were recorded: by name
                del header["settings"]
            elif found["settings"] != told:
                raise ArenaError(f"{output} holds a match of other bots under these specs "
                                 f"({_settings_differ(found['settings'], told)}); use another "
                                 f"--output or --fresh to overwrite it")
            rows = [r for r in rows if r["deal"] < deals]
            if found.get("deals") != deals:  # more (or fewer) deals: the header says so
                tmp = output.with_name(output.name + ".tmp")
                tmp.write_text("".join(json.dumps(x) + "\n" for x in [header, *rows]))
                tmp.replace(output)
        elif output.exists() and output.stat().st_size and not fresh:
            raise ArenaError(f"{output} exists: --resume continues it, --fresh overwrites it")
        else:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(json.dumps(header) + "\n")
    done = {r["deal"] for r in rows}
    tasks = [(tuple(agents), seed, d) for d in range(deals) if d not in done]
    console = Console(stderr=True)
    progress = GamesProgress(console, "skat match --defence open", quiet=as_json)
    fh = output.open("a") if output is not None else None
    try:
        played, interrupted = stream(
            play_open_deal, tasks, "serial" if executor == "serial" or workers == 1 else "local",
            workers, progress, deals, len(done), fh)
    finally:
        if fh is not None:
            fh.close()
    rows += played
    print_open_figures(header, sorted(rows, key=lambda r: r["deal"]), confidence, as_json)
    if interrupted:
        console.print(f"interrupted after {len(rows)} of {deals} deals"
                      + (f"; --resume -o {output} continues" if output else ""),
                      highlight=False)
        raise typer.Exit(130)
