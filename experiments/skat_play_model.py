"""Fit the card-play model behind the Skat card play's inference from the play
(:mod:`skat_ai.inference`, ``infer=auction+play``).

    python experiments/skat_play_model.py data --out results/playmodel --games 1000 \\
        --seed 7101 --workers 2
    python experiments/skat_play_model.py fit --data results/playmodel

``data`` plays self-play deals of the ``knn`` bot (PIMC card play, ``--worlds`` worlds a
decision, no time limit: the records do not depend on the machine's load) and records every
card decision with more than one legal card: the mover's hand, the cards every seat has
played, the trick so far, the game and the card chosen (50 deals a chunk, resumable).
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
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from common import load_chunks, write_model
from spielwerk.arena.match import derive_seed
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.rules import PLAY
from spielwerk.games.skat_ai.infer_models import CANON, PlayModel, fit_play_model, play_features
from spielwerk.games.skat_ai.inference import decision_record

CHUNK = 50


def make_chunk(out: Path, chunk: int, seed: int, worlds: int) -> str:
    path = out / f"chunk{chunk:03d}.npz"
    if path.exists():
        return f"chunk {chunk} exists"
    game = load_game("skat")
    agents = [make_agent(f"knn:worlds={worlds}", game, 0) for _ in range(3)]
    rows: list[tuple[int, ...]] = []

    def record(state: Any, player: int, action: int) -> None:
        if player < 0 or state.phase != PLAY or state.contract is None or action >= 32:
            return
        legal = [a for a in state.legal_actions() if a < 32]
        if len(legal) > 1:
            rows.append(decision_record(state, player, action))

    t0 = time.perf_counter()
    for deal in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        for i, a in enumerate(agents):
            a.reset(derive_seed(seed, deal, i))
        play(game.new_initial_state(), agents,
             np.random.default_rng(derive_seed(seed, deal, 9)), before=record)
    tmp = out / f"chunk{chunk:03d}.tmp.npz"
    np.savez(tmp, rows=np.array(rows, dtype=np.int64))
    tmp.replace(path)
    return f"chunk {chunk}: {len(rows)} decisions in {time.perf_counter() - t0:.0f} s"


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
        args.out.mkdir(parents=True, exist_ok=True)
        chunks = range((args.games + CHUNK - 1) // CHUNK)
        with ProcessPoolExecutor(args.workers) as pool:
            for msg in pool.map(make_chunk, [args.out] * len(chunks), chunks,
                                [args.seed] * len(chunks), [args.worlds] * len(chunks)):
                print(msg, flush=True)
    else:
        fit(args.data, args.model, args.hidden, args.epochs, args.l2, args.seed)


if __name__ == "__main__":
    main()
