"""Prediction quality of the KNN bidder on held-out deals, and the tuning of k and thresholds.

Two kinds of held-out evaluation (docs/skat-bidding.md, "Prediction quality"):

* ``label``: deals of another seed (not in any base), labelled by the double-dummy
  solver with the cheap threshold queries: does the declarer reach 61 with
  the ten cards (hand, skat counted) in each suit/grand game, and win null?
  Written in resumable chunks (``--out DIR``), CPU time per deal printed.
* ``evaluate``: for a base (``--base``) and held-out labels (``--heldout``):
  accuracy of "winnable" (value >= threshold) against the truth per game;
  leave-one-out on the base itself (every deal predicted from the others):
  mean absolute error of the predicted points, hand and pick-up; both for
  subsets of the base (``--sizes``) to show how quality grows with the base;
  pick-up truth on held-out deals: the put chosen by the model, then the
  61 query (``--pickup N`` deals).
* ``tune``: k and thresholds by the declaring score on held-out deals (see
  the docs for the score proxy).

    python experiments/skat_kb_quality.py label --deals 10000 --seed 2 --out heldout \\
        [--workers 2 | --executor dask://HOST:PORT]
    python experiments/skat_kb_quality.py evaluate --base src/spielwerk/data/skat_kb \
        --heldout heldout --sizes 100,200,400,725,all --k 8 --scaling std --pickup 2000
    python experiments/skat_kb_quality.py          # no arguments: the leave-one-out table
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from skat_defence_gap import executor_spec
from spielwerk.core.parallel import make_executor
from spielwerk.games.skat.cards import GAME_NAMES, points_of
from spielwerk.games.skat.dds import DealPosition
from spielwerk.games.skat.scoring import suit_game_value
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.deals import _solver, label_wins
from spielwerk.games.skat_ai.knowledge.store import BaseData, load_base


def machine() -> str:
    return (f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} CPUs, load average "
            f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")


# ----- held-out labels --------------------------------------------------------------------
def label(args: argparse.Namespace) -> None:
    """Resumable: chunks already written are skipped; the chunks are
    :func:`~spielwerk.games.skat_ai.knowledge.deals.label_wins` tasks on ``--executor``
    (``--workers`` processes, or a Dask cluster), each written here as it comes in
    (temporary name, then renamed)."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(machine())
    tasks = []
    done = 0
    for first in range(0, args.deals, args.chunk):
        n = min(args.chunk, args.deals - first)
        if _chunk_path(out, args.seed, first).exists():
            done += n
        else:
            tasks.append((args.seed, first, n))
    cpu = 0.0
    new = 0
    wall = time.perf_counter()
    with make_executor(args.executor, args.workers) as ex:
        for arrays, c in ex.map_unordered(label_wins, tasks):
            path = _chunk_path(out, args.seed, int(arrays["deal_id"][0]))
            tmp = path.with_name(path.name + ".tmp.npz")
            np.savez_compressed(tmp, **arrays)
            os.replace(tmp, path)
            n = len(arrays["deal_id"])
            done, new, cpu = done + n, new + n, cpu + c
            print(f"{done}/{args.deals} deals, {cpu / new:.4f} s CPU per deal (this run)",
                  flush=True)
    print(f"labelled {new} deals: {cpu:.0f} s CPU, {time.perf_counter() - wall:.0f} s wall, "
          f"{args.executor} executor, {args.workers} worker(s)")


def _chunk_path(out: Path, seed: int, first: int) -> Path:
    return out / f"heldout-{seed}-{first:07d}.npz"


def load_heldout(directory: Path, limit: int | None = None) -> dict[str, np.ndarray]:
    parts = sorted(directory.glob("heldout-*.npz"))
    data = [dict(np.load(p)) for p in parts]
    out = {k: np.concatenate([d[k] for d in data]) for k in data[0]}
    if limit:
        out = {k: v[:limit] for k, v in out.items()}
    return out


# ----- evaluation -------------------------------------------------------------------------
def subset(base: BaseData, n: int) -> BaseData:
    hand = {k: v[:n] for k, v in base.hand.items()}
    pickup = {k: v[:n] for k, v in base.pickup.items()} if base.pickup else None
    return BaseData(base.directory, base.manifest, hand, pickup)


def loo_mae(model: KnnModel, kind: str, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-out MAE of points per game (5) and accuracy of null (share >= 0.5)."""
    n = model.size
    pred = model.values(model.declarer_hand, kind, k, exclude=np.arange(n))
    truth = model.hand_points if kind == "hand" else model.pickup_points
    nul = model.hand_null if kind == "hand" else model.pickup_null
    assert truth is not None and nul is not None
    mae = np.abs(pred[:, :5] - truth).mean(axis=0)
    win_acc = ((pred[:, :5] >= 61) == (truth >= 61)).mean(axis=0)
    return mae, np.append(win_acc, ((pred[:, 5] >= 0.5) == (nul > 0.5)).mean())


def auc(score: np.ndarray, truth: np.ndarray) -> float:
    """Area under the ROC curve: the chance that a won deal gets a higher value than a lost
    one (ties count half); threshold-free ranking quality."""
    from scipy.stats import rankdata

    pos = truth.astype(bool)
    n1, n0 = int(pos.sum()), int((~pos).sum())
    if n1 == 0 or n0 == 0:
        return float("nan")
    r = rankdata(score)
    return float((r[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def classification(pred: np.ndarray, truth: np.ndarray, threshold: float
                   ) -> tuple[float, float, float, float]:
    """(accuracy, precision, recall, AUC) of "winnable" = pred >= threshold."""
    call = pred >= threshold
    t = truth.astype(bool)
    acc = float((call == t).mean())
    prec = float(t[call].mean()) if call.any() else float("nan")
    rec = float(call[t].mean()) if t.any() else float("nan")
    return acc, prec, rec, auc(pred, t)


def heldout_accuracy(model: KnnModel, held: dict[str, np.ndarray], k: int,
                     threshold: float, null_threshold: float) -> np.ndarray:
    """(4, 6): accuracy, precision, recall, AUC per game (null last)."""
    pos = held["position"].astype(np.int64)
    decl = held["hands"].astype(np.int64)[np.arange(len(pos)), pos]
    pred = model.values(decl, "hand", k)
    cols = [classification(pred[:, g], held["win"][:, g], threshold) for g in range(5)]
    cols.append(classification(pred[:, 5], held["null"], null_threshold))
    return np.array(cols).T


def pickup_truth(model: KnnModel, held: dict[str, np.ndarray], n: int, k: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predicted pick-up values (n, 6), truth win (n, 5), truth null (n,); the model's puts."""
    s = _solver()
    pos = held["position"].astype(np.int64)[:n]
    hands = held["hands"].astype(np.int64)[:n]
    skat = held["skat"].astype(np.int64)[:n]
    decl = hands[np.arange(n), pos]
    pred = model.values(decl, "pickup", k)
    win = np.zeros((n, 5), dtype=bool)
    null = np.zeros(n, dtype=bool)
    for i in range(n):
        twelve = int(decl[i] | skat[i])
        for g in range(6):
            put, _, _ = model.best_put(twelve, g, k)
            h = [int(x) for x in hands[i]]
            h[pos[i]] = twelve & ~put
            if g == 5:
                null[i] = bool(s.query(DealPosition(5, int(pos[i]), (h[0], h[1], h[2])), "null"))
            else:
                win[i, g] = bool(s.query(DealPosition(g, int(pos[i]), (h[0], h[1], h[2]),
                                                      declarer_points=points_of(put)), "61"))
    return pred, win, null


def evaluate(args: argparse.Namespace) -> None:
    print(machine())
    base = load_base(args.base)
    held = load_heldout(Path(args.heldout), args.limit)
    print(f"base {args.base}: {base.deals} deals; held-out: {len(held['deal_id'])} deals")
    sizes = ([base.deals if x.strip() == "all" else int(x) for x in args.sizes.split(",")]
             if args.sizes else [base.deals])
    sizes = sorted({s for s in sizes if s <= base.deals})
    header = " ".join(f"{g[:5]:>6}" for g in GAME_NAMES)
    for n in sizes:
        model = KnnModel(subset(base, n), k=args.k, scaling=args.scaling)
        mae_h, acc_loo_h = loo_mae(model, "hand", args.k)
        mae_p, acc_loo_p = loo_mae(model, "pickup", args.k)
        acc = heldout_accuracy(model, held, args.k, 61.0, args.null_threshold)
        print(f"\nbase size {n}, k={args.k}")
        print(f"  {'':34} {header}")
        for name, row in zip(("accuracy", "precision", "recall", "AUC"), acc, strict=True):
            print(f"  {'held-out ' + name + ' (hand, >=61)':34} "
                  + " ".join(f"{x:6.3f}" for x in row))
        print(f"  {'LOO MAE points (hand)':34} " + " ".join(f"{x:6.2f}" for x in mae_h))
        print(f"  {'LOO MAE points (pick-up)':34} " + " ".join(f"{x:6.2f}" for x in mae_p))
        print(f"  {'LOO accuracy >=61 (hand)':34} " + " ".join(f"{x:6.3f}" for x in acc_loo_h))
        print(f"  {'LOO accuracy >=61 (pick-up)':34} "
              + " ".join(f"{x:6.3f}" for x in acc_loo_p))
        base_rate = np.append(held["win"].mean(axis=0), held["null"].mean())
        print(f"  {'held-out share won (truth)':34} " + " ".join(f"{x:6.3f}" for x in base_rate))
    if args.pickup:
        model = KnnModel(base, k=args.k, scaling=args.scaling)
        t0 = time.process_time()
        saved = Path(args.heldout) / f"pickup-truth-{args.pickup}.npz"
        if args.reuse_truth and saved.exists():  # the puts of an earlier (smaller) model
            pos = held["position"].astype(np.int64)[:args.pickup]
            decl = held["hands"].astype(np.int64)[:args.pickup][np.arange(args.pickup), pos]
            pred = model.values(decl, "pickup", args.k)
            with np.load(saved) as f:
                win, null = f["win"], f["null"]
            print(f"\n(pick-up truth reused from {saved})")
        else:
            pred, win, null = pickup_truth(model, held, args.pickup, args.k)
        cols = [classification(pred[:, g], win[:, g], 61.0) for g in range(5)]
        cols.append(classification(pred[:, 5], null, args.null_threshold))
        print(f"\npick-up, held-out deals 0..{args.pickup - 1} (the model's puts, then solved; "
              f"{time.process_time() - t0:.0f} s CPU)")
        for name, row in zip(("accuracy", "precision", "recall", "AUC"), np.array(cols).T,
                             strict=True):
            print(f"  {name + ' (pick-up, >=61)':34} " + " ".join(f"{x:6.3f}" for x in row))
        print(f"  {'share won after the put (truth)':34} "
              + " ".join(f"{x:6.3f}" for x in win.mean(axis=0)) + f" {null.mean():6.3f}")
        if not (args.reuse_truth and saved.exists()):
            np.savez_compressed(saved, win=win, null=null)


def loo_table(args: argparse.Namespace) -> None:
    """Leave-one-out over the base for each k and scaling: MAE and >=61 accuracy, mean over
    the 5 suit/grand games, both stages; null accuracy (share >= 0.5)."""
    print(machine())
    base = load_base(args.base)
    print(f"base {args.base}: {base.deals} deals; leave-one-out (each deal predicted from the "
          f"others)")
    print(f"{'scaling':>8} {'k':>4} {'MAE hand':>9} {'MAE pick':>9} {'acc hand':>9} "
          f"{'acc pick':>9} {'null hand':>9} {'null pick':>9}")
    for scaling in args.scalings.split(","):
        for k in [int(x) for x in args.ks.split(",")]:
            model = KnnModel(base, k=k, scaling=scaling)
            mh, ah = loo_mae(model, "hand", k)
            mp, ap_ = loo_mae(model, "pickup", k)
            print(f"{scaling:>8} {k:>4} {mh.mean():>9.2f} {mp.mean():>9.2f} {ah[:5].mean():>9.3f} "
                  f"{ap_[:5].mean():>9.3f} {ah[5]:>9.3f} {ap_[5]:>9.3f}")


def position_experiment(args: argparse.Namespace) -> None:
    """Leave-one-out MAE with the declarer's position as an extra feature (weight w)."""
    from scipy.spatial import cKDTree

    print(machine())
    base = load_base(args.base)
    model = KnnModel(base, k=args.k, scaling=args.scaling)
    n = model.size
    pos = model.position
    print(f"base {args.base}: {n} deals, k={args.k}; extra feature: w x (forehand, middlehand)")
    print(f"{'w':>5} " + " ".join(f"{'MAE ' + g[:5]:>11}" for g in GAME_NAMES[:5])
          + f" {'mean':>7}   (pick-up stage)")
    for w in [float(x) for x in args.weights.split(",")]:
        extra = w * np.stack([pos == 0, pos == 1], axis=1).astype(float)
        maes = []
        for g in range(5):
            x = np.hstack([model.features[:, g, :] * model.scale[g], extra])
            _, idx = cKDTree(x).query(x, k=args.k + 1)
            keep = idx != np.arange(n)[:, None]
            keep[keep.all(axis=1), -1] = False
            idx = idx[keep].reshape(n, args.k)
            assert model.pickup_points is not None
            maes.append(np.abs(model.pickup_points[idx, g].mean(axis=1)
                               - model.pickup_points[:, g]).mean())
        print(f"{w:>5.1f} " + " ".join(f"{m:>11.2f}" for m in maes) + f" {np.mean(maes):>7.2f}")


def tune(args: argparse.Namespace) -> None:
    """k, scaling and thresholds by a declaring score on held-out deals.

    For every held-out deal the model picks the game with the highest value among
    those reaching the threshold (else it passes) - once with the pick-up values
    (truth: the DDS result after the model's put, ``--pickup`` deals from ``evaluate``)
    and once with the hand values (truth: the dealt ten cards). Score of a deal:
    Seeger-Fabian points of declaring it (won: value + 50; lost: -2 value - 50, and
    -80 for the opponents' 40 each, relative to them); 0 when passing. Game values
    with the matadors of the ten cards (+1 for hand).
    """
    print(machine())
    base = load_base(args.base)
    held = load_heldout(Path(args.heldout), args.limit)
    pt = np.load(Path(args.heldout) / f"pickup-truth-{args.pickup}.npz")
    n = len(pt["win"])
    pos = held["position"].astype(np.int64)[:n]
    decl = held["hands"].astype(np.int64)[:n][np.arange(n), pos]
    plain = np.array([[suit_game_value(int(h), g) for g in range(5)] for h in decl], float)
    hand_v = np.array([[suit_game_value(int(h), g, hand=True) for g in range(5)] for h in decl],
                      float)
    print(f"{n} held-out deals (seed of the held-out set, not in the base); pick-up truth with "
          f"the puts of the evaluate run")
    print(f"{'kind':>7} {'scaling':>8} {'k':>4} {'thresh':>6} {'declared':>9} {'won':>6} "
          f"{'score/deal':>10}")
    from spielwerk.games.skat_ai.baseline import best_suit_game

    rule = [best_suit_game(int(h)) for h in decl]  # the rule baseline's game and strength
    choice = np.array([g for g, _ in rule])
    declare = np.array([strength >= 7.0 for _, strength in rule])
    won = pt["win"][np.arange(n), choice]
    v = plain[np.arange(n), choice]
    score = np.where(declare, np.where(won, v + 50, -2 * v - 50 - 80), 0)
    print(f"{'pickup':>7} {'rule':>8} {'-':>4} {'7':>6} {declare.mean():>9.3f} "
          f"{won[declare].mean():>6.3f} {score.mean():>10.2f}   (rule baseline's count, "
          f"its game, the KNN put's truth)")
    for kind, truth, gv in (("pickup", pt["win"], plain), ("hand", held["win"][:n], hand_v)):
        for scaling in args.scalings.split(","):
            for k in [int(x) for x in args.ks.split(",")]:
                model = KnnModel(base, k=k, scaling=scaling)
                pred = model.values(decl, kind, k)[:, :5]
                for t in [float(x) for x in args.thresholds.split(",")]:
                    ok = pred >= t
                    choice = np.where(ok, pred, -1).argmax(axis=1)
                    declare = ok.any(axis=1)
                    won = truth[np.arange(n), choice]
                    v = gv[np.arange(n), choice]
                    score = np.where(declare, np.where(won, v + 50, -2 * v - 50 - 80), 0)
                    wr = won[declare].mean() if declare.any() else float("nan")
                    print(f"{kind:>7} {scaling:>8} {k:>4} {t:>6.0f} {declare.mean():>9.3f} "
                          f"{wr:>6.3f} {score.mean():>10.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    a = sub.add_parser("label")
    a.add_argument("--deals", type=int, default=10000)
    a.add_argument("--seed", type=int, default=2)
    a.add_argument("--chunk", type=int, default=250)
    a.add_argument("--out", required=True)
    a.add_argument("--workers", type=int, default=1)
    a.add_argument("--executor", default="local", type=executor_spec,
                   help="local (process pool of --workers), serial or dask://HOST:PORT")
    e = sub.add_parser("evaluate")
    t = sub.add_parser("tune")
    for p in (e, t):
        p.add_argument("--base", required=True)
        p.add_argument("--heldout", required=True)
        p.add_argument("--limit", type=int, default=0)
        p.add_argument("--pickup", type=int, default=0)
    e.add_argument("--k", type=int, default=12)
    e.add_argument("--sizes", default="")
    e.add_argument("--null-threshold", type=float, default=0.8)
    e.add_argument("--scaling", default="none")
    e.add_argument("--reuse-truth", action="store_true",
                   help="pick-up truth from an earlier run's file instead of solving again")
    t.add_argument("--ks", default="4,8,12,16,24")
    t.add_argument("--scalings", default="none,std")
    t.add_argument("--thresholds", default="50,55,58,61,64,67,70")
    lo = sub.add_parser("loo")
    lo.add_argument("--base", required=True)
    lo.add_argument("--ks", default="1,2,4,8,12,16,24,32")
    lo.add_argument("--scalings", default="none,std")
    pe = sub.add_parser("position")
    pe.add_argument("--base", required=True)
    pe.add_argument("--k", type=int, default=12)
    pe.add_argument("--weights", default="0,2,5,10,30")
    pe.add_argument("--scaling", default="std")
    args = ap.parse_args()
    if args.cmd is None:  # as run by run_all.py: the cheap leave-one-out table of the shipped base
        from spielwerk.games.skat_ai.knowledge.store import default_base_dir

        args = ap.parse_args(["loo", "--base", str(default_base_dir())])
    {"label": label, "evaluate": evaluate, "tune": tune, "loo": loo_table,
     "position": position_experiment}[args.cmd](args)


if __name__ == "__main__":
    main()
