"""Simulations per second and real time per move: our MCTS/ISMCTS and OpenSpiel's bots.

Every agent searches the same positions (seeded random games of Durak
zarlykov2023 stopped while the stock still holds cards, so no exact endgame
solver is involved, and of Kalah(6,4)):

- with a fixed number of simulations: simulations per second (ours: worlds x
  iterations for determinized MCTS, iterations for ISMCTS; OpenSpiel's:
  ``max_simulations``, counted by the adapter);
- with ``time=T`` seconds per move: the real mean and largest time per move
  (OpenSpiel's bots have no clock; the adapter sets each move's simulations
  from the measured rate).

    nice -n 10 .venv/bin/python benchmarks/interop_speed.py --positions 8 --time 0.02

CPU time (``process_time``) is reported beside wall time: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from spielwerk import load_game, make_agent
from spielwerk.core.game import CHANCE, Game, State

DURAK = "durak(preset=zarlykov2023)"
KALAH = "kalah(pits=6,seeds=4)"


def positions(game: Game, count: int, seed: int) -> list[State]:
    """``count`` positions with a choice to make, from seeded random games."""
    rng = np.random.default_rng(seed)
    out: list[State] = []
    while len(out) < count:
        state = game.new_initial_state()
        stop = int(rng.integers(0, 24))
        moves = 0
        while not state.is_terminal():
            if state.current_player == CHANCE:
                outcomes = state.chance_outcomes()
                state.apply(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            legal = state.legal_actions()
            if moves >= stop and len(legal) > 1:
                if game.name != "durak" or state.stock_size() > 2:  # type: ignore[attr-defined]
                    out.append(state.clone())
                break
            state.apply(legal[int(rng.integers(len(legal)))])
            moves += 1
    return out


def measure(game: Game, spec: str, states: list[State], sims_per_move: int | None) -> str:
    agent = make_agent(spec, game, seed=1)
    agent.act(states[0].info_state(states[0].current_player))  # warm up (numba, caches)
    sims_before = getattr(agent, "simulations", 0)
    times = []
    cpu0 = time.process_time()
    for i, state in enumerate(states):
        agent.reset(100 + i)
        start = time.perf_counter()
        agent.act(state.info_state(state.current_player))
        times.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu0
    wall = sum(times)
    if sims_per_move is None:  # counted by the adapter
        sims = getattr(agent, "simulations", 0) - sims_before
    else:
        sims = sims_per_move * len(states)
    return (
        f"  {spec:44s} {1000 * wall / len(states):8.1f} ms/move (max {1000 * max(times):7.1f},"
        f" cpu {1000 * cpu / len(states):7.1f})"
        f"  {sims / wall:9.0f} sims/s wall  {sims / max(cpu, 1e-9):9.0f} sims/s cpu"
        f"  ({sims} sims)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--positions", type=int, default=8)
    p.add_argument("--time", type=float, default=0.02, help="seconds per move for the timed rows")
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"python {platform.python_version()}")
    t = args.time
    plan = {
        DURAK: [
            ("mcts:worlds=10:iters=90", 900), ("ismcts:iters=900", 900),
            ("openspiel:mcts:iters=60:c=2.8", None), ("openspiel:ismcts:iters=60:c=1.4", None),
            (f"mcts:time={t}", None), (f"ismcts:time={t}", None),
            (f"openspiel:mcts:time={t}:c=2.8", None), (f"openspiel:ismcts:time={t}:c=1.4", None),
        ],
        KALAH: [
            ("mcts:worlds=1:iters=900", 900), ("ismcts:iters=900", 900),
            ("openspiel:mcts:iters=300:c=134.4", None),
            (f"mcts:worlds=1:time={t}", None), (f"ismcts:time={t}", None),
            (f"openspiel:mcts:time={t}:c=134.4", None),
        ],
    }
    for spec, agents in plan.items():
        game = load_game(spec)
        states = positions(game, args.positions, args.seed)
        print(f"{game.spec()}: {len(states)} positions (seed {args.seed})")
        for agent_spec, sims in agents:
            if "time=" in agent_spec and not agent_spec.startswith("openspiel"):
                print(measure_time_only(game, agent_spec, states), flush=True)
            else:
                print(measure(game, agent_spec, states, sims), flush=True)


def measure_time_only(game: Game, spec: str, states: list[State]) -> str:
    """Our timed agents do not count simulations: time per move only."""
    agent = make_agent(spec, game, seed=1)
    agent.act(states[0].info_state(states[0].current_player))
    times = []
    cpu0 = time.process_time()
    for i, state in enumerate(states):
        agent.reset(100 + i)
        start = time.perf_counter()
        agent.act(state.info_state(state.current_player))
        times.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu0
    return (f"  {spec:44s} {1000 * sum(times) / len(times):8.1f} ms/move "
            f"(max {1000 * max(times):7.1f}, cpu {1000 * cpu / len(times):7.1f})")


if __name__ == "__main__":
    main()
