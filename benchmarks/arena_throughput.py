"""Arena throughput: games/s for random vs random Kalah(6,4), single process vs process pool.

Both runs go through ``run_tournament`` with a results file, as a real
tournament does. Warm-up (numba compilation, pool start-up) is excluded from
the steady-state figure and reported separately. Prints figures; never fails
on timing.

    python benchmarks/arena_throughput.py [--games 4000] [--workers K]
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

from spielwerk.arena import (
    Executor,
    LocalProcessExecutor,
    SerialExecutor,
    TournamentConfig,
    run_tournament,
)

GAME = "kalah(pits=6,seeds=4)"


def timed_run(executor: Executor, games: int, seed: int, folder: Path) -> float:
    """Seconds for a tournament of ``games`` random-vs-random games."""
    config = TournamentConfig.create(GAME, ["random", "random"], games, seed=seed)
    start = time.perf_counter()
    result = run_tournament(config, executor, output=folder / f"run-{seed}.jsonl")
    elapsed = time.perf_counter() - start
    assert len(result.results) == games
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="games per measurement (even)")
    parser.add_argument("--workers", type=int, default=None, help="pool size (default: all cores)")
    args = parser.parse_args()
    games = args.games + args.games % 2
    workers = args.workers or os.cpu_count() or 1
    print(f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs; Python {platform.python_version()}")
    print(f"workload: random vs random {GAME}, {games} games per measurement, results file on")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        serial = SerialExecutor()
        cold = timed_run(serial, 20, seed=1, folder=folder)
        cpu0 = time.process_time()
        t_serial = timed_run(serial, games, seed=2, folder=folder)
        cpu_serial = time.process_time() - cpu0
        print(f"single process : {games / t_serial:8.0f} games/s "
              f"({t_serial:.2f} s wall; {games / cpu_serial:.0f} games per CPU second; "
              f"first 20 games incl. JIT {cold:.2f} s)")
        with LocalProcessExecutor(workers) as pool:
            start = time.perf_counter()
            timed_run(pool, 2 * workers, seed=3, folder=folder)
            startup = time.perf_counter() - start
            t_pool = timed_run(pool, games, seed=4, folder=folder)
        print(f"process pool {workers:>2}: {games / t_pool:8.0f} games/s "
              f"({t_pool:.2f} s wall; pool start-up and warm-up {startup:.2f} s)")
        print(f"speed-up       : {t_serial / t_pool:8.2f}x on {workers} workers")
        print(f"load average   : {', '.join(f'{x:.2f}' for x in os.getloadavg())} "
              "(other work on the machine slows both runs)")


if __name__ == "__main__":
    main()
