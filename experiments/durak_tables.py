"""Durak tables for any number of players: one agent against copies of each opponent.

For every opponent ``Y`` the agent ``X`` plays ``--deals`` deals at a table of ``X`` and
``P - 1`` copies of ``Y``; each deal is played ``P`` times with ``X`` in every seat (the
arena's rotations), on the arena's process pool, every game appended to
``OUT/<X>_vs_<Y>.jsonl`` as it finishes (``--resume`` continues). Printed per opponent:
how often ``X`` is the durak over the games that have one (equal strength: ``1/P``),
with a 98% Wilson interval, and the share of games ``X`` got out (``1 -`` that).

    .venv/bin/python experiments/durak_tables.py --game "durak(preset=classic,players=3)" \\
        --agent ismcts:iters=300 --opponents greedy smart --deals 50 --out /tmp/t3 --resume
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from spielwerk.arena.match import GameResult
from spielwerk.arena.stats import wilson_interval
from spielwerk.arena.tournament import TournamentConfig, run_tournament, unique_labels
from spielwerk.core.parallel import make_executor
from spielwerk.core.registry import load_game


def durak_share(results: list[GameResult], label: str) -> tuple[int, int, int]:
    """(games in which ``label`` is the durak, games with a durak, drawn games)."""
    lost = decided = draws = 0
    for r in results:
        if all(x == 0 for x in r.returns):
            draws += 1
            continue
        decided += 1
        lost += any(lab == label and ret < 0 for lab, ret in zip(r.labels, r.returns,
                                                                  strict=True))
    return lost, decided, draws


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True, help='e.g. "durak(preset=classic,players=3)"')
    ap.add_argument("--agent", required=True)
    ap.add_argument("--opponents", nargs="+", required=True)
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True, help="folder for the results files")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--confidence", type=float, default=0.98)
    args = ap.parse_args()
    game = load_game(args.game)
    P = game.num_players
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"{game.game_type.long_name}: {args.agent} against {P - 1} copies of each opponent, "
          f"{args.deals} deals x {P} seatings, seed {args.seed}")
    conf = f"{100 * args.confidence:g}%"
    print(f"| opponents | games | durak (expected 1/{P}) | {conf} interval | got out |")
    print("| --- | ---: | ---: | --- | ---: |")
    with make_executor("local", args.workers) as ex:
        for opp in args.opponents:
            specs = [args.agent] + [opp] * (P - 1)
            config = TournamentConfig.create(game.spec(), specs, args.deals * P, args.seed)
            name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{args.agent}_vs_{opp}")
            out = args.out / f"{name}.jsonl"
            res = run_tournament(config, ex, out, resume=args.resume and out.exists())
            label = unique_labels(specs)[0]
            lost, decided, draws = durak_share(res.results, label)
            lo, hi = wilson_interval(lost, decided, args.confidence)
            rate = lost / decided if decided else float("nan")
            print(f"| {P - 1} x {opp} | {decided} (+{draws} drawn) | {100 * rate:.1f}% | "
                  f"{100 * lo:.1f}-{100 * hi:.1f}% | {100 * (1 - rate):.1f}% |", flush=True)


if __name__ == "__main__":
    main()
