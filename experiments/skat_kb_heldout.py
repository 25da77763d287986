"""Held-out exact-points error of a knowledge base, against base size.

Two ways to hold deals out (both of the same generator, seed and density as the base):

* ``--holdout N`` (with ``--base DIR``, a finished base): the last N deals of the base
  are the held-out labels and the bases are its *first* n deals (``--sizes``, ``all`` =
  every deal before the held-out ones), so no held-out deal is ever a neighbour.
  Also prints the leave-one-out error of the whole base (every deal predicted from all
  others) and of each size, and the change per doubling of the base.
* ``--heldout-base HDIR`` (with ``--base DIR``): the held-out deals are the hand stage of
  another base, built with another seed (e.g. 10,000 uniform deals: ``spielwerk skat kb
  build --deals 10000 --seed 2 --weak-accept 1 --out HDIR``, stopped once its hand stage
  is complete); the bases are the first n deals of DIR. Hand stage only: the pick-up
  stage's truth depends on the put, which is the held-out build's, not the base's.
* ``CONTINUED`` (the older use): the deals a continued build added beyond the shipped
  base (deal ids from the shipped base's size on) are held out, and the bases are the
  first n deals of the shipped base. The continued build may be unfinished (complete
  shards are read, each checked against the manifest's checksum).

Printed per base size: the mean absolute error of the KNN values (k neighbours, ``std``
scaling) of the hand stage (the ten dealt cards, skat counted) and the pick-up stage (the
skat taken and two cards put), per game and their mean, and the accuracy of "winnable"
(value and truth >= 61).

    python experiments/skat_kb_heldout.py --base BIG --holdout 1000 --sizes 1125,2000,4000,all
    python experiments/skat_kb_heldout.py --base BIG --heldout-base HELD --sizes 1125,2000,4000,all
    python experiments/skat_kb_heldout.py CONTINUED [--k 12] [--sizes 100,200,400,725,1125]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import numpy as np

from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.store import (
    BaseData,
    default_base_dir,
    load_base,
    read_shard,
)

GAMES = ("diamonds", "hearts", "spades", "clubs", "grand")
KINDS = ("hand", "pickup")


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


def first_deals(base: BaseData, n: int) -> BaseData:
    """The base cut to its first ``n`` deals (both stages)."""
    assert base.pickup is not None
    return BaseData(base.directory, base.manifest, {k: v[:n] for k, v in base.hand.items()},
                    {k: v[:n] for k, v in base.pickup.items()})


def declarer_cards(hand: dict[str, np.ndarray]) -> np.ndarray:
    """The declarer's ten cards of each deal of a hand stage."""
    pos = hand["position"].astype(np.int64)
    return hand["hands"].astype(np.int64)[np.arange(len(pos)), pos]


def last_deals(base: BaseData, n: int) -> tuple[dict, dict]:
    """The hand and pick-up arrays of the last ``n`` deals."""
    assert base.pickup is not None
    return ({k: v[-n:] for k, v in base.hand.items()},
            {k: v[-n:] for k, v in base.pickup.items()})


def errors(model: KnnModel, decl: np.ndarray, truth: dict[str, np.ndarray], k: int
           ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per stage: (MAE per game (5,), winnable accuracy per game (5,))."""
    out = {}
    for kind in KINDS:
        v = model.values(decl, kind, k)[:, :5]
        out[kind] = (np.abs(v - truth[kind]).mean(axis=0),
                     ((v >= 61) == (truth[kind] >= 61)).mean(axis=0))
    return out


def loo(model: KnnModel, k: int) -> dict[str, float]:
    """Leave-one-out MAE (mean over the 5 games) of each stage."""
    n = model.size
    out = {}
    for kind in KINDS:
        pts, _ = model.labels(kind)
        v = model.values(model.declarer_hand, kind, k, exclude=np.arange(n))[:, :5]
        out[kind] = float(np.abs(v - pts).mean())
    return out


def parse_sizes(text: str, available: int) -> list[int]:
    sizes = []
    for part in text.split(","):
        n = available if part.strip() == "all" else int(part)
        if n > available:
            print(f"(size {n} skipped: only {available} deals before the held-out ones)")
            continue
        if n not in sizes:
            sizes.append(n)
    return sizes


def study(args: argparse.Namespace) -> int:
    t0, c0 = time.perf_counter(), time.process_time()
    base = load_base(args.base)
    if base.pickup is None:
        raise SystemExit(f"{args.base} has no pick-up stage")
    if not 0 < args.holdout < base.deals:
        raise SystemExit(f"--holdout must be between 1 and {base.deals - 1}")
    avail = base.deals - args.holdout
    hand, pickup = last_deals(base, args.holdout)
    decl = declarer_cards(hand)
    truth = {"hand": hand["points"].astype(float), "pickup": pickup["points"].astype(float)}
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}; base {args.base}: "
          f"{base.deals} deals; held out: the last {args.holdout} (ids "
          f"{int(hand['deal_id'][0])}..{int(hand['deal_id'][-1])}), bases: the first n deals; "
          f"k {args.k}, std scaling")
    rows = []
    print(f"{'base deals':>10} | {'held-out MAE hand':>17} | {'pick-up':>7} | "
          f"{'per doubling hand':>17} | {'pick-up':>7} | {'LOO MAE hand':>12} | {'pick-up':>7} "
          f"| winnable acc. hand / pick-up")
    prev: tuple[int, float, float] | None = None
    for n in parse_sizes(args.sizes, avail):
        model = KnnModel(first_deals(base, n), k=args.k)
        err = errors(model, decl, truth, args.k)
        lo = loo(model, args.k)
        mh, mp = float(err["hand"][0].mean()), float(err["pickup"][0].mean())
        slope = ""
        if prev is not None:
            d = math.log2(n / prev[0])
            slope = f"{(mh - prev[1]) / d:+17.2f} | {(mp - prev[2]) / d:+7.2f}"
        else:
            slope = f"{'':17} | {'':7}"
        print(f"{n:10d} | {mh:17.2f} | {mp:7.2f} | {slope} | {lo['hand']:12.2f} | "
              f"{lo['pickup']:7.2f} | {err['hand'][1].mean():.3f} / {err['pickup'][1].mean():.3f}")
        rows.append({"deals": n, "heldout_mae": {kind: [round(float(x), 3) for x in err[kind][0]]
                                                 for kind in KINDS},
                     "heldout_winnable_accuracy": {kind: [round(float(x), 4)
                                                          for x in err[kind][1]]
                                                   for kind in KINDS},
                     "loo_mae": lo})
        prev = (n, mh, mp)
    last = rows[-1]
    for kind in KINDS:
        print(f"{kind:7} per game, {last['deals']} deals: MAE "
              + " ".join(f"{g} {m:.2f}" for g, m in zip(GAMES, last["heldout_mae"][kind],
                                                         strict=True))
              + "; winnable accuracy "
              + " ".join(f"{a:.3f}" for a in last["heldout_winnable_accuracy"][kind]))
    whole = loo(KnnModel(base, k=args.k), args.k)
    print(f"leave-one-out on the whole base ({base.deals} deals): MAE hand {whole['hand']:.2f}, "
          f"pick-up {whole['pickup']:.2f}")
    print(f"{time.process_time() - c0:.1f} s CPU, {time.perf_counter() - t0:.1f} s wall")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"base": str(args.base), "deals": base.deals, "holdout": args.holdout, "k": args.k,
             "sizes": rows, "loo_whole": whole}, indent=1) + "\n")
    return 0


def auc(score: np.ndarray, positive: np.ndarray) -> float:
    """The chance that a positive gets a higher score than a negative (ties half)."""
    from scipy.stats import rankdata

    n1 = int(positive.sum())
    n0 = len(positive) - n1
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = rankdata(score)
    return float((ranks[positive].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def other_base(args: argparse.Namespace) -> int:
    """Hand-stage exact error on the deals of a separate held-out base, by base size."""
    t0, c0 = time.perf_counter(), time.process_time()
    base = load_base(args.base)
    held = load_base(args.heldout_base, need_pickup=False)
    if int(held.manifest["parameters"]["seed"]) == int(base.manifest["parameters"]["seed"]):
        raise SystemExit(f"{args.heldout_base} has the base's seed: its deals are not held out")
    decl = declarer_cards(held.hand)
    truth = held.hand["points"].astype(float)
    won = truth >= 61
    null_won = held.hand["null"].astype(bool)
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}; base {args.base}: "
          f"{base.deals} deals; held out: {held.deals} deals of {args.heldout_base} (seed "
          f"{held.manifest['parameters']['seed']}, weak_accept "
          f"{held.manifest['parameters']['weak_accept']}), won at 61 per game "
          + " ".join(f"{x:.3f}" for x in won.mean(axis=0))
          + f", null {null_won.mean():.4f}; k {args.k}, std scaling; hand stage")
    print(f"{'base deals':>10} | {'MAE hand':>8} | {'per doubling':>12} | "
          + " | ".join(f"{g:>8}" for g in GAMES) + " | winnable acc. | recall at 61 | AUC "
          + " ".join(g[:2] for g in GAMES) + " null")
    rows, prev = [], None
    for n in parse_sizes(args.sizes, base.deals):
        model = KnnModel(first_deals(base, n), k=args.k)
        values = model.values(decl, "hand", args.k)
        v = values[:, :5]
        mae = np.abs(v - truth).mean(axis=0)
        aucs = [auc(v[:, g], won[:, g]) for g in range(5)] + [auc(values[:, 5], null_won)]
        acc = ((v >= 61) == won).mean(axis=0)
        recall = ((v >= 61) & won).sum(axis=0) / np.maximum(won.sum(axis=0), 1)
        slope = (f"{(mae.mean() - prev[1]) / math.log2(n / prev[0]):+12.2f}" if prev
                 else f"{'':12}")
        print(f"{n:10d} | {mae.mean():8.2f} | {slope} | "
              + " | ".join(f"{m:8.2f}" for m in mae)
              + f" | {acc.mean():13.3f} | {recall.mean():12.3f} | "
              + " ".join(f"{a:.3f}" for a in aucs))
        rows.append({"deals": n, "mae": [round(float(x), 3) for x in mae],
                     "auc": [round(a, 4) for a in aucs],
                     "winnable_accuracy": [round(float(x), 4) for x in acc],
                     "recall_61": [round(float(x), 4) for x in recall]})
        prev = (n, float(mae.mean()))
    print(f"{time.process_time() - c0:.1f} s CPU, {time.perf_counter() - t0:.1f} s wall")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"base": str(args.base), "heldout_base": str(args.heldout_base),
             "heldout_deals": held.deals, "k": args.k, "sizes": rows}, indent=1) + "\n")
    return 0


def continued(args: argparse.Namespace) -> int:
    full = load_base(default_base_dir())
    hand, pickup = held_out(args.continued, full.deals)
    decl = declarer_cards(hand)
    truth = {"hand": hand["points"].astype(float), "pickup": pickup["points"].astype(float)}
    print(f"{len(decl)} held-out deals (ids {full.deals}..); shipped base {full.deals} deals, "
          f"k {args.k}, std scaling")
    model = KnnModel(full, k=args.k)
    err = errors(model, decl, truth, args.k)
    for kind in KINDS:
        mae, acc = err[kind]
        print(f"{kind:7} MAE " + " ".join(f"{g} {m:.2f}" for g, m in zip(GAMES, mae, strict=True))
              + f" | mean {mae.mean():.2f}; winnable accuracy "
              + " ".join(f"{a:.2f}" for a in acc))
    print("base deals | held-out MAE hand | pick-up")
    for n in parse_sizes(args.sizes, full.deals):
        e = errors(KnnModel(first_deals(full, n), k=args.k), decl, truth, args.k)
        print(f"{n:10d} | {e['hand'][0].mean():17.2f} | {e['pickup'][0].mean():.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("continued", type=Path, nargs="?",
                    help="directory of a continued build of the shipped base (older use)")
    ap.add_argument("--base", type=Path, help="a finished base; its last --holdout deals are "
                                              "held out")
    ap.add_argument("--holdout", type=int, default=1000)
    ap.add_argument("--heldout-base", type=Path,
                    help="with --base: a base of another seed whose hand stage is held out")
    ap.add_argument("--k", type=int, default=12)
    ap.add_argument("--sizes", default="100,200,400,725,1125")
    ap.add_argument("--json", help="also write the figures to this file (with --base)")
    args = ap.parse_args(argv)
    if args.base is not None and args.heldout_base is not None:
        return other_base(args)
    if args.base is not None:
        return study(args)
    if args.continued is None:
        ap.error("give a CONTINUED directory or --base DIR")
    return continued(args)


if __name__ == "__main__":
    raise SystemExit(main())
