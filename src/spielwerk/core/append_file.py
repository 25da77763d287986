"""What every append-only JSON Lines file of a long run needs: the rules for opening one, its
complete lines read back, and an exclusive lock while a run writes it.

Two kinds of files share these: the arena's results files (:mod:`spielwerk.arena.results`)
and the Skat calibration's record files
(:mod:`spielwerk.games.skat_ai.calibration_runs`). Each checks its own header and records;
the mechanics are the same:

- an existing file is never overwritten unasked: :func:`opening_checks` refuses it unless
  the run continues it (``resume``) or replaces it (``fresh``), and refuses both at once and
  a directory;
- a run killed mid-write leaves at most an unfinished last line: :func:`read_lines` gives
  the complete lines, the length of that valid part (where an appending run truncates the
  file before it writes) and the unfinished tail;
- two runs cannot append to one file: :func:`lock_exclusive` takes an exclusive ``flock``
  (released when the file is closed) or refuses at once;
- a resumed run must mean what the file's header says: :func:`differences` lists the values
  that differ between the file's header and the run's, nested settings by dotted path.

The errors are the caller's class, so that each command reports its own kind of error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spielwerk.core.errors import SpielwerkError

try:  # POSIX only; elsewhere files are not locked
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]


def opening_checks(path: Path, resume: bool, fresh: bool, error: type[SpielwerkError],
                   what: str) -> bool:
    """Whether ``path`` exists, after the rules every opening follows: not ``resume`` and
    ``fresh`` together, not a directory (``what``: the kind of file, for the message), and an
    existing file only with one of them."""
    if resume and fresh:
        raise error("use either --resume or --fresh, not both")
    if path.is_dir():
        raise error(f"{path} is a directory, not {what}")
    exists = path.exists()
    if exists and not (resume or fresh):
        raise error(f"{path} already exists: add --resume to continue it or --fresh to "
                    "overwrite it")
    return exists


@dataclass(frozen=True)
class Lines:
    """A file's complete lines (without their newlines), the length in bytes of that part and
    what follows the last newline (a line a killed run did not finish)."""

    lines: list[bytes]
    good_bytes: int
    tail: bytes


def read_lines(path: Path, error: type[SpielwerkError], what: str) -> Lines:
    """The complete lines of ``path`` and its unfinished tail (:class:`Lines`); a file that
    cannot be read is ``error`` naming ``what`` it should be."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror}") from None
    end = data.rfind(b"\n") + 1  # everything after the last newline is an unfinished line
    return Lines(data[:end].split(b"\n")[:-1], end, data[end:])


def lock_exclusive(fd: int, path: Path, error: type[SpielwerkError]) -> None:
    """An exclusive ``flock`` on the open file ``fd`` (of ``path``), or ``error`` at once when
    another run holds it. The caller closes ``fd`` on the error."""
    if fcntl is None:  # pragma: no cover
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise error(f"{path} is being written by another run") from None


def differences(old: dict[str, Any], new: dict[str, Any],
                prefix: str = "") -> list[tuple[str, Any, Any]]:
    """(key, old value, new value) for every value that differs, in key order; nested
    tables by their dotted path (``settings.knn.null_floor``)."""
    out: list[tuple[str, Any, Any]] = []
    for k in sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k)):
        a, b = old.get(k), new.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{prefix}{k}.")
        else:
            out.append((f"{prefix}{k}", a, b))
    return out
