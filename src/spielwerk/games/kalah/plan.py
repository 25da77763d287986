"""One plan for a Kalah search: which endgame database and how big a table.

``kalah solve``, ``kalah analyze``, ``kalah split`` and the ``perfect`` agent
all build a :class:`KalahPlan`. It holds what was asked (a database size or
:data:`AUTO`, a table size or :data:`AUTO`, a database folder), is checked
once when built, and :meth:`KalahPlan.choose` turns it into a :class:`Choice`:
with :data:`AUTO` the largest cached database of the game that fits in memory
(a larger file serves a smaller database as its prefix) and a transposition
table from the memory still free, with lines that say what was chosen and,
when no database is cached for an instance large enough to need one, how long
building one would take. The cache folder is read once per choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from pathlib import Path

from spielwerk.games.kalah import defaults, egdb_index, kernel
from spielwerk.games.kalah import egdb as egdb_mod
from spielwerk.games.kalah.solver import TT_LOG2_MAX, TT_LOG2_MIN, SolverError, table_log2

AUTO = -1
"""The one "choose for me" value of the database and table sizes (CLI and agent alike)."""

TT_LOG2_SHARED_CAP = defaults.TT_LOG2_CAP
"""Largest table chosen for a search that runs beside many others (an agent in an arena, a
worker of ``kalah split``): no more than a solve's, 2^22 slots, 64 MiB. It was 2^24, above
the solve's cap once that came down to 2^22; Kalah(6,4) with the default database (<= 27),
one thread: 0.51-0.52 s of search with 2^22 against 0.56 s with 2^24 (empty capture
0.39 against 0.41 s), the same nodes within 10."""

EGDB_HELP = ("endgame database: exact values for <= N seeds (-1: the largest cached one "
             "that fits in memory; 0: none; built once, cached on disk)")
TT_HELP = (f"transposition table: log2 of the slots, 16 bytes each, {TT_LOG2_MIN}..{TT_LOG2_MAX} "
           f"(-1: from the memory available and the instance's size)")


class PlanError(SolverError, ValueError):
    """A database or table size that no search can use."""


@dataclass
class Choice:
    """The database size (0: none) and table size chosen, and lines that say why."""

    egdb_seeds: int
    tt_log2: int
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class KalahPlan:
    """What a Kalah search was asked to use; checked once, here.

    ``total``: seeds in play, i.e. in the pits (the largest position searched; seeds in a
    store never come back into play, so they size neither the table nor the database).
    ``egdb`` and ``tt``: sizes, or :data:`AUTO`. ``threads``: searches with a table each,
    sharing the table budget. ``tt_cap``: the largest table :data:`AUTO` chooses.
    ``seconds``: the search's time limit (0: none); :data:`AUTO` then chooses no more slots
    than the nodes searched in that time on a loaded machine
    (:data:`~spielwerk.games.kalah.defaults.NODES_PER_SECOND`): more are never filled, and
    clearing them would eat the time (1 GiB took 5-8 s of a 20 s limit on a loaded machine).
    """

    pits: int
    total: int
    empty_capture: bool = False
    end_rule: int = kernel.END_EITHER_EMPTY
    egdb: int = AUTO
    tt: int = AUTO
    egdb_dir: str | None = None
    threads: int = 1
    tt_cap: int = defaults.TT_LOG2_CAP
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if not 1 <= self.pits <= 15:
            raise PlanError(f"Kalah has 1..15 pits per side, not {self.pits}")
        if self.total < 0:
            raise PlanError(f"a position has no negative seed count ({self.total})")
        if comb(self.total + 2 * self.pits, 2 * self.pits) >= 2**62:  # as egdb_index.binomials
            # said before any table or database is chosen (and announced)
            raise PlanError(f"Kalah with {self.pits} pits and {self.total} seeds in play is too "
                            f"large to index in 64 bits")
        if self.egdb != AUTO and not 0 <= self.egdb <= egdb_mod.MAX_SEEDS:
            raise PlanError(f"egdb (the endgame database size) must be {AUTO} (auto) or "
                            f"0..{egdb_mod.MAX_SEEDS} seeds, not {self.egdb}")
        if self.tt != AUTO and not TT_LOG2_MIN <= self.tt <= TT_LOG2_MAX:
            raise PlanError(f"tt (log2 of the table slots) must be {AUTO} (auto) or "
                            f"{TT_LOG2_MIN}..{TT_LOG2_MAX}, not {self.tt}")
        if self.threads < 1:
            raise PlanError(f"threads must be at least 1, not {self.threads}")
        if not self.seconds >= 0:
            raise PlanError(f"the time limit must be 0 (none) or more seconds, not "
                            f"{self.seconds}")

    @property
    def egdb_asked(self) -> int | None:
        """The database size asked, at most the instance's seeds (None: auto)."""
        return None if self.egdb == AUTO else min(self.egdb, self.total)

    def cached(self) -> list[tuple[int, Path]]:
        """(seeds, file) of this game's databases in the folder, smallest first."""
        return list(egdb_mod.cached(self.pits, self.empty_capture, self.end_rule,
                                    self.egdb_dir))

    def choose(self) -> Choice:
        """Database and table; sizes asked are kept. The folder given is checked first: a
        file or a missing folder is refused (it would mean solving without a database,
        quietly), and so is one that cannot take a database that will be built."""
        asked = self.egdb_asked
        files = self.cached() if asked != 0 else []
        if self.egdb_dir is not None and asked != 0:
            builds = asked is not None and not any(n >= asked for n, _ in files)
            egdb_mod.check_folder(self.egdb_dir, write=builds, name="--egdb-dir")
        memory = defaults.available_memory_bytes() or (8 << 30)
        choice = (self._database(files, memory) if asked is None else Choice(asked, 0))
        if self.tt != AUTO:
            choice.tt_log2 = self.tt
            return choice
        db_bytes = egdb_index.entries(choice.egdb_seeds, self.pits) if choice.egdb_seeds else 0
        # all the tables together: a share of what is free, and never more than a fixed cap
        share = min((memory - db_bytes) // defaults.TT_MEMORY_SHARE, defaults.TT_BYTES_CAP)
        budget = max(1 << 24, share // self.threads)
        by_seeds = 8 + self.total // 3  # filling a table costs time: small instances need little
        by_time = 64
        if self.seconds > 0:  # at most the nodes searched in the time (on a loaded machine)
            by_time = int(self.seconds * defaults.NODES_PER_SECOND[0]).bit_length() - 1
        want = max(TT_LOG2_MIN, min(self.tt_cap, by_seeds, by_time,
                                    (budget // 16).bit_length() - 1))
        use, _note = table_log2(want, self.pits, self.total)
        choice.tt_log2 = use
        per = f" per thread ({self.threads})" if self.threads > 1 else ""
        limit = f" and the time limit of {self.seconds:g} s" if self.seconds > 0 else ""
        cap = defaults.TT_BYTES_CAP / 2**30
        choice.notes.append(f"transposition table: 2^{use} slots ({(16 << use) / 2**20:,.0f} "
                            f"MiB){per}, from a quarter of the {memory / 2**30:.1f} GiB "
                            f"available memory (at most {cap:g} GiB in all), the {self.total} "
                            f"seeds in play{limit}")
        return choice

    def _database(self, files: list[tuple[int, Path]], memory: int) -> Choice:
        """The largest cached database that fits in half the memory and holds at most half
        the seeds in play and :data:`defaults.DB_SEEDS_OVER_HALF` more (a prefix of a larger
        file), or none with a note of what building one costs."""
        pits, total = self.pits, self.total
        if not files:
            choice = Choice(0, 0)
            if total > defaults.NEEDS_DATABASE_SEEDS:
                n = defaults.suggested_seeds(pits, total)
                size = egdb_index.entries(n, pits)
                minutes = size * defaults.BUILD_SECONDS_PER_ENTRY / 60
                rule = " --empty-capture" if self.empty_capture else ""
                choice.notes.append(
                    f"no endgame database cached for {pits} pits: solving without one; "
                    f"building one for <= {n} seeds ({size / 1e6:,.0f} MB) takes about "
                    f"{minutes:.0f} min of one core (`spielwerk kalah egdb --pits {pits} "
                    f"--max-seeds {n}{rule}`) and makes large solves many times faster "
                    f"(Kalah(6,4): 410 M nodes with <= 15 seeds, 49 M with <= 20; "
                    f"docs/kalah.md)")
            return choice
        n, file = files[-1]
        useful = total // 2 + defaults.DB_SEEDS_OVER_HALF
        fit = min(n, total, egdb_mod.MAX_SEEDS, useful)
        while fit > 0 and egdb_index.entries(fit, pits) > memory // 2:
            fit -= 1
        why = "the largest cached" if fit == n else f"a prefix of the cached <= {n} that fits"
        if fit == total and n >= total:
            why = "the instance's own seed count (the cached file is larger)"
        elif fit == useful < n:
            why = (f"a prefix of the cached <= {n}: half the {total} seeds in play and "
                   f"{defaults.DB_SEEDS_OVER_HALF} more (a larger one costs more to load "
                   f"than it saves)")
        size = egdb_index.entries(fit, pits)
        return Choice(fit, 0, [f"endgame database: <= {fit} seeds, {size / 1e6:,.0f} MB, "
                               f"{why} ({file})"])
