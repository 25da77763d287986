"""Fit null's win chance after picking up on the bot's own plain nulls (``null_model=features``).

Input: the records of ``skat_declarer_compare.py --force own-nulls`` (each of the bot's own
nulls, with the chance its calibration told and whether it was won against our defence).
Each plain null (with the skat) is reached again from its deal's seeds with the agent that
declared it (``--agent``, default the records' own; a frozen spec such as ``knn6`` where
the records were made by an earlier default), which gives the ten cards kept, the put and
the declarer's position; the features of
:func:`spielwerk.games.skat_ai.null_model.null_put_features` are fitted to the outcome by
logistic regression with a weak ridge (:data:`RIDGE`).

    python experiments/skat_null_model.py results/ownnulls-7106.jsonl --agent knn6 \\
        --check results/ownnulls-nk6-7107.jsonl --check-agent knn7 \\
        --write src/spielwerk/data/skat_calibration/null_put.json

Prints the weights, and on each file (``--check``: held out from the fit) the chance told
and the model's chance against the observed rate: log-loss, the area under the ROC curve,
and the win rate of the nulls each ranks highest.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat_ai.defence_runs import reach_declaration
from spielwerk.games.skat_ai.null_model import FEATURES, FORMAT, null_put_features

RIDGE = 0.01
"""Weight of the squared weights (not the intercept) in the log-loss."""
TOPS = (0.3, 0.5, 0.7)


def reached_nulls(path: Path, agent: str | None, kinds: tuple[str, ...] = ("null",)
                  ) -> Iterator[tuple[dict[str, Any], Any, list[Any], str]]:
    """Each null of ``kinds`` (record types: null, null_ouvert) in an own-nulls file, reached
    again from its deal's seeds: (record, state at the declaration, the agents that bid,
    the file's first declarer - whose outcomes the record holds)."""
    lines = path.read_text().splitlines()
    if not lines:
        raise SystemExit(f"{path} is empty")
    head = json.loads(lines[0])
    if head.get("force") != "own-nulls":
        raise SystemExit(f"{path} is not a skat_declarer_compare.py --force own-nulls file")
    spec, first = agent or head["agent"], head["declarers"][0]
    game = load_game("skat")
    agents = [make_agent(spec, game, 0) for _ in range(3)]
    for line in lines[1:]:
        r = json.loads(line)
        if r.get("passed") or r.get("type") not in kinds:
            continue
        state, _ = reach_declaration(game, agents, head["seed"], r["deal"], "none")
        if (state is None or state.contract.game != NULL
                or state.contract.ouvert != (r["type"] == "null_ouvert")
                or state.declarer != r["declarer"]):
            raise SystemExit(f"{path}: deal {r['deal']} does not reach the recorded null with "
                             f"{spec!r}: name the agent that made the file (--agent)")
        yield r, state, agents, first


def read_nulls(path: Path, agent: str | None) -> list[dict[str, Any]]:
    """The plain nulls of an own-nulls file, each reached again: features, chance told, won
    (against our defence, by the file's first declarer)."""
    game, rows = load_game("skat"), []
    for r, state, _, first in reached_nulls(path, agent):
        d = state.declarer
        position = game.position_of(d)
        rows.append({"x": null_put_features(state.hands[d], state.put, position),
                     "told": r["predicted"], "won": bool(r[first]["ours"]["won"])})
    return rows


def fit(x: np.ndarray, won: np.ndarray) -> np.ndarray:
    """Intercept and weights by ridge-penalised maximum likelihood."""
    a = np.c_[np.ones(len(x)), x]

    def loss(w: np.ndarray) -> float:
        t = a @ w
        return float(np.sum(np.logaddexp(0.0, t) - won * t) + RIDGE * np.sum(w[1:] ** 2))
    w: np.ndarray = minimize(loss, np.zeros(a.shape[1]), method="L-BFGS-B").x
    return w


def chances(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-(np.c_[np.ones(len(x)), x] @ w)))
    return out


def auc(score: np.ndarray, won: np.ndarray) -> float:
    """Area under the ROC curve (ties counted half)."""
    pos, neg = score[won == 1], score[won == 0]
    if not len(pos) or not len(neg):
        return math.nan
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def log_loss(p: np.ndarray, won: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(won * np.log(p) + (1 - won) * np.log(1 - p)))


def report(name: str, rows: list[dict[str, Any]], w: np.ndarray) -> dict[str, Any]:
    """Print and return the told and the model's chances against the outcome."""
    x = np.array([r["x"] for r in rows])
    won = np.array([1.0 if r["won"] else 0.0 for r in rows])
    out: dict[str, Any] = {"nulls": len(rows), "won": round(float(won.mean()), 4)}
    print(f"{name}: {len(rows)} plain nulls, won {won.mean():.3f}")
    print(f"  {'chance':<7} {'mean':>6} {'log-loss':>8} {'AUC':>6}  "
          + "  ".join(f"top {t:.0%}: won (said)" for t in TOPS))
    for label, p in (("told", np.array([r["told"] for r in rows])), ("model", chances(w, x))):
        tops = []
        for t in TOPS:
            kept = p >= np.quantile(p, 1 - t)
            tops.append(f"{won[kept].mean():.3f} ({p[kept].mean():.3f})")
        print(f"  {label:<7} {p.mean():6.3f} {log_loss(p, won):8.4f} {auc(p, won):6.3f}  "
              + "  ".join(f"{s:>21}" for s in tops))
        out[label] = {"mean": round(float(p.mean()), 4), "log_loss": round(log_loss(p, won), 4),
                      "auc": round(auc(p, won), 4)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path, help="own-nulls records to fit on")
    ap.add_argument("--agent", help="the spec that made the files (default: their own)")
    ap.add_argument("--check", type=Path, nargs="+", default=[], help="held-out records")
    ap.add_argument("--check-agent", help="the spec that made the --check files")
    ap.add_argument("--write", type=Path, help="write the model file")
    args = ap.parse_args()
    rows = [r for path in args.files for r in read_nulls(path, args.agent)]
    if len(rows) < 2 * len(FEATURES):
        raise SystemExit(f"{len(rows)} plain nulls are too few to fit {len(FEATURES)} weights")
    w = fit(np.array([r["x"] for r in rows]), np.array([1.0 if r["won"] else 0.0 for r in rows]))
    print("weights: " + ", ".join(f"{n} {v:+.3f}" for n, v in zip(("intercept", *FEATURES), w,
                                                                   strict=True)))
    summary = {"fit": report("in sample", rows, w)}
    if args.check:
        held = [r for path in args.check for r in read_nulls(path, args.check_agent)]
        summary["held_out"] = report("held out", held, w)
    if args.write:
        by = ("python experiments/skat_null_model.py " + " ".join(p.name for p in args.files)
              + (f" --agent {args.agent}" if args.agent else "")
              + (" --check " + " ".join(p.name for p in args.check) if args.check else "")
              + (f" --check-agent {args.check_agent}" if args.check_agent else ""))
        data = {"format": FORMAT, "version": 1,
                "weights": {n: round(float(v), 4) for n, v in zip(("intercept", *FEATURES), w,
                                                                  strict=True)},
                "rule": "chance = 1 / (1 + exp(-(intercept + sum weight x feature)))",
                "made": {"by": by, "ridge": RIDGE, **summary}}
        args.write.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
