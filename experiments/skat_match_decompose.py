"""Where a Skat duplicate match's paired difference comes from: card play, the game chosen,
or who declares at all.

A two-agent match in the six seatings (BAA ABA AAB ABB BAB BBA) holds three *mirrored*
pairs per deal: BAA and ABB, ABA and BAB, AAB and BBA give every hand to the other agent.
The paired difference A - B of the deal (SF points per 36 games,
:mod:`spielwerk.games.skat_ai.match_stats`) is the sum over its three mirrored pairs of
36/9 x (A's points minus B's points over the pair's two games), so it splits exactly into
the pairs. Each pair is put into one class by what was declared in its two games:

- ``same game``: the same hand declared the same game type in both (one agent declared
  it, the other agent defended it; a suit game counts as one type whatever its trumps):
  the difference is card play (and the skat put);
- ``same hand, other game``: the same hand declared, but not the same type (the choice of
  game: after picking up, or hand against picking up);
- ``auction differs``: another hand declared in the two games, or no one in one of them
  (the bidding). ``B suit / B suit`` there: B won the auction in both games, on whichever
  of the two hands it held;
- ``passed in``: no one declared in either game (no difference).

A class's line gives the pairs in it and its share of the paired difference (SF points per
36 games, summed over the deals and divided by their number: the lines add up to the
match's difference), with a 95% interval over the deals as the match's own. ``--by game``
splits each class by what each agent declared.

    python experiments/skat_match_decompose.py results/k9k2-self-7125.jsonl --by game
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from spielwerk.arena.duplicate import read_duplicate
from spielwerk.core.intervals import mean_and_se, z_value
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat.cli_open_match import is_open_file, read_open_match
from spielwerk.games.skat.scoring import parse_contract
from spielwerk.games.skat_ai.match_stats import LIST_GAMES

CLASSES = ("same game", "same hand, other game", "auction differs", "passed in")


def game_type(contract: str) -> str:
    """``suit``, ``suit hand``, ``grand``, ``grand hand``, ``null``, ``null hand``,
    ``null ouvert`` or ``null ouvert hand`` of an ISS declaration (ouvert suit and grand
    games are hand games: ``grand hand``)."""
    c = parse_contract(contract)
    name = "null" if c.game == NULL else "grand" if c.game == GRAND else "suit"
    if c.game == NULL and c.ouvert:
        name += " ouvert"
    return name + " hand" if c.hand else name


def mirror_pairs(arrangements: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    """The seatings that give every seat to the other agent, as index pairs."""
    index = {a: i for i, a in enumerate(arrangements)}
    pairs = []
    for i, a in enumerate(arrangements):
        if set(a) - {0, 1}:
            raise SystemExit("only a two-agent match can be split into mirrored pairs")
        j = index.get(tuple(1 - m for m in a))
        if j is None:
            raise SystemExit(f"seating {a} has no mirrored seating in this match")
        if i < j:
            pairs.append((i, j))
    return pairs


def _declaration(details: dict[str, Any]) -> tuple[int, str]:
    decl = int(details["declarer"])
    return (decl, game_type(str(details["contract"]))) if decl >= 0 else (-1, "")


def classify(g1: dict[str, Any], g2: dict[str, Any], holders1: tuple[int, ...],
             by_game: bool) -> str:
    """The class of a mirrored pair of games (``holders1``: the agent of each seat in
    the first game; the second gives every seat to the other agent)."""
    (d1, t1), (d2, t2) = _declaration(g1), _declaration(g2)
    if d1 < 0 and d2 < 0:
        return "passed in"

    def who(d: int, first: bool) -> str:
        agent = holders1[d] if first else 1 - holders1[d]
        return "AB"[agent]

    if d1 == d2:
        cls = "same game" if t1 == t2 else "same hand, other game"
        if not by_game:
            return cls
        if t1 == t2:
            return f"{cls}: {t1}"
        by = {who(d1, True): t1, who(d2, False): t2}
        return f"{cls}: A {by['A']}, B {by['B']}"
    if not by_game:
        return "auction differs"
    sides = []
    for d, t, first in ((d1, t1, True), (d2, t2, False)):
        if d >= 0:
            sides.append(f"{who(d, first)} {t}")
    return "auction differs: " + " / ".join(sorted(sides))


def read_match(path: Path) -> tuple[dict[str, Any], list[tuple[int, ...]],
                                     dict[int, dict[int, dict[str, Any]]]]:
    """A match file's labels and seed, its seatings, and per deal the outcome of each
    seating's game (``skat match`` files, also those of ``--defence open``)."""
    if is_open_file(path):
        header, rows = read_open_match(path)
        arrangements = [tuple(a) for a in header["seatings"]]
        index = {a: i for i, a in enumerate(arrangements)}
        games = {row["deal"]: {index[tuple(g["order"])]: g["details"] for g in row["games"]}
                 for row in rows}
        return {"labels": header["agents"], "seed": header["seed"]}, arrangements, games
    config, results = read_duplicate(path, "skat")
    by_deal: dict[int, dict[int, dict[str, Any]]] = defaultdict(dict)
    for r in results:
        if r.details is None:
            raise SystemExit(f"{path}: game {r.task_id} has no Skat outcome")
        by_deal[r.deal][r.seating] = r.details
    return ({"labels": list(config.labels), "seed": config.seed},
            [tuple(a) for a in config.arrangements], by_deal)


def decompose(path: Path, by_game: bool
              ) -> tuple[dict[str, Any], dict[str, list[tuple[int, float]]]]:
    """The match's labels, seed and paired difference (mean, standard error) and, per
    class, every pair's deal (its number among the complete deals) and contribution (SF
    points per 36 games of its deal), over the complete deals."""
    head, arrangements, by_deal = read_match(path)
    pairs = mirror_pairs(arrangements)
    complete = [g for _, g in sorted(by_deal.items()) if len(g) == len(arrangements)]
    seat_games = len(arrangements) * len(arrangements[0]) // 2  # each agent's per deal
    parts: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for number, games in enumerate(complete):
        for i, j in pairs:
            g1, g2 = games[i], games[j]
            p1, p2 = g1["seeger"], g2["seeger"]
            holders = arrangements[i]
            diff = sum((1 if holders[h] == 0 else -1) * (p1[h] - p2[h])
                       for h in range(len(holders)))
            part = LIST_GAMES * diff / seat_games
            parts[classify(g1, g2, holders, by_game)].append((number, part))
    every = [v for values in parts.values() for v in values]
    mean, se = mean_and_se(per_deal(every, len(complete))) if complete else (math.nan,
                                                                             math.nan)
    return {**head, "deals": len(complete), "mean": mean, "se": se}, parts


def per_deal(values: list[tuple[int, float]], deals: int) -> list[float]:
    """Per deal, the sum of the contributions of ``values`` there (0 where it has none)."""
    sums = [0.0] * deals
    for number, part in values:
        sums[number] += part
    return sums


def class_share(values: list[tuple[int, float]], deals: int) -> tuple[float, float, float]:
    """A class's share of the paired difference with its 95% interval: mean and normal
    interval over the deals of :func:`per_deal`."""
    mean, se = mean_and_se(per_deal(values, deals))
    z = z_value(0.95)
    return mean, mean - z * se, mean + z * se


def report(head: dict[str, Any], parts: dict[str, list[tuple[int, float]]]) -> str:
    deals = head["deals"]
    z = z_value(0.95)
    a, b = head["labels"]
    lines = [f"A = {a}, B = {b}, seed {head['seed']}, {deals} complete deals",
             f"paired difference A - B: {head['mean']:+.1f} "
             f"({head['mean'] - z * head['se']:+.1f} .. {head['mean'] + z * head['se']:+.1f})"
             " SF per 36 games",
             "",
             f"{'class':<60} {'pairs':>6} {'of A - B':>9} {'95% interval':>17} {'per pair':>9}"]
    shares = {name: class_share(values, deals) for name, values in parts.items()}

    def order(name: str) -> tuple[int, float]:
        return CLASSES.index(name.split(":")[0]), -abs(shares[name][0])

    for name in sorted(parts, key=order):
        values = parts[name]
        share, low, high = shares[name]
        interval = f"{low:+.1f} .. {high:+.1f}" if not math.isnan(low) else ""
        lines.append(f"{name:<60} {len(values):>6} {share:>+9.1f} {interval:>17} "
                     f"{sum(p for _, p in values) / len(values):>+9.1f}")
    lines.append(f"{'sum':<60} {sum(len(v) for v in parts.values()):>6} "
                 f"{sum(s[0] for s in shares.values()):>+9.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path, help="a two-agent Skat duplicate match file")
    ap.add_argument("--by", choices=("class", "game"), default="class",
                    help="split each class by what each agent declared (game)")
    args = ap.parse_args(argv)
    head, parts = decompose(args.results, args.by == "game")
    if not head["deals"]:
        print(f"{args.results}: no complete deal yet", file=sys.stderr)
        return 1
    print(report(head, parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
