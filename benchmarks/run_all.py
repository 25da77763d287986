"""The benchmarks, all of them: ``make bench`` runs this file, the one way to run them.

First ``spielwerk bench`` (fixed solver positions per game: nodes, nodes/s and the
node-count signature), then every speed check in this folder at its default sizes
(the Kalah solves at Kalah(6,3), :data:`SIZES`), one after another; each prints
its figures and the machine it ran on. Nothing here fails on timing: the exit
status is 1 only when a script errors. The research pipelines (tuning,
calibration, studies, matches) are in ``experiments/``.

    .venv/bin/python benchmarks/run_all.py                          # make bench
    .venv/bin/python benchmarks/run_all.py --list
    .venv/bin/python benchmarks/run_all.py --only skat_dds,kalah_solve
    .venv/bin/python benchmarks/run_all.py --skip web_load,api_speed
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEEDS = {"interop_speed": "pyspiel", "kalah_move_cost": "pyspiel"}
"""Scripts that need an optional package (the ``openspiel`` extra); skipped without it."""
SIZES = {"kalah_parallel": ["--seeds", "3"], "kalah_solve": ["--seeds", "3"]}
"""Sizes that finish in seconds on a fresh machine: the scripts' own default, Kalah(6,4),
needs an endgame database built first (without one it runs for hours); run them alone for
the large instances."""


def scripts() -> list[str]:
    """``spielwerk bench`` first, then the speed checks in this folder, by name."""
    return ["spielwerk_bench"] + sorted(
        p.stem for p in HERE.glob("*.py") if p.name != Path(__file__).name)


def command(name: str) -> list[str]:
    if name == "spielwerk_bench":
        return [sys.executable, "-c", "from spielwerk.cli.main import main; main()", "bench"]
    return [sys.executable, str(HERE / f"{name}.py"), *SIZES.get(name, [])]


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated names to run (see --list)")
    ap.add_argument("--skip", default="", help="comma-separated names to leave out")
    ap.add_argument("--list", action="store_true", help="print the names and stop")
    args = ap.parse_args()
    names = scripts()
    if args.list:
        print("\n".join(names))
        return
    only = {n for n in args.only.split(",") if n}
    skip = {n for n in args.skip.split(",") if n}
    unknown = (only | skip) - set(names)
    if unknown:
        ap.error(f"no benchmark named {', '.join(sorted(unknown))} (see --list)")
    print(f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
          f"Python {platform.python_version()}", flush=True)
    failed = []
    for name in names:
        if (only and name not in only) or name in skip:
            continue
        print(f"=== {name}", flush=True)
        need = NEEDS.get(name)
        if need and importlib.util.find_spec(need) is None:
            print(f"skipped: needs {need} (pip install -e '.[openspiel]')", flush=True)
            continue
        if subprocess.call(command(name)) != 0:
            failed.append(name)
    if failed:
        print("benchmarks that errored:", ", ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
