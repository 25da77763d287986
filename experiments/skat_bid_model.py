"""Fit the bid model behind the Skat card play's inference (:mod:`skat_ai.inference`).

Two steps, both resumable:

    python experiments/skat_bid_model.py data --out results/bidmodel --chunks 40 --seed 7001
    python experiments/skat_bid_model.py fit --data results/bidmodel

``data`` deals random ten-card hands at random positions and records what the ``knn`` bot's
bidding (:func:`decide_bid`; ``--bidder SPEC``, default ``knn``, e.g. a frozen bot) decides
for each:
the highest bid, the game, hand or pick-up (5,000 hands a chunk, about 11 s a chunk on one
core). ``fit`` trains the model on all chunks but the last, reports its log-loss and accuracy
on the last (held out) next to a model that knows only the class frequencies, and writes it
with a manifest to ``src/spielwerk/data/skat_bid_model`` (``--model`` elsewhere; the shipped
models by bidder are ``infer_models.BID_MODELS``, chosen by ``knn``'s and ``pimc``'s
``bid_model``). Refit whenever the bidding or its knowledge base changes:

    python experiments/skat_bid_model.py data --bidder knn10 --out results/bidmodel-knn10 \\
        --chunks 40 --seed 7301
    python experiments/skat_bid_model.py fit --data results/bidmodel-knn10 --hidden 128 \\
        --epochs 60 --model src/spielwerk/data/skat_bid_model_knn10/bid_model.npz
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from common import check_data_spec, data_spec, load_chunks, write_data_spec, write_model
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.registry import load_game
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.infer_models import (
    BID_CLASSES,
    BID_MODELS,
    DECLARATIONS,
    BidModel,
    bid_class,
    declaration_class,
    fit_bid_model,
    shared_bid_model,
)
from spielwerk.games.skat_ai.knn_agent import KnnSettings, shared_model
from spielwerk.games.skat_ai.knowledge.store import base_fingerprint, default_base_dir

CHUNK = 5000


def bidder_of(data: Path) -> str:
    """The bidder spec a data folder records (folders from before the option: ``knn``)."""
    return data_spec(data, "bidder", "knn")


def make_data(out: Path, chunks: int, seed: int, bidder: str = "knn") -> None:
    check_data_spec(out, "bidder", bidder, "knn", "bidding")
    try:
        agent = make_agent(bidder, load_game("skat"), 0)
    except (AgentSpecError, SpielwerkError) as exc:
        raise SystemExit(f"--bidder {bidder!r}: {exc}") from None
    settings = getattr(agent, "settings", None)
    if not isinstance(settings, KnnSettings):
        raise SystemExit(f"--bidder {bidder!r} is not a knn bot")
    params = settings.decision_params()
    model = shared_model(settings.base, params.k, settings.scaling)
    write_data_spec(out, "bidder", bidder)
    for c in range(chunks):
        path = out / f"chunk{c:03d}.npz"
        if path.exists():
            continue
        rng = np.random.default_rng([seed, c])
        hands = np.zeros(CHUNK, np.int64)
        positions = rng.integers(0, 3, CHUNK)
        res = np.zeros((CHUNK, 4), np.int64)
        t0 = time.perf_counter()
        for i in range(CHUNK):
            h = int(sum(1 << int(x) for x in rng.choice(32, 10, replace=False)))
            hands[i] = h
            d = decide_bid(model, h, params, int(positions[i]))
            res[i] = (d.max_bid, d.game, int(d.hand_game), int(d.ouvert))
        tmp = out / f"chunk{c:03d}.tmp.npz"
        np.savez(tmp, hands=hands, pos=positions, res=res)
        tmp.replace(path)
        print(f"chunk {c + 1}/{chunks}: {time.perf_counter() - t0:.1f} s", flush=True)


def scores(pb: np.ndarray, pd: np.ndarray, yb: np.ndarray, yd: np.ndarray) -> dict[str, float]:
    rows = np.arange(len(yb))
    return {
        "bid_logloss": float(-np.log(pb[rows, yb] + 1e-12).mean()),
        "bid_accuracy": float((pb.argmax(1) == yb).mean()),
        "declaration_logloss": float(-np.log(pd[rows, yd] + 1e-12).mean()),
        "declaration_accuracy": float((pd.argmax(1) == yd).mean()),
    }


def fit(data: Path, model_path: Path, hidden: int, epochs: int, seed: int) -> None:
    chunks = load_chunks(data)
    train, held = chunks[:-1], chunks[-1]

    def stack(parts: list[dict[str, np.ndarray]]) -> tuple[np.ndarray, ...]:
        hands = np.concatenate([p["hands"] for p in parts])
        pos = np.concatenate([p["pos"] for p in parts])
        res = np.concatenate([p["res"] for p in parts])
        return hands, pos, res[:, 0], declaration_class(res[:, 1], res[:, 2])

    h, p, mb, dc = stack(train)
    hh, hp, hmb, hdc = stack([held])
    t0 = time.perf_counter()
    model = fit_bid_model(h, p, mb, dc, hidden=hidden, epochs=epochs, seed=seed, log=print)
    print(f"fitted on {len(h)} hands in {time.perf_counter() - t0:.0f} s")
    pb, pd = model.predict(hh, hp)
    yb, yd = bid_class(hmb), hdc
    fb = np.bincount(bid_class(mb), minlength=len(BID_CLASSES)) / len(mb)
    fd = np.bincount(dc, minlength=DECLARATIONS) / len(dc)
    prior = scores(np.tile(fb, (len(yb), 1)), np.tile(fd, (len(yd), 1)), yb, yd)
    held_scores = scores(pb, pd, yb, yd)
    print(f"held out ({len(hh)} hands)   {'model':>8} {'frequencies':>12}")
    for k, v in held_scores.items():
        print(f"  {k:<22} {v:>8.3f} {prior[k]:>12.3f}")
    meta = {
        "training_hands": int(len(h)), "held_out_hands": int(len(hh)), "hidden": hidden,
        "epochs": epochs, "seed": seed, "held_out": held_scores, "frequencies_only": prior,
        "bidder": bidder_of(data),
        "knowledge_base_manifest_sha256": base_fingerprint(default_base_dir())[
            "manifest_sha256"],
        "data_command": f"python experiments/skat_bid_model.py data --bidder "
                        f"{bidder_of(data)} ({len(chunks)} chunks)",
    }
    write_model(model.net, model_path, meta,
                "python experiments/skat_bid_model.py fit --data DIR")


def evaluate(data: Path, names: list[str]) -> None:
    """Each named shipped model (:data:`BID_MODELS`) on every chunk of ``data``: the scores
    of :func:`scores`, and the share of hands that bid at all, recorded against predicted."""
    chunks = load_chunks(data)
    hands = np.concatenate([c["hands"] for c in chunks])
    pos = np.concatenate([c["pos"] for c in chunks])
    res = np.concatenate([c["res"] for c in chunks])
    yb, yd = bid_class(res[:, 0]), declaration_class(res[:, 1], res[:, 2])
    print(f"{data}: {len(hands)} hands bid by {bidder_of(data)}; {(res[:, 0] > 0).mean():.3f} "
          "of them bid")
    print(f"{'model':<8} {'bid log-loss':>12} {'bid accuracy':>12} {'decl. log-loss':>14} "
          f"{'decl. accuracy':>14} {'bidding':>8}")
    for name in names:
        pb, pd = shared_bid_model(name).predict(hands, pos)
        sc = scores(pb, pd, yb, yd)
        print(f"{name:<8} {sc['bid_logloss']:>12.3f} {sc['bid_accuracy']:>12.3f} "
              f"{sc['declaration_logloss']:>14.3f} {sc['declaration_accuracy']:>14.3f} "
              f"{1 - pb[:, 0].mean():>8.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="record the bot's bidding on random hands")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--chunks", type=int, default=16)
    d.add_argument("--seed", type=int, default=7001)
    d.add_argument("--bidder", default="knn", help="the knn spec whose bidding is recorded "
                   "(e.g. knn10, a frozen bot)")
    f = sub.add_parser("fit", help="fit the model, report held-out scores, write it")
    f.add_argument("--data", type=Path, required=True)
    f.add_argument("--model", type=Path, default=BidModel.FILE, help="where to write it")
    f.add_argument("--hidden", type=int, default=64)
    f.add_argument("--epochs", type=int, default=30)
    f.add_argument("--seed", type=int, default=0)
    e = sub.add_parser("evaluate", help="score the shipped models on recorded bidding")
    e.add_argument("--data", type=Path, required=True)
    e.add_argument("--model", action="append", choices=list(BID_MODELS),
                   help="a shipped model by its bidder (repeat; default: all)")
    args = ap.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs")
    if args.cmd == "evaluate":
        evaluate(args.data, args.model or list(BID_MODELS))
    elif args.cmd == "data":
        make_data(args.out, args.chunks, args.seed, args.bidder)
    else:
        fit(args.data, args.model, args.hidden, args.epochs, args.seed)


if __name__ == "__main__":
    main()
