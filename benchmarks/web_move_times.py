"""Engine move times at the web table: per agent, at the table's default time per engine move.

Each agent of each web game plays every seat of seeded games; every decision is
timed exactly as an engine worker makes it (``web.work.engine_move``: replay the
record, build a fresh agent with the table's budget, act from the info state),
after a warm-up decision in the same process (the server warms its workers at
start, so the first move pays no model load). Prints p50 / p95 / max per agent,
the number of decisions and how many took over 1.1 x the budget (and where the
slowest was), and the machine (CPU
count and load: the figures are wall-clock on whatever else runs there).

    nice -n 10 .venv/bin/python benchmarks/web_move_times.py [--moves 40] [--budget 2.0]
    .venv/bin/python benchmarks/web_move_times.py --games skat --agents knn,pimc,rule
    .venv/bin/python benchmarks/web_move_times.py --games skat --agents knn,knn:play=pimc
    .venv/bin/python benchmarks/web_move_times.py --first-put --agents knn

``--first-put`` times, in this fresh process and without a warm-up, one agent's first
Skat bidding decision (which loads its model) and then its first put after picking up
(which loads the putting's win-chance table): what a worker that was not warmed pays.

Never fails on time.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from typing import Any

import numpy as np


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def where(state: object) -> str:
    """A short name of the decision point (Skat: phase and trick; others: the ply)."""
    phase = getattr(state, "phase", None)
    if getattr(getattr(state, "game", None), "name", "") == "skat" and phase is not None:
        from spielwerk.games.skat.rules import PHASE_NAMES

        tricks = len(getattr(state, "trick_history", []))
        return f"{PHASE_NAMES[int(phase)]}" + (f" trick {tricks + 1}" if phase == 5 else "")
    return f"ply {len(getattr(state, 'history', []))}"


def measure(game_name: str, agent: str, budget: float, moves: int, seed: int
            ) -> tuple[list[float], str]:
    """Seconds of ``moves`` decisions of ``agent`` on every seat of seeded games, and
    where the slowest one was."""
    from spielwerk.core.agent import AgentSpec
    from spielwerk.core.game import CHANCE, sample_chance
    from spielwerk.core.registry import load_game
    from spielwerk.web.work import engine_move

    game = load_game(game_name)
    parsed = AgentSpec.parse(agent)  # as the web server passes it to its workers
    times: list[float] = []
    slowest = (0.0, "")
    g = 0
    while len(times) < moves:
        state = game.new_initial_state()
        rng = np.random.default_rng([seed, g])
        g += 1
        while not state.is_terminal() and len(times) < moves:
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            seat = state.current_player
            if len(state.legal_actions()) == 1:  # forced: the table asks no engine either
                state.apply(state.legal_actions()[0])
                continue
            t0 = time.perf_counter()
            action = engine_move(game.spec(), list(state.history), seat, parsed,
                                 int(rng.integers(2**31)), budget)
            times.append(time.perf_counter() - t0)
            if times[-1] > slowest[0]:
                slowest = (times[-1], where(state))
            state.apply(action)
    return times, slowest[1]


def put_position(seed: int) -> Any:
    """A Skat position where a declarer puts after picking up (rule bots bid and pick up)."""
    from spielwerk.core.agent import make_agent
    from spielwerk.core.game import CHANCE, sample_chance
    from spielwerk.core.registry import load_game
    from spielwerk.games.skat.rules import PUT

    game = load_game("skat")
    bots = [make_agent("rule", game, seed=s) for s in range(game.num_players)]
    for attempt in range(200):
        state = game.new_initial_state()
        rng = np.random.default_rng([seed, attempt])
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            if state.phase == PUT:  # type: ignore[attr-defined]
                return state
            seat = state.current_player
            state.apply(int(bots[seat].act(state.info_state(seat))))
    raise SystemExit("no pick-up game found")


def first_put(agent: str, budget: float, seed: int) -> None:
    """Seconds of the first bidding decision and then the first put of a fresh process."""
    from spielwerk.core.agent import AgentSpec
    from spielwerk.web.work import engine_move

    parsed = AgentSpec.parse(agent)
    put = put_position(seed)
    spec = put.game.spec()
    history = list(put.history)
    start = put.game.new_initial_state()
    n = 0
    while start.current_player < 0:  # the deal
        start.apply(history[n])
        n += 1
    t0 = time.perf_counter()
    engine_move(spec, history[:n], start.current_player, parsed, seed, budget)
    t1 = time.perf_counter()
    engine_move(spec, history, put.current_player, parsed, seed, budget)
    t2 = time.perf_counter()
    print(f"skat {agent}: first bidding decision {t1 - t0:.2f} s, then first put "
          f"{t2 - t1:.2f} s (fresh process, no warm-up)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=40, help="decisions timed per agent")
    ap.add_argument("--budget", type=float, default=2.0,
                    help="seconds per engine move (the table's default: 2)")
    ap.add_argument("--games", default="skat,durak,kalah")
    ap.add_argument("--agents", default="", help="comma list (default: every agent)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first-put", action="store_true",
                    help="time a fresh process's first Skat bid and first put (no warm-up) "
                         "of the first of --agents (default knn)")
    args = ap.parse_args()

    import spielwerk  # noqa: F401 - games and agents register themselves
    from spielwerk.core.agent import list_agents
    from spielwerk.web.work import warm_up

    print(f"machine: {platform.machine()} {platform.system()} {platform.release()}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start, "
          f"Python {platform.python_version()}")
    if args.first_put:
        first_put(args.agents.split(",")[0] or "knn", args.budget, args.seed)
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
        return
    print(f"budget {args.budget:g} s per engine move, {args.moves} decisions per agent")
    print(f"{'game':6} {'agent':10} {'n':>4} {'warm-up s':>9} {'p50 s':>7} {'p95 s':>7} "
          f"{'max s':>7} {'> budget':>8}  slowest at")
    wanted = [a for a in args.agents.split(",") if a]  # agent specs (name:key=value...)
    for game_name in args.games.split(","):
        names = [e.name for e in list_agents(game_name)]
        for spec in wanted or names:
            if spec.split(":")[0] not in names:
                continue
            warm = warm_up({game_name: spec}, args.budget)[game_name]
            times, slow = measure(game_name, spec, args.budget, args.moves, args.seed)
            over = sum(t > args.budget * 1.1 for t in times)
            print(f"{game_name:6} {spec:10} {len(times):4d} {warm:9.2f} "
                  f"{statistics.median(times):7.3f} {percentile(times, 0.95):7.3f} "
                  f"{max(times):7.3f} {over:8d}  {slow}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
