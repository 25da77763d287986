"""A duplicate Skat match of two agents with the open-hand defence in every defending seat.

The match is :mod:`spielwerk.games.skat_ai.open_match` (each deal in the six seatings of
``spielwerk skat match A B``; the agents bid and declare as they do, the declarer plays its
cards, every defending seat plays the open-hand defence); this runs it in a process pool,
one JSON Lines line per deal (resumed when the file exists), and prints ``spielwerk skat
match``'s tables (Seeger-Fabian per 36 games with 95% intervals, deals as the units, and
the paired difference).

    python experiments/skat_open_match.py 'knn:caution=0.1:worlds=4' knn3:worlds=4 \
        --deals 2000 --seed 838383 --workers 2 --out results/open-match.jsonl
    python experiments/skat_open_match.py --summarize results/open-match.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from rich.console import Console

from skat_defence_gap import run_deals  # the resumable process-pool runner
from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat_ai.match_report import stats_tables, title
from spielwerk.games.skat_ai.open_match import OpenMatch, match_figures

_WORKER: dict[str, OpenMatch] = {}


def _init(specs: list[str]) -> None:
    _WORKER["match"] = OpenMatch(specs)


def play_deal(seed: int, deal: int) -> dict[str, Any]:
    return _WORKER["match"].play_deal(seed, deal)


def summarize(path: Path, as_json: bool = False) -> None:
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    specs = header["agents"]
    stats = match_figures(specs, [json.loads(x) for x in lines[1:] if x.strip()])
    if as_json:
        print(json.dumps({"header": header, "figures": stats.to_dict()}))
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
