"""Speed where users feel it: the Python game API beside OpenSpiel's, import and start-up.

Random games through the public API (the natural loop a user writes: chance
outcomes sampled uniformly, a random legal action otherwise, ``apply`` until
terminal, then ``returns``), side by side with the same loop over pyspiel's
``mancala`` and ``skat`` in one run; Durak (pyspiel has none) reported too.
The same ``random.Random`` draws drive both libraries. Then the batch paths
(``game.random_playouts``, when present), ``import spielwerk`` time and
memory, ``spielwerk --help`` time, the first real command on a fresh numba
cache, and the arena (serial, random vs random Kalah) against the bare loop.

    nice -n 10 .venv/bin/python benchmarks/api_speed.py [--seconds 1.0] [--repeats 5]
    .venv/bin/python benchmarks/api_speed.py --skip api,batch,startup,first,arena  # interleaved
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/api_speed.py   # an older tree

Each figure is the median of ``--repeats`` timed runs (the machine is shared).
Prints figures; never fails on time.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def spielwerk_loop(spec: str) -> Callable[[int], int]:
    from spielwerk import load_game

    game = load_game(spec)

    def one_game(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = outcomes[rng.randrange(len(outcomes))][0]
            else:
                legal = state.legal_actions()
                action = legal[rng.randrange(len(legal))]
            state.apply(action)
            actions += 1
        state.returns()
        return actions

    return one_game


def pyspiel_loop(name: str) -> Callable[[int], int] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)

    def one_game(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = outcomes[rng.randrange(len(outcomes))][0]
            else:
                legal = state.legal_actions()
                action = legal[rng.randrange(len(legal))]
            state.apply_action(action)
            actions += 1
        state.returns()
        return actions

    return one_game


def timed(one_game: Callable[[int], int], seconds: float, seed: int) -> tuple[float, float, float]:
    """Games/s and actions/s (wall clock) and games per CPU second of one run of about
    ``seconds``. CPU time is steadier than wall time on a shared machine."""
    games = actions = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while True:
        actions += one_game(seed + games)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed, actions / elapsed, games / (time.process_time() - cpu)


def api_section(seconds: float, repeats: int) -> dict[str, float]:
    print(f"\n## random games through the API (median of {repeats} runs of {seconds:.1f} s each;"
          " the two libraries alternate, the ratio is the median of per-run ratios)")
    print(f"{'game':24s} {'spielwerk games/s':>18s} {'actions/s':>10s} "
          f"{'pyspiel games/s':>16s} {'actions/s':>10s} {'ratio games':>12s} {'actions':>8s} "
          f"{'games by CPU time':>18s}")
    figures: dict[str, float] = {}
    rows = [
        ("kalah(pits=6,seeds=4)", "mancala"),
        ("skat", "skat"),
        ("durak", None),
    ]
    for spec, os_name in rows:
        ours_loop = spielwerk_loop(spec)
        theirs_loop = pyspiel_loop(os_name) if os_name is not None else None
        ours_loop(0)  # warm-up (numba, caches)
        if theirs_loop is not None:
            theirs_loop(0)
        ours, theirs = [], []
        for r in range(repeats):
            ours.append(timed(ours_loop, seconds, 1000 * r))
            if theirs_loop is not None:
                theirs.append(timed(theirs_loop, seconds, 1000 * r))
        og = statistics.median(x[0] for x in ours)
        oa = statistics.median(x[1] for x in ours)
        figures[spec] = og
        if not theirs:
            print(f"{spec:24s} {og:18,.0f} {oa:10,.0f} {'-':>16s} {'-':>10s} {'-':>12s}")
            continue
        tg = statistics.median(x[0] for x in theirs)
        ta = statistics.median(x[1] for x in theirs)
        rg = statistics.median(o[0] / t[0] for o, t in zip(ours, theirs, strict=True))
        ra = statistics.median(o[1] / t[1] for o, t in zip(ours, theirs, strict=True))
        rc = statistics.median(o[2] / t[2] for o, t in zip(ours, theirs, strict=True))
        figures[f"pyspiel {os_name}"] = tg
        print(f"{spec:24s} {og:18,.0f} {oa:10,.0f} {tg:16,.0f} {ta:10,.0f} {rg:11.2f}x "
              f"{ra:7.2f}x {rc:17.2f}x")
    return figures


def interleaved_section(games: int, chunks: int) -> None:
    """The same loops, alternating game by game between the libraries, by CPU time: load
    that comes and goes on a shared machine falls on both alike (steadier than 1 s runs)."""
    print(f"\n## random games, the libraries alternating game by game ({chunks} chunks of "
          f"{games} games each; CPU time per game; the ratio is pyspiel's time / ours)")
    for spec, os_name in (("kalah(pits=6,seeds=4)", "mancala"), ("skat", "skat"),
                          ("durak", None)):
        ours = spielwerk_loop(spec)
        if os_name is None:  # pyspiel has no Durak: ours alone, by CPU time
            _ours_alone(spec, ours, games, chunks)
            continue
        theirs = pyspiel_loop(os_name)
        if theirs is None:
            print("pyspiel is not installed")
            return
        for seed in range(20):  # warm-up (numba, caches)
            ours(seed)
            theirs(seed)
        clock = time.process_time
        ours_cpu = theirs_cpu = 0.0
        ours_actions = theirs_actions = 0
        ratios = []
        for chunk in range(chunks):
            a = b = 0.0
            for seed in range(chunk * games, (chunk + 1) * games):
                t0 = clock()
                ours_actions += ours(seed)
                t1 = clock()
                theirs_actions += theirs(seed)
                b += clock() - t1
                a += t1 - t0
            ours_cpu, theirs_cpu = ours_cpu + a, theirs_cpu + b
            ratios.append(b / a)
        n = games * chunks
        print(f"{spec:24s} spielwerk {1e6 * ours_cpu / n:6.0f} µs/game "
              f"({ours_actions / n:.0f} actions), pyspiel {1e6 * theirs_cpu / n:6.0f} µs/game "
              f"({theirs_actions / n:.0f} actions): games {theirs_cpu / ours_cpu:.2f}x "
              f"(chunks {min(ratios):.2f}-{max(ratios):.2f}x), actions "
              f"{(ours_actions / ours_cpu) / (theirs_actions / theirs_cpu):.2f}x")


def _ours_alone(spec: str, ours: Callable[[int], int], games: int, chunks: int) -> None:
    for seed in range(20):
        ours(seed)
    per_chunk, actions = [], 0
    for chunk in range(chunks):
        t0 = time.process_time()
        for seed in range(chunk * games, (chunk + 1) * games):
            actions += ours(seed)
        per_chunk.append((time.process_time() - t0) / games)
    n = games * chunks
    print(f"{spec:24s} spielwerk {1e6 * sum(per_chunk) / chunks:6.0f} µs/game "
          f"({actions / n:.0f} actions; chunks {1e6 * min(per_chunk):.0f}-"
          f"{1e6 * max(per_chunk):.0f} µs), {n / (sum(per_chunk) * games):,.0f} games per "
          f"CPU second, {actions / (sum(per_chunk) * games):,.0f} actions per CPU second "
          "(pyspiel has no Durak)")


def batch_section(repeats: int) -> None:
    from spielwerk import load_game

    print(f"\n## batch path: game.random_playouts(n, seed) (median of {repeats} runs; wall "
          "and CPU time)")
    for spec, n in (("kalah(pits=6,seeds=4)", 20_000), ("skat", 5_000), ("durak", 2_000)):
        game = load_game(spec)
        if not hasattr(game, "random_playouts"):
            print(f"{spec:28s} (no batch path in this tree)")
            continue
        game.random_playouts(10, 0)  # warm-up
        rates, cpu_rates = [], []
        for r in range(repeats):
            start, cpu = time.perf_counter(), time.process_time()
            game.random_playouts(n, r)
            rates.append(n / (time.perf_counter() - start))
            cpu_rates.append(n / max(time.process_time() - cpu, 1e-9))
        print(f"{spec:28s} {statistics.median(rates):12,.0f} games/s "
              f"{statistics.median(cpu_rates):12,.0f} games per CPU second")


def _median_wall(cmd: list[str], repeats: int, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def startup_section(repeats: int) -> None:
    print(f"\n## start-up (median of {repeats} fresh interpreters)")
    probe = ("import time; t = time.perf_counter(); import {mod}; "
             "d = time.perf_counter() - t; "
             "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
             "print(d, int(hwm.split()[1]) / 1024)")
    for mod in ("spielwerk", "spielwerk.core", "pyspiel"):
        results = []
        for _ in range(repeats):
            out = subprocess.run([sys.executable, "-c", probe.format(mod=mod)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                break
            seconds, mib = out.stdout.split()
            results.append((float(seconds), float(mib)))
        if not results:
            print(f"import {mod:14s}: not available")
            continue
        print(f"import {mod:14s}: {statistics.median(r[0] for r in results):6.3f} s, "
              f"peak RSS {statistics.median(r[1] for r in results):5.0f} MiB (whole process)")
    base = _median_wall([sys.executable, "-c", "pass"], repeats)
    cli = [sys.executable, "-c", "from spielwerk.cli.main import main; main()", "--help"]
    helped = _median_wall(cli, repeats)
    print(f"spielwerk --help  : {helped:6.3f} s wall ({base:.3f} s of it a bare interpreter)")


def first_command_section() -> None:
    print("\n## first real command on a fresh numba cache: kalah solve --pits 4 --seeds 3")
    cmd = [sys.executable, "-c", "from spielwerk.cli.main import main; main()",
           "kalah", "solve", "--pits", "4", "--seeds", "3"]
    folder = Path(tempfile.mkdtemp(prefix="spielwerk-bench-cache-"))
    try:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(folder / "numba"),
                   SPIELWERK_CACHE_DIR=str(folder / "spielwerk"))
        cold = _median_wall(cmd, 1, env)
        warm = _median_wall(cmd, 3, env)
        print(f"fresh cache (compiles): {cold:6.2f} s;  second run (cache filled): {warm:6.2f} s")
        warm_cmd = [sys.executable, "-c", "from spielwerk.cli.main import main; main()",
                    "warmup"]
        folder2 = folder / "warmed"
        env2 = dict(os.environ, NUMBA_CACHE_DIR=str(folder2 / "numba"),
                    SPIELWERK_CACHE_DIR=str(folder2 / "spielwerk"))
        probe = subprocess.run(warm_cmd + ["--help"], capture_output=True, env=env2)
        if probe.returncode == 0:
            start = time.perf_counter()
            subprocess.run(warm_cmd, check=True, capture_output=True, env=env2)
            took = time.perf_counter() - start
            after = _median_wall(cmd, 1, env2)
            print(f"after `spielwerk warmup` ({took:.1f} s, as make/install runs it): "
                  f"first command {after:6.2f} s")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def arena_section(seconds: float, games: int, repeats: int) -> None:
    from spielwerk.arena import (
        LocalProcessExecutor,
        SerialExecutor,
        TournamentConfig,
        run_tournament,
    )

    print(f"\n## arena: random vs random kalah(pits=6,seeds=4), {games} games per run, results "
          f"file on; bare loop, serial arena and pool alternate ({repeats} rounds, medians)")
    loop = spielwerk_loop("kalah(pits=6,seeds=4)")
    loop(0)
    with tempfile.TemporaryDirectory() as tmp:
        def run(executor: object, seed: int) -> float:
            config = TournamentConfig.create("kalah(pits=6,seeds=4)", ["random", "random"],
                                             games, seed=seed)
            start = time.perf_counter()
            run_tournament(config, executor, output=Path(tmp) / f"r{seed}.jsonl")  # type: ignore[arg-type]
            return games / (time.perf_counter() - start)

        serial = SerialExecutor()
        workers = os.cpu_count() or 1
        run(serial, 100)
        rows = []
        with LocalProcessExecutor(workers) as pool:
            run(pool, 300)
            for r in range(repeats):
                bare = timed(loop, seconds, 1000 * r)[0]
                rows.append((bare, run(serial, 200 + r), run(pool, 400 + r)))
        bare = statistics.median(b for b, _, _ in rows)
        ser = statistics.median(s for _, s, _ in rows)
        pool_rate = statistics.median(p for _, _, p in rows)
        overhead = statistics.median(b / s - 1 for b, s, _ in rows)
        speedup = statistics.median(p / s for _, s, p in rows)
    print(f"bare API loop {bare:9,.0f} games/s; serial arena {ser:9,.0f} games/s: arena overhead "
          f"{100 * overhead:.0f}% of the game (median of per-round ratios)")
    print(f"pool of {workers}: {pool_rate:9,.0f} games/s = {speedup:.2f}x serial")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure")
    parser.add_argument("--arena-games", type=int, default=2000)
    parser.add_argument("--skip", default="",
                        help="comma list: api,interleaved,batch,startup,first,arena")
    parser.add_argument("--interleaved-games", type=int, default=100,
                        help="games per chunk of the interleaved section (10 chunks)")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    import spielwerk
    from spielwerk.core.machine import describe

    print(f"machine: {describe()}; {platform.platform()}")
    print(f"spielwerk from {Path(spielwerk.__file__).parent}")
    if "api" not in skip:
        api_section(args.seconds, args.repeats)
    if "interleaved" not in skip:
        interleaved_section(args.interleaved_games, 10)
    if "batch" not in skip:
        batch_section(args.repeats)
    if "startup" not in skip:
        startup_section(args.repeats)
    if "first" not in skip:
        first_command_section()
    if "arena" not in skip:
        arena_section(args.seconds, args.arena_games, args.repeats)


if __name__ == "__main__":
    main()
