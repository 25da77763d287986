"""Fit the put model behind the Skat card play's inference (:mod:`skat_ai.inference`): which
two of its twelve cards the ``knn`` bot puts into the skat for the game it then declares.

    python experiments/skat_put_model.py data --out results/putmodel --deals 20000 --seed 7201
    python experiments/skat_put_model.py fit --data results/putmodel

``data`` deals seeded cards, lets three ``knn`` bots bid, pick up, put and declare (their
decisions before the first card, as in play) and records every pick-up: the twelve cards,
the game declared and the two cards put (1,000 deals a chunk, resumable). ``fit`` trains
:class:`~spielwerk.games.skat_ai.inference.PutModel` on all chunks but the last, reports the
held-out log-loss of the put pair next to uniform (1 in 66) and writes the model with a
manifest to ``src/spielwerk/data/skat_put_model`` (``--model`` elsewhere).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from common import load_chunks, write_model
from spielwerk.arena.match import derive_seed
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.rules import PLAY
from spielwerk.games.skat_ai.infer_models import PutModel, fit_put_model

CHUNK = 1000


class _Declared(Exception):
    pass


def make_data(out: Path, deals: int, seed: int) -> None:
    game = load_game("skat")
    agents = [make_agent("knn:play=rule:calibration=strong", game, 0) for _ in range(3)]
    out.mkdir(parents=True, exist_ok=True)

    def stop(s: Any, player: int, action: int) -> None:
        if s.phase == PLAY and s.contract is not None:
            raise _Declared

    for chunk in range((deals + CHUNK - 1) // CHUNK):
        path = out / f"chunk{chunk:03d}.npz"
        if path.exists():
            continue
        rows = []
        t0 = time.perf_counter()
        for deal in range(chunk * CHUNK, (chunk + 1) * CHUNK):
            state = game.new_initial_state()
            for i, a in enumerate(agents):
                a.reset(derive_seed(seed, deal, i))
            try:
                play(state, agents, np.random.default_rng(derive_seed(seed, deal)), after=stop)
            except _Declared:
                pass
            if state.contract is not None and state.picked_up:
                d = state.declarer
                rows.append((state.dealt[d] | state.skat, state.contract.game, state.put))
        tmp = out / f"chunk{chunk:03d}.tmp.npz"
        np.savez(tmp, rows=np.array(rows, dtype=np.int64).reshape(-1, 3))
        tmp.replace(path)
        print(f"chunk {chunk}: {len(rows)} pick-ups in {time.perf_counter() - t0:.0f} s",
              flush=True)


def fit(data: Path, model_path: Path, hidden: int, epochs: int, seed: int) -> None:
    chunks = [c["rows"] for c in load_chunks(data)]
    train, held = np.concatenate(chunks[:-1]), chunks[-1]
    t0 = time.perf_counter()
    model = fit_put_model(train, hidden=hidden, epochs=epochs, seed=seed, log=print)
    print(f"fitted on {len(train)} puts in {time.perf_counter() - t0:.0f} s")
    logp = model.pair_log_probability(held[:, 0], held[:, 1], held[:, 2])
    scores = {"logloss": float(-logp.mean()), "uniform_logloss": float(np.log(66)),
              "pair_probability_mean": float(np.exp(logp).mean())}
    print(f"held out ({len(held)} puts): log-loss {scores['logloss']:.3f} (uniform "
          f"{scores['uniform_logloss']:.3f}); mean probability of the pair put "
          f"{scores['pair_probability_mean']:.3f} (uniform {1 / 66:.3f})")
    meta = {"training_puts": int(len(train)), "held_out_puts": int(len(held)),
            "hidden": hidden, "epochs": epochs, "seed": seed, "held_out": scores,
            "player": "knn (default settings)",
            "data_command": f"python experiments/skat_put_model.py data ({len(chunks)} chunks "
                            f"of {CHUNK} deals)"}
    write_model(model.net, model_path, meta,
                "python experiments/skat_put_model.py fit --data DIR")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="record the bot's puts")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--deals", type=int, default=20000)
    d.add_argument("--seed", type=int, default=7201)
    f = sub.add_parser("fit", help="fit the model, report held-out scores, write it")
    f.add_argument("--data", type=Path, required=True)
    f.add_argument("--model", type=Path, default=PutModel.FILE, help="where to write it")
    f.add_argument("--hidden", type=int, default=64)
    f.add_argument("--epochs", type=int, default=20)
    f.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs")
    if args.cmd == "data":
        make_data(args.out, args.deals, args.seed)
    else:
        fit(args.data, args.model, args.hidden, args.epochs, args.seed)


if __name__ == "__main__":
    main()
