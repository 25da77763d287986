"""The machine a figure was measured on, in one line: speed ratios depend on the processor
(the Python API's ratio to pyspiel was 1.27x on an AMD EPYC and 1.14x on an Intel Xeon)."""

from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    """The processor's model name (Linux: ``/proc/cpuinfo``), else the architecture."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe() -> str:
    """Processor, cores, memory, Python and the load: ``Intel(R) Xeon(R) Processor, 2 cores,
    24 GiB, Python 3.11.7, load 0.9``."""
    try:
        mem = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB"
    except (AttributeError, ValueError, OSError):
        mem = ""
    try:
        load = f", load {os.getloadavg()[0]:.1f}"
    except OSError:
        load = ""
    return (f"{cpu_model()}, {os.cpu_count()} cores{mem}, Python "
            f"{platform.python_version()}{load}")
