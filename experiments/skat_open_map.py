"""Fit the open-hand map of a win-chance calibration: what its chances become against open hands.

Input: the records of ``spielwerk skat calibration --agent knn --defence open --out FILE``
(the agent's own declarations, each with the chance its calibration gave it and whether
it was won against defenders who see every card). Per game type of
:data:`calibration.GAME_TYPES` the map is ``z_open = a + b z`` in log-odds, fitted by
logistic regression of the outcome on ``z`` (the log-odds of the chance told) with a weak
pull towards the identity (a = 0, b = 1) so that a rare type stays near the calibration;
a type with fewer than ``--min-games`` games takes the fit of itself and its sibling
together (``null_hand`` with ``null``). The ``knn`` agent's ``caution`` moves its chances
that far along the map (:func:`spielwerk.games.skat_ai.params.open_bound_z`).

    spielwerk skat calibration --agent knn --defence open --deals 1500 --seed 545454 \\
        --workers 2 --json --out results/cal-open-tune-545454.jsonl
    python experiments/skat_open_map.py results/cal-open-tune-545454.jsonl \\
        --calibration strong --write src/spielwerk/data/skat_calibration/open-bound.json

Prints per type: games, mean chance told, observed against open hands, the chance after
the map (in-sample), and (a, b).

``--own NAME`` fits the same map on records played against the agent's own defence
(``--defence knn``), without the open-hand constraint, and writes it as the calibration
NAME: the ``--calibration``'s weights with the map, which the decisions apply on the
pessimistic side only (``min(z, a + b z)``, :func:`spielwerk.games.skat_ai.params.played_z`):

    spielwerk skat calibration --agent knn --defence knn --deals 2000 --seed 565656 \
        --workers 1 --json --out results/knn-cal-565656.jsonl
    python experiments/skat_open_map.py results/knn-cal-565656.jsonl results/knn-cal-858585.jsonl \
        --calibration strong --own played \
        --write src/spielwerk/data/skat_calibration/played.json

``--told-by NAME`` takes records whose chances were told by the calibration NAME (a map on
``--calibration``'s weights) back to ``--calibration``'s log-odds through NAME's maps before
the fit; with it the records may also be those of ``skat_declarer_compare.py --force
own-nulls`` (the first declarer's game against our defence is the outcome):

    python experiments/skat_open_map.py results/ownnulls-7106.jsonl --calibration strong \
        --told-by played_grand_hand --own played_null_knn6 \
        --types null,null_hand,null_ouvert --keep played_grand_hand

``--after-pickup`` (with ``--keep`` and ``--types`` naming at least one of suit, grand,
null) applies the new maps of those types after the skat is seen only: the bidding keeps the
kept calibration's chances for them, written as their ``_pickup`` maps (``played_put``, in
``docs/evaluations/skat-put-shift.md``). Hand types among ``--types`` are asked at the stage
``hand`` only and are refitted as without the flag (``played_put_knn10``).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from spielwerk.core.intervals import wilson_interval
from spielwerk.games.skat_ai.calibration import GAME_TYPES
from spielwerk.games.skat_ai.params import CALIBRATION_DIR

FORMAT = "spielwerk-skat-open-map"
PICKUP_STAGE = ("suit", "grand", "null")
"""The types a map may leave the bidding out of (``--after-pickup``): those played with the
skat picked up (the hand types are asked at the stage ``hand`` only)."""
PULL = 1.0
"""Weight of the pull towards the identity map, (a^2 + (b - 1)^2) x PULL, in log-loss units."""


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


Z_TOP = float(np.log(0.995 / 0.005))
"""The map may not raise a chance anywhere from 0.5 to 0.995 (log-odds 0 to Z_TOP): open
hands beat any defence, so a game is never more likely won against them."""


def fit(z: np.ndarray, won: np.ndarray, bound: bool = True) -> tuple[float, float]:
    """(a, b) of ``P(won) = sigmoid(a + b z)`` by penalised maximum likelihood, with
    ``a + b z <= z`` on ``0 <= z <= Z_TOP`` where ``bound``."""
    def loss(w: np.ndarray) -> float:
        t = w[0] + w[1] * z
        nll = np.sum(np.logaddexp(0.0, t) - won * t)
        return float(nll + PULL * (w[0] ** 2 + (w[1] - 1.0) ** 2))
    lower = [{"type": "ineq", "fun": lambda w: -w[0]},
             {"type": "ineq", "fun": lambda w: -(w[0] + (w[1] - 1.0) * Z_TOP)}]
    res = minimize(loss, np.array([-0.5, 1.0]), method="SLSQP",
                   bounds=[(-5.0, 5.0), (0.2, 3.0)], constraints=lower if bound else [])
    return float(res.x[0]), float(res.x[1])


def untold(p: float, ab: list[float]) -> float:
    """The chance of the base weights that a map ``min(z, a + b z)`` told as ``p`` (the map
    is increasing, so the log-odds come back one to one)."""
    a, b = ab
    told = float(logit(np.array([p]))[0])
    z = told if told <= a + b * told else (told - a) / b
    return float(1.0 / (1.0 + math.exp(-z)))


def read_records(path: Path, told_by: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The declared games of ``path`` with a chance told: ``skat calibration --out`` lines, or
    (with ``told_by``) ``skat_declarer_compare.py`` lines, their outcome the first declarer's
    against our defence; with ``told_by`` each chance is taken back through its map."""
    lines = path.read_text().splitlines()
    first = json.loads(lines[0]).get("declarers", [None])[0] if lines else None
    rows = []
    for line in lines:
        r = json.loads(line)
        if r.get("predicted") is None:
            continue
        if not r.get("declared"):
            if told_by is None or first not in r:
                continue
            r = {"declared": True, "type": r["type"], "predicted": r["predicted"],
                 "won": r[first]["ours"]["won"]}
        if told_by is not None:
            r = {**r, "predicted": untold(r["predicted"], told_by["map"][r["type"]])}
        rows.append(r)
    return rows


def sibling(kind: str) -> str:
    return kind[:-5] if kind.endswith("_hand") else kind + "_hand"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--calibration", default="strong",
                    help="the calibration the agent's chances came from")
    ap.add_argument("--min-games", type=int, default=40)
    ap.add_argument("--own", metavar="NAME",
                    help="records against the agent's own defence: write the calibration NAME "
                         "(the --calibration's weights with this map) instead of an open map")
    ap.add_argument("--types", help="with --own: map only these types (comma-separated); "
                    "the others keep the identity [0, 1] (or --keep's map)")
    ap.add_argument("--keep", metavar="NAME",
                    help="with --own and --types: the other types keep the map of the "
                         "calibration NAME (made on the same base)")
    ap.add_argument("--after-pickup", action="store_true",
                    help="with --keep: the maps of --types (suit, grand, null) apply after "
                         "the skat is seen only; the bidding keeps --keep's map for them "
                         "(written as the type's _pickup map)")
    ap.add_argument("--check", type=Path, nargs="+", default=[],
                    help="with --own: also print, per type, the mapped chance against the "
                         "observed rate on these records (held out from the fit)")
    ap.add_argument("--told-by", metavar="NAME",
                    help="the records' chances were told by the calibration NAME (made on "
                         "--calibration): take them back through its maps before the fit")
    ap.add_argument("--write", type=Path, help="write (or update) the map file")
    args = ap.parse_args()
    told_by = None
    if args.told_by:
        told_by = json.loads((CALIBRATION_DIR / f"{args.told_by}.json").read_text())
        if told_by.get("base") != args.calibration:
            raise SystemExit(f"--told-by {args.told_by} is made on {told_by.get('base')}, "
                             f"not on {args.calibration}")
    rows = [r for path in args.files for r in read_records(path, told_by)]
    by_type = {t: [r for r in rows if r["type"] == t] for t in GAME_TYPES}
    kept = {}
    if args.keep:
        kept = json.loads((CALIBRATION_DIR / f"{args.keep}.json").read_text())
        if not (args.own and args.types) or kept.get("base") != args.calibration:
            raise SystemExit(f"--keep needs --own and --types, and {args.keep} made on "
                             f"{args.calibration} (its base: {kept.get('base')})")
    if args.after_pickup and not (kept and set(args.types.split(",")) & set(PICKUP_STAGE)):
        raise SystemExit(f"--after-pickup needs --keep and --types naming one of "
                         f"{', '.join(PICKUP_STAGE)}")
    maps: dict[str, list[float]] = {}
    report: dict[str, Any] = {}
    if args.own:
        print("fitted against the agent's own defence; decisions take min(z, a + b z)")
    else:
        print("fitted with a + b z <= z for chances 0.5-0.995 (open hands never help the "
              "declarer)")
    print(f"{'type':<12} {'games':>5} {'told':>6} {'won':>6} {'mapped':>6}   a      b")
    for kind in GAME_TYPES:
        own = by_type[kind]
        used = own if len(own) >= args.min_games or kind == "null_ouvert" else (
            own + by_type.get(sibling(kind), []))
        if not used:
            a, b = 0.0, 1.0
        else:
            z = logit(np.array([r["predicted"] for r in used]))
            won = np.array([1.0 if r["won"] else 0.0 for r in used])
            a, b = fit(z, won, bound=not args.own)
        if args.own and args.types and kind not in args.types.split(","):
            a, b = kept["map"][kind] if kept else (0.0, 1.0)
        maps[kind] = [round(a, 4), round(b, 4)]
        if own:
            z = logit(np.array([r["predicted"] for r in own]))
            told = float(np.mean([r["predicted"] for r in own]))
            observed = float(np.mean([1.0 if r["won"] else 0.0 for r in own]))
            t = np.minimum(z, a + b * z) if args.own else a + b * z
            if kept and kind not in args.types.split(","):  # the records carry it already
                t = z
            mapped = float(np.mean(1 / (1 + np.exp(-t))))
        else:
            told = observed = mapped = math.nan
        report[kind] = {"games": len(own), "fitted_on": len(used), "told": round(told, 4),
                        "observed": round(observed, 4), "mapped": round(mapped, 4)}
        print(f"{kind:<12} {len(own):>5} {told:6.3f} {observed:6.3f} {mapped:6.3f}  "
              f"{a:+.3f} {b:.3f}")
    made = {"by": "python experiments/skat_open_map.py " + " ".join(
                p.name for p in args.files) + f" --calibration {args.calibration}"
            + (f" --told-by {args.told_by}" if args.told_by else "")
            + (f" --own {args.own}" if args.own else "")
            + (f" --types {args.types}" if args.own and args.types else "")
            + (f" --keep {args.keep}" if kept else "")
            + (" --after-pickup" if args.after_pickup else ""),
            "records": {p.name: sum(1 for _ in p.open()) for p in args.files},
            "pull": PULL, "min_games": args.min_games, "types": report}
    if args.check and args.own:
        refit = args.types.split(",") if kept else list(GAME_TYPES)
        check(args.check, {k: m if k in refit else [0.0, 1.0] for k, m in maps.items()})
    if args.write and args.own:
        base = json.loads((CALIBRATION_DIR / f"{args.calibration}.json").read_text())
        if args.after_pickup:  # the bidding keeps the kept map
            maps.update({f"{kind}_pickup": kept["map"].get(f"{kind}_pickup", kept["map"][kind])
                         for kind in args.types.split(",") if kind in PICKUP_STAGE})
        own = {"format": base["format"], "version": base["version"], "name": args.own,
               "base": args.calibration, "map": maps, "map_made": made,
               "map_rule": "z = min(z, a + b z) per type: [a, b]; z the log-odds of "
                           f"{args.calibration}'s weights (its stages and centers)"}
        args.write.write_text(json.dumps(own, indent=1) + "\n")
        print(f"wrote {args.write}")
    elif args.write:
        data: dict[str, Any] = {"format": FORMAT, "version": 1, "maps": {}, "made": {}}
        if args.write.exists():
            data = json.loads(args.write.read_text())
        data["maps"][args.calibration] = maps
        data["made"][args.calibration] = made
        data["map"] = "z_open = a + b z per type: [a, b]; z the calibration's log-odds"
        args.write.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.write}")


def check(files: list[Path], maps: dict[str, list[float]]) -> None:
    """Per type on held-out records: the chance told, the observed rate with its 95% Wilson
    interval, and the chance after ``min(z, a + b z)`` (``--keep``: the kept types' records,
    made with the kept calibration, carry its map already and are shown as told)."""
    rows = [r for path in files for r in read_records(path, None)]
    print(f"held out ({', '.join(p.name for p in files)}):")
    print(f"{'type':<12} {'games':>5} {'told':>6} {'mapped':>6} {'won':>6}  95% interval")
    for kind in GAME_TYPES:
        own = [r for r in rows if r["type"] == kind]
        if not own:
            continue
        print(f"{kind:<12} {held_out_row(own, maps[kind])}")


def held_out_row(own: list[dict[str, Any]], ab: list[float]) -> str:
    """Games, chance told, chance after ``min(z, a + b z)``, observed rate and its 95% Wilson
    interval of records with ``predicted`` and ``won``, as one printed row."""
    a, b = ab
    z = logit(np.array([r["predicted"] for r in own]))
    mapped = float(np.mean(1 / (1 + np.exp(-np.minimum(z, a + b * z)))))
    n, k = len(own), sum(1 for r in own if r["won"])
    low, high = wilson_interval(k, n)
    told = float(np.mean([r["predicted"] for r in own]))
    return f"{n:>5} {told:6.3f} {mapped:6.3f} {k / n:6.3f}  {low:.3f}-{high:.3f}"


if __name__ == "__main__":
    main()
