"""Held-out exact-points error of the shipped knowledge base, against base size.

The deals a continued build added beyond the shipped base (same seed, deal ids
from the shipped base's size on) are not in the shipped base: their exact
double-dummy points (hand and pick-up stage) are held-out labels. Prints the
mean absolute error of the KNN values (k, ``std`` scaling) and the accuracy of
"winnable" (61) per game, and the MAE when only the first n deals of the
shipped base are used. The continued build may be unfinished (complete shards
are read, each checked against the manifest's checksum).

    spielwerk skat kb build --deals 20000 --seed 1 --chunk 25 --put-base BOOT --out MAIN --resume
    python benchmarks/skat_kb_heldout.py MAIN [--k 12] [--sizes 100,200,400,725,1125]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from spielwerk.games.skat.knowledge.knn import KnnModel, default_base_dir
from spielwerk.games.skat.knowledge.store import BaseData, load_base, read_shard

GAMES = ("diamonds", "hearts", "spades", "clubs", "grand")


def held_out(directory: Path, first: int) -> tuple[dict, dict]:
    manifest = json.loads((directory / "manifest.json").read_text())

    def stage(name: str) -> dict[str, np.ndarray]:
        entries = sorted(manifest["stages"][name]["shards"].values(), key=lambda e: e["first"])
        parts = [read_shard(directory, name, e) for e in entries if e["first"] >= first]
        if not parts:
            raise SystemExit(f"{directory} holds no deals beyond the first {first}")
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    hand, pickup = stage("hand"), stage("pickup")
    n = min(len(hand["deal_id"]), len(pickup["deal_id"]))
    return {k: v[:n] for k, v in hand.items()}, {k: v[:n] for k, v in pickup.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("continued", type=Path, help="directory of the continued build")
    ap.add_argument("--k", type=int, default=12)
    ap.add_argument("--sizes", default="100,200,400,725,1125")
    args = ap.parse_args(argv)
    full = load_base(default_base_dir())
    hand, pickup = held_out(args.continued, full.deals)
    pos = hand["position"].astype(np.int64)
    decl = hand["hands"].astype(np.int64)[np.arange(len(pos)), pos]
    truth = {"hand": hand["points"].astype(float), "pickup": pickup["points"].astype(float)}
    print(f"{len(decl)} held-out deals (ids {full.deals}..); shipped base {full.deals} deals, "
          f"k {args.k}, std scaling")
    model = KnnModel(full, k=args.k)
    for kind in ("hand", "pickup"):
        v = model.values(decl, kind)[:, :5]
        mae = np.abs(v - truth[kind]).mean(axis=0)
        acc = ((v >= 61) == (truth[kind] >= 61)).mean(axis=0)
        print(f"{kind:7} MAE " + " ".join(f"{g} {m:.2f}" for g, m in zip(GAMES, mae, strict=True))
              + f" | mean {mae.mean():.2f}; winnable accuracy "
              + " ".join(f"{a:.2f}" for a in acc))
    print("base deals | held-out MAE hand | pick-up")
    assert full.pickup is not None
    for n in (int(x) for x in args.sizes.split(",")):
        sub = BaseData(full.directory, full.manifest, {k: v[:n] for k, v in full.hand.items()},
                       {k: v[:n] for k, v in full.pickup.items()})
        m = KnnModel(sub, k=args.k)
        errs = [np.abs(m.values(decl, kind)[:, :5] - truth[kind]).mean()
                for kind in ("hand", "pickup")]
        print(f"{n:10d} | {errs[0]:17.2f} | {errs[1]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
