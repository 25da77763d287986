"""Good defaults for the Kalah solver: which endgame database and how big a table.

``choose(...)`` is used by ``kalah solve``, ``kalah analyze`` and the
``perfect`` agent alike. Without an explicit size it takes the largest cached
database of the game that fits in memory (a larger file serves a smaller
database as its prefix), and a transposition table from the memory still
free; it says what it chose, and when no database is cached for an instance
large enough to need one, how long building one would take.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from spielwerk.games.kalah import egdb as egdb_mod

BUILD_SECONDS_PER_ENTRY = 0.67e-6
"""Measured single-core build cost of an entry (6 pits, N = 20: 225.8 M entries in 152 s
CPU; see docs/kalah.md)."""
SUGGESTED_ENTRIES = 250_000_000
"""Largest database suggested when none is cached (6 pits: N = 20, 226 MB)."""
NEEDS_DATABASE_SEEDS = 30
"""Instances with more seeds in the pits than this get a note when no database is cached."""
TT_LOG2_CAP = 28
"""Largest default table: 2^28 slots, 4 GiB (per thread; Kalah(6,5) fills it many times
over, and an overflowing table costs nodes: docs/kalah.md)."""


@dataclass
class Choice:
    """The database size (0: none) and table size chosen, and lines that say why."""

    egdb_seeds: int
    egdb_file: Path | None
    tt_log2: int
    notes: list[str] = field(default_factory=list)


def available_memory_bytes() -> int:
    """Memory still available (``MemAvailable``), else the machine's memory, else 0."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return egdb_mod.machine_memory_bytes()


def suggested_seeds(pits: int, total: int) -> int:
    """The database size suggested for building: the largest up to ``SUGGESTED_ENTRIES``."""
    n = 0
    while n + 1 < total and egdb_mod.entries(n + 1, pits) <= SUGGESTED_ENTRIES \
            and n + 1 <= egdb_mod.MAX_SEEDS:
        n += 1
    return n


def _database(pits: int, total: int, empty_capture: bool, end_rule: int,
              path: str | os.PathLike[str] | None, memory: int) -> Choice:
    files = egdb_mod.cached(pits, empty_capture, end_rule, path)
    if not files:
        choice = Choice(0, None, 0)
        if total > NEEDS_DATABASE_SEEDS:
            n = suggested_seeds(pits, total)
            size = egdb_mod.entries(n, pits)
            minutes = size * BUILD_SECONDS_PER_ENTRY / 60
            rule = " --empty-capture" if empty_capture else ""
            choice.notes.append(
                f"no endgame database cached for {pits} pits: solving without one; building "
                f"one for <= {n} seeds ({size / 1e6:,.0f} MB) takes about {minutes:.0f} min "
                f"of one core (`spielwerk kalah egdb --pits {pits} --max-seeds {n}{rule}`) "
                f"and makes large solves many times faster (Kalah(6,4): 410 M nodes with "
                f"<= 15 seeds, 49 M with <= 20; docs/kalah.md)")
        return choice
    n, file = files[-1]
    fit = min(n, total, egdb_mod.MAX_SEEDS)
    while fit > 0 and egdb_mod.entries(fit, pits) > memory // 2:
        fit -= 1
    why = "the largest cached" if fit == n else f"a prefix of the cached <= {n} that fits"
    if fit == total and n >= total:
        why = "the instance's own seed count (the cached file is larger)"
    size = egdb_mod.entries(fit, pits)
    return Choice(fit, file, 0, [f"endgame database: <= {fit} seeds, {size / 1e6:,.0f} MB, "
                                 f"{why} ({file})"])


def choose(pits: int, total: int, empty_capture: bool, end_rule: int,
           path: str | os.PathLike[str] | None = None, egdb: int | None = None,
           tt_log2: int | None = None, tt_cap: int = TT_LOG2_CAP, threads: int = 1) -> Choice:
    """Database and table for an instance with ``total`` seeds; explicit sizes are kept.
    ``threads`` searches with a table each share the table budget: half the available
    memory less the database."""
    from spielwerk.games.kalah.solver import TT_LOG2_MIN, table_log2

    memory = available_memory_bytes() or (8 << 30)
    if egdb is None:
        choice = _database(pits, total, empty_capture, end_rule, path, memory)
    else:
        choice = Choice(egdb, None, 0)
    if tt_log2 is not None:
        choice.tt_log2 = tt_log2
        return choice
    db_bytes = egdb_mod.entries(choice.egdb_seeds, pits) if choice.egdb_seeds else 0
    budget = max(1 << 24, (memory - db_bytes) // (2 * max(1, threads)))
    by_seeds = 8 + total // 3  # filling a table costs time: small instances need little
    want = max(TT_LOG2_MIN, min(tt_cap, by_seeds, (budget // 16).bit_length() - 1))
    use, _note = table_log2(want, pits, total)
    choice.tt_log2 = use
    choice.notes.append(f"transposition table: 2^{use} slots ({(16 << use) / 2**20:,.0f} MiB)"
                        f"{f' per thread ({threads})' if threads > 1 else ''}"
                        f", from {memory / 2**30:.1f} GiB available memory"
                        f" and the instance's {total} seeds")
    return choice
