"""What a long job will take, estimated before it starts, and the words for it.

Jobs whose size the user chooses (``skat kb build --deals``, ``arena --games``,
``skat match --deals``, ``durak tournament --games``, ``fuzz --games``) estimate what the
size costs here and refuse at once, in one line with the estimate and the largest size that
fits, a job that cannot finish: one that takes longer than :data:`MAX_RUN_SECONDS` or needs
more memory (or disk) than this machine has.
"""

from __future__ import annotations

import os

MAX_RUN_SECONDS = 365 * 86400.0
"""A job estimated to take longer than a year (wall clock) is refused."""


def duration(seconds: float) -> str:
    """``"40 s"``, ``"12 min"``, ``"3.5 h"``, ``"9.6 days"``, ``"26 years"``."""
    for unit, length in (("years", 365 * 86400.0), ("days", 86400.0), ("h", 3600.0),
                         ("min", 60.0)):
        if seconds >= 2 * length if unit != "min" else seconds >= 120:
            value = seconds / length
            return f"{value:.{0 if value >= 10 else 1}f} {unit}"
    return f"{seconds:.0f} s"


def size(n: float) -> str:
    """``"141 kB"``, ``"1.4 GB"`` (powers of 1000)."""
    for unit, length in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= length:
            value = n / length
            return f"{value:.{0 if value >= 10 else 1}f} {unit}"
    return f"{n:.0f} B"


def physical_memory() -> int | None:
    """Bytes of memory of this machine (None where it cannot be asked)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None
