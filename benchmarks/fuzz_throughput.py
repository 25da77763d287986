"""Fuzz throughput: games/s for random Kalah(6,4) fuzzing, single process vs process pool.

Every game is checked after every move with all invariants of ``check_game``
(the work ``spielwerk fuzz`` does). For scale it also prints the rate of the
same random games played without any checks. Warm-up (numba compilation,
pool start-up) is excluded. Prints figures; never fails on timing.

    python benchmarks/fuzz_throughput.py [--games 600] [--workers K] [--game SPEC]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from spielwerk import load_game
from spielwerk.core.fuzz import default_workers, run_fuzz
from spielwerk.core.testing import random_playout


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="games per measurement")
    parser.add_argument("--workers", type=int, default=None, help="pool size (default: all cores)")
    parser.add_argument("--game", default="kalah(pits=6,seeds=4)", help="game spec")
    args = parser.parse_args()
    workers = args.workers or default_workers()
    game = load_game(args.game)
    print(f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs ({default_workers()} usable); Python {platform.python_version()}")
    print(f"workload: spielwerk fuzz {game.spec()}, {args.games} games per measurement")

    run_fuzz(game.spec(), 5, seed=10**6, workers=1)  # warm-up: numba kernels, caches
    start = time.perf_counter()
    moves = sum(len(random_playout(game, s).history) for s in range(args.games))
    t_plain = time.perf_counter() - start
    print(f"unchecked playouts      : {args.games / t_plain:8.1f} games/s "
          f"{moves / t_plain:10.0f} moves/s  (baseline: no checks)")

    single = run_fuzz(game.spec(), args.games, seed=0, workers=1)
    assert single.ok, single.failures[:1]
    print(f"fuzz, single process    : {single.games_per_second:8.1f} games/s "
          f"{single.moves_per_second:10.0f} moves/s  ({single.seconds:.2f} s)")

    if workers > 1:
        run_fuzz(game.spec(), 2 * workers, seed=2 * 10**6, workers=workers)  # pool start-up
        pool = run_fuzz(game.spec(), args.games, seed=0, workers=workers)
        assert pool.ok and pool.moves == single.moves
        print(f"fuzz, pool of {workers:<2d} procs : {pool.games_per_second:8.1f} games/s "
              f"{pool.moves_per_second:10.0f} moves/s  ({pool.seconds:.2f} s; "
              f"speed-up {pool.games_per_second / single.games_per_second:.2f}x, "
              f"pool start-up included)")
    else:
        print("fuzz, pool: skipped (one usable core)")


if __name__ == "__main__":
    main()
