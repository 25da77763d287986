"""A duplicate Skat match of two agents with the open-hand defence in every defending seat.

Each seeded deal is played in the six arrangements of ``spielwerk skat match A B`` (BAA
ABA AAB ABB BAB BBA: each agent alone in each seat, and twice with itself). The agents
bid, pick up, put and declare as they do; from the declaration on the declarer's own agent
plays its cards and both defenders - whichever agent sits there - play the open-hand
defence (:mod:`spielwerk.games.skat_ai.open_defence`: they see every card and play the
double-dummy best one). So the match measures who loses less to a perfect defence: the
declarations, the putting and the declarer's card play, never the defence. The figures
are ``spielwerk skat match``'s (:func:`match_stats.skat_match_stats`: Seeger-Fabian per 36
games with 95% intervals, deals as the units, and the paired difference).

One JSON Lines line per deal (resumed when the file exists):

    python experiments/skat_open_match.py 'knn:caution=0.4' knn --deals 2000 --seed 1 \\
        --workers 2 --out results/open-match.jsonl
    python experiments/skat_open_match.py --summarize results/open-match.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from skat_defence_gap import run_deals  # the resumable process-pool runner
from spielwerk.arena.duplicate import arrangements
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.core.seeds import derive_seed
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat_ai.calibration import play_to_declaration
from spielwerk.games.skat_ai.match_report import stats_tables, title
from spielwerk.games.skat_ai.match_stats import skat_match_stats
from spielwerk.games.skat_ai.open_defence import OpenHandDefence

ORDERS = arrangements(2, 3, "pairs")
_WORKER: dict[str, Any] = {}


@dataclass(frozen=True)
class Game:
    """One game's record as the match figures read it (an arena ``GameResult``'s fields)."""

    task_id: str
    deal: int
    labels: tuple[str, ...]
    details: dict[str, Any] | None


def _init(specs: list[str]) -> None:
    game = load_game("skat")
    _WORKER.update(game=game, specs=specs,
                   agents=[[make_agent(spec, game, 0) for _ in range(3)] for spec in specs])


def play_deal(seed: int, deal: int) -> dict[str, Any]:
    """The six arrangements of one deal: per game the agent indices by seat and the
    outcome's details (``final_details``). The cards and every agent's seeds depend on the
    deal and the seat only, so two agents that decide alike play alike; a declaration
    reached again (the same declarer's agent and seat, the same auction and put) is played
    once (the declarer's play from there is seeded alike and the defence is exact)."""
    game, agents, specs = _WORKER["game"], _WORKER["agents"], _WORKER["specs"]
    chance = derive_seed(seed, 1, deal)
    games = []
    played: dict[tuple[Any, ...], dict[str, Any]] = {}
    for order in ORDERS:
        seats = [agents[order[s]][s] for s in range(3)]
        for s in range(3):
            seats[s].reset(derive_seed(seed, 2, deal, s))
        state = game.new_initial_state()
        rng = np.random.default_rng(chance)
        declared = play_to_declaration(state, seats, rng)
        if declared is None:
            games.append({"order": list(order), "details": final_details(state)})
            continue
        me = declared.declarer
        key = (specs[order[me]], me, tuple(declared.history))
        if key not in played:
            open_hand = OpenHandDefence()
            seats[me].reset(derive_seed(seed, 3, deal, me))
            table = [seats[s] if s == me else open_hand for s in range(3)]
            played[key] = final_details(play(declared, table, rng).state)
        games.append({"order": list(order), "details": played[key]})
    return {"deal": deal, "games": games, "played": len(played)}


def summarize(path: Path, as_json: bool = False) -> None:
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    specs = header["agents"]
    labels = [f"{i}:{s}" for i, s in enumerate(specs)] if specs[0] == specs[1] else specs
    records = []
    for line in lines[1:]:
        if not line.strip():
            continue
        row = json.loads(line)
        for k, g in enumerate(row["games"]):
            records.append(Game(f"{row['deal']}-{k}", row["deal"],
                                tuple(labels[i] for i in g["order"]), g["details"]))
    stats = skat_match_stats(records, labels, len(ORDERS))
    figures = stats.to_dict()
    if as_json:
        print(json.dumps({"header": header, "figures": figures}))
        return
    described = (f"{' vs '.join(specs)}, seed {header['seed']}, the open-hand defence in "
                 f"every defending seat")
    console = Console(width=120)
    for table in stats_tables(stats, title(stats, described)):
        console.print(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agents", nargs="*")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summarize", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.summarize:
        summarize(args.summarize, args.json)
        return
    if len(args.agents) != 2 or args.out is None:
        ap.error("give two agent specs and --out (or --summarize FILE)")
    game = load_game("skat")
    for spec in args.agents:
        make_agent(spec, game, 0)  # a bad spec fails here, before any deal
    header = {"agents": args.agents, "seed": args.seed, "deals": args.deals,
              "defence": "open"}
    run_deals(args.out, header, args.deals, args.workers, _init, (args.agents,), play_deal,
              args.seed, lambda h: h.get("agents") == args.agents
              and h.get("seed") == args.seed, 25)
    summarize(args.out, args.json)


if __name__ == "__main__":
    main()
