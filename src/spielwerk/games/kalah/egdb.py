"""Kalah endgame databases: the exact value of every position with at most N seeds in the pits.

A position is seen from the player to move ("relative"): the mover's ``m``
pits, then the opponent's ``m`` pits (stores do not matter: captured seeds
never come back). Its value is the *future store gain* of the mover minus
that of the opponent under perfect play, an integer in ``[-s, s]`` with the
parity of ``s`` (the seeds ``s`` still in the pits).

Index: the pits as a composition ``a_0 .. a_{2m-1}`` with prefix sums
``S_j``; ``T_j = S_j + j`` is strictly increasing and the colex rank
``sum_j C(T_j, j + 1)`` (combinatorial number system) is a bijection onto
0, 1, 2, ... that orders positions by seed count: every position with at
most ``N`` seeds has a rank below ``C(N + 2m, 2m)``. The same rank is the
solver's transposition-table key, so one computation serves both.

The database is built bottom-up by seed count. Within one seed count a move
that neither reaches the store nor captures shifts the mover's seeds towards
the store, so a potential (each seed's distance to its owner's store) falls
strictly: a short explicit stack fills those first.

On disk: a 64-byte header (magic, format version, pits, N, capture rule, end
rule, entry count, CRC-32 of the payload) followed by one int8 per entry.
A file whose header or checksum does not match is never trusted: it is
rebuilt. The default folder is ``~/.cache/spielwerk/kalah``; override it
with the ``path`` parameter or the ``SPIELWERK_CACHE_DIR`` variable.
"""

from __future__ import annotations

import os
import struct
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.kalah import kernel

FORMAT_VERSION = 1
MAGIC = b"SPWKEGDB"
HEADER = struct.Struct("<8sIIIIIQI")  # magic, version, pits, N, empty_capture, end_rule, n, crc
HEADER_SIZE = 64
UNKNOWN = -128
MAX_SEEDS = 40
"""Largest database seed count accepted anywhere (CLI, agents, solver)."""


def machine_memory_bytes() -> int:
    """Physical memory of this machine (0 if it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


def check_size(pits: int, max_seeds: int) -> int:
    """Entries of the database asked for; :class:`EgdbError` if it is over
    :data:`MAX_SEEDS` or would not fit in half the machine's memory."""
    if not 0 <= max_seeds <= MAX_SEEDS:
        raise EgdbError(f"the endgame database size must be in 0..{MAX_SEEDS} seeds, "
                        f"not {max_seeds}")
    n = entries(max_seeds, pits)
    memory = machine_memory_bytes()
    if memory and n > memory // 2:
        fit = max_seeds
        while fit > 0 and entries(fit, pits) > memory // 2:
            fit -= 1
        raise EgdbError(
            f"an endgame database for {pits} pits and {max_seeds} seeds needs "
            f"{n / 1e9:,.1f} GB, more than half of this machine's {memory / 1e9:.0f} GB; "
            f"at most {fit} seeds fit"
        )
    return n


class EgdbError(SpielwerkError):
    """An endgame database that cannot be built, read or used as asked."""


def binomials(max_seeds: int, pits: int) -> np.ndarray:
    """Table ``C[x, y]`` (int64) for ``x <= max_seeds + 2*pits``, ``y <= 2*pits``."""
    k = 2 * pits
    if comb(max_seeds + k, k) >= 2**62:
        raise EgdbError(
            f"Kalah with {pits} pits and {max_seeds} seeds is too large to index in 64 bits"
        )
    table = np.zeros((max_seeds + k + 1, k + 1), dtype=np.int64)
    for x in range(max_seeds + k + 1):
        for y in range(min(x, k) + 1):
            table[x, y] = comb(x, y)
    return table


def entries(max_seeds: int, pits: int) -> int:
    """Number of positions with at most ``max_seeds`` seeds in ``2 * pits`` pits."""
    return comb(max_seeds + 2 * pits, 2 * pits)


@njit(cache=True)
def rank(board: np.ndarray, m: int, binom: np.ndarray) -> int:
    """Colex rank of the pits (mover's ``board[0:m]``, opponent's ``board[m+1:2m+1]``)."""
    r = 0
    s = 0
    j = 0
    for i in range(m):
        s += board[i]
        r += binom[s + j, j + 1]
        j += 1
    for i in range(m + 1, 2 * m + 1):
        s += board[i]
        r += binom[s + j, j + 1]
        j += 1
    return r


@njit(cache=True)
def unrank(r: int, m: int, binom: np.ndarray, board: np.ndarray) -> None:
    """Inverse of :func:`rank`: write the pits of rank ``r`` into ``board`` (stores set to 0)."""
    k = 2 * m
    prev_t = binom.shape[0]
    ts = np.empty(k, np.int64)
    for j in range(k - 1, -1, -1):
        t = prev_t - 1
        while binom[t, j + 1] > r:
            t -= 1
        ts[j] = t
        r -= binom[t, j + 1]
        prev_t = t
    prev_s = 0
    for j in range(k):
        s = ts[j] - j
        cell = j if j < m else j + 1
        board[cell] = s - prev_s
        prev_s = s
    board[m] = 0
    board[2 * m + 1] = 0


@njit(cache=True)
def swap_sides(board: np.ndarray, m: int) -> None:
    """Exchange the two halves (pits and store) so the other player becomes player 0."""
    for i in range(m + 1):
        t = board[i]
        board[i] = board[m + 1 + i]
        board[m + 1 + i] = t


@njit(cache=True)
def is_over(board: np.ndarray, m: int, end_rule: int) -> bool:
    """Whether the game is already over with player 0 to move."""
    own = kernel.side_seeds(board, 0, m)
    if end_rule == kernel.END_EITHER_EMPTY:
        return own == 0 or kernel.side_seeds(board, 1, m) == 0
    return own == 0


@njit(cache=True)
def over_value(board: np.ndarray, m: int) -> int:
    """Future gain of player 0 in a finished position: each side keeps its own seeds."""
    return kernel.side_seeds(board, 0, m) - kernel.side_seeds(board, 1, m)


@njit(cache=True)
def _solve(
    scratch: np.ndarray,
    frames: np.ndarray,
    s0: int,
    db: np.ndarray,
    binom: np.ndarray,
    m: int,
    empty_capture: bool,
    end_rule: int,
) -> int:
    """Value of ``scratch[0]`` (non-terminal, ``s0`` seeds, player 0 to move), memoised in db.

    Explicit stack (numba cannot cache recursive functions reliably). Only moves
    that keep all seeds in the pits lead to unknown entries; they strictly lower
    the potential (each seed's distance to its owner's store), so the stack
    depth is at most ``s0 * m + 1``. ``frames[level]``: next pit, best value,
    seeds, gain and next mover of the move being searched.
    """
    level = 0
    frames[0, 0] = 0
    frames[0, 1] = -1000
    frames[0, 2] = s0
    while True:
        board = scratch[level]
        child = scratch[level + 1]
        i = frames[level, 0]
        descended = False
        while i < m:
            if board[i] == 0:
                i += 1
                continue
            child[:] = board
            nxt = kernel.sow(child, 0, i, m, empty_capture, end_rule)
            g = child[m] - child[2 * m + 1]
            if nxt < 0:
                v = g
            else:
                cs = frames[level, 2] - child[m]
                child[m] = 0
                if nxt == 1:
                    swap_sides(child, m)
                known = db[rank(child, m, binom)]
                if known == UNKNOWN:
                    frames[level, 0] = i + 1
                    frames[level, 3] = g
                    frames[level, 4] = nxt
                    level += 1
                    frames[level, 0] = 0
                    frames[level, 1] = -1000
                    frames[level, 2] = cs
                    descended = True
                    break
                v = g + known if nxt == 0 else g - known
            if v > frames[level, 1]:
                frames[level, 1] = v
            i += 1
        if descended:
            continue
        val = frames[level, 1]
        db[rank(board, m, binom)] = val
        if level == 0:
            return val
        level -= 1
        g = frames[level, 3]
        v = g + val if frames[level, 4] == 0 else g - val
        if v > frames[level, 1]:
            frames[level, 1] = v


@njit(cache=True)
def _build_level(
    db: np.ndarray, s: int, binom: np.ndarray, m: int, empty_capture: bool, end_rule: int
) -> int:
    """Fill every entry with exactly ``s`` seeds; returns how many were filled."""
    k = 2 * m
    cells = 2 * m + 2
    scratch = np.zeros((s * m + 4, cells), np.int32)
    frames = np.zeros((s * m + 4, 5), np.int64)
    comp = np.zeros(k, np.int64)
    comp[0] = s
    count = 0
    while True:
        board = scratch[0]
        for j in range(k):
            board[j if j < m else j + 1] = comp[j]
        board[m] = 0
        board[2 * m + 1] = 0
        idx = rank(board, m, binom)
        if db[idx] == UNKNOWN:
            if is_over(board, m, end_rule):
                db[idx] = over_value(board, m)
            else:
                _solve(scratch, frames, s, db, binom, m, empty_capture, end_rule)
        count += 1
        # next composition of s into k parts
        i = k - 2
        while i >= 0 and comp[i] == 0:
            i -= 1
        if i < 0:
            break
        comp[i] -= 1
        t = comp[k - 1] + 1
        comp[k - 1] = 0
        comp[i + 1] = t
    return count


def build(
    pits: int,
    max_seeds: int,
    empty_capture: bool,
    end_rule: int = kernel.END_EITHER_EMPTY,
    progress: Callable[[int, int, float], None] | None = None,
) -> np.ndarray:
    """Compute the database in memory (int8, one entry per rank below ``C(N+2m, 2m)``)."""
    if pits < 1 or max_seeds < 0:
        raise EgdbError("egdb: pits must be >= 1 and the seed limit >= 0")
    if max_seeds > 120:
        raise EgdbError("egdb: at most 120 seeds (values are stored in one signed byte)")
    binom = binomials(max_seeds, pits)
    n = entries(max_seeds, pits)
    db = np.full(n, UNKNOWN, dtype=np.int8)
    db[0] = 0  # the empty board
    start = time.perf_counter()
    for s in range(1, max_seeds + 1):
        _build_level(db, s, binom, pits, empty_capture, end_rule)
        if progress is not None:
            progress(s, max_seeds, time.perf_counter() - start)
    return db


def cache_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The folder for database files: ``path``, else ``$SPIELWERK_CACHE_DIR/kalah``, else
    ``~/.cache/spielwerk/kalah``."""
    if path is not None:
        return Path(path)
    env = os.environ.get("SPIELWERK_CACHE_DIR")
    if env:
        return Path(env) / "kalah"
    return Path.home() / ".cache" / "spielwerk" / "kalah"


def file_name(pits: int, max_seeds: int, empty_capture: bool, end_rule: int) -> str:
    cap = "empty" if empty_capture else "std"
    end = "either" if end_rule == kernel.END_EITHER_EMPTY else "mover"
    return f"egdb-m{pits}-n{max_seeds}-{cap}-{end}-v{FORMAT_VERSION}.bin"


def _header(pits: int, max_seeds: int, empty_capture: bool, end_rule: int, n: int,
            crc: int) -> bytes:
    raw = HEADER.pack(MAGIC, FORMAT_VERSION, pits, max_seeds, int(empty_capture), end_rule, n, crc)
    return raw.ljust(HEADER_SIZE, b"\0")


def save(db: np.ndarray, file: Path, pits: int, max_seeds: int, empty_capture: bool,
         end_rule: int) -> None:
    """Write atomically (temporary file, then rename) with header and CRC-32."""
    file.parent.mkdir(parents=True, exist_ok=True)
    payload = np.ascontiguousarray(db, dtype=np.int8)
    crc = zlib.crc32(payload.data)
    tmp = file.with_suffix(f".tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(_header(pits, max_seeds, empty_capture, end_rule, payload.size, crc))
            payload.tofile(fh)
        os.replace(tmp, file)
    except BaseException:
        tmp.unlink(missing_ok=True)  # never leave a half-written file in the cache folder
        raise


def load(file: Path, pits: int, max_seeds: int, empty_capture: bool, end_rule: int) -> np.ndarray:
    """Read and verify a database file; raises :class:`EgdbError` on any mismatch."""
    try:
        with open(file, "rb") as fh:
            head = fh.read(HEADER_SIZE)
            if len(head) != HEADER_SIZE:
                raise EgdbError(f"{file}: truncated header")
            magic, version, p, n_seeds, ec, er, n, crc = HEADER.unpack(head[: HEADER.size])
            expected = (MAGIC, FORMAT_VERSION, pits, max_seeds, int(empty_capture), end_rule,
                        entries(max_seeds, pits))
            if (magic, version, p, n_seeds, ec, er, n) != expected:
                raise EgdbError(f"{file}: header does not match (wrong version or parameters)")
            db = np.fromfile(fh, dtype=np.int8)
    except OSError as exc:
        raise EgdbError(f"{file}: cannot read: {exc}") from None
    if db.size != n:
        raise EgdbError(f"{file}: {db.size} entries, expected {n}")
    if zlib.crc32(db.data) != crc:
        raise EgdbError(f"{file}: checksum mismatch")
    return db


@dataclass
class Egdb:
    """A loaded database: ``values[rank(position)]`` for positions with <= ``max_seeds`` seeds."""

    pits: int
    max_seeds: int
    empty_capture: bool
    end_rule: int
    values: np.ndarray
    file: Path | None
    build_seconds: float | None  # None when loaded from disk
    load_seconds: float

    @property
    def size_bytes(self) -> int:
        return int(self.values.nbytes)


def empty(pits: int) -> np.ndarray:
    """The trivial database (only the empty board), used when no database is wanted."""
    return np.zeros(1, dtype=np.int8)


def open_egdb(
    pits: int,
    max_seeds: int,
    empty_capture: bool,
    end_rule: int = kernel.END_EITHER_EMPTY,
    path: str | os.PathLike[str] | None = None,
    save_to_disk: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Egdb:
    """Load the database from the cache folder, or build (and save) it if missing or bad."""
    check_size(pits, max_seeds)
    folder = cache_dir(path)
    file = folder / file_name(pits, max_seeds, empty_capture, end_rule)
    start = time.perf_counter()
    if file.exists():
        try:
            db = load(file, pits, max_seeds, empty_capture, end_rule)
            return Egdb(pits, max_seeds, empty_capture, end_rule, db, file, None,
                        time.perf_counter() - start)
        except EgdbError as exc:
            if progress is not None:
                progress(f"endgame database not trusted ({exc}); rebuilding")

    if progress is not None:
        progress(f"endgame database for {pits} pits, <= {max_seeds} seeds: building "
                 f"{entries(max_seeds, pits):,} entries, {entries(max_seeds, pits) / 1e6:,.1f} MB "
                 f"(saved in {folder})")
    last = [0.0]

    def report(s: int, n: int, elapsed: float) -> None:
        # the level's own time and the total: the first level also pays the kernels'
        # one-time compilation, which would otherwise make every line show the same total
        step, last[0] = elapsed - last[0], elapsed
        if progress is not None:
            note = " (includes compiling the kernels, once)" if s == 1 and step > 2 else ""
            progress(f"endgame database: {s}/{n} seeds done, this level {step:.1f} s{note}, "
                     f"total {elapsed:.1f} s")

    db = build(pits, max_seeds, empty_capture, end_rule, report)
    built = time.perf_counter() - start
    if save_to_disk:
        try:
            save(db, file, pits, max_seeds, empty_capture, end_rule)
        except OSError as exc:
            if progress is not None:
                progress(f"endgame database not saved ({exc})")
            file = None  # type: ignore[assignment]
    return Egdb(pits, max_seeds, empty_capture, end_rule, db, file if save_to_disk else None,
                built, 0.0)
