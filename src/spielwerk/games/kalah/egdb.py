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

import mmap
import os
import struct
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from spielwerk.games.kalah import egdb_build, kernel
from spielwerk.games.kalah.egdb_index import (
    EgdbError,
    entries,
)

FORMAT_VERSION = 2
MAGIC = b"SPWKEGDB"
HEADER = struct.Struct("<8sIIIIIQI")  # magic, version, pits, N, empty_capture, end_rule, n, crc
HEADER_SIZE = 64
BLOCK = 1 << 24
"""Bytes per checksummed block of the payload."""
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


def build(
    pits: int,
    max_seeds: int,
    empty_capture: bool,
    end_rule: int = kernel.END_EITHER_EMPTY,
    progress: Callable[[int, int, float], None] | None = None,
    start: np.ndarray | None = None,
    threads: int = 1,
) -> np.ndarray:
    """Compute the database in memory (see :func:`spielwerk.games.kalah.egdb_build.build`)."""
    return egdb_build.build(pits, max_seeds, empty_capture, end_rule, progress, start, threads)


def cache_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The folder for database files: ``path``, else ``$SPIELWERK_CACHE_DIR/kalah``, else
    ``~/.cache/spielwerk/kalah``."""
    if path is not None:
        return Path(path)
    env = os.environ.get("SPIELWERK_CACHE_DIR")
    if env:
        return Path(env) / "kalah"
    return Path.home() / ".cache" / "spielwerk" / "kalah"


def check_folder(path: str | os.PathLike[str] | None, write: bool,
                 name: str = "the endgame database folder") -> Path:
    """The database folder (:func:`cache_dir`), checked before any work.

    It must not be a file. With ``write`` (a database may be built and saved) it is
    created if missing and must take a new file; without, a folder given by the user
    must exist (a mistyped folder would otherwise mean silently solving without a
    database). Raises :class:`EgdbError` with one line that says what to do."""
    folder = cache_dir(path)
    if folder.exists() and not folder.is_dir():
        raise EgdbError(f"{name} {folder} is a file, not a folder; give a folder "
                        f"(default: {cache_dir(None)})")
    if not write:
        if path is not None and not folder.exists():
            raise EgdbError(f"{name} {folder} does not exist (build a database into it "
                            f"with `spielwerk kalah egdb --egdb-dir {folder}`)")
        return folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".write-check-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise EgdbError(f"cannot write endgame databases in {name} {folder}: "
                        f"{exc.strerror or exc}") from None
    return folder


def file_name(pits: int, max_seeds: int, empty_capture: bool, end_rule: int) -> str:
    cap = "empty" if empty_capture else "std"
    end = "either" if end_rule == kernel.END_EITHER_EMPTY else "mover"
    return f"egdb-m{pits}-n{max_seeds}-{cap}-{end}-v{FORMAT_VERSION}.bin"


def _header(pits: int, max_seeds: int, empty_capture: bool, end_rule: int, n: int,
            crc: int) -> bytes:
    raw = HEADER.pack(MAGIC, FORMAT_VERSION, pits, max_seeds, int(empty_capture), end_rule, n, crc)
    return raw.ljust(HEADER_SIZE, b"\0")


@njit(cache=True, nogil=True)
def _block_sums(payload: np.ndarray, first: int, last: int, out: np.ndarray) -> None:
    """64-bit FNV-style checksum of each ``BLOCK``-byte block ``first <= b < last`` of the
    payload (bytes; the last block may be short): any changed byte changes its block's sum."""
    n = payload.size
    words = payload[: n - n % 8].view(np.uint64)
    prime = np.uint64(0x100000001B3)
    for blk in range(first, last):
        lo = blk * BLOCK
        hi = min(lo + BLOCK, n)
        h = np.uint64(0xCBF29CE484222325) ^ np.uint64(blk)
        w_end = min(hi, words.size * 8) // 8
        for w in range(lo // 8, w_end):
            h = (h ^ words[w]) * prime
        for i in range(max(lo, w_end * 8), hi):
            h = (h ^ np.uint64(payload[i] & 0xFF)) * prime
        out[blk] = h


def _checksum_blocks(payload: np.ndarray, used: int, out: np.ndarray) -> None:
    """:func:`_block_sums` of the first ``used`` blocks in up to 8 threads (the kernel
    releases the GIL): checking the file is most of a large solve's loading time. More
    threads than cores pay when the file is read from disk: each thread's page faults
    wait for the disk in turn (11 GB <= 30 file, not cached: 5.8-6.0 s with 8 threads,
    6.1 s with 4, 6.6-6.7 s with 2 on 2 cores; cached: 1.8 s with each)."""
    parts = max(1, min(8, used // 4))
    if parts == 1:
        _block_sums(payload, 0, used, out)
        return
    from concurrent.futures import ThreadPoolExecutor

    cuts = [used * k // parts for k in range(parts + 1)]
    with ThreadPoolExecutor(parts) as pool:
        for _ in pool.map(lambda k: _block_sums(payload, cuts[k], cuts[k + 1], out),
                          range(parts)):
            pass


def _n_blocks(n: int) -> int:
    return (n + BLOCK - 1) // BLOCK


def save(db: np.ndarray, file: Path, pits: int, max_seeds: int, empty_capture: bool,
         end_rule: int) -> None:
    """Write atomically (temporary file, then rename): header, payload, block checksums."""
    file.parent.mkdir(parents=True, exist_ok=True)
    payload = np.ascontiguousarray(db, dtype=np.int8)
    sums = np.zeros(_n_blocks(payload.size), np.uint64)
    _block_sums(payload, 0, sums.size, sums)
    crc = zlib.crc32(sums.tobytes())
    tmp = file.with_suffix(f".tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(_header(pits, max_seeds, empty_capture, end_rule, payload.size, crc))
            payload.tofile(fh)
            sums.tofile(fh)
        os.replace(tmp, file)
    except BaseException:
        tmp.unlink(missing_ok=True)  # never leave a half-written file in the cache folder
        raise


def read_header(file: Path) -> tuple[int, int, int, int, int, int]:
    """(version, pits, N, empty_capture, end_rule, entries) of a database file."""
    try:
        with open(file, "rb") as fh:
            head = fh.read(HEADER_SIZE)
    except OSError as exc:
        raise EgdbError(f"{file}: cannot read: {exc}") from None
    if len(head) != HEADER_SIZE:
        raise EgdbError(f"{file}: truncated header")
    magic, version, p, n_seeds, ec, er, n, _crc = HEADER.unpack(head[: HEADER.size])
    if magic != MAGIC:
        raise EgdbError(f"{file}: header does not match (not a database file)")
    return version, p, n_seeds, ec, er, n


_CHECKED: dict[tuple[str, int, int, int], tuple[np.ndarray, int]] = {}
"""Files this process has mapped and checked: (path, inode, size, modification time) ->
(the mapped values, blocks checked). A later load of the same file for a prefix within
those blocks (a solver for another instance, an agent for another table) maps and checks
nothing; a larger prefix is mapped and checked again, and a rewritten or replaced file
has another key."""
_SETTLED_SECONDS = 2.0
"""Only files unchanged for this long are kept in :data:`_CHECKED`: file times are coarse
(milliseconds), so a file rewritten in place just after it was checked could keep its
key; one that has settled cannot."""


def _forget_replaced() -> None:
    """Drop the mappings of files since removed or replaced (a build removes the smaller
    file it grew from): a kept mapping would hold a removed file's disk space."""
    for key in list(_CHECKED):
        try:
            st = os.stat(key[0])
        except OSError:
            del _CHECKED[key]
            continue
        if (st.st_ino, st.st_size, st.st_mtime_ns) != key[1:]:
            del _CHECKED[key]


def advise_huge_pages(mapping: mmap.mmap) -> bool:
    """Ask the kernel for 2 MiB pages on a database mapping (``MADV_HUGEPAGE``): pages it
    then reads from disk come in 2 MiB folios mapped by one table entry each. The search
    reads the file at random, so fewer TLB misses pay: Kalah(6,5) with the 11 GB <= 30
    file searched in 49.2-49.4 s mapped so, against 54.2-55.8 s with the file cached in
    small pages. False where the kernel or platform does not offer it (nothing changes)."""
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is None:
        return False
    try:
        mapping.madvise(advice)
    except (OSError, ValueError):
        return False
    return True


def load(file: Path, pits: int, max_seeds: int, empty_capture: bool, end_rule: int,
         file_seeds: int | None = None) -> np.ndarray:
    """Verify a database file and map it read-only into memory; :class:`EgdbError` on any
    mismatch. ``file_seeds`` (default ``max_seeds``): the file's own size; a larger file
    serves a smaller database as its prefix (only the blocks of the prefix are checked,
    once per process: :data:`_CHECKED`)."""
    have = max_seeds if file_seeds is None else file_seeds
    version, p, n_seeds, ec, er, n = read_header(file)
    if (version, p, n_seeds, ec, er, n) != (FORMAT_VERSION, pits, have, int(empty_capture),
                                           end_rule, entries(have, pits)):
        raise EgdbError(f"{file}: header does not match (wrong version or parameters)")
    want = entries(max_seeds, pits)
    blocks = _n_blocks(n)
    st = file.stat()
    if st.st_size != HEADER_SIZE + n + 8 * blocks:
        raise EgdbError(f"{file}: {st.st_size} bytes, expected "
                        f"{HEADER_SIZE + n + 8 * blocks} (truncated?)")
    key = (str(file.resolve()), st.st_ino, st.st_size, st.st_mtime_ns)
    _forget_replaced()
    seen = _CHECKED.get(key)
    if seen is not None and seen[1] >= _n_blocks(want):
        return seen[0][:want]
    try:
        with open(file, "rb") as fh:
            crc = HEADER.unpack(fh.read(HEADER_SIZE)[: HEADER.size])[-1]
            fh.seek(HEADER_SIZE + n)
            sums = np.frombuffer(fh.read(8 * blocks), np.uint64)
            mapping = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as exc:
        raise EgdbError(f"{file}: cannot read: {exc}") from None
    if zlib.crc32(sums.tobytes()) != crc:
        raise EgdbError(f"{file}: checksum mismatch (block table)")
    advise_huge_pages(mapping)  # before the check below reads the file in
    payload = np.frombuffer(mapping, np.int8, count=n, offset=HEADER_SIZE)
    check = np.zeros(blocks, np.uint64)
    used = _n_blocks(want)
    _checksum_blocks(payload, used, check)
    if not np.array_equal(check[:used], sums[:used]):
        raise EgdbError(f"{file}: checksum mismatch")
    if time.time() - st.st_mtime > _SETTLED_SECONDS:
        _CHECKED[key] = (payload, used)
    return payload[:want]


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


def read_only(values: np.ndarray) -> np.ndarray:
    """``values`` as a read-only array (a view where it is writable, e.g. just built):
    numba compiles a kernel once per argument type, and writable and read-only arrays are
    two types, so a solve with a database after a warm-up without one compiled the search
    again (3 s of its first run)."""
    if not values.flags.writeable:
        return values
    view = values.view()
    view.flags.writeable = False
    return view


def cached(pits: int, empty_capture: bool, end_rule: int = kernel.END_EITHER_EMPTY,
           path: str | os.PathLike[str] | None = None) -> list[tuple[int, Path]]:
    """(N, file) of every database file of this game in the cache folder, smallest first
    (by name and header; contents are checked when loaded)."""
    folder = cache_dir(path)
    out = []
    for n in range(MAX_SEEDS + 1):
        file = folder / file_name(pits, n, empty_capture, end_rule)
        if file.is_file():
            try:
                if read_header(file)[0] == FORMAT_VERSION:
                    out.append((n, file))
            except EgdbError:
                continue
    return out


def _load_cached(pits: int, max_seeds: int, empty_capture: bool, end_rule: int,
                 path: str | os.PathLike[str] | None,
                 progress: Callable[[str], None] | None) -> tuple[np.ndarray, Path] | None:
    """The database from the smallest sound cached file with at least ``max_seeds`` seeds
    (a file replaced by a larger one while we look is looked up again)."""
    for _attempt in range(3):
        vanished = False
        for n, file in cached(pits, empty_capture, end_rule, path):
            if n < max_seeds:
                continue
            try:
                return load(file, pits, max_seeds, empty_capture, end_rule, n), file
            except EgdbError as exc:
                if not file.exists():  # a build replaced it by a larger file: look again
                    vanished = True
                    continue
                if progress is not None:
                    progress(f"endgame database not trusted ({exc}); rebuilding")
        if not vanished:
            break
    return None


def open_egdb(
    pits: int,
    max_seeds: int,
    empty_capture: bool,
    end_rule: int = kernel.END_EITHER_EMPTY,
    path: str | os.PathLike[str] | None = None,
    save_to_disk: bool = True,
    progress: Callable[[str], None] | None = None,
    threads: int = 1,
) -> Egdb:
    """Load the database from the cache folder, or build (and save) it if missing or bad.

    A larger cached file serves as well (its prefix). A build continues from the
    largest smaller sound file and saves a checkpoint after every level that took
    over a minute (then the smaller file is removed: it is a prefix of the new one),
    so an interrupted build resumes where it stopped.
    """
    check_size(pits, max_seeds)
    folder = cache_dir(path)
    t0 = time.perf_counter()
    found = _load_cached(pits, max_seeds, empty_capture, end_rule, path, progress)
    if found is not None:
        return Egdb(pits, max_seeds, empty_capture, end_rule, found[0], found[1], None,
                    time.perf_counter() - t0)
    start: np.ndarray | None = None
    smaller = [(n, f) for n, f in cached(pits, empty_capture, end_rule, path) if n < max_seeds]
    for n, f in reversed(smaller):
        try:
            start = load(f, pits, n, empty_capture, end_rule)
            break
        except EgdbError:
            continue
    n_entries = entries(max_seeds, pits)
    if progress is not None:
        more = f", continuing from {start.size:,} done" if start is not None else ""
        progress(f"endgame database for {pits} pits, <= {max_seeds} seeds: building "
                 f"{n_entries:,} entries, {n_entries / 1e6:,.1f} MB{more} (saved in {folder})")
    last = [0.0, time.perf_counter()]

    def report(s: int, n: int, elapsed: float) -> None:
        # the level's own time and the total: the first level also pays the kernels'
        # one-time compilation, which would otherwise make every line show the same total
        step, last[0] = elapsed - last[0], elapsed
        if progress is not None:
            note = " (includes compiling the kernels, once)" if s == 1 and step > 2 else ""
            progress(f"endgame database: {s}/{n} seeds done, this level {step:.1f} s{note}, "
                     f"total {elapsed:.1f} s")

    def checkpoint(db: np.ndarray, s: int) -> None:
        if not save_to_disk or s == max_seeds or time.perf_counter() - last[1] < 60:
            return
        last[1] = time.perf_counter()
        _save_replacing(db[: entries(s, pits)], folder, pits, s, empty_capture, end_rule,
                        progress)

    db = egdb_build.build(pits, max_seeds, empty_capture, end_rule, report, start, threads,
                          checkpoint)
    built = time.perf_counter() - t0
    saved: Path | None = None
    if save_to_disk:
        saved = _save_replacing(db, folder, pits, max_seeds, empty_capture, end_rule, progress)
    return Egdb(pits, max_seeds, empty_capture, end_rule, db, saved, built, 0.0)


def _save_replacing(db: np.ndarray, folder: Path, pits: int, max_seeds: int,
                    empty_capture: bool, end_rule: int,
                    progress: Callable[[str], None] | None) -> Path | None:
    """Save the database; remove this game's smaller files (prefixes of this one)."""
    file = folder / file_name(pits, max_seeds, empty_capture, end_rule)
    try:
        save(db, file, pits, max_seeds, empty_capture, end_rule)
    except OSError as exc:
        if progress is not None:
            progress(f"endgame database not saved ({exc})")
        return None
    for n, old in cached(pits, empty_capture, end_rule, folder):
        if n < max_seeds:
            old.unlink(missing_ok=True)
    return file
