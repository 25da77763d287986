"""Card play against card play on the same contracts: a paired duplicate Skat match.

Both agents must bid, put and declare identically (e.g. ``knn:play=infer`` and
``knn:play=pimc`` with one calibration named for both: the same decisions before the first
card, only the card play differs; ``auto`` gives the two different win chances).
Per deal, the auction is run once to find the declarer; then the deal is played twice:
A in the declarer's seat against two B defenders, and B declaring against two A defenders.
Per deal and agent, the mean Seeger-Fabian points per seat-game (one declarer seat, two
defender seats), times 36: the points per 36-game list. The paired difference A - B per deal
splits exactly into the declarer's share (A's and B's declarer scores) and the defenders'
share. Passed-in deals count as deals with 0. The card decisions' times (every decision with
more than one card to choose from) give the p95 per agent.

Results go to a JSON Lines file, one line per deal, resumed when it exists.

    python experiments/skat_card_play_match.py --deals 2000 --seed 9101 --time 0.1 \\
        --workers 2 --out results/infer-vs-pimc.jsonl
    python experiments/skat_card_play_match.py --summarize results/infer-vs-pimc.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from spielwerk.arena.match import derive_seed
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.outcome import final_details as skat_details
from spielwerk.games.skat.rules import PLAY, SkatState

_WORKER: dict[str, Any] = {}


class _Declared(Exception):
    pass


class DecisionClock:
    """Hooks for :func:`play` that time each seat's card decisions (more than one card
    legal): the time from the end of one action to the next is the mover's decision."""

    def __init__(self) -> None:
        self.times: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.last = time.perf_counter()

    def before(self, state: Any, player: int, action: int) -> None:
        if player >= 0 and state.phase == PLAY and \
                len([x for x in state.legal_actions() if x < 32]) > 1:
            self.times[player].append(time.perf_counter() - self.last)

    def after(self, state: Any, player: int, action: int) -> None:
        self.last = time.perf_counter()


def _init(a: str, b: str) -> None:
    game = load_game("skat")
    _WORKER.update(game=game, a=[make_agent(a, game, 0) for _ in range(3)],
                   b=[make_agent(b, game, 0) for _ in range(3)])
    # warm up (load the compiled solver and the models) on a deal no match uses, so that the
    # first timed decision is not the process's first search
    state = game.new_initial_state()
    for agents in (_WORKER["a"], _WORKER["b"]):
        play(state.clone(), agents, np.random.default_rng(2**40), max_actions=45)


def play_deal(seed: int, deal: int) -> dict[str, Any]:
    game, a, b = _WORKER["game"], _WORKER["a"], _WORKER["b"]
    chance = derive_seed(seed, 1, deal)
    state = game.new_initial_state()

    def stop(s: Any, player: int, action: int) -> None:
        if s.phase == PLAY and s.contract is not None:
            raise _Declared

    for i in range(3):
        a[i].reset(derive_seed(seed, 2, deal, i))
    try:
        play(state, a, np.random.default_rng(chance), after=stop)
    except _Declared:
        pass
    if state.contract is None:
        return {"deal": deal, "passed": True}
    declarer = state.declarer
    contract = state.contract.iss()
    record: dict[str, Any] = {"deal": deal, "passed": False, "declarer": declarer,
                              "contract": contract, "games": {}}
    for name, lone, pair in (("a_declares", a, b), ("b_declares", b, a)):
        seats = [lone[s] if s == declarer else pair[s] for s in range(3)]
        for s in range(3):
            seats[s].reset(derive_seed(seed, 3, deal, s))
        clock = DecisionClock()
        final = play(game.new_initial_state(), seats, np.random.default_rng(chance),
                     before=clock.before, after=clock.after).state
        assert isinstance(final, SkatState)
        d = skat_details(final)
        if d["contract"] != contract or d["declarer"] != declarer:
            raise RuntimeError(f"deal {deal}: the agents did not declare alike "
                               f"({contract} by {declarer} vs {d['contract']} by "
                               f"{d['declarer']})")
        sf = d["seeger"]
        record["games"][name] = {
            "won": d["won"], "declarer_points": d["declarer_points"],
            "declarer_sf": sf[declarer],
            "defender_sf": [sf[s] for s in range(3) if s != declarer],
            "times_lone": [round(t, 4) for t in clock.times[declarer]],
            "times_pair": [round(t, 4) for s in range(3) if s != declarer
                           for t in clock.times[s]],
        }
    return record


def summarize(path: Path) -> None:
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    rows = [json.loads(x) for x in lines[1:] if x.strip()]
    print(f"A = {header['a']}\nB = {header['b']}\nseed {header['seed']}")
    diffs, decl, fend, sf_a, sf_b = [], [], [], [], []
    times_a: list[float] = []
    times_b: list[float] = []
    wins = {"a": 0, "b": 0}
    played = 0
    for r in rows:
        if r["passed"]:
            diffs.append(0.0)
            decl.append(0.0)
            fend.append(0.0)
            sf_a.append(0.0)
            sf_b.append(0.0)
            continue
        played += 1
        ga, gb = r["games"]["a_declares"], r["games"]["b_declares"]
        wins["a"] += ga["won"]
        wins["b"] += gb["won"]
        a_mean = (ga["declarer_sf"] + sum(gb["defender_sf"])) / 3
        b_mean = (gb["declarer_sf"] + sum(ga["defender_sf"])) / 3
        sf_a.append(36 * a_mean)
        sf_b.append(36 * b_mean)
        diffs.append(36 * (a_mean - b_mean))
        decl.append(36 * (ga["declarer_sf"] - gb["declarer_sf"]) / 3)
        fend.append(36 * (sum(gb["defender_sf"]) - sum(ga["defender_sf"])) / 3)
        times_a += ga["times_lone"] + gb["times_pair"]
        times_b += gb["times_lone"] + ga["times_pair"]

    def ci(v: list[float]) -> str:
        x = np.array(v)
        se = x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
        return f"{x.mean():+7.1f}  (95% {x.mean() - 1.96 * se:+.1f}..{x.mean() + 1.96 * se:+.1f})"

    print(f"{len(rows)} deals, {played} played, {len(rows) - played} passed in")
    print(f"declarer wins: A {wins['a']}/{played}, B {wins['b']}/{played}")
    print(f"SF per 36 games, A:             {ci(sf_a)}")
    print(f"SF per 36 games, B:             {ci(sf_b)}")
    print(f"paired difference A - B:        {ci(diffs)}")
    print(f"  of it as declarer:            {ci(decl)}")
    print(f"  of it as defenders:           {ci(fend)}")
    for name, t in (("A", times_a), ("B", times_b)):
        if t:
            print(f"card decisions {name}: {len(t)}, mean {np.mean(t) * 1000:.0f} ms, "
                  f"p95 {np.percentile(t, 95) * 1000:.0f} ms, max {max(t) * 1000:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", default="knn:play=infer:calibration=strong:worlds=64:time={time}")
    ap.add_argument("--b", default="knn:play=pimc:calibration=strong:worlds=64:time={time}")
    ap.add_argument("--time", type=float, default=0.1, help="seconds per card decision")
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=9001)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summarize", type=Path)
    args = ap.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}")
    if args.summarize:
        summarize(args.summarize)
        return
    a, b = args.a.format(time=args.time), args.b.format(time=args.time)
    out = args.out or Path(f"results/cardplay-{args.seed}.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    header = {"a": a, "b": b, "seed": args.seed}
    done: set[int] = set()
    if out.exists() and out.stat().st_size:
        lines = out.read_text().splitlines()
        if json.loads(lines[0]) != header:
            raise SystemExit(f"{out} holds another match ({lines[0]}); use another --out")
        for line in lines[1:]:
            try:
                done.add(json.loads(line)["deal"])
            except (json.JSONDecodeError, KeyError):
                break  # a torn last line from a kill: that deal is played again
        out.write_text("\n".join(lines[: 1 + len(done)]) + "\n")
    else:
        out.write_text(json.dumps(header) + "\n")
    todo = [d for d in range(args.deals) if d not in done]
    print(f"{len(done)} deals done, {len(todo)} to play; A = {a}; B = {b}", flush=True)
    t0 = time.perf_counter()
    with out.open("a") as f, ProcessPoolExecutor(args.workers, initializer=_init,
                                                 initargs=(a, b)) as pool:
        for k, rec in enumerate(pool.map(play_deal, [args.seed] * len(todo), todo)):
            f.write(json.dumps(rec) + "\n")
            f.flush()
            if (k + 1) % 20 == 0 or k + 1 == len(todo):
                el = time.perf_counter() - t0
                print(f"  {k + 1}/{len(todo)} deals, {el:.0f} s, "
                      f"{el / (k + 1):.2f} s a deal", flush=True)
    summarize(out)


if __name__ == "__main__":
    main()
