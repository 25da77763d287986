"""The defence gap: games our defence lets through that the open-hand defence beats.

Per seeded deal, AGENT sits in all three seats through the auction; a deal it declares is
then played out twice from the declaration with AGENT as the declarer (the same seed, so
its decisions are the same until the defence differs): once against two AGENT defenders
(our defence), once against the open-hand defence
(:mod:`spielwerk.games.skat_ai.open_defence`: defenders who see every card and play the
double-dummy best card). Per game type (suit, grand, null; each also with hand) the
summary gives the declared games, the declarer's win rate against each defence, and the
gap: the share of the declared games won against our defence and lost against the
open-hand one, with a 95% Wilson interval. The declarations are AGENT's own (what it
really declares), unless ``--force null``: then whoever wins the auction picks up the skat,
puts as AGENT does and declares a plain null (a deal whose bid went past the null's 23 is
left out as not forceable).

Results go to a JSON Lines file (one line per deal), resumed when it exists. The deals
are :mod:`spielwerk.games.skat_ai.defence_runs` tasks (``--executor dask://HOST:PORT``
plays them on a Dask cluster); playing to the declaration and the game types are
:mod:`spielwerk.games.skat_ai.calibration`'s (the ``spielwerk skat calibration``
command's). :func:`run_tasks` is the runner of every experiment that plays deals as
library tasks (:mod:`spielwerk.games.skat_ai.declaration_runs` holds the others).

    python experiments/skat_defence_gap.py --deals 300 --seed 4242 --workers 2 \\
        --out results/defence-gap.jsonl
    python experiments/skat_defence_gap.py --summarize results/defence-gap.jsonl
    python experiments/skat_defence_gap.py --force null --deals 1000 --seed 4343 --workers 2 \
        --out results/defence-gap-null.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spielwerk.arena.stats import wilson_interval
from spielwerk.core.parallel import ExecutorError, check_executor_spec, make_executor
from spielwerk.games.skat_ai.calibration import GAME_TYPES
from spielwerk.games.skat_ai.defence_runs import (
    OPEN,
    DefenceRun,
    DefenceRunError,
    play_deal,
    played,
)


def read_results(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A results file's header (its first line) and its rows (one per deal)."""
    lines = path.read_text().splitlines()
    return json.loads(lines[0]), [json.loads(x) for x in lines[1:] if x.strip()]


def summarize(path: Path) -> None:
    header, rows = read_results(path)
    games = played(rows)
    ours = "ours" if games and "ours" in games[0] else header["agent"]  # older files: "ours"
    forced = f", forced {header['force']}" if header.get("force") else ""
    print(f"agent {header['agent']}, seed {header['seed']}{forced}: {len(rows)} deals, "
          f"{len(games)} declared")
    print(f"{'type':<12} {'declared':>8} {'won vs ours':>12} {'won vs open':>12} "
          f"{'gap':>7}  95% interval")
    for t in [*GAME_TYPES, "all"]:
        rs = [r for r in games if t == "all" or r["type"] == t]
        if not rs:
            continue
        won = sum(r[ours]["won"] for r in rs)
        opn = sum(r[OPEN]["won"] for r in rs)
        gap = sum(r[ours]["won"] and not r[OPEN]["won"] for r in rs)
        lo, hi = wilson_interval(gap, len(rs), 0.95)
        print(f"{t:<12} {len(rs):>8} {won / len(rs):>12.3f} {opn / len(rs):>12.3f} "
              f"{gap / len(rs):>7.3f}  {lo:.3f}-{hi:.3f}")


def _results_file(out: Path, header: dict[str, Any], same: Callable[[dict[str, Any]], bool]
                  ) -> set[int]:
    """The deals ``out`` already holds (a file of another run, ``same(header)`` false, is
    refused); a new file gets ``header`` with the machine as its first line. A last line
    left half-written by a killed run is cut (that deal is played again)."""
    data = out.read_bytes() if out.exists() else b""
    if data and not data.endswith(b"\n"):
        data = data[: data.rfind(b"\n") + 1]
        out.write_bytes(data)
    if data:
        found, rows = read_results(out)
        if not same(found):
            raise SystemExit(f"{out} holds another run ({found})")
        return {r["deal"] for r in rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({**header, "machine": f"{platform.machine()}, "
                                                    f"{os.cpu_count()} cores"}) + "\n")
    return set()


def _progress(n: int, total: int, t0: float, every: int) -> None:
    if n % every == 0 or n == total:
        print(f"{n}/{total} deals, {time.perf_counter() - t0:.0f} s", flush=True)


def run_tasks(out: Path, header: dict[str, Any], same: Callable[[dict[str, Any]], bool],
              tasks: list[Any], task: Callable[[Any], dict[str, Any]], executor: str,
              workers: int, every: int) -> None:
    """Play ``task(t)`` for each of ``tasks`` (plain data, each ``(run, deal)``, the deals
    the file does not hold yet) on ``executor`` (local, serial or dask://HOST:PORT) into
    the JSON Lines file ``out`` (its first line ``header`` with the machine), in the order
    they finish; a file of another run (``same(header)`` false) is refused. Ctrl-C keeps
    what finished (run the same command again to go on)."""
    done = _results_file(out, header, same)
    todo = [t for t in tasks if t[1] not in done]
    t0 = time.perf_counter()
    try:
        with make_executor(executor, workers) as ex, out.open("a") as fh:
            for n, record in enumerate(ex.map_unordered(task, todo), 1):
                fh.write(json.dumps(record) + "\n")
                fh.flush()
                _progress(n, len(todo), t0, every)
    except KeyboardInterrupt:
        raise SystemExit(f"interrupted: {out} keeps the deals that finished; run the same "
                         "command again to go on") from None


def checked(run: Any) -> None:
    """``run.check()``, its refusal as the command's one-line error."""
    try:
        run.check()
    except DefenceRunError as exc:
        raise SystemExit(str(exc)) from None


def run_defences(out: Path, run: DefenceRun, deals: int, executor: str, workers: int,
                 every: int) -> None:
    """Play deals ``0 .. deals-1`` of ``run`` (:func:`defence_runs.play_deal`) with
    :func:`run_tasks`; a resumed file must hold the same run."""
    checked(run)
    header = run.header()
    run_tasks(out, header, lambda found: {
        k: v for k, v in found.items() if k != "machine"} == header,
        run.tasks(range(deals)), play_deal, executor, workers, every)


def add_run_options(ap: argparse.ArgumentParser, seed: int, executor: bool = False,
                    files: bool = True) -> None:
    """The options of a resumable run of deals: --deals, --seed, --workers, --out and
    --summarize (without ``files``: a run that only prints), and --executor for those
    that run library tasks (:func:`run_tasks`)."""
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    if files:
        ap.add_argument("--out", type=Path)
        ap.add_argument("--summarize", type=Path)
    if executor:
        ap.add_argument("--executor", default="local", type=executor_spec,
                        help="local (process pool of --workers), serial or dask://HOST:PORT "
                             "(the workers need spielwerk installed)")


def executor_spec(text: str) -> str:
    """``--executor``'s check: local, serial or dask://HOST:PORT, in one line."""
    try:
        spec = check_executor_spec(text)
    except ExecutorError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if spec == "threads":  # the agents of a worker are shared by its tasks
        raise argparse.ArgumentTypeError("threads would share one process's agents and "
                                         "solver: use local, serial or dask://HOST:PORT")
    return spec


def summarized(ap: argparse.ArgumentParser, args: argparse.Namespace,
               show: Callable[[Path], None]) -> bool:
    """``--summarize FILE``: show it and say so (True); else require ``--out``."""
    if args.summarize:
        show(args.summarize)
        return True
    if args.out is None:
        ap.error("--out FILE is needed (one JSON line per deal, resumed)")
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="knn")
    add_run_options(ap, 4242, executor=True)
    ap.add_argument("--force", choices=("none", "null"), default="none",
                    help="null: the auction's winner picks up and declares a plain null")
    args = ap.parse_args()
    if summarized(ap, args, summarize):
        return
    run = DefenceRun(args.agent, (args.agent,), args.seed, args.force)
    run_defences(args.out, run, args.deals, args.executor, args.workers, every=10)
    summarize(args.out)


if __name__ == "__main__":
    main()
