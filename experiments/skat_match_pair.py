"""Two Skat duplicate matches against the same opponent on the same deals, paired.

``FIRST`` and ``SECOND`` are two-agent match files of the same seed and deals, each
between a bot and the same opponent (``--opponent``, e.g. ``rule``). Per deal, each file
gives the bot's Seeger-Fabian points less the opponent's, per 36 games (the match's own
paired difference); the answer is SECOND's less FIRST's, with a 95% interval over the
deals both files completed: how much more the second bot gains against that opponent.

    python experiments/skat_match_pair.py results/a-rule.jsonl results/b-rule.jsonl
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from spielwerk.arena.duplicate import read_duplicate
from spielwerk.core.intervals import mean_and_se, z_value
from spielwerk.games.skat_ai.match_stats import LIST_GAMES


def margins(path: Path, opponent: str) -> dict[int, float]:
    """Per complete deal: the bot's Seeger-Fabian points less the opponent's, per 36 of
    each side's seat-games."""
    config, games = read_duplicate(path, "skat")
    labels = set(config.labels)
    if len(labels) != 2 or opponent not in labels:
        raise SystemExit(f"{path}: not a two-agent match with {opponent!r} "
                         f"(agents: {', '.join(sorted(labels))})")
    points: dict[int, float] = defaultdict(float)
    seats: dict[int, int] = defaultdict(int)
    counted: dict[int, int] = defaultdict(int)
    for g in games:
        if g.details is None or "seeger" not in g.details:
            raise SystemExit(f"{path}: game {g.task_id} has no Skat outcome")
        counted[g.deal] += 1
        for seat, label in enumerate(g.labels):
            sign = -1.0 if label == opponent else 1.0
            points[g.deal] += sign * g.details["seeger"][seat]
            seats[g.deal] += label != opponent
    per_deal = len(config.arrangements)
    return {d: LIST_GAMES * p / seats[d] for d, p in points.items()
            if counted[d] == per_deal and seats[d]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("first", type=Path)
    ap.add_argument("second", type=Path)
    ap.add_argument("--opponent", default="rule")
    args = ap.parse_args(argv)
    a, b = margins(args.first, args.opponent), margins(args.second, args.opponent)
    deals = sorted(set(a) & set(b))
    if len(deals) < 2:
        print("fewer than two deals complete in both files", file=sys.stderr)
        return 1
    mean, se = mean_and_se([b[d] - a[d] for d in deals])
    z = z_value(0.95)
    print(f"{args.second} less {args.first}, against {args.opponent}, {len(deals)} deals: "
          f"{mean:+.1f} ({mean - z * se:+.1f} .. {mean + z * se:+.1f}) SF per 36 games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
