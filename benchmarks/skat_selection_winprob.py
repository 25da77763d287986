"""How far the winning-probability tables are off on held-out deals.

The tables (:mod:`spielwerk.games.skat.winprob`) are filled from the pick-up
stage of the ``--train`` knowledge bases (default: the shipped base) and asked
about deals they never saw:

* ``--test DIR``: the pick-up stage of other knowledge bases (KNN puts, every
  suit game, grand and null per deal, double-dummy outcome);
* ``--glassbox FILE``: the results of ``skat_selection_glassbox.py`` (every
  strategy's put for the deal's game, double-dummy outcome).

Reported per game kind: samples, mean predicted vs observed win rate, the
sample-weighted mean |predicted - observed| over ten probability bins (the
figure closest to the seed's "on average at most 1% off"), the Brier score,
and which table level answered (foreground / background / overall).

    .venv/bin/python benchmarks/skat_selection_winprob.py --test /path/to/base \\
        --glassbox /tmp/glassbox.jsonl
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import numpy as np

from spielwerk.games.skat.cards import NULL, string_to_card
from spielwerk.games.skat.putting import GAME_BY_NAME
from spielwerk.games.skat.winprob import (
    build_table,
    calibration,
    game_value,
    pickup_samples,
    winning_parameters,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from skat_selection_glassbox import load  # noqa: E402  (merges the second pass's lines)


def won_by(r: dict, strategy: str) -> bool:
    """Did the strategy's put win? (``won`` in the current glassbox format, else points.)"""
    return bool(r["won"][strategy]) if "won" in r else r["points"][strategy] >= 61


def mask(text: str) -> int:
    return sum(1 << string_to_card(t) for t in text.split())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", action="append", default=None,
                    help="knowledge base(s) to fill the tables (default: the shipped base)")
    ap.add_argument("--test", action="append", default=[], help="held-out knowledge base(s)")
    ap.add_argument("--glassbox", default=None, help="glassbox results (JSON Lines)")
    ap.add_argument("--split-glassbox", action="store_true",
                    help="also fill the tables with the even-numbered glassbox deals and ask "
                    "only about the odd ones (in-distribution training data)")
    args = ap.parse_args()
    table = build_table(args.train or [None])
    glassbox = []
    if args.glassbox:
        glassbox = list(load(Path(args.glassbox)).values())
    if args.split_glassbox:
        for r in glassbox:
            if r["deal"] % 2 == 0:
                twelve, game = mask(r["twelve"]), GAME_BY_NAME[r["game"]]
                for strategy, put_text in r["puts"].items():
                    put = mask(put_text)
                    table.add(game, winning_parameters(twelve & ~put, put, game, r["position"],
                                                       game_value(twelve, game)),
                              won_by(r, strategy))
        glassbox = [r for r in glassbox if r["deal"] % 2 == 1]
        table.source += " + even glassbox deals"
    print(f"machine: {platform.machine()} python {platform.python_version()}")
    print(f"table: {table.source}; samples {table.samples}; cells foreground suit "
          f"{len(table.foreground['suit'].cells)}, grand {len(table.foreground['grand'].cells)}")
    rows: dict[str, list[tuple[float, int, str]]] = {}

    def ask(source: str, game: int, ten: int, put: int, pos: int, bid: int, won: int) -> None:
        if game == NULL:
            kind, p, level = "null", table.null_probability(ten), "per-suit product"
        else:
            kind = "grand" if game == 4 else "suit"
            p, level, _ = table.lookup(game, winning_parameters(ten, put, game, pos, bid))
        rows.setdefault(f"{source} {kind}", []).append((p, won, level))

    for d in args.test:
        for game, ten, put, pos, bid, won in pickup_samples(d):
            ask(Path(d).name, game, ten, put, pos, bid, won)
    for r in glassbox:
        twelve = mask(r["twelve"])
        game = GAME_BY_NAME[r["game"]]
        for strategy, put_text in r["puts"].items():
            put = mask(put_text)
            ask("glassbox", game, twelve & ~put, put, r["position"],
                game_value(twelve, game), int(won_by(r, strategy)))
    print(f"{'held-out set':22} {'n':>5} {'predicted':>9} {'observed':>9} {'binned |off|':>12} "
          f"{'Brier':>6}  levels")
    for key, vals in sorted(rows.items()):
        p = np.array([v[0] for v in vals])
        y = np.array([v[1] for v in vals])
        c = calibration(p, y)
        levels: dict[str, int] = {}
        for v in vals:
            levels[v[2]] = levels.get(v[2], 0) + 1
        lv = ", ".join(f"{k} {n}" for k, n in sorted(levels.items()))
        print(f"{key:22} {len(vals):5d} {c['mean_predicted']:9.3f} {c['observed_rate']:9.3f} "
              f"{c['binned_abs_error']:12.3f} {c['brier']:6.3f}  {lv}")


if __name__ == "__main__":
    main()
