"""Skat declarers' card play compared on the same declared games, against two defences.

Per seeded deal, AGENT sits in all three seats through the auction and declares as it does
(``--force none``), or whoever wins the auction picks up the skat, puts as AGENT does and
declares a plain null (``--force null``, the default; a deal whose bid went past the null's
23 is left out, as in ``skat_defence_gap.py --force null``). The game is then played out
from the declaration once per declarer spec of ``--declarer`` (the same seeds each time)
against two defenders of ``--defence`` (default ``knn``) and once more each against the
open-hand defence (defenders who see every card: the bound no defence passes). Per game
type the summary gives each declarer's win rate against both, and for every declarer after
the first the paired difference of the win rates (the games one wins and the other loses)
with a 95% interval for matched pairs. The declarer's card play alone differs: the
auction, the put and the declaration are AGENT's in every row.

Results go to a JSON Lines file (one line per deal), resumed when it exists.

    python experiments/skat_declarer_compare.py --deals 2000 --seed 7103 --workers 2 \\
        --declarer knn --declarer knn:worlds=64 --out results/null-declarer.jsonl
    python experiments/skat_declarer_compare.py --summarize results/null-declarer.jsonl
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from skat_defence_gap import (  # the same auction, runner and options
    add_run_options,
    reach_declaration,
    read_results,
    run_deals,
    summarized,
)
from spielwerk.arena.match import derive_seed
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat_ai.calibration import GAME_TYPES, game_type
from spielwerk.games.skat_ai.open_defence import OpenHandDefence

OPEN = "open"
_WORKER: dict[str, Any] = {}


def _init(agent: str, declarers: list[str], defence: str, force: str) -> None:
    game = load_game("skat")
    _WORKER.update(game=game, agents=[make_agent(agent, game, 0) for _ in range(3)],
                   declarers={d: [make_agent(d, game, 0) for _ in range(3)]
                              for d in declarers},
                   defence=[make_agent(defence, game, 0) for _ in range(3)], force=force)


def play_deal(seed: int, deal: int) -> dict[str, Any]:
    game, agents, force = _WORKER["game"], _WORKER["agents"], _WORKER["force"]
    state, chance = reach_declaration(game, agents, seed, deal, force)
    if state is None or force == "null" and (state.contract.game != NULL
                                             or state.auction.value > 23):
        return {"deal": deal, "passed": True}
    declarer = state.declarer
    record: dict[str, Any] = {"deal": deal, "passed": False, "declarer": declarer,
                              "type": game_type(state.contract)}
    for name, players in _WORKER["declarers"].items():
        record[name] = {}
        for against in ("ours", OPEN):
            seats: dict[int, Any] = {}
            for s in range(3):
                if s == declarer:
                    players[s].reset(derive_seed(seed, 3, deal, s))
                    seats[s] = players[s]
                elif against == OPEN:
                    seats[s] = OpenHandDefence()
                else:
                    _WORKER["defence"][s].reset(derive_seed(seed, 3, deal, s))
                    seats[s] = _WORKER["defence"][s]
            t0 = time.perf_counter()
            final = play(state.clone(), seats, np.random.default_rng(chance)).state
            record[name][against] = {"won": bool(final_details(final)["won"]),
                                     "seconds": round(time.perf_counter() - t0, 2)}
    return record


def paired_difference(rows: list[dict[str, Any]], a: str, b: str, against: str
                      ) -> tuple[float, float, float]:
    """Win rate of declarer ``b`` minus ``a`` against ``against`` over the same games, with a
    95% interval for matched pairs."""
    n = len(rows)
    diff = [int(r[b][against]["won"]) - int(r[a][against]["won"]) for r in rows]
    mean = sum(diff) / n
    var = sum((d - mean) ** 2 for d in diff) / max(1, n - 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def summarize(path: Path) -> None:
    header, rows = read_results(path)
    played = [r for r in rows if not r["passed"]]
    declarers = header["declarers"]
    what = "forced nulls" if header["force"] == "null" else "games declared"
    print(f"auction {header['agent']}, defence {header['defence']}, seed {header['seed']}: "
          f"{len(rows)} deals, {len(played)} {what}")
    types = [t for t in GAME_TYPES if any(r["type"] == t for r in played)]
    for t in [*types, "all"] if len(types) > 1 else types:
        rs = [r for r in played if t == "all" or r["type"] == t]
        n = len(rs)
        print(f"{t} ({n}):")
        print(f"  {'declarer':<44} {'won vs ours':>11} {'won vs open':>11} {'s/game':>6}")
        for d in declarers:
            ours = sum(r[d]["ours"]["won"] for r in rs) / n
            opn = sum(r[d][OPEN]["won"] for r in rs) / n
            secs = sum(r[d]["ours"]["seconds"] for r in rs) / n
            print(f"  {d:<44} {ours:>11.3f} {opn:>11.3f} {secs:>6.2f}")
        for d in declarers[1:]:
            for against in ("ours", OPEN):
                mean, lo, hi = paired_difference(rs, declarers[0], d, against)
                print(f"  {d} minus {declarers[0]}, against {against}: {mean:+.3f} "
                      f"({lo:+.3f} .. {hi:+.3f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="knn", help="the auction, the put and the declaration")
    ap.add_argument("--declarer", action="append", dest="declarers",
                    help="a declarer spec for the card play (repeat the option; the first "
                         "is the one the others are compared with; default: AGENT)")
    ap.add_argument("--defence", default="knn", help="the defenders' spec")
    add_run_options(ap, 7103)
    ap.add_argument("--force", choices=("null", "none"), default="null",
                    help="null: the auction's winner declares a plain null; none: AGENT's own "
                         "declarations")
    args = ap.parse_args()
    if summarized(ap, args, summarize):
        return
    declarers = [d.strip() for d in args.declarers or [args.agent] if d.strip()]
    if len(set(declarers)) != len(declarers):
        ap.error("each --declarer once")
    game = load_game("skat")
    for spec in [args.agent, *declarers, args.defence]:
        make_agent(spec, game, 0)  # a bad spec stops here, before any deal
    header = {"agent": args.agent, "seed": args.seed, "declarers": declarers,
              "defence": args.defence, "force": args.force}
    run_deals(args.out, header, args.deals, args.workers, _init,
              (args.agent, declarers, args.defence, args.force), play_deal, args.seed,
              same=lambda h: all(h.get(k) == v for k, v in header.items()), every=25)
    summarize(args.out)


if __name__ == "__main__":
    main()
