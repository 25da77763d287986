"""What Kalah solves cost: measured figures, estimates and the warning said up front.

The choice of database and table itself is :mod:`spielwerk.games.kalah.plan`.
"""

from __future__ import annotations

from spielwerk.games.kalah import egdb as egdb_mod
from spielwerk.games.kalah import egdb_index

BUILD_SECONDS_PER_ENTRY = 0.67e-6
"""Measured single-core build cost of an entry (6 pits, N = 20: 225.8 M entries in 152 s
CPU; see docs/kalah.md)."""
SUGGESTED_ENTRIES = 250_000_000
"""Largest database suggested when none is cached (6 pits: N = 20, 226 MB)."""
NEEDS_DATABASE_SEEDS = 30
"""Instances with more seeds in the pits than this get a note when no database is cached."""
TT_LOG2_CAP = 22
"""Largest default table: 2^22 slots, 64 MiB per thread. Larger tables cost more time per
probe (cache and TLB misses) than they save in nodes: with the search kernel free of
reference counting, Kalah(6,5) with the database <= 30 seeds and two threads took 51-52 s
of search with 2^21-2^23 slots each, 55-56 s with 2^24 and 67 s with 2^25; empty capture
(<= 27) 38-39 s with 2^22 against 46-48 s with 2^24 (docs/kalah.md)."""
DB_SEEDS_OVER_HALF = 3
"""A cached database serves a solve as a prefix of at most half the seeds in play and this
many more: a larger one costs more to load and check than it saves in search. Measured
(`kalah solve`, wall, the files cached, two threads): Kalah(6,3) 0.86-0.88 s with <= 16 to
<= 20 seeds against 5.4-8.9 s with the <= 27 and <= 30 files; Kalah(6,4) 1.94 s with
<= 27, 2.18 s with <= 24, 4.43 s with <= 22 against 3.2-4.8 s with <= 30; Kalah(6,5)
needs <= 30 (docs/kalah.md)."""
TT_MEMORY_SHARE = 4
"""The default tables of one search (one per thread) take at most 1/4 of the available
memory (less the database): the machines are shared, and the rest is other people's."""
TT_BYTES_CAP = 4 << 30
"""... and at most 4 GiB in all, however much is free (``--tt`` chooses more)."""
REFUSE_SECONDS = 86400.0
"""A solve estimated to take longer than a day even at the fast end of the estimate (every
thread at the idle machine's rate) is refused unless asked for (``kalah solve --force``):
it would not finish, and Ctrl-C would then throw away what it proved."""


MEASURED_NODES: dict[tuple[int, int, bool], tuple[tuple[int, float], ...]] = {
    (6, 4, False): ((15, 410e6), (19, 70.1e6), (20, 49.0e6), (24, 9.25e6), (27, 1.15e6)),
    (6, 4, True): ((19, 56.6e6), (20, 40.7e6), (27, 0.91e6)),
    (5, 5, False): ((22, 26.9e6),),
    (5, 5, True): ((22, 12.3e6),),
    (6, 5, False): ((27, 563e6), (30, 149e6)),
    (6, 5, True): ((27, 169e6),),
}
"""(pits, seeds, empty capture) -> (database seeds, nodes of ``kalah solve``) measured here
(docs/kalah.md: measurements and the results table). Those of (6,5) are with the current
default tables (2^22 slots); the others with the larger tables of their time, which took
more nodes on (6,4) (<= 24 seeds: 9.25 M then, 4.25 M now): the estimates, and the
databases they suggest, err on the safe side there."""
SEEDS_PER_DOUBLING = 1.6
"""Each 1.6 database seeds fewer about doubles the nodes (Kalah(6,4), tables of 2^24
slots: 410 M nodes with <= 15 seeds, 70 M with <= 19, 9.25 M with <= 24)."""
NODES_PER_SECOND = (1.0e6, 3.0e6)
"""Nodes per second and thread of the exact search measured on the 2-core machine (under
load, and idle)."""
FAST_SECONDS = 10.0
"""A solve estimated to take longer than this (slow end) gets a warning up front."""
FAST_NODES = 10e6
"""The database suggested in such a warning brings the estimate below this many nodes."""


def estimated_nodes(pits: int, seeds: int, empty_capture: bool, db_seeds: int) -> float | None:
    """Nodes of ``kalah solve`` for the start with a database of ``db_seeds`` seeds,
    extrapolated from the nearest measured database size; None without a measurement."""
    anchors = MEASURED_NODES.get((pits, seeds, empty_capture))
    if not anchors:
        return None
    n0, nodes0 = min(anchors, key=lambda a: abs(a[0] - db_seeds))
    return float(nodes0 * 2.0 ** ((n0 - db_seeds) / SEEDS_PER_DOUBLING))


def _count(nodes: float) -> str:
    return f"{nodes / 1e9:,.0f} G" if nodes >= 1e10 else f"{nodes / 1e6:,.0f} M"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:,.0f} days"


def estimated_seconds(pits: int, seeds: int, empty_capture: bool, db_seeds: int,
                      threads: int = 1) -> tuple[float, float, float] | None:
    """(nodes, fast, slow seconds) of solving the start on ``threads`` threads (at the
    idle and the loaded machine's rate); None without a measurement of the instance."""
    nodes = estimated_nodes(pits, seeds, empty_capture, db_seeds)
    if nodes is None:
        return None
    t = max(1, threads)
    return nodes, nodes / (NODES_PER_SECOND[1] * t), nodes / (NODES_PER_SECOND[0] * t)


def _have(db_seeds: int) -> str:
    return f"the endgame database <= {db_seeds} seeds" if db_seeds else "no endgame database"


def refusal(pits: int, seeds: int, empty_capture: bool, db_seeds: int, threads: int = 1,
            memory: int | None = None) -> str | None:
    """One line refusing to solve the start of Kalah(pits, seeds) when even the fast end of
    its estimate is over :data:`REFUSE_SECONDS`, with the estimate and what to do instead;
    None when it may start. Reads no database and allocates nothing."""
    est = estimated_seconds(pits, seeds, empty_capture, db_seeds, threads)
    if est is None or est[1] <= REFUSE_SECONDS:
        return None
    nodes, fast, slow = est
    rule = " --empty-capture" if empty_capture else ""
    build = _database_advice(pits, seeds, empty_capture, db_seeds, threads, memory)
    instead = f"{build}; " if build else ""
    return (f"not started: Kalah({pits},{seeds}) with {_have(db_seeds)} is estimated at "
            f"{_count(nodes)} nodes, about {_duration(fast)} to {_duration(slow)} on "
            f"{max(1, threads)} thread(s), over a day even at the fast end. {instead}"
            f"`spielwerk kalah analyze start --pits {pits} --seeds {seeds}{rule} --time 10` "
            f"gives estimates in 10 s; --force solves it anyway")


def _database_advice(pits: int, seeds: int, empty_capture: bool, db_seeds: int, threads: int,
                     memory: int | None) -> str | None:
    """"Build the database once (...): `command`; then about ..." for the database that makes
    the solve fast and fits in memory; None when no larger one fits."""
    total = 2 * pits * seeds
    rule = " --empty-capture" if empty_capture else ""
    memory = memory or available_memory_bytes() or (8 << 30)
    n = db_seeds
    while n < min(total, egdb_mod.MAX_SEEDS) and egdb_index.entries(n + 1, pits) <= memory // 2:
        n += 1
        est = estimated_nodes(pits, seeds, empty_capture, n)
        if est is not None and est <= FAST_NODES:
            break
        if est is None and egdb_index.entries(n, pits) >= SUGGESTED_ENTRIES:
            break
    if n <= db_seeds:
        return None
    size = egdb_index.entries(n, pits)
    build = size * BUILD_SECONDS_PER_ENTRY
    after = estimated_nodes(pits, seeds, empty_capture, n)
    then = ""
    if after is not None:
        then = (f"; then about {_count(after)} nodes, "
                f"{_duration(after / (NODES_PER_SECOND[1] * max(1, threads)))} to "
                f"{_duration(after / (NODES_PER_SECOND[0] * max(1, threads)))}")
    return (f"Build the database once (<= {n} seeds, {size / 1e9:,.2f} GB, about "
            f"{_duration(build)} of one core): `spielwerk kalah egdb --pits {pits} "
            f"--max-seeds {n}{rule}`{then}")


def cost_warning(pits: int, seeds: int, empty_capture: bool, db_seeds: int,
                 threads: int = 1, memory: int | None = None) -> str | None:
    """What solving the start of Kalah(pits, seeds) with a database of ``db_seeds`` seeds
    will cost, and the command that makes it fast, when it is estimated to take longer
    than :data:`FAST_SECONDS`; None when it is fast (or small enough to need no database)."""
    total = 2 * pits * seeds
    est = estimated_seconds(pits, seeds, empty_capture, db_seeds, threads)
    rule = " --empty-capture" if empty_capture else ""
    have = _have(db_seeds)
    if est is None:
        if db_seeds or total <= 40:
            return None
        cost = ("no measurement for this instance; without a database a start of more than "
                "40 seeds can take hours")
    else:
        nodes, fast, slow = est
        if slow <= FAST_SECONDS:
            return None
        cost = (f"estimated {_count(nodes)} nodes (extrapolated from measured solves), "
                f"about {_duration(fast)} to {_duration(slow)} on {max(1, threads)} thread(s)")
    build = _database_advice(pits, seeds, empty_capture, db_seeds, threads, memory)
    if build is None:
        return (f"warning: Kalah({pits},{seeds}) with {have}: {cost}; no larger database fits "
                f"in memory here. Ctrl-C stops with the bounds proven so far.")
    return (f"warning: Kalah({pits},{seeds}) with {have}: {cost}. {build}. Estimates "
            f"within 10 s now: `spielwerk kalah analyze start --pits {pits} --seeds {seeds}"
            f"{rule} --time 10`. Ctrl-C stops with the bounds proven so far.")


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
    while n + 1 < total and egdb_index.entries(n + 1, pits) <= SUGGESTED_ENTRIES \
            and n + 1 <= egdb_mod.MAX_SEEDS:
        n += 1
    return n
