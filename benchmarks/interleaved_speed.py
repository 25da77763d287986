"""Two source trees timed interleaved: is one as fast as the other?

Each workload runs in a fresh process per tree (``PYTHONPATH=TREE/src``, its own
numba cache), first once untimed so compilation and caches are warm, then the
rounds alternate the order of the trees (A B, B A, A B, ...) so that a noisy,
shared machine slows both alike. A process runs its workload ``--repeats`` times
and reports the fastest (the run the machine's other work took least from).
Per workload it prints each tree's median seconds over the rounds, the ratio
B/A and the spread of the per-round ratios; the work done
(node counts, moves played) must be the same in both trees and is checked.

Workloads use only the public API both trees share (``spielwerk.load_game``,
``make_agent``, the ``spielwerk.bench`` positions, read the way each tree offers them):

* ``dds``: the Skat double-dummy solver on the ``spielwerk bench`` positions;
* ``kalah``: the Kalah solver on the ``spielwerk bench`` Kalah(6,4) positions;
* ``kalah63``: Kalah(6,3) solved from the start (3 M nodes, about a second);
* ``durak_endgame``: the exact Durak endgame search on the bench positions;
* ``pimc``: whole Skat deals with ``pimc:worlds=4`` in every seat;
* ``durak_mcts``: a seeded Durak game, ``mcts`` (fixed iterations) against ``ismcts``;
* ``playouts``: random playouts through the Game API, all three games.

    .venv/bin/python benchmarks/interleaved_speed.py --a /tmp/before --b . --rounds 5
    .venv/bin/python benchmarks/interleaved_speed.py --a /tmp/before --b . --only dds,pimc

A tree is any checkout (``git worktree add --detach /tmp/before COMMIT``). Nothing
here fails on timing; the exit status is 1 only when a workload errors or the two
trees did different work.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

PRELUDE = """
import json, random, sys, time
import numpy as np
import spielwerk
from spielwerk.core.game import sample_chance

def rows_work(rows):
    "(seconds, nodes) of spielwerk.bench's (label, nodes, seconds) rows"
    rows = list(rows)
    return sum(r[2] for r in rows), sum(r[1] for r in rows)

def play(game, agents, seed, limit=10**9):
    "moves the agents make in one seeded game, at most limit"
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < limit:
        if state.is_chance_node():
            state.apply(sample_chance(state, rng))
            continue
        p = state.current_player
        state.apply(agents[p].act(state.info_state(p)))
        moves += 1
    return moves
"""

WORKLOADS: dict[str, str] = {
    "dds": """
try:  # the game's bench workload (named by its plug-in record)
    from spielwerk.bench import workload
    skat_nodes = workload("skat").positions
except ImportError:  # a tree from before the plug-in records
    from spielwerk.bench import skat_nodes
def work():
    return rows_work(skat_nodes())
""",
    "kalah": """
try:  # the game's bench workload (named by its plug-in record)
    from spielwerk.bench import workload
    kalah_nodes = workload("kalah").positions
except ImportError:  # a tree from before the plug-in records
    from spielwerk.bench import kalah_nodes
def work():
    return rows_work(kalah_nodes())
""",
    "kalah63": """
from spielwerk.games.kalah.solver import Solver
def work():
    solver = Solver(6, True, max_seeds=36, tt_log2=20, depth_step=0)
    board = np.array([3] * 6 + [0] + [3] * 6 + [0], dtype=np.int64)
    start = time.perf_counter()
    value = solver.value(solver.relative(board, 0))
    return time.perf_counter() - start, solver.stats.nodes * 100 + value
""",
    "durak_endgame": """
try:  # the game's bench workload (named by its plug-in record)
    from spielwerk.bench import workload
    durak_nodes = workload("durak").positions
except ImportError:  # a tree from before the plug-in records
    from spielwerk.bench import durak_nodes
def work():
    return rows_work(durak_nodes())
""",
    "pimc": """
def work():
    game = spielwerk.load_game("skat")
    start = time.perf_counter()
    moves = sum(play(game, [spielwerk.make_agent("pimc:worlds=4", game, seed=10 * deal + s)
                            for s in range(3)], deal) for deal in range(2))
    return time.perf_counter() - start, moves
""",
    "durak_mcts": """
def work():
    game = spielwerk.load_game("durak")
    agents = [spielwerk.make_agent(spec, game, seed=s) for s, spec in enumerate(("mcts", "ismcts"))]
    start = time.perf_counter()
    moves = play(game, agents, 7, limit=40)
    return time.perf_counter() - start, moves
""",
    "playouts": """
def work():
    moves = 0
    start = time.perf_counter()
    for name, n in (("skat", 300), ("durak", 300), ("kalah", 1000)):
        game = spielwerk.load_game(name)
        rng = random.Random(3)
        crng = np.random.default_rng(3)
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply(sample_chance(state, crng))
                    continue
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])
                moves += 1
    return time.perf_counter() - start, moves
""",
}

RUN = """
work()  # warm: compilation, caches
runs = [work() for _ in range(REPEATS)]
assert len({done for _, done in runs}) == 1, runs
print(json.dumps({"seconds": min(s for s, _ in runs), "work": runs[0][1]}))
"""


def run_once(tree: Path, name: str, cache: Path, repeats: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), NUMBA_CACHE_DIR=str(cache))
    code = PRELUDE + f"REPEATS = {repeats}\n" + WORKLOADS[name] + RUN
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{name} in {tree} failed:\n{out.stderr[-2000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--a", type=Path, required=True, help="the first source tree (the before)")
    ap.add_argument("--b", type=Path, default=Path("."), help="the second source tree")
    ap.add_argument("--rounds", type=int, default=5, help="timed runs per tree and workload")
    ap.add_argument("--repeats", type=int, default=5,
                    help="runs of the workload per process after the warm one; the fastest "
                         "counts (what the machine's other work took least from)")
    ap.add_argument("--only", default="", help="comma-separated workloads (default: all)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/spielwerk-interleaved"),
                    help="numba cache folders go here, one per tree")
    args = ap.parse_args()
    if args.rounds < 1 or args.repeats < 1:
        ap.error("--rounds and --repeats must be at least 1")
    names = [n for n in args.only.split(",") if n] or list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        ap.error(f"unknown workloads {unknown}; known: {', '.join(WORKLOADS)}")
    trees = {"A": args.a.resolve(), "B": args.b.resolve()}
    for t in trees.values():
        if not (t / "src" / "spielwerk").is_dir():
            ap.error(f"{t} holds no src/spielwerk")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}; A = {trees['A']}, B = {trees['B']}", flush=True)
    print(f"{'workload':<14} {'A s (median)':>12} {'B s (median)':>12} {'B/A':>6} "
          f"{'per-round B/A range':>20}  work", flush=True)
    failed = False
    for name in names:
        times: dict[str, list[float]] = {"A": [], "B": []}
        work: dict[str, set[float]] = {"A": set(), "B": set()}
        try:
            for r in range(args.rounds):
                for key in ("A", "B") if r % 2 == 0 else ("B", "A"):
                    res = run_once(trees[key], name, args.cache / key, args.repeats)
                    times[key].append(res["seconds"])
                    work[key].add(res["work"])
        except RuntimeError as e:
            print(f"{name:<14} error: {e}", flush=True)
            failed = True
            continue
        ratios = [b / a for a, b in zip(times["A"], times["B"], strict=True)]
        same = work["A"] == work["B"] and len(work["A"]) == 1
        failed |= not same
        ma, mb = statistics.median(times["A"]), statistics.median(times["B"])
        print(f"{name:<14} {ma:>12.3f} {mb:>12.3f} {mb / ma:>6.2f} "
              f"{min(ratios):>9.2f} .. {max(ratios):<8.2f}  "
              f"{'same ' if same else 'DIFFERENT '}{sorted(work['A'])} / {sorted(work['B'])}",
              flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
