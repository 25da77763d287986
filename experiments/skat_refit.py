"""Regenerate a played win-chance calibration in one command: the calibration games, the fit,
the file and the calibration table.

Per ``--run SEED:DEALS`` it plays ``spielwerk skat calibration --agent A --defence D`` into
``FOLDER/calib-A-SEED.jsonl`` (a complete file of the same agent, defence, seed and deals is
reused and a partial one continued with ``--resume``, so a stopped refit goes on where it
stopped; a file of another run there is overwritten), then fits the map on
all runs with ``experiments/skat_open_map.py --own NAME`` and writes the calibration file,
printing per type the games, the chance told, the chance won and the chance after the map.
With ``--check SEED:DEALS`` it plays a held-out run too and prints the new map's chances
against what was won there (the records were told by the old chances: the map is applied to
them, so this checks the map, not the decisions it would change).

The shipped ``played_suit_knn10`` (``docs/evaluations/skat-suit-chances-knn10.md``):

    python experiments/skat_refit.py --agent knn10 --defence knn10 --run 7135:2000 \\
        --run 7136:1000 --workers 2 --told-by played_suit_knn7 --keep played_suit_knn7 \\
        --types suit,suit_hand,grand_hand --own played_suit_knn10 \\
        --write src/spielwerk/data/skat_calibration/played_suit_knn10.json

A new calibration name also needs its entry in ``params.TYPED_CALIBRATIONS`` before an agent
can use it.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from spielwerk.games.skat_ai.calibration import CalibrationError
from spielwerk.games.skat_ai.calibration_runs import read_header, read_run

HERE = Path(__file__).resolve().parent


def run_spec(text: str) -> tuple[int, int]:
    """``SEED:DEALS`` as two positive integers."""
    m = re.fullmatch(r"(\d+):(\d+)", text)
    if not m or int(m.group(2)) < 1:
        raise argparse.ArgumentTypeError(f"expected SEED:DEALS (say 7135:2000), not {text!r}")
    return int(m.group(1)), int(m.group(2))


def complete(path: Path, header: dict[str, Any]) -> bool:
    """Whether ``path`` holds a whole calibration run with ``header`` (every seat-game once,
    read as ``--resume`` reads it; a damaged file is not whole, and ``--resume`` then names
    the damage)."""
    if not path.exists():
        return False
    try:
        run = read_run(path)
    except CalibrationError:
        return False
    return _holds(run.header, header) and run.complete


def _holds(found: Any, header: dict[str, Any]) -> bool:
    """Whether a record file's header ``found`` has ``header``'s agent, defence, deals and
    seed (it may also record the settings the specs meant)."""
    return isinstance(found, dict) and all(found.get(k) == v for k, v in header.items())


def same_run(path: Path, header: dict[str, Any]) -> bool:
    """Whether the first line of ``path`` is a header with ``header``'s agent, defence,
    deals and seed (a run to continue, the rest maybe damaged; ``--resume`` refuses it
    where the specs meant other settings when it began)."""
    try:
        return _holds(read_header(path), header)
    except CalibrationError:
        return False


def played(args: argparse.Namespace, seed: int, deals: int) -> Path:
    """The records of the calibration run ``seed``/``deals``: reused when complete, else
    played or continued (``spielwerk skat calibration``, its progress on stderr)."""
    slug = re.sub(r"[^A-Za-z0-9_.=-]+", "_", args.agent)
    path = args.folder / f"calib-{slug}-{seed}.jsonl"
    header = {"agent": args.agent, "defence": args.defence, "deals": deals, "seed": seed}
    if complete(path, header):
        print(f"reused {path}", flush=True)
        return path
    go_on = path.exists() and same_run(path, header)
    print(f"{'continuing' if go_on else 'playing'} {path} ({deals} deals)", flush=True)
    cmd = [sys.executable, "-c", "from spielwerk.cli.main import main; main()", "skat",
           "calibration", "--agent", args.agent,
           "--defence", args.defence, "--deals", str(deals), "--seed", str(seed),
           "--workers", str(args.workers), "--out", str(path)]
    if path.exists():
        cmd.append("--resume" if go_on else "--fresh")
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if done.returncode != 0 or not complete(path, header):
        raise SystemExit(f"the calibration run {seed}:{deals} did not finish "
                         f"(exit {done.returncode}); run the refit again to go on")
    return path


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", required=True, help="the agent whose declarations are fitted")
    ap.add_argument("--defence", required=True, help="the defence they are played against")
    ap.add_argument("--run", type=run_spec, action="append", required=True,
                    metavar="SEED:DEALS", help="a tuning run (repeat for more)")
    ap.add_argument("--check", type=run_spec, action="append", default=[],
                    metavar="SEED:DEALS", help="a held-out run to check the map on")
    ap.add_argument("--own", required=True, metavar="NAME", help="the calibration's name")
    ap.add_argument("--calibration", default="strong", help="the base weights")
    ap.add_argument("--told-by", help="the calibration the agent's chances were told by")
    ap.add_argument("--keep", help="the calibration whose maps the other types keep")
    ap.add_argument("--types", help="the types to refit (comma-separated)")
    ap.add_argument("--after-pickup", action="store_true",
                    help="the suit, grand and null maps after the skat is seen only: the "
                         "bidding keeps --keep's (skat_open_map.py)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--folder", type=Path, default=Path("results"))
    ap.add_argument("--write", type=Path, help="the calibration file to write")
    args = ap.parse_args(argv)
    runs = [played(args, seed, deals) for seed, deals in args.run]
    checks = [played(args, seed, deals) for seed, deals in args.check]
    cmd = [sys.executable, str(HERE / "skat_open_map.py"), *map(str, runs),
           "--calibration", args.calibration, "--own", args.own]
    for flag, value in (("--told-by", args.told_by), ("--keep", args.keep),
                        ("--types", args.types), ("--write", args.write)):
        if value is not None:
            cmd += [flag, str(value)]
    if args.after_pickup:
        cmd.append("--after-pickup")
    if checks:
        cmd += ["--check", *map(str, checks)]
    sys.stdout.flush()
    raise SystemExit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
