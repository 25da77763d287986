"""Simulations per second of determinized MCTS and SO-ISMCTS on 2-player 36-card Durak.

One core, greedy rollouts, positions taken from greedy-vs-greedy games while
the stock is not empty (the searched, imperfect-information part of a game).
Prints one line per searcher; never fails on timing.

    .venv/bin/python benchmarks/durak_speed.py [--positions 12] [--seconds 0.5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import spielwerk.games  # noqa: F401
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.agents import make_rollout
from spielwerk.games.durak.rules import DurakGame, DurakInfoState
from spielwerk.mc.determinize import determinized_mcts
from spielwerk.mc.ismcts import ismcts_search


def positions(game: DurakGame, n: int, seed: int) -> list[DurakInfoState]:
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--seconds", type=float, default=0.5, help="search time per position")
    ap.add_argument("--preset", default="zarlykov2023")
    args = ap.parse_args()
    game = load_game(f"durak(preset={args.preset},players=2,deck=36)")
    assert isinstance(game, DurakGame)
    infos = positions(game, args.positions, 7)
    rollout = make_rollout("greedy")
    # warm up the numba kernels (cached compilation is loaded here)
    determinized_mcts(infos[0], worlds=2, iterations=20, rollout=rollout)
    ismcts_search(infos[0], iterations=40, rollout=rollout)
    rng = np.random.default_rng(0)
    for name in ("determinized MCTS (30 worlds)", "SO-ISMCTS"):
        sims = 0
        secs = 0.0
        for info in infos:
            t = time.perf_counter()
            if name.startswith("determinized"):
                sims += determinized_mcts(
                    info, worlds=30, iterations=None, time_limit=args.seconds,
                    rollout=rollout, rng=rng,
                ).iterations
            else:
                sims += ismcts_search(
                    info, time_limit=args.seconds, rollout=rollout, rng=rng
                ).iterations
            secs += time.perf_counter() - t
        print(f"{name}: {sims / secs:,.0f} simulations/s ({sims} in {secs:.2f} s, "
              f"{len(infos)} positions, {game.spec()}, greedy rollouts, one core)")
    t = time.perf_counter()
    S0 = infos[0].sample_world(rng).S
    n = 0
    while time.perf_counter() - t < 1.0:
        for _ in range(200):
            K.playout(S0.copy(), 1, 0.2)
        n += 200
    print(f"greedy playouts alone: {n / (time.perf_counter() - t):,.0f} games/s")


if __name__ == "__main__":
    main()
