"""Where does one agent gain or lose against another in a two-agent duplicate Skat match?

Reads a ``spielwerk skat match A B -o FILE`` results file (two agents, the six
seatings ``BAA ABA AAB ABB BAB BBA``). Two seatings that differ in exactly one
seat hold the same cards everywhere and the same agents in the two other
seats, so comparing them isolates that seat's decisions: A in the seat
against B in the seat. Each such pair (6 per deal) is put in one category by
what the seat did with A and with B (passed or declared, which game, hand or
pick-up), and the category's effect is the seat's Seeger-Fabian points with A
minus with B (``--table`` effect: the whole table's A-minus-B score change,
the 40 points the defenders get for a lost game included).

    python experiments/skat_kb_breakdown.py results.jsonl
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from spielwerk.games.skat.cli_match import read_match
from spielwerk.games.skat.scoring import NULL, parse_contract

GAME_NAMES = {0: "diamonds", 1: "hearts", 2: "spades", 3: "clubs", 4: "grand", NULL: "null"}


def seat_action(details: dict, seat: int) -> tuple[str, str]:
    """(kind, label): kind is 'pass' or 'declare'; label names the game."""
    if int(details["declarer"]) != seat:
        return "pass", "-"
    c = parse_contract(str(details["contract"]))
    label = GAME_NAMES[c.game] + (" hand" if c.hand else "")
    return "declare", label


def category(a: tuple[str, str], b: tuple[str, str], a_name: str, b_name: str) -> str:
    if a[0] == "pass" and b[0] == "pass":
        return "both do not declare"
    if a[0] == "declare" and b[0] == "pass":
        return f"{a_name} declares, {b_name} does not"
    if a[0] == "pass":
        return f"{b_name} declares, {a_name} does not"
    ga, gb = a[1].split()[0], b[1].split()[0]
    if a[1] == b[1]:
        return "both declare the same game"
    if ga == gb:
        return "same game, hand vs pick-up"
    return "both declare, different games"


def breakdown(path: Path) -> None:
    config, results = read_match(path)
    if len(config.agents) != 2:
        raise SystemExit("the breakdown compares exactly two agents")
    a_label, b_label = config.labels
    orders = config.arrangements
    by_deal: dict[int, dict[int, dict]] = defaultdict(dict)
    for r in results:
        by_deal[r.deal][r.seating] = r.details or {}
    pairs = []
    for i, oi in enumerate(orders):
        for j, oj in enumerate(orders):
            diff = [s for s in range(3) if oi[s] != oj[s]]
            if len(diff) == 1 and oi[diff[0]] == 0:  # agent A (index 0) in seat s in i
                pairs.append((i, j, diff[0]))
    stats: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0, 0])
    sub: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    deals = 0
    for games in by_deal.values():
        if len(games) != len(orders):
            continue
        deals += 1
        for i, j, s in pairs:
            da, db = games[i], games[j]
            aa, ab = seat_action(da, s), seat_action(db, s)
            cat = category(aa, ab, "A", "B")
            own = da["seeger"][s] - db["seeger"][s]
            # the table: A's seats minus B's seats, in i and in j
            row = stats[cat]
            row[0] += 1
            row[1] += own
            row[2] += (sum(da["seeger"]) - sum(db["seeger"]))
            row[3] += int(aa[0] == "declare" and bool(da["won"]))
            row[4] += int(ab[0] == "declare" and bool(db["won"]))
            if aa[0] == "declare" or ab[0] == "declare":
                key = (cat, aa[1], ab[1])
                sub[key][0] += 1
                sub[key][1] += own
    print(f"{path}: A = {a_label}, B = {b_label}; {deals} complete deals, "
          f"{deals * len(pairs)} one-seat comparisons")
    print(f"{'category':40} {'pairs':>6} {'seat A-B sum':>13} {'per pair':>9} "
          f"{'A won':>6} {'B won':>6}")
    total = 0.0
    for cat, (n, own, _table, wa, wb) in sorted(stats.items(), key=lambda kv: kv[1][1]):
        total += own
        print(f"{cat:40} {int(n):6d} {own:13.0f} {own / n:9.1f} {int(wa):6d} {int(wb):6d}")
    print(f"{'total':40} {deals * len(pairs):6d} {total:13.0f}")
    print("\nlargest sub-cases (category, A's game, B's game): pairs, seat A-B points")
    for key, (n, own) in sorted(sub.items(), key=lambda kv: kv[1][1])[:12]:
        print(f"  {key[0]:36} A {key[1]:14} B {key[2]:14} {int(n):5d} {own:8.0f}")
    for key, (n, own) in sorted(sub.items(), key=lambda kv: -kv[1][1])[:6]:
        print(f"  {key[0]:36} A {key[1]:14} B {key[2]:14} {int(n):5d} {own:+8.0f}")


def per_deal_difference(path: Path) -> dict[int, float]:
    """Per complete deal: A's mean Seeger-Fabian points per seat-game minus B's, times 36."""
    config, results = read_match(path)
    a_label, b_label = config.labels
    sums: dict[int, dict[str, list[float]]] = defaultdict(
        lambda: {a_label: [0.0, 0], b_label: [0.0, 0]})
    games: dict[int, int] = defaultdict(int)
    for r in results:
        games[r.deal] += 1
        for seat, label in enumerate(r.labels):
            cell = sums[r.deal][label]
            cell[0] += (r.details or {})["seeger"][seat]
            cell[1] += 1
    n = len(config.arrangements)
    return {d: 36 * (v[a_label][0] / v[a_label][1] - v[b_label][0] / v[b_label][1])
            for d, v in sums.items() if games[d] == n}


def compare(first: Path, second: Path) -> None:
    """(A - B in ``first``) minus (A - B in ``second``) on the deals both hold: the change
    from the second A to the first, paired by deal (same seed and B)."""
    d1, d2 = per_deal_difference(first), per_deal_difference(second)
    deals = sorted(set(d1) & set(d2))
    x = [d1[d] - d2[d] for d in deals]
    mean = sum(x) / len(x)
    sd = (sum((v - mean) ** 2 for v in x) / (len(x) - 1)) ** 0.5
    half = 1.96 * sd / len(x) ** 0.5
    print(f"{len(deals)} common deals: (A - B) of {first.name} minus (A - B) of {second.name}: "
          f"{mean:+.1f} SF per 36 games (95% {mean - half:+.1f} .. {mean + half:+.1f})")


def pooled(paths: list[Path]) -> None:
    """A - B over the deals of several matches (e.g. two seeds) together."""
    x = [v for path in paths for v in per_deal_difference(path).values()]
    mean = sum(x) / len(x)
    half = 1.96 * (sum((v - mean) ** 2 for v in x) / (len(x) - 1)) ** 0.5 / len(x) ** 0.5
    print(f"{len(x)} deals of {len(paths)} matches: A - B {mean:+.1f} SF per 36 games "
          f"(95% {mean - half:+.1f} .. {mean + half:+.1f})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, nargs="+")
    ap.add_argument("--against", type=Path, help="a second match of the same deals: print "
                    "the paired change of A - B from it to RESULTS instead")
    ap.add_argument("--pooled", action="store_true",
                    help="A - B over the deals of all RESULTS files together")
    args = ap.parse_args(argv)
    if args.pooled:
        pooled(args.results)
    elif args.against:
        compare(args.results[0], args.against)
    else:
        breakdown(args.results[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
