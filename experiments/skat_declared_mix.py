"""The declared mix of Skat agent specs from their auctions alone, without card play.

Which games a spec declares, and the chances it tells for them, are fixed once the game is
declared: the share of seat-games declared, the grand and null shares of the declarations
and the chance told per type need no card to be played. Per spec, every seat-game of
``spielwerk skat calibration --agent SPEC --defence SPEC`` (the same seeds: the same deals
and auctions) is played to its declaration, some hundred times faster than the
calibration, so a setting's mix can be seen before a match is spent on it. Whether the
games are won is the calibration's and the match's to measure.

    python experiments/skat_declared_mix.py --spec knn10 --spec knn10:bid_caution=0.2 \\
        --deals 2000 --seed 7151 --workers 2

The seat-games are :func:`spielwerk.games.skat_ai.calibration.declare_seat` tasks:
``--executor dask://HOST:PORT`` plays them on a Dask cluster.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from itertools import pairwise
from typing import Any

from skat_defence_gap import add_run_options
from spielwerk.core.parallel import make_executor
from spielwerk.games.skat_ai.calibration import (
    GAME_TYPES,
    CalibrationConfig,
    CalibrationError,
    check_config,
    declare_seat,
)

BINS = (0.0, 0.6, 0.7, 0.8, 0.9, 1.01)
"""The edges of the chance-told slices of the plain nulls."""


def mix(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one spec's records: seat-games, declared, the share per type, the mean
    chance told per type, and the plain nulls by the chance told."""
    games = [r for r in records if "type" in r]
    n = len(games)
    types = Counter(r["type"] for r in games)
    told: dict[str, float] = {}
    for t in types:
        chances = [r["predicted"] for r in games if r["type"] == t and r["predicted"] is not None]
        if chances:
            told[t] = sum(chances) / len(chances)
    nulls = [r["predicted"] for r in games if r["type"] == "null" and r["predicted"] is not None]
    slices = [sum(1 for c in nulls if lo <= c < hi) for lo, hi in pairwise(BINS)]
    return {"seat_games": len(records), "declared": n, "types": dict(types), "told": told,
            "grand": sum(v for t, v in types.items() if t.startswith("grand")) / max(1, n),
            "null": sum(v for t, v in types.items() if t.startswith("null")) / max(1, n),
            "null_slices": slices}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", action="append", required=True,
                    help="an agent spec, in every seat (repeat to compare)")
    add_run_options(ap, 0, executor=True, files=False)
    ap.set_defaults(deals=2000, workers=1)
    args = ap.parse_args()
    configs = [CalibrationConfig(spec, spec, args.deals, args.seed) for spec in args.spec]
    try:
        for config in configs:
            check_config(config)
    except CalibrationError as exc:  # the calibration's message names its own option
        raise SystemExit(str(exc).replace("--agent ", "--spec ", 1)) from None
    for spec, config in zip(args.spec, configs, strict=True):
        start = time.monotonic()
        with make_executor(args.executor, args.workers) as ex:
            records = list(ex.map_unordered(declare_seat, config.tasks()))
        m = mix(records)
        print(f"{spec}: {m['declared']} of {m['seat_games']} seat-games declared "
              f"({m['declared'] / m['seat_games']:.1%}); grand {m['grand']:.1%}, "
              f"null {m['null']:.1%} of declared ({time.monotonic() - start:.0f} s)")
        for t in GAME_TYPES:
            if m["types"].get(t):
                print(f"  {t:12s} {m['types'][t]:6d}  {m['types'][t] / m['declared']:6.1%}"
                      f"  told {m['told'].get(t, float('nan')):.3f}")
        print("  plain nulls by chance told "
              + ", ".join(f"{lo:.1f}-{min(hi, 1.0):.1f}: {k}"
                          for (lo, hi), k in zip(pairwise(BINS), m["null_slices"],
                                                 strict=True)))


if __name__ == "__main__":
    main()
