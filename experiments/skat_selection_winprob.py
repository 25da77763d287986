"""How far the winning-probability tables are off on held-out deals.

The tables (:mod:`spielwerk.games.skat_ai.winprob`) are filled from the pick-up
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

* ``--split-glassbox``: the tables filled with the even-numbered glassbox deals
  as well, asked only about the odd ones;
* ``--shipped``: the shipped tables (:func:`default_table`: base + the shipped
  glassbox samples) instead of the base alone - ask them about a fresh glassbox
  file (another ``--seed``), not the deals they were filled from.

A glassbox deal gives one sample per distinct put of ``random``, ``knn`` and
``refined`` (the strategies on every deal). ``--write-samples FILE`` writes
those samples of all deals of ``--glassbox`` as the compact data file that
:func:`default_table` ships (``data/skat_winprob/``).

    .venv/bin/python experiments/skat_selection_winprob.py --test /path/to/base \\
        --glassbox /tmp/glassbox.jsonl
    .venv/bin/python experiments/skat_selection_winprob.py --glassbox /tmp/S/run/glassbox.jsonl \\
        --write-samples src/spielwerk/data/skat_winprob/glassbox-seed7.jsonl.gz
"""

from __future__ import annotations

import argparse
import platform
from pathlib import Path

import numpy as np

from common import load  # merges the second pass's lines
from spielwerk.games.skat.cards import NULL, string_to_card
from spielwerk.games.skat_ai.putting import GAME_BY_NAME
from spielwerk.games.skat_ai.winprob import (
    Sample,
    add_samples,
    build_table,
    calibration,
    default_table,
    game_value,
    pickup_samples,
    winning_parameters,
    write_samples,
)

SAMPLE_STRATEGIES = ("random", "knn", "refined")


def won_by(r: dict, strategy: str) -> bool:
    """Did the strategy's put win? (``won`` in the current glassbox format, else points.)"""
    return bool(r["won"][strategy]) if "won" in r else r["points"][strategy] >= 61


def mask(text: str) -> int:
    return sum(1 << string_to_card(t) for t in text.split())


def glassbox_samples(rows: list[dict]) -> list[Sample]:
    """(game, ten, put, position, bid, won) per distinct put of :data:`SAMPLE_STRATEGIES`."""
    out: list[Sample] = []
    for r in rows:
        twelve, game = mask(r["twelve"]), GAME_BY_NAME[r["game"]]
        seen: set[str] = set()
        for strategy in SAMPLE_STRATEGIES:
            text = r["puts"][strategy]
            if text not in seen:
                seen.add(text)
                put = mask(text)
                out.append((game, twelve & ~put, put, r["position"], game_value(twelve, game),
                            int(won_by(r, strategy))))
    return out


def write(path: str, source: str, seed: int, rows: list[dict]) -> None:
    samples = glassbox_samples(rows)
    counts = {"deals": len(rows), "samples": len(samples),
              "suit": sum(s[0] < 4 for s in samples), "grand": sum(s[0] == 4 for s in samples),
              "won": sum(s[5] for s in samples)}
    write_samples(path, {
        "source": "glassbox deals of experiments/skat_selection_glassbox.py (KNN game with a "
                  "pick-up value >= 55, declarer as dealt), one sample per distinct put of "
                  "random / knn / refined, won = double-dummy >= 61 (threshold solve)",
        "seed": seed, "from": source, "counts": counts,
    }, samples)
    print(f"wrote {path}: {counts}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", action="append", default=None,
                    help="knowledge base(s) to fill the tables (default: the shipped base)")
    ap.add_argument("--test", action="append", default=[], help="held-out knowledge base(s)")
    ap.add_argument("--glassbox", default=None, help="glassbox results (JSON Lines)")
    ap.add_argument("--split-glassbox", action="store_true",
                    help="also fill the tables with the even-numbered glassbox deals and ask "
                    "only about the odd ones (in-distribution training data)")
    ap.add_argument("--shipped", action="store_true",
                    help="ask the shipped tables (base + shipped glassbox samples)")
    ap.add_argument("--write-samples", default=None,
                    help="write the glassbox deals' samples to this data file and stop")
    ap.add_argument("--seed", type=int, default=7, help="the glassbox run's --seed (manifest)")
    args = ap.parse_args()
    glassbox = []
    if args.glassbox:
        glassbox = sorted(load(Path(args.glassbox), fix=False).values(), key=lambda r: r["deal"])
    if args.write_samples:
        write(args.write_samples, Path(args.glassbox).name, args.seed, glassbox)
        return
    table = default_table() if args.shipped else build_table(args.train or [None])
    if args.split_glassbox:
        add_samples(table, glassbox_samples([r for r in glassbox if r["deal"] % 2 == 0]))
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
    for game, ten, put, pos, bid, won in glassbox_samples(glassbox):
        ask("glassbox", game, ten, put, pos, bid, won)
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
