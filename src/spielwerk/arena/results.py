"""Append-only results files (JSON Lines) that survive kill -9 and resume.

Layout: the first line is a header ``{"format": "spielwerk-arena-results",
"config": {...}, "config_hash": "..."}``; every further line is one finished
game (:meth:`GameResult.to_record`). A game that takes :data:`FLUSH_SECONDS`
(0.05 s) or more is written as soon as it finishes; faster games are
collected and written with one ``write`` (:meth:`ResultsFile.append`), and
everything pending at the end or when the run stops with an error. A run
killed with ``kill -9`` therefore loses only quickly played games (at most
about one batch of the process pool, :data:`~spielwerk.core.parallel.BATCH_SECONDS`
of play, redone on resume) and at worst leaves a half-written last line. On
resume:

- a last line without its newline (the process died mid-write) is discarded
  and cut off the file before anything is appended;
- a complete line that is not a valid record, or a header from a different
  tournament configuration (other hash), is refused with a clear error and
  the file is left untouched.

While a run writes a file it holds an exclusive ``flock`` on it, so two runs
cannot append to the same file. The opening rules, the reading of complete
lines and the lock are :mod:`spielwerk.core.append_file`'s, shared with the
Skat calibration's record files.
"""

from __future__ import annotations

import errno
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spielwerk.arena.match import GameResult
from spielwerk.core.append_file import differences, lock_exclusive, opening_checks, read_lines
from spielwerk.core.errors import SpielwerkError

FORMAT = "spielwerk-arena-results"
FLUSH_SECONDS = 0.05
"""Finished games wait at most this long (while the run goes on) before they are written."""


class ResultsFileError(SpielwerkError):
    """A results file that cannot be created, read or continued."""


@dataclass
class ReadBack:
    """What :func:`read_results` found in a file."""

    header: dict[str, Any] | None
    results: list[GameResult] = field(default_factory=list)
    good_bytes: int = 0  # length of the valid prefix (header and complete records)
    discarded_tail: bytes = b""  # an unterminated last line, dropped


def read_results(path: Path) -> ReadBack:
    """Parse a results file; the unterminated last line (if any) is reported, not parsed."""
    read = read_lines(path, ResultsFileError, "results file")
    lines, end, tail = read.lines, read.good_bytes, read.tail
    if not lines:
        return ReadBack(None, [], 0, tail)
    try:
        header = json.loads(lines[0])
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ValueError("no spielwerk header")
    except ValueError:
        raise ResultsFileError(
            f"{path} is not a spielwerk arena results file (bad first line)"
        ) from None
    results: list[GameResult] = []
    seen: set[str] = set()
    for number, line in enumerate(lines[1:], start=2):
        try:
            result = GameResult.from_record(json.loads(line))
        except (ValueError, KeyError, TypeError) as exc:
            raise ResultsFileError(
                f"{path}, line {number}: not a valid game record ({type(exc).__name__}: {exc}); "
                "the file was not changed"
            ) from None
        if result.task_id in seen:
            raise ResultsFileError(f"{path}, line {number}: game {result.task_id!r} appears twice")
        seen.add(result.task_id)
        results.append(result)
    return ReadBack(header, results, end, tail)


_HEADER_START = b'{"format":"' + FORMAT.encode() + b'"'


def _is_our_start(head: bytes) -> bool:
    """True for empty bytes, our header's start, or a prefix of it (a run killed while
    writing the header)."""
    return not head.strip() or head.startswith(_HEADER_START) or _HEADER_START.startswith(head)


def _looks_like_results(path: Path) -> bool:
    """True for an empty file or one whose first line is (the start of) our header."""
    try:
        with path.open("rb") as f:
            head = f.read(200)
    except OSError:
        return False
    return _is_our_start(head)


def _disk_error(path: Path, exc: OSError, action: str) -> ResultsFileError:
    hint = " (the disk is full)" if exc.errno == errno.ENOSPC else ""
    return ResultsFileError(
        f"cannot {action} results file {path}: {exc.strerror}{hint}; the games already in "
        f"it are safe: make room and continue with --resume -o {path}"
    )


def written_config(path: Path) -> dict[str, Any] | None:
    """The configuration in the header line of the results file at ``path``; None where
    there is none to read (no file, no complete first line, not a header: opening the file
    says why)."""
    try:
        with path.open("rb") as f:
            first = f.readline()
        header = json.loads(first) if first.endswith(b"\n") else None
    except (OSError, ValueError):
        return None
    config = header.get("config") if isinstance(header, dict) else None
    return config if isinstance(config, dict) else None


def _describe_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """The first four values that differ, nested ones by their dotted path (an agent's
    settings: ``settings.knn.null_floor``, not the two whole tables)."""
    parts = [f"{k}: file has {_brief(a)}, now {_brief(b)}"
             for k, a, b in differences(old, new)[:4]]
    return "; ".join(parts) or "configuration hash differs"


def _brief(value: Any) -> str:
    """A value for the message: a table by its keys, not every entry."""
    if isinstance(value, dict):
        return "{" + ", ".join(map(str, sorted(value))) + ": ...}" if value else "{}"
    return repr(value)



class ResultsFile:
    """An open results file: existing records (when resuming) plus :meth:`append`."""

    def __init__(self, path: Path, fd: int, existing: list[GameResult], discarded: bytes,
                 fsync: bool) -> None:
        self.path = path
        self._fd: int | None = fd
        self.existing = existing
        self.discarded_tail = discarded
        self.fsync = fsync
        self._pending: list[GameResult | str] = []
        self._since = 0.0  # when the oldest pending line came
        self._last = 0.0  # when the last line came

    @classmethod
    def open(
        cls,
        path: Path,
        config: dict[str, Any],
        config_hash: str,
        resume: bool = False,
        fresh: bool = False,
        fsync: bool = False,
    ) -> ResultsFile:
        """Create, overwrite (``fresh``) or continue (``resume``) the results file at ``path``."""
        exists = opening_checks(path, resume, fresh, ResultsFileError, "a results file")
        if exists and fresh and not _looks_like_results(path):
            raise ResultsFileError(
                f"{path} is not a spielwerk arena results file; refusing to overwrite it"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise ResultsFileError(f"cannot open results file {path}: {exc.strerror}") from exc
        try:
            lock_exclusive(fd, path, ResultsFileError)
            existing: list[GameResult] = []
            discarded = b""
            header = {"format": FORMAT, "config": config, "config_hash": config_hash}
            if exists and resume:
                back = read_results(path)
                discarded = back.discarded_tail
                if back.header is not None:
                    if back.header.get("config_hash") != config_hash:
                        old = back.header.get("config") or {}
                        raise ResultsFileError(
                            f"{path} holds results of a different tournament "
                            f"({_describe_difference(old, config)}); use another --output or "
                            "--fresh to overwrite it"
                        )
                    existing = back.results
                    os.ftruncate(fd, back.good_bytes)  # drop a half-written last line
                else:
                    # no complete line: only an empty file or our own unfinished header
                    # may be replaced; anything else is someone's file
                    if not _is_our_start(back.discarded_tail):
                        raise ResultsFileError(
                            f"{path} is not a spielwerk arena results file; refusing to "
                            "overwrite it (choose another --output)"
                        )
                    os.ftruncate(fd, 0)
                    cls._write(fd, header)
            else:
                os.ftruncate(fd, 0)
                cls._write(fd, header)
            os.lseek(fd, 0, os.SEEK_END)
        except OSError as exc:
            os.close(fd)
            raise _disk_error(path, exc, "write") from None
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, existing, discarded, fsync)

    @staticmethod
    def _write(fd: int, record: dict[str, Any]) -> None:
        data = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]

    def append(self, result: GameResult) -> None:
        """Add one finished game as a line.

        A game that finishes :data:`FLUSH_SECONDS` or more after the one before
        is written at once, with any lines still pending. Games that come
        faster are collected and written together (one ``write``, then fsync
        if asked) once the oldest of them waited :data:`FLUSH_SECONDS`;
        :meth:`flush` and :meth:`close` write what is pending. A fast game (a
        random Kalah game, about 100 µs) would otherwise spend more on its own
        system call than on its moves; slow games are written as they finish.
        """
        # a plain result is formatted when written (one tight loop over the batch); one
        # with details now, so that a later change to its dict cannot reach the file
        self._add(result if result.details is None else result.to_json_line())

    def append_lines(self, lines: str) -> None:
        """Add finished games as ready lines (newline-separated, no final newline; a batch's
        :attr:`~spielwerk.arena.batch.BatchResult.lines`), written when :meth:`append`
        would write a game that came now."""
        self._add(lines)

    def _add(self, item: GameResult | str) -> None:
        if self._fd is None:
            raise ResultsFileError(f"{self.path} is closed")
        pending = self._pending
        pending.append(item)
        now = time.monotonic()
        last, self._last = self._last, now
        if len(pending) == 1:
            self._since = now
        if now - last >= FLUSH_SECONDS or now - self._since >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the pending lines now (one ``write``; fsync too if asked)."""
        if not self._pending or self._fd is None:
            return
        pending, self._pending = self._pending, []
        lines: list[str] = []
        try:  # a result that cannot be written (json refuses a value): the ones before it are
            for result in pending:
                lines.append(result if isinstance(result, str) else result.to_json_line())
        finally:
            if lines:
                self._write_lines(lines)

    def _write_lines(self, lines: list[str]) -> None:
        assert self._fd is not None
        data = ("\n".join(lines) + "\n").encode()
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            if self.fsync:
                os.fsync(self._fd)
        except OSError as exc:
            raise _disk_error(self.path, exc, "write to") from None

    def close(self) -> None:
        if self._fd is not None:
            try:
                self.flush()
            finally:
                os.close(self._fd)  # closing releases the flock
                self._fd = None

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
