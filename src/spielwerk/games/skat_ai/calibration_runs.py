"""The record files of ``spielwerk skat calibration --out`` and the figures of several runs
together.

A record file is JSON Lines: a header ``{"agent", "defence", "deals", "seed", "settings"}``,
then one line per seat-game as it finished
(:func:`spielwerk.games.skat_ai.calibration.play_seat`). ``settings`` holds what the agent and
defence specs meant when the run began (:func:`spec_settings`; files written before it was
recorded lack it): ``knn`` names another bot once the default moves, so a run is continued,
and runs pooled, by what their specs meant, not by the names.
:func:`open_records` creates one, refuses to overwrite one unless asked (``fresh``) and
continues one (``resume``): the seat-games already in it are kept, a last line the run did
not finish (killed mid-write) is cut off, and a file of another run (other agent, defence,
deals or seed) or with a damaged line is refused with the file left as it was. While a run
writes a file it holds an exclusive ``flock`` on it. The opening rules, the reading of complete
lines and the lock are :mod:`spielwerk.core.append_file`'s, as for the arena's results files.

:func:`pool` gives the figures of several runs of the same agent and defence on different
seeds (:func:`spielwerk.games.skat_ai.calibration.summarize`'s, over all their games) and,
per game type, how far the runs differ: each run's observed minus predicted win rate and
Cochran's Q of those differences against one common value, with its chi-square p-value. The
variance of a run's difference is taken as binomial at the pooled observed rate, the largest
a set of independent games with that mean rate can have, so Q errs on the small side: a
small p says the runs differ by more than their games' chance alone explains.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from scipy.stats import chi2

from spielwerk.core.agent import make_agent
from spielwerk.core.append_file import differences, lock_exclusive, opening_checks, read_lines
from spielwerk.core.registry import load_game
from spielwerk.games.skat_ai.calibration import (
    GAME_TYPES,
    OPEN,
    CalibrationConfig,
    CalibrationError,
    type_figures,
)

HEADER_KEYS = ("agent", "defence", "deals", "seed")
SETTINGS = "settings"
"""The header's key for what the specs meant (``{"agent": ..., "defence": ...}``)."""


def spec_settings(spec: str) -> dict[str, Any] | None:
    """What an agent spec means now: the agent's ``provenance()`` (the ``knn`` family: every
    setting and its base's manifest), None for the open-hand defence and agents that tell
    none (they are known by their spec)."""
    if spec.strip() == OPEN:
        return None
    tell = getattr(make_agent(spec, load_game("skat"), 0), "provenance", None)
    return tell() if callable(tell) else None


def header_of(config: CalibrationConfig) -> dict[str, Any]:
    """The first line of a run's record file."""
    return {"agent": config.agent, "defence": config.defence, "deals": config.deals,
            "seed": config.seed, SETTINGS: {"agent": spec_settings(config.agent),
                                            "defence": spec_settings(config.defence)}}


@dataclass
class Run:
    """A record file read back: its header, its seat-game records, the length of its valid
    part and an unfinished last line (dropped)."""

    path: Path
    header: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    good_bytes: int = 0
    tail: bytes = b""

    @property
    def complete(self) -> bool:
        return len(self.records) == 3 * int(self.header["deals"])


def _check_header(path: Path, header: Any) -> dict[str, Any]:
    if (not isinstance(header, dict) or set(header) - {SETTINGS} != set(HEADER_KEYS)
            or not isinstance(header.get(SETTINGS, {}), dict)
            or not isinstance(header["deals"], int) or header["deals"] < 1
            or not isinstance(header["seed"], int) or header["seed"] < 0
            or not isinstance(header["agent"], str) or not isinstance(header["defence"], str)):
        raise CalibrationError(f"{path} is not a skat calibration record file (its first line "
                               f"is not a header with {', '.join(HEADER_KEYS)})")
    return header


def _check_record(path: Path, number: int, record: Any, deals: int) -> tuple[int, int]:
    bad = f"{path}, line {number}: not a seat-game record"
    if not isinstance(record, dict):
        raise CalibrationError(bad)
    deal, seat, declared = record.get("deal"), record.get("seat"), record.get("declared")
    if (not isinstance(deal, int) or not 0 <= deal < deals or seat not in (0, 1, 2)
            or not isinstance(declared, bool)):
        raise CalibrationError(f"{bad} (deal 0-{deals - 1}, seat 0-2 and declared expected)")
    if declared and (record.get("type") not in GAME_TYPES
                     or not isinstance(record.get("won"), bool)
                     or not isinstance(record.get("sf"), int)):
        raise CalibrationError(f"{bad} (a declared game needs its type, won and sf)")
    return deal, seat


def read_run(path: Path) -> Run:
    """A record file's header and records; a damaged line (or a seat-game twice) is an
    error naming the line, and an unfinished last line is reported in ``tail``."""
    read = read_lines(path, CalibrationError, "the record file")
    lines = read.lines
    if not lines:
        raise CalibrationError(f"{path} holds no header line: not a skat calibration record file")
    try:
        header = _check_header(path, json.loads(lines[0]))
    except ValueError:
        raise CalibrationError(f"{path} is not a skat calibration record file (its first line "
                               "is not JSON)") from None
    run = Run(path, header, [], read.good_bytes, read.tail)
    seen: set[tuple[int, int]] = set()
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
        except ValueError:
            raise CalibrationError(f"{path}, line {number}: not JSON; the file was not "
                                   "changed") from None
        key = _check_record(path, number, record, header["deals"])
        if key in seen:
            raise CalibrationError(f"{path}, line {number}: deal {key[0]}, seat {key[1]} "
                                   "appears twice")
        seen.add(key)
        run.records.append(record)
    return run


def read_header(path: Path) -> dict[str, Any] | None:
    """The header of a record file, read from its first line alone (the rest may be
    damaged); None where the file is empty, and an error where its first line is not a
    record file's header or it cannot be read."""
    try:
        with path.open("rb") as f:
            first = f.readline()
    except OSError as exc:
        raise CalibrationError(f"cannot read {path}: {exc.strerror}") from None
    if not first.strip():
        return None
    try:
        return _check_header(path, json.loads(first))
    except ValueError:
        raise CalibrationError(f"{path} is not a skat calibration record file (its first line "
                               "is not JSON)") from None


def _first_line_is_ours(path: Path) -> None:
    """Refuse (leaving it alone) a file whose first line is not a record file's header (an
    empty one: nothing to lose)."""
    try:
        read_header(path)
    except CalibrationError as exc:
        raise CalibrationError(f"{exc}; refusing to overwrite it (choose another --out)") \
            from None


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    found = [f"{k}: file has {old.get(k)!r}, now {new[k]!r}"
             for k in HEADER_KEYS if old.get(k) != new[k]]
    return "; ".join(found + [f"{role} {old[role]!r} {meaning}" for role, meaning
                              in _meanings(old, new) if old.get(role) == new[role]])


def _meanings(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, what differs) for the agent and defence whose recorded settings differ
    between two headers; a header without settings (an older file) is taken at its specs'
    word."""
    if SETTINGS not in a or SETTINGS not in b:
        return []
    out = []
    for role in ("agent", "defence"):
        x, y = a[SETTINGS].get(role), b[SETTINGS].get(role)
        if x != y:
            if isinstance(x, dict) and isinstance(y, dict):
                what = ", ".join(f"{k} {u!r} / {v!r}" for k, u, v in differences(x, y))
            else:
                what = f"{x!r} / {y!r}"
            out.append((role, f"meant other settings ({what})"))
    return out


def same_bot(a: dict[str, Any], b: dict[str, Any], role: str) -> bool:
    """Whether two headers' ``role`` (agent or defence) is the same bot: the same recorded
    settings where both headers have them and one of them tells any, else the same spec."""
    if SETTINGS in a and SETTINGS in b and (a[SETTINGS].get(role) is not None
                                           or b[SETTINGS].get(role) is not None):
        return bool(a[SETTINGS].get(role) == b[SETTINGS].get(role))
    return bool(a[role] == b[role])


def open_records(path: Path, config: CalibrationConfig, resume: bool = False,
                 fresh: bool = False) -> tuple[TextIO, list[dict[str, Any]]]:
    """The record file of the run ``config`` open for appending, and the records already in
    it (only with ``resume``). A new file gets its header; an existing one is an error
    unless ``resume`` (the same run: continued) or ``fresh`` (a record file: overwritten)."""
    header = header_of(config)
    exists = opening_checks(path, resume, fresh, CalibrationError, "a record file")
    if not exists and resume:
        raise CalibrationError(f"--resume: {path} does not exist (leave --resume out to start "
                               "the run)")
    done: list[dict[str, Any]] = []
    good = 0
    if exists and resume:
        run = read_run(path)
        if any(run.header[k] != header[k] for k in HEADER_KEYS) or _meanings(run.header,
                                                                            header):
            raise CalibrationError(f"{path} holds another run "
                                   f"({_differences(run.header, header)}); --fresh "
                                   "overwrites it")
        done, good = run.records, run.good_bytes
    elif exists:
        _first_line_is_ours(path)  # --fresh overwrites record files only
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("r+" if exists else "w")
    except OSError as exc:
        raise CalibrationError(f"cannot write {path}: {exc.strerror}") from None
    try:
        lock_exclusive(handle.fileno(), path, CalibrationError)
    except CalibrationError:
        handle.close()
        raise
    if resume:
        handle.truncate(good)  # a line the killed run did not finish
        handle.seek(0, os.SEEK_END)
    else:
        handle.truncate(0)
        handle.write(json.dumps(header) + "\n")
        handle.flush()
    return handle, done


def _spread(runs: list[tuple[int, list[dict[str, Any]]]]) -> dict[str, Any] | None:
    """Per run (seed) observed minus predicted (or the observed rate where no chance was
    told), Cochran's Q across the runs that declared the type, its degrees of freedom and
    p-value; None with fewer than two such runs."""
    rows = [(seed, games) for seed, games in runs if games]
    if len(rows) < 2:
        return None
    everyone = [g for _, games in rows for g in games]
    rate = sum(g["won"] for g in everyone) / len(everyone)
    told = all(g.get("predicted") is not None for g in everyone)
    per_run: dict[str, float] = {}
    weights: list[float] = []
    values: list[float] = []
    for seed, games in rows:
        observed = sum(g["won"] for g in games) / len(games)
        value = observed - (sum(g["predicted"] for g in games) / len(games) if told else 0.0)
        per_run[str(seed)] = round(value, 4)
        values.append(value)
        weights.append(len(games) / max(rate * (1.0 - rate), 1e-12))
    centre = sum(w * v for w, v in zip(weights, values, strict=True)) / sum(weights)
    q = sum(w * (v - centre) ** 2 for w, v in zip(weights, values, strict=True))
    df = len(rows) - 1
    return {"measure": "observed - predicted" if told else "observed", "per_run": per_run,
            "q": round(q, 2), "df": df, "p": float(f"{chi2.sf(q, df):.3g}")}


def pool(runs: list[Run]) -> dict[str, Any]:
    """The figures of ``runs`` together (one agent and defence, each seed once): ``types``
    and ``all`` as :func:`~spielwerk.games.skat_ai.calibration.summarize` gives them over
    every game, ``runs`` (seed, deals, seat_games, complete per file) and ``spread`` (per
    type declared in two runs or more: :func:`_spread`)."""
    if not runs:
        raise CalibrationError("--summarize needs at least one record file")
    first = runs[0].header
    seeds: dict[int, Path] = {}
    for run in runs:
        for key in ("agent", "defence"):
            if not same_bot(run.header, first, key):
                differs = ("" if run.header[key] != first[key] else
                           " (the same spec, meaning other settings when each ran)")
                raise CalibrationError(
                    f"{run.path} is a run of {key} {run.header[key]!r}, {runs[0].path} of "
                    f"{first[key]!r}{differs}: pool runs of one agent and defence only")
        seed = run.header["seed"]
        if seed in seeds:
            raise CalibrationError(f"{run.path} and {seeds[seed]} are both seed {seed}: the "
                                   "same deals would count twice")
        seeds[seed] = run.path
    declared = [[r for r in run.records if r["declared"]] for run in runs]
    every = [r for games in declared for r in games]
    spread: dict[str, Any] = {}
    for kind in GAME_TYPES:
        found = _spread([(run.header["seed"], [r for r in games if r["type"] == kind])
                         for run, games in zip(runs, declared, strict=True)])
        if found is not None:
            spread[kind] = found
    names = {key: " = ".join(dict.fromkeys(run.header[key] for run in runs))
             for key in ("agent", "defence")}
    return {
        "agent": names["agent"], "defence": names["defence"],
        "deals": sum(run.header["deals"] for run in runs),
        "seeds": [run.header["seed"] for run in runs],
        "seat_games": sum(len(run.records) for run in runs),
        "complete": all(run.complete for run in runs),
        "runs": [{"path": str(run.path), "seed": run.header["seed"],
                  "deals": run.header["deals"], "seat_games": len(run.records),
                  "complete": run.complete} for run in runs],
        "types": {t: type_figures([r for r in every if r["type"] == t]) for t in GAME_TYPES},
        "all": type_figures(every),
        "spread": spread,
    }


def spread_lines(summary: dict[str, Any], min_games: int = 50) -> list[str]:
    """Per run, observed minus predicted of each type with ``min_games`` or more pooled games
    (``-`` where a run declared none), then Q with its degrees of freedom and p per type."""
    kinds = [k for k, s in summary["spread"].items()
             if summary["types"][k]["declared"] >= min_games]
    if not kinds:
        return []
    width = max(12, *(len(k) + 2 for k in kinds))
    lines = [f"observed - predicted per run (types with {min_games}+ games); Q: Cochran's, "
             "p: the runs differing this much by chance",
             f"{'seed':<10}" + "".join(f"{k:>{width}}" for k in kinds)]
    for run in summary["runs"]:
        cells = []
        for kind in kinds:
            value = summary["spread"][kind]["per_run"].get(str(run["seed"]))
            cells.append("-" if value is None else f"{value:+.3f}")
        lines.append(f"{run['seed']:<10}" + "".join(f"{c:>{width}}" for c in cells))
    tests = [summary["spread"][k] for k in kinds]
    lines.append(f"{'Q (df)':<10}" + "".join(f"{t['q']:>{width - 4}.1f} ({t['df']})"
                                             if t["df"] < 10 else f"{t['q']:>{width}.1f}"
                                             for t in tests))
    lines.append(f"{'p':<10}" + "".join(f"{t['p']:>{width}.2g}" for t in tests))
    return lines
