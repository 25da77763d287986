"""Arena throughput and overhead: random vs random Kalah(6,4), bare API loop, serial arena, pool.

Each round measures, one after another: the bare API loop (the game itself:
``legal_actions`` / ``apply`` with ``random.Random`` draws), the serial arena
and a process pool, both through ``run_tournament`` with a results file, as a
real tournament runs. The arena overhead is serial arena time per game over
bare loop time per game, minus 1; the pool speed-up is pool games/s over
serial games/s. Medians of the per-round ratios. The overhead is also given
by CPU time (``time.process_time`` of the bare loop and of the serial arena,
both in one process), which other work on a shared machine disturbs much less
than wall time. Warm-up (numba compilation, pool start-up) is excluded.
Prints figures; never fails on timing.

    python benchmarks/arena_throughput.py [--games 1000] [--rounds 5] [--workers 2]

``--src DIR`` (repeatable) measures other source trees (e.g. an older commit
unpacked with ``git archive COMMIT src | tar -x -C DIR``) in the same run,
alternating round by round with this one, each in its own process:

    python benchmarks/arena_throughput.py --src /tmp/before --label before

``--pairs N`` instead measures only the serial arena's CPU overhead, from N
adjacent pairs (bare loop, then the arena) per process, the median of the
pair ratios, which moves much less with other work on the machine:

    python benchmarks/arena_throughput.py --pairs 31 --games 1000 --rounds 2 \
        --src /tmp/before --label before

``--breakdown`` instead prints the CPU cost per game of each layer of the
serial arena (bare loop, play, a batch of games, its results lines, the plan,
tournament, results file); ``--pieces`` the per-game pieces measured alone
(plan, batch wrapper, results lines, result objects). Both measure the
spielwerk on ``PYTHONPATH`` (or installed) and need its batch path
(``spielwerk.arena.batch``, since the fourth pass of issue 18).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GAME = "kalah(pits=6,seeds=4)"


def bare_loop(game: Any, games: int, seed: int) -> None:
    """The game itself: random games through the public API, as a user writes the loop."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        state.returns()


def one_round(games: int, workers: int, seed: int) -> dict[str, float]:
    """games/s of the bare loop, the serial arena and the pool (this process's spielwerk)."""
    from spielwerk import load_game
    from spielwerk.arena import (
        LocalProcessExecutor,
        SerialExecutor,
        TournamentConfig,
        run_tournament,
    )

    game = load_game(GAME)

    cpu: dict[str, float] = {}

    def bare(n: int, s: int) -> float:
        cpu0 = time.process_time()
        start = time.perf_counter()
        bare_loop(game, n, s)
        wall = time.perf_counter() - start
        cpu["bare_cpu"] = n / (time.process_time() - cpu0)
        return n / wall

    with tempfile.TemporaryDirectory() as tmp:
        def arena(executor: object, n: int, s: int) -> float:
            config = TournamentConfig.create(GAME, ["random", "random"], n, seed=s)
            cpu0 = time.process_time()
            start = time.perf_counter()
            result = run_tournament(config, executor,  # type: ignore[arg-type]
                                    output=Path(tmp) / f"r{s}.jsonl")
            wall = time.perf_counter() - start
            cpu["arena_cpu"] = n / (time.process_time() - cpu0)  # this process only
            assert len(result.results) == n
            return n / wall

        bare(20, 0)
        serial = SerialExecutor()
        arena(serial, 20, 1)
        with LocalProcessExecutor(workers) as pool:
            arena(pool, 4 * workers, 2)  # start-up and warm-up
            row = {"bare": bare(games, seed), "serial": arena(serial, games, 10 + seed)}
            row.update(cpu)
            before = _worker_cpu(pool)
            row["pool"] = arena(pool, games, 100 + seed)
            after = _worker_cpu(pool)
            if before and after and before.keys() == after.keys():
                used = [after[pid] - before[pid] for pid in after]
                # games per CPU second: all of the pool (main process and workers), and
                # the busiest worker alone (what the pool would reach with a core per worker)
                row["pool_cpu"] = games / (games / cpu["arena_cpu"] + sum(used))
                row["pool_busiest"] = games / max(max(used), 1e-9)
            return row


def paired(games: int, pairs: int, seed: int = 0) -> list[float]:
    """CPU overhead of the serial arena (``run_tournament`` with a results file) over the
    bare loop, from ``pairs`` adjacent pairs of ``games`` games each: one ratio per pair.
    Two measurements a few tenths of a second apart see about the same load, so the
    median of many pairs moves much less on a shared machine than one long pair."""
    from spielwerk import load_game
    from spielwerk.arena import SerialExecutor, TournamentConfig, run_tournament

    game = load_game(GAME)

    def bare(s: int) -> float:
        start = time.process_time()
        bare_loop(game, games, s)
        return time.process_time() - start

    with tempfile.TemporaryDirectory() as tmp:
        def arena(s: int) -> float:
            config = TournamentConfig.create(GAME, ["random", "random"], games, seed=s)
            start = time.process_time()
            run_tournament(config, SerialExecutor(), output=Path(tmp) / f"p{s}.jsonl")
            return time.process_time() - start

        bare(seed)
        arena(seed)  # warm-up
        return [arena(seed + 1 + p) / bare(seed + 1 + p) - 1 for p in range(pairs)]


def _worker_cpu(executor: object) -> dict[int, float] | None:
    """CPU seconds used so far by each worker process of a local pool (Linux /proc)."""
    procs = getattr(getattr(executor, "_pool", None), "_processes", None)
    if not procs:
        return None
    out = {}
    try:
        for pid in procs:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    return out


def breakdown(games: int, rounds: int, spec: str = GAME) -> None:
    """CPU µs per game of the arena's layers, each adding one step to the one before:
    the bare loop, ``play`` with kept agents reset per game, ``run_batch`` over a ready
    plan, with the results lines, the plan too, ``run_tournament`` without and with a
    results file. Medians of ``rounds`` rounds that alternate the layers (this
    process's spielwerk, which needs the batch path: ``spielwerk.arena.batch``)."""
    from spielwerk import load_game
    from spielwerk.arena import SerialExecutor, TournamentConfig, run_tournament
    from spielwerk.arena.batch import run_batch
    from spielwerk.core.agent import make_agent
    from spielwerk.core.play import Seating, play

    game = load_game(spec)
    agents = [make_agent("random", game, seed=s) for s in range(game.num_players)]
    seating = Seating(agents, game.num_players)
    plan = TournamentConfig.create(spec, ["random", "random"], games, seed=1).plan()

    def bare(s: int) -> None:
        bare_loop(game, games, s)

    def loop(s: int) -> None:
        chance = random.Random(s)
        for i in range(games):
            for seat, agent in enumerate(agents):
                agent.reset(s * 10**6 + 2 * i + seat)
            play(game.new_initial_state(), seating, chance)

    def batch(s: int) -> None:
        run_batch(plan)

    def with_lines(s: int) -> None:
        run_batch(plan, lines=True)

    def with_plan(s: int) -> None:
        run_batch(TournamentConfig.create(spec, ["random", "random"], games, seed=s).plan(),
                  lines=True)

    def tournament(s: int) -> None:
        config = TournamentConfig.create(spec, ["random", "random"], games, seed=s)
        run_tournament(config, SerialExecutor())

    with tempfile.TemporaryDirectory() as tmp:
        def with_file(s: int) -> None:
            config = TournamentConfig.create(spec, ["random", "random"], games, seed=s)
            run_tournament(config, SerialExecutor(), output=Path(tmp) / f"b{s}.jsonl")

        layers = [("bare API loop", bare), ("play, kept agents", loop),
                  ("run_batch, ready plan", batch), ("+ results lines", with_lines),
                  ("+ the plan", with_plan), ("run_tournament, no file", tournament),
                  ("+ results file", with_file)]
        for _, f in layers:
            f(0)  # warm-up (kernels, caches)
        cpu: dict[str, list[float]] = {name: [] for name, _ in layers}
        for r in range(rounds):
            for name, f in layers:
                start = time.process_time()
                f(1000 + r)
                cpu[name].append(1e6 * (time.process_time() - start) / games)
    print(f"\n## where the arena's time goes: {spec}, {games} games, CPU µs per game "
          f"(median of {rounds} rounds, minimum in brackets)")
    base = statistics.median(cpu["bare API loop"])
    for name, _ in layers:
        med = statistics.median(cpu[name])
        print(f"{name:26s} {med:7.1f} ({min(cpu[name]):6.1f})  {100 * (med / base - 1):+5.0f}% "
              "of the bare loop")


def pieces(games: int, rounds: int, spec: str = GAME) -> None:
    """CPU µs per game of the arena's pieces measured alone (this process's spielwerk,
    with the batch path): building the plan, the batch wrapper (``run_batch`` with
    the play replaced by a finished game), the results lines of a batch and its
    :class:`GameResult` objects. Minimum and median of ``rounds`` repeats."""
    from spielwerk.arena import TournamentConfig, batch, match
    from spielwerk.arena.tournament import _results

    config = TournamentConfig.create(spec, ["random", "random"], games, seed=1)
    plan = config.plan()
    outcome = batch.run_batch(plan)  # real games: real returns and durations
    game = match._game(plan.game)
    done = game.new_initial_state()
    while not done.is_terminal():
        done.apply(done.legal_actions()[0])
    real_play_out = batch.play_out

    def wrapper() -> None:
        batch.play_out = lambda *args: 40  # type: ignore[assignment]
        game.new_initial_state = lambda: done  # type: ignore[method-assign]
        try:
            batch.run_batch(plan)
        finally:
            batch.play_out = real_play_out
            del game.new_initial_state

    print(f"\n## the arena's per-game pieces alone: {spec}, {games} games, CPU µs each "
          f"(minimum / median of {rounds} repeats)")
    for name, f in [("plan, per game", config.plan), ("batch wrapper, per game", wrapper),
                    ("results lines, per game", lambda: batch.format_lines(plan, outcome)),
                    ("GameResults, per game", lambda: _results(plan, outcome))]:
        cpu = []
        for _ in range(rounds):
            start = time.process_time()
            f()
            cpu.append(1e6 * (time.process_time() - start) / games)
        print(f"{name:24s} {min(cpu):6.2f} / {statistics.median(cpu):6.2f}")


def _child(src: str, games: int, workers: int, seed: int, call: str = "") -> Any:
    env = dict(os.environ, PYTHONPATH=src)
    call = call or f"one_round({games}, {workers}, {seed})"
    code = (f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            f"from arena_throughput import one_round, paired; "
            f"print(json.dumps({call}))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def report_pairs(trees: list[tuple[str, str]], games: int, pairs: int, rounds: int) -> None:
    """``--pairs``: the serial arena's CPU overhead from adjacent pairs, trees alternating
    process by process (``rounds`` processes per tree)."""
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs; Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.2f}")
    print(f"workload: random vs random {GAME}; {pairs} pairs (bare loop, then the serial "
          f"arena with a results file) of {games} games per process, {rounds} processes per "
          "tree, trees alternating")
    ratios: dict[str, list[float]] = {name: [] for name, _ in trees}
    for r in range(rounds):
        for name, src in trees if r % 2 == 0 else trees[::-1]:
            got = _child(src, games, 0, 0, f"paired({games}, {pairs}, {1000 * r})")
            ratios[name].extend(got)
            print(f"process {r + 1} {name:>10s}: median overhead "
                  f"{100 * statistics.median(got):.0f}%", flush=True)
    print("\n| tree | pairs | arena overhead (CPU), median of pairs | quartiles |")
    print("|---|---|---|---|")
    for name, _ in trees:
        q1, q2, q3 = statistics.quantiles(ratios[name], n=4)
        print(f"| {name} | {len(ratios[name])} | {100 * q2:.0f}% | "
              f"{100 * q1:.0f}% .. {100 * q3:.0f}% |")
    print(f"\nload average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per measurement (even)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2, help="pool size (default 2)")
    parser.add_argument("--src", action="append", default=[],
                        help="another source tree (its src/ folder) to measure alternately")
    parser.add_argument("--label", action="append", default=[], help="a name per --src")
    parser.add_argument("--breakdown", action="store_true",
                        help="only the per-layer CPU cost per game (this tree), then stop")
    parser.add_argument("--pairs", type=int, default=0,
                        help="only the serial arena's CPU overhead from this many adjacent "
                        "pairs per process (--rounds processes per tree)")
    parser.add_argument("--pieces", action="store_true",
                        help="only the per-game pieces measured alone (this tree), then stop")
    args = parser.parse_args()
    if args.breakdown or args.pieces:
        print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs; Python "
              f"{platform.python_version()}; load average {os.getloadavg()[0]:.2f}")
        (breakdown if args.breakdown else pieces)(args.games, args.rounds)
        return
    games = args.games + args.games % 2
    here = str(Path(__file__).resolve().parent.parent / "src")
    trees = [("this tree", here)] + [
        (args.label[i] if i < len(args.label) else src, str(Path(src).resolve()))
        for i, src in enumerate(args.src)
    ]
    if args.pairs:
        report_pairs(trees, games, args.pairs, args.rounds)
        return
    print(f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs; Python {platform.python_version()}")
    print(f"workload: random vs random {GAME}, {games} games per measurement, results file "
          f"on, pool of {args.workers}; {args.rounds} rounds, trees alternate within a round")
    rows: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
    for r in range(args.rounds):
        for name, src in trees if r % 2 == 0 else trees[::-1]:
            row = _child(src, games, args.workers, r)
            rows[name].append(row)
            print(f"round {r + 1} {name:>10s}: bare {row['bare']:7.0f}  serial arena "
                  f"{row['serial']:7.0f}  pool {row['pool']:7.0f} games/s", flush=True)
    print()
    print("| tree | bare API loop games/s | serial arena games/s | arena overhead (wall) | "
          "arena overhead (CPU) | pool vs serial | pool CPU vs serial CPU per game | "
          "pool with a core per worker (CPU) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, _ in trees:
        runs = rows[name]
        overhead = statistics.median(x["bare"] / x["serial"] - 1 for x in runs)
        cpu_overhead = statistics.median(x["bare_cpu"] / x["arena_cpu"] - 1 for x in runs)
        speedup = statistics.median(x["pool"] / x["serial"] for x in runs)
        with_cpu = [x for x in runs if "pool_cpu" in x]
        pool_cpu = (f"{statistics.median(x['arena_cpu'] / x['pool_cpu'] for x in with_cpu):.2f}x"
                    if with_cpu else "n/a")
        busiest = (f"{statistics.median(x['pool_busiest'] / x['arena_cpu'] for x in with_cpu):.2f}x"
                   if with_cpu else "n/a")
        print(f"| {name} | {statistics.median(x['bare'] for x in runs):,.0f} | "
              f"{statistics.median(x['serial'] for x in runs):,.0f} | "
              f"{100 * overhead:.0f}% | {100 * cpu_overhead:.0f}% | {speedup:.2f}x | "
              f"{pool_cpu} | {busiest} |")
    print("\n(pool CPU: the main process and the workers together, per game, over the serial "
          "arena's CPU per game; a core per worker: serial CPU per game over the busiest "
          "worker's, what the pool reaches when nothing else competes for the cores; CPU "
          "times from /proc in 10 ms ticks)")
    print(f"\nload average: {', '.join(f'{x:.2f}' for x in os.getloadavg())} "
          "(other work on the machine slows every run)")


if __name__ == "__main__":
    main()
