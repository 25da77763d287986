"""Durak speed: MCTS / SO-ISMCTS simulations per second, playouts per second, solver nodes/s.

2-player 36-card Durak on one core. Searches run on positions taken from
greedy-vs-greedy games while the stock is not empty (greedy rollouts); the
exact endgame solver runs on positions with an empty stock from random games
(every root move solved, one table per position, nodes counted by the node
budget). Prints one line per figure and the machine; never fails on timing. The compiled
ISMCTS of ``fast_ismcts`` runs with one thread and with two (root parallelism: two
trees on two cores, so its figure counts both trees' simulations).

    .venv/bin/python benchmarks/durak_speed.py [--positions 12] [--seconds 0.5]
    .venv/bin/python benchmarks/durak_speed.py --compare /tmp/before/src --rounds 3

``--compare SRC`` runs this script alternately on the code under ``SRC`` (e.g.
a ``git worktree`` of an older commit) and on this checkout, ``--rounds``
times each, and prints the medians and the ratio after / before, so both
sides see the same machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import spielwerk.games  # noqa: F401
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.agents import make_rollout
from spielwerk.games.durak.rules import DurakGame, DurakInfoState, DurakState
from spielwerk.mc.determinize import determinized_mcts
from spielwerk.mc.ismcts import ismcts_search


def search_positions(game: DurakGame, n: int, seed: int) -> list[DurakInfoState]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        st = game.new_dealt_state(rng)
        stop = int(rng.integers(0, 25))
        k = 0
        while not st.is_terminal() and K.stock_size(st.S) > 0:
            if k == stop and len(st.legal_actions()) > 1:
                info = st.info_state(st.current_player)
                assert isinstance(info, DurakInfoState)
                out.append(info)
                break
            st.apply(int(K.greedy_action(st.S, False)))
            k += 1
    return out


def endgame_positions(game: DurakGame, n: int, max_cards: int, seed: int) -> list[DurakState]:
    """Random-play positions with an empty stock and at most ``max_cards`` in the hands."""
    rng = np.random.default_rng(seed)
    out: list[DurakState] = []
    while len(out) < n:
        st = game.new_dealt_state(rng)
        while not st.is_terminal():
            S = st.S
            cards = K.popcount(int(S[K.HANDS])) + K.popcount(int(S[K.HANDS + 1]))
            if K.stock_size(S) == 0 and cards <= max_cards and len(st.legal_actions()) > 1:
                out.append(st.clone())  # type: ignore[arg-type]
                break
            legal = st.legal_actions()
            st.apply(legal[int(rng.integers(len(legal)))])
    return out


class _Kernels:
    """The calls this benchmark needs, on the current API or the one before issue 12
    (policies and solver inside ``kernel``, numba's generator seeded separately)."""

    def __init__(self) -> None:
        try:
            from spielwerk.games.durak import endgame, policies
            from spielwerk.search import tt
        except ImportError:
            self.new = False
        else:
            self.new = True
            self.endgame, self.policies, self.tt = endgame, policies, tt

    def playout(self, S: np.ndarray, policy: int, seed: int) -> None:
        if self.new:
            self.policies.playout(S, policy, 0.2, seed)
        else:
            K.seed_numba(seed)
            K.playout(S, policy, 0.2)

    def solve_root_nodes(self, S: np.ndarray, tt_bits: int) -> tuple[list[int], int]:
        """Values of every root move (for seat 0) and the nodes searched."""
        budget = np.array([1 << 62], np.int64)
        buf = np.empty(K.MAX_ACTIONS, np.int64)
        n = K.legal_actions(S, buf)
        if self.new:
            table = self.tt.new_table(tt_bits)
        else:
            tt_key = np.full(1 << tt_bits, -1, np.int64)
            tt_val = np.zeros(1 << tt_bits, np.int64)
        values = []
        for a in buf[:n]:
            child = S.copy()
            K.apply_action(child, int(a))
            if self.new:
                v = self.endgame._solve(child, -1, 1, table, budget)
            else:
                v = K._solve(child, -1, 1, tt_key, tt_val, budget)
            values.append(int(v))
        return values, int((1 << 62) - budget[0])


def measure(args: argparse.Namespace) -> dict[str, Any]:
    game = load_game(f"durak(preset={args.preset},players=2,deck=36)")
    assert isinstance(game, DurakGame)
    kern = _Kernels()
    figures: dict[str, Any] = {}
    infos = search_positions(game, args.positions, 7)
    rollout = make_rollout("greedy")
    determinized_mcts(infos[0], worlds=2, iterations=20, rollout=rollout)  # warm-up
    ismcts_search(infos[0], iterations=40, rollout=rollout)
    rng = np.random.default_rng(0)
    for name in ("mcts_sims_per_s", "ismcts_sims_per_s"):
        sims, secs = 0, 0.0
        for info in infos:
            t = time.perf_counter()
            if name.startswith("mcts"):
                sims += determinized_mcts(info, worlds=30, iterations=None,
                                          time_limit=args.seconds, rollout=rollout,
                                          rng=rng).iterations
            else:
                sims += ismcts_search(info, time_limit=args.seconds, rollout=rollout,
                                      rng=rng).iterations
            secs += time.perf_counter() - t
        figures[name] = sims / secs
    try:  # the compiled ISMCTS (absent in trees before it: --compare skips it there)
        from spielwerk.games.durak.fast_ismcts import ismcts_durak
    except ImportError:
        pass
    else:
        ismcts_durak(infos[0], iterations=40, rng=rng)  # warm-up
        for threads in (1, 2):
            sims, secs = 0, 0.0
            for info in infos:
                t = time.perf_counter()
                sims += ismcts_durak(info, time_limit=args.seconds, rng=rng,
                                     threads=threads).iterations
                secs += time.perf_counter() - t
            figures[f"ismcts_compiled_{threads}t_sims_per_s"] = sims / secs
    S0 = infos[0].sample_world(rng).S
    for name, policy in (("greedy_playouts_per_s", 1), ("random_playouts_per_s", 0)):
        kern.playout(S0.copy(), policy, 1)  # warm-up
        t = time.perf_counter()
        n = 0
        while time.perf_counter() - t < 1.0:
            for i in range(200):
                kern.playout(S0.copy(), policy, n + i)
            n += 200
        figures[name] = n / (time.perf_counter() - t)
    ends = endgame_positions(game, args.endgames, args.endgame_cards, 3)
    kern.solve_root_nodes(ends[0].S, 12)  # warm-up
    nodes, secs, values = 0, 0.0, []
    for st in ends:
        t = time.perf_counter()
        vals, k = kern.solve_root_nodes(st.S, 20)
        secs += time.perf_counter() - t
        nodes += k
        values.append(vals)
    figures["solver_nodes"] = nodes
    figures["solver_nodes_per_s"] = nodes / secs
    figures["solver_values_checksum"] = sum(
        (i + 1) * (j + 1) * (v + 2) for i, vals in enumerate(values) for j, v in enumerate(vals))
    return figures


def compare(args: argparse.Namespace) -> None:
    before_src = str(Path(args.compare).resolve())
    here_src = str(Path(__file__).resolve().parents[1] / "src")
    cmd = [sys.executable, __file__, "--json", "--positions", str(args.positions),
           "--seconds", str(args.seconds), "--endgames", str(args.endgames),
           "--endgame-cards", str(args.endgame_cards), "--preset", args.preset]
    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for r in range(args.rounds):
        for side, src in (("before", before_src), ("after", here_src)):
            env = dict(os.environ, PYTHONPATH=src,
                       NUMBA_CACHE_DIR=os.path.join(args.cache_dir, side))
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            runs[side].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(f"round {r + 1} {side}: {runs[side][-1]}", file=sys.stderr, flush=True)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}; {args.rounds} alternating rounds, medians")
    print(f"{'figure':28} {'before':>14} {'after':>14} {'after/before':>13}")
    for key in runs["after"][0]:
        a = statistics.median(x[key] for x in runs["after"])
        if key not in runs["before"][0]:
            print(f"{key:28} {'-':>14} {a:14,.0f}")
            continue
        b = statistics.median(x[key] for x in runs["before"])
        print(f"{key:28} {b:14,.0f} {a:14,.0f} {a / b if b else float('nan'):13.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--seconds", type=float, default=0.5, help="search time per position")
    ap.add_argument("--endgames", type=int, default=20, help="solver positions")
    ap.add_argument("--endgame-cards", type=int, default=12,
                    help="at most this many cards in the two hands of a solver position")
    ap.add_argument("--preset", default="zarlykov2023")
    ap.add_argument("--json", action="store_true", help="one JSON line of figures")
    ap.add_argument("--compare", metavar="SRC", help="src folder of the code to compare with")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cache-dir", default="/tmp/spielwerk-durak-speed-numba")
    args = ap.parse_args()
    if args.compare:
        compare(args)
        return
    figures = measure(args)
    if args.json:
        print(json.dumps(figures))
        return
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"2-player 36-card durak, preset {args.preset}, one core")
    for key, value in figures.items():
        print(f"{key:28} {value:14,.0f}")


if __name__ == "__main__":
    main()
