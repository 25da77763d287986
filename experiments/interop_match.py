"""Our MCTS/ISMCTS against OpenSpiel's MCTS/ISMCTS bots at equal time per move.

Each pairing is one two-agent arena tournament (as ``spielwerk arena``) (seats rotated, Wilson
intervals from the arena's stats) written to ``OUT/<name>.jsonl``, so an
interrupted run continues where it stopped (``--resume``). OpenSpiel's bots
have no clock: the adapter sets each move's simulations from the bot's
measured rate (and at least ``MIN_ITERATIONS``), so their time per move is
met on average; ``benchmarks/interop_speed.py`` measures the real time per
move and the simulations per second of every agent on the same positions.

UCT constants: OpenSpiel's bots use raw returns, ours scale returns to [0, 1];
the OpenSpiel bots get our constant times the game's utility span (Durak 2,
Kalah(6,4) 96), so both explore alike.

    nice -n 10 .venv/bin/python experiments/interop_match.py --time 0.02 --games 200 \
        --out results/interop --workers 2
    .venv/bin/python experiments/interop_match.py --summary --out results/interop
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

DURAK = "durak(preset=zarlykov2023)"
KALAH = "kalah(pits=6,seeds=4)"


def pairings(t: float) -> list[tuple[str, str, str, str]]:
    """(name, game, our agent, OpenSpiel bot), the like-for-like pairings first."""
    ours_d = {"mcts": f"mcts:time={t}", "ismcts": f"ismcts:time={t}"}
    os_d = {"mcts": f"openspiel:mcts:time={t}:c=2.8", "ismcts": f"openspiel:ismcts:time={t}:c=1.4"}
    return [
        ("durak_ismcts_vs_os_ismcts", DURAK, ours_d["ismcts"], os_d["ismcts"]),
        ("durak_mcts_vs_os_mcts", DURAK, ours_d["mcts"], os_d["mcts"]),
        ("kalah_mcts_vs_os_mcts", KALAH, f"mcts:worlds=1:time={t}",
         f"openspiel:mcts:time={t}:c=134.4"),
        ("kalah_ismcts_vs_os_mcts", KALAH, f"ismcts:time={t}", f"openspiel:mcts:time={t}:c=67.2"),
        ("durak_ismcts_vs_os_mcts", DURAK, ours_d["ismcts"], f"openspiel:mcts:time={t}:c=1.4"),
        ("durak_mcts_vs_os_ismcts", DURAK, ours_d["mcts"], f"openspiel:ismcts:time={t}:c=2.8"),
    ]


def run(args: argparse.Namespace) -> None:
    from spielwerk.arena.tournament import TournamentConfig, run_tournament
    from spielwerk.core.parallel import make_executor

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, game, ours, theirs in pairings(args.time):
        if args.only and name not in args.only:
            continue
        path = out / f"{name}.jsonl"
        print(f"== {name}: {game} {ours} vs {theirs}, {args.games} games, seed {args.seed}",
              flush=True)
        config = TournamentConfig.create(game, [ours, theirs], args.games, args.seed)
        start = time.perf_counter()
        result = run_tournament(config, make_executor("local", args.workers), output=path,
                                resume=path.exists())
        record = {**result.to_dict(), "wall_s": round(time.perf_counter() - start, 3)}
        (out / f"{name}.json").write_text(json.dumps(record, indent=2))
        print(summary_line(name, record), flush=True)


def summary_line(name: str, result: dict) -> str:
    """One line per pairing: games, our score% with its Wilson interval, mean margin."""
    rows = result["standings"]["agents"]
    ours = rows[0] if not rows[0]["label"].startswith("openspiel") else rows[1]
    return (
        f"{name}: {ours['games']} games, {ours['label']} W/D/L {ours['wins']}/{ours['draws']}/"
        f"{ours['losses']}, score {100 * ours['score']:.1f}% (95% CI {100 * ours['ci_low']:.1f}-"
        f"{100 * ours['ci_high']:.1f}), mean return {ours['mean_return']:+.3f} "
        f"(wall {result.get('wall_s', float('nan')):.0f} s)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--time", type=float, default=0.02, help="seconds per move for every agent")
    p.add_argument("--games", type=int, default=200, help="games per pairing")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default="results/interop")
    p.add_argument("--only", nargs="*", help="pairing names to run")
    p.add_argument("--summary", action="store_true", help="print the stored results only")
    args = p.parse_args()
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, python {platform.python_version()}")
    if args.summary:
        for name, *_ in pairings(args.time):
            path = Path(args.out) / f"{name}.json"
            if path.exists():
                print(summary_line(name, json.loads(path.read_text())))
        return
    run(args)


if __name__ == "__main__":
    main()
