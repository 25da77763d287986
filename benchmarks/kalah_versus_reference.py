"""Whole-process wall time of our Kalah solve against a reference solver's, interleaved.

Both are timed as a user meets them: a fresh process each time, its start and imports
included. Each command runs once untimed first (numba's compile cache, the database in the
page cache, the reference's binary in memory), then the rounds alternate the order
(ours, reference; reference, ours; ...) so that a noisy machine slows both alike. Prints
each command's answer (the first line of its output that names a value) from the untimed
run, the median and fastest seconds per command, the ratio of the medians (ours /
reference; <= 1 means ours is at least as fast) and the spread of the per-round ratios,
with the machine.

The reference is any command (``--reference``), or a C source file (``--c-source``)
compiled here with ``cc -O2`` into a temporary folder; no reference is part of the project.
The default is Kalah(6,3) with empty capture, ours with its default database:

    .venv/bin/python benchmarks/kalah_versus_reference.py --c-source /path/to/solver.c
    .venv/bin/python benchmarks/kalah_versus_reference.py --reference ./ref_solver \\
        --ours ".venv/bin/spielwerk kalah solve --pits 6 --seeds 3 --empty-capture --egdb 0 -q"

Never fails on time; the exit status is 1 only when a command fails or does not compile.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from spielwerk.core.machine import describe

SPIELWERK = Path(sys.executable).with_name("spielwerk")
DEFAULT_OURS = f"{SPIELWERK} kalah solve --pits 6 --seeds 3 --empty-capture -q"


def run_once(command: list[str]) -> tuple[float, str]:
    """Seconds of wall time for one run of ``command`` and its answer: the first line of
    its output that names a value, else the last line; a failing command raises
    ``RuntimeError`` with its output's end."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        raise RuntimeError(f"{shlex.join(command)} exited with {done.returncode}: "
                           + " | ".join(tail))
    lines = [line for line in done.stdout.strip().splitlines() if line.strip()]
    valued = [line for line in lines if "value" in line]
    return seconds, (valued or lines or [""])[0 if valued else -1]


def compile_c(source: Path, folder: Path) -> Path:
    """``cc -O2 SOURCE -o FOLDER/reference``; a missing file or a compile error raises
    ``RuntimeError``."""
    if not source.is_file():
        raise RuntimeError(f"no C source at {source}")
    binary = folder / "reference"
    done = subprocess.run(["cc", "-O2", str(source), "-o", str(binary)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cc -O2 {source} failed: {done.stderr.strip()[-500:]}")
    return binary


def interleave(commands: dict[str, list[str]], rounds: int) -> dict[str, list[float]]:
    """Per name, the wall seconds of ``rounds`` timed runs; the order alternates per round."""
    names = list(commands)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            times[name].append(run_once(commands[name])[0])
        print(f"  round {r + 1}: " + ", ".join(f"{n} {times[n][-1]:.2f} s" for n in names),
              file=sys.stderr, flush=True)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ref = ap.add_mutually_exclusive_group(required=True)
    ref.add_argument("--reference", help="the reference command (a shell-quoted string)")
    ref.add_argument("--c-source", type=Path, help="a C file to compile with cc -O2 and run")
    ap.add_argument("--ours", default=DEFAULT_OURS, help=f"our command (default: {DEFAULT_OURS})")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")

    with tempfile.TemporaryDirectory() as tmp:
        try:
            reference = (shlex.split(args.reference) if args.reference
                         else [str(compile_c(args.c_source, Path(tmp)))])
            commands = {"ours": shlex.split(args.ours), "reference": reference}
            print(f"machine: {describe()}")
            for name, command in commands.items():
                seconds, answer = run_once(command)
                print(f"{name}: {shlex.join(command)}\n  untimed first run {seconds:.2f} s: "
                      f"{answer}")
            times = interleave(commands, args.rounds)
        except (RuntimeError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1

    med = {name: statistics.median(t) for name, t in times.items()}
    for name, t in times.items():
        print(f"{name:>9}: median {med[name]:.3f} s, fastest {min(t):.3f} s "
              f"({len(t)} runs)")
    ratios = [o / r for o, r in zip(times["ours"], times["reference"], strict=True)]
    print(f"ours / reference: {med['ours'] / med['reference']:.3f} (medians); "
          f"per round {min(ratios):.3f}-{max(ratios):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
