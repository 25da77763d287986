"""Fit the card-play model behind the Skat card play's inference from the play
(:mod:`skat_ai.inference`, ``infer=auction+play``).

    python experiments/skat_play_model.py data --out results/playmodel --games 1000 \\
        --seed 7101 --workers 2
    python experiments/skat_play_model.py fit --data results/playmodel

``data`` plays self-play deals of the ``knn`` bot (PIMC card play, ``--worlds`` worlds a
decision, no time limit: the records do not depend on the machine's load) and records every
card decision with more than one legal card: the mover's hand, the cards every seat has
played, the trick so far, the game and the card chosen (50 deals a chunk, resumable; the
chunks are :func:`~spielwerk.games.skat_ai.inference.record_card_decisions` tasks, so
``--executor dask://HOST:PORT`` records them on a Dask cluster).
``fit`` trains :class:`~spielwerk.games.skat_ai.inference.PlayModel` on all chunks but the
last, reports its log-loss and accuracy on the held-out chunk next to a model that picks
uniformly among the legal cards, and writes it with a manifest to
``src/spielwerk/data/skat_play_model`` (``--model`` elsewhere).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from common import load_chunks, write_model
from skat_defence_gap import executor_spec
from spielwerk.core.parallel import make_executor
from spielwerk.games.skat_ai.infer_models import CANON, PlayModel, fit_play_model, play_features
from spielwerk.games.skat_ai.inference import record_card_decisions

CHUNK = 50


def write_chunks(out: Path, games: int, seed: int, worlds: int, executor: str,
                 workers: int) -> None:
    """Record the chunks of ``games`` deals (rounded up to whole chunks of :data:`CHUNK`)
    not yet in ``out`` (resumable): each chunk a
    :func:`~spielwerk.games.skat_ai.inference.record_card_decisions` task on ``executor``,
    written here as it comes in (temporary name, then renamed)."""
    out.mkdir(parents=True, exist_ok=True)
    tasks = []
    for chunk in range((games + CHUNK - 1) // CHUNK):
        if (out / f"chunk{chunk:03d}.npz").exists():
            print(f"chunk {chunk} exists")
        else:
            tasks.append((seed, chunk * CHUNK, CHUNK, worlds))
    t0 = time.perf_counter()
    with make_executor(executor, workers) as ex:
        for n, (first, rows) in enumerate(ex.map_unordered(record_card_decisions, tasks), 1):
            chunk = first // CHUNK
            tmp = out / f"chunk{chunk:03d}.tmp.npz"
            np.savez(tmp, rows=rows)
            tmp.replace(out / f"chunk{chunk:03d}.npz")
            print(f"chunk {chunk}: {len(rows)} decisions ({n}/{len(tasks)} chunks, "
                  f"{time.perf_counter() - t0:.0f} s)", flush=True)


def fit(data: Path, model_path: Path, hidden: int, epochs: int, l2: float, seed: int
        ) -> None:
    chunks = [c["rows"] for c in load_chunks(data)]
    train, held = np.concatenate(chunks[:-1]), chunks[-1]
    t0 = time.perf_counter()
    model = fit_play_model(train, hidden=hidden, epochs=epochs, l2=l2, seed=seed, log=print)
    print(f"fitted on {len(train)} decisions in {time.perf_counter() - t0:.0f} s")
    x, legal = play_features(held)
    p = model.card_probabilities(x, legal)
    chosen = CANON[held[:, 0], held[:, -1]]  # the card in the models' order
    rows = np.arange(len(held))
    n_legal = legal.sum(axis=1)
    scores = {
        "logloss": float(-np.log(p[rows, chosen] + 1e-12).mean()),
        "accuracy": float((p.argmax(1) == chosen).mean()),
        "uniform_logloss": float(np.log(n_legal).mean()),
        "uniform_accuracy": float((1.0 / n_legal).mean()),
    }
    print(f"held out ({len(held)} decisions): log-loss {scores['logloss']:.3f} "
          f"(uniform over the legal cards {scores['uniform_logloss']:.3f}), accuracy "
          f"{scores['accuracy']:.3f} (uniform {scores['uniform_accuracy']:.3f})")
    meta = {"training_decisions": int(len(train)), "held_out_decisions": int(len(held)),
            "hidden": hidden, "epochs": epochs, "l2": l2, "seed": seed, "held_out": scores,
            "player": "knn (PIMC card play) self-play",
            "data_command": f"python experiments/skat_play_model.py data ({len(chunks)} chunks "
                            f"of {CHUNK} deals)"}
    write_model(model.net, model_path, meta,
                "python experiments/skat_play_model.py fit --data DIR")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="record the bot's card decisions in self-play")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--games", type=int, default=1000)
    d.add_argument("--seed", type=int, default=7101)
    d.add_argument("--worlds", type=int, default=16)
    d.add_argument("--workers", type=int, default=1)
    d.add_argument("--executor", default="local", type=executor_spec,
                   help="local (process pool of --workers), serial or dask://HOST:PORT")
    f = sub.add_parser("fit", help="fit the model, report held-out scores, write it")
    f.add_argument("--data", type=Path, required=True)
    f.add_argument("--model", type=Path, default=PlayModel.FILE, help="where to write it")
    f.add_argument("--hidden", type=int, default=64)
    f.add_argument("--epochs", type=int, default=5)
    f.add_argument("--l2", type=float, default=1e-3)
    f.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs")
    if args.cmd == "data":
        write_chunks(args.out, args.games, args.seed, args.worlds, args.executor, args.workers)
    else:
        fit(args.data, args.model, args.hidden, args.epochs, args.l2, args.seed)


if __name__ == "__main__":
    main()
