"""Mean and maximum seconds per decision of Durak agents (one core), for the tournament notes.

Positions come from greedy-vs-greedy games (all phases, forced moves skipped). Prints
the machine and one line per agent (mean, 95th percentile, max); never fails on time.

    .venv/bin/python benchmarks/durak_time_per_move.py --agents greedy smart minimax \
        mcts:time=0.1 ismcts:time=0.1 [--positions 30]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import spielwerk.games  # noqa: F401
from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.durak.policies import greedy_action
from spielwerk.games.durak.rules import DurakGame, DurakInfoState


def positions(game: DurakGame, n: int, seed: int) -> list[DurakInfoState]:
    rng = np.random.default_rng(seed)
    out: list[DurakInfoState] = []
    while len(out) < n:
        st = game.new_dealt_state(rng)
        while not st.is_terminal():
            if len(st.legal_actions()) > 1 and rng.random() < 0.15:
                info = st.info_state(st.current_player)
                assert isinstance(info, DurakInfoState)
                out.append(info)
            st.apply(int(greedy_action(st.S, False)))
    return out[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", nargs="+",
                    default=["greedy", "smart", "minimax", "mcts:time=0.1", "ismcts:time=0.1"])
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--game", default="durak(preset=zarlykov2023)")
    args = ap.parse_args()
    game = load_game(args.game)
    assert isinstance(game, DurakGame)
    infos = positions(game, args.positions, 3)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}; Python {platform.python_version()}")
    for spec in args.agents:
        agent = make_agent(spec, game, seed=0)
        agent.act(infos[0])  # warm-up (numba cache load)
        times = []
        for info in infos:
            t = time.perf_counter()
            agent.act(info)
            times.append(time.perf_counter() - t)
        print(f"{spec:24s} mean {np.mean(times) * 1000:8.1f} ms/move, "
              f"p95 {np.percentile(times, 95) * 1000:8.1f} ms, "
              f"max {np.max(times) * 1000:8.1f} ms ({len(infos)} positions, {game.spec()})")


if __name__ == "__main__":
    main()
