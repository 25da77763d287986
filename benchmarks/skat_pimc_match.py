"""Duplicate-deal strength match: PIMC card play against the rule baseline.

Each deal (seeded) is bid, picked up and declared by the rule baseline, which
fixes the declarer and the contract. The card play is then played three ways
from that same position:

* ``pimc declares``: PIMC plays the declarer, the baseline both defenders;
* ``pimc defends``:  the baseline declares, PIMC plays both defenders;
* ``baseline``:      the baseline plays all three seats (reference).

Reported per way: the declarer's win rate with a 95% Wilson interval and the
mean Seeger-Fabian score per game (declarer: +value+50 won, -2 x value - 50
lost; each defender +40 per lost game) with a 95% interval.

    python benchmarks/skat_pimc_match.py --deals 2000 --worlds 64 --workers 8
    python benchmarks/skat_pimc_match.py --deals 2000 --log match.jsonl   # progress per deal
    python benchmarks/skat_pimc_match.py --summarize match.jsonl          # table so far
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import numpy as np

from spielwerk.arena.stats import mean_and_se, wilson_interval
from spielwerk.core.agent import Agent, make_agent
from spielwerk.core.game import CHANCE
from spielwerk.core.registry import load_game
from spielwerk.games.skat import pimc_agent  # noqa: F401 - registers "pimc"
from spielwerk.games.skat.rules import PLAY, SkatState
from spielwerk.games.skat.scoring import seeger_fabian

WAYS = ("pimc declares", "pimc defends", "baseline")


def _contract_position(seed: int) -> SkatState | None:
    game = load_game("skat")
    state = game.new_initial_state()
    assert isinstance(state, SkatState)
    rule = make_agent("rule", game, seed=seed)
    rng = np.random.default_rng(seed)
    while not state.is_terminal() and state.phase != PLAY:
        if state.current_player == CHANCE:
            outcomes = state.chance_outcomes()
            state.apply(outcomes[int(rng.integers(len(outcomes)))][0])
        else:
            state.apply(rule.act(state.info_state(state.current_player)))
    return None if state.is_terminal() else state


def _play(start: SkatState, agents: dict[int, Agent]) -> SkatState:
    state = start.clone()
    for a in agents.values():
        for action in state.history:  # let agents follow the game so far
            a.inform(action)
    while not state.is_terminal():
        seat = state.current_player
        action = agents[seat].act(state.info_state(seat))
        state.apply(action)
        for a in agents.values():
            a.inform(action)
    return state


def play_deal(args: tuple[int, str]) -> dict[str, Any] | None:
    seed, pimc_spec = args
    start = _contract_position(seed)
    if start is None:
        return None
    game = start.game
    d = start.declarer
    out: dict[str, Any] = {"seed": seed, "contract": str(start.contract)}
    for way in WAYS:
        agents: dict[int, Agent] = {}
        for seat in range(3):
            pimc_here = (way == "pimc declares" and seat == d) or (
                way == "pimc defends" and seat != d
            )
            spec = pimc_spec if pimc_here else "rule"
            agents[seat] = make_agent(spec, game, seed=seed * 10 + seat)
        end = _play(start, agents)
        res = end.result
        assert res is not None
        seeger = seeger_fabian(res, 3, d)
        out[way] = (bool(res.won), seeger[d], seeger[(d + 1) % 3])
    return out


def read_log(path: str) -> list[dict[str, Any]]:
    """The records of a ``--log`` file, one per deal played."""
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--values", default="win")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--log", help="append one JSON line per deal to this file (progress)")
    ap.add_argument("--summarize", help="only print the table for the deals in this log file")
    args = ap.parse_args()
    spec = f"pimc:worlds={args.worlds}:values={args.values}"
    t0 = time.perf_counter()
    if args.summarize:
        logged = read_log(args.summarize)
        rows = [r["result"] for r in logged]
        spec = logged[0]["spec"] if logged else spec
        args.deals = len(rows)
    else:
        done: dict[int, Any] = {}
        if args.log and os.path.exists(args.log):
            # resume: deals already in the log are not played again
            for rec in read_log(args.log):
                if rec["spec"] != spec:
                    sys.exit(f"{args.log} holds results for {rec['spec']}, not {spec}")
                done[rec["seed"]] = rec["result"]
        tasks = [(s, spec) for s in range(args.deals) if s not in done]
        if done:
            print(f"resuming: {len(done)} deals already in {args.log}, {len(tasks)} to play",
                  file=sys.stderr)
        results = dict(done)

        def record(seed: int, row: dict[str, Any] | None) -> None:
            results[seed] = row
            if args.log:
                with open(args.log, "a") as fh:
                    fh.write(json.dumps({"seed": seed, "spec": spec, "result": row}) + "\n")
            n = len(results)
            if n % 50 == 0 or n == args.deals:
                print(f"{n}/{args.deals} deals, {time.perf_counter() - t0:.0f} s",
                      file=sys.stderr, flush=True)

        if args.workers > 1:
            with ProcessPoolExecutor(args.workers) as pool:
                futures = {pool.submit(play_deal, t): t[0] for t in tasks}
                for fut in as_completed(futures):
                    record(futures[fut], fut.result())
        else:
            for t in tasks:
                record(t[0], play_deal(t))
        rows = [results[s] for s in sorted(results) if s < args.deals]
    played = [r for r in rows if r is not None]
    print(f"{spec} vs rule: {args.deals} deals, {len(played)} played (others passed in), "
          f"wall {time.perf_counter() - t0:.0f} s")
    print(f"{'way':<15} {'declarer wins':>14} {'95% CI':>15} {'declarer Seeger':>16} "
          f"{'+-95%':>7} {'defender Seeger':>16} {'+-95%':>7}")
    for way in WAYS:
        wins = sum(1 for r in played if r[way][0])
        lo, hi = wilson_interval(wins, len(played))
        dm, dse = mean_and_se([float(r[way][1]) for r in played])
        fm, fse = mean_and_se([float(r[way][2]) for r in played])
        print(f"{way:<15} {wins / len(played):>14.3f} {f'{lo:.3f}-{hi:.3f}':>15} {dm:>16.1f} "
              f"{1.96 * dse:>7.1f} {fm:>16.1f} {1.96 * fse:>7.1f}")
    # paired on the same deals: the change against the baseline playing every seat
    print("paired against 'baseline' on the same deals (mean difference +- 95%):")
    print(f"{'way':<15} {'declarer win rate':>18} {'declarer Seeger':>16}")
    for way in WAYS[:2]:
        wm, wse = mean_and_se([float(r[way][0]) - float(r["baseline"][0]) for r in played])
        sm, sse = mean_and_se([float(r[way][1]) - float(r["baseline"][1]) for r in played])
        print(f"{way:<15} {f'{wm:+.3f} +- {1.96 * wse:.3f}':>18} "
              f"{f'{sm:+.1f} +- {1.96 * sse:.1f}':>16}")


if __name__ == "__main__":
    main()
