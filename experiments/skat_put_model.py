"""Fit the put model behind the Skat card play's inference (:mod:`skat_ai.inference`): which
two of its twelve cards the ``knn`` bot puts into the skat for the game it then declares.

    python experiments/skat_put_model.py data --out results/putmodel --deals 20000 --seed 7201
    python experiments/skat_put_model.py fit --data results/putmodel

``data`` deals seeded cards, lets three ``knn`` bots (``--player SPEC``) bid, pick up, put
and declare (their decisions before the first card, as in play) and records every pick-up:
the twelve cards, the game declared and the two cards put (1,000 deals a chunk,
resumable). ``fit`` trains :class:`~spielwerk.games.skat_ai.inference.PutModel` on all
chunks but the last, reports the held-out log-loss of the put pair next to uniform (1 in
66) and writes the model with a manifest to ``src/spielwerk/data/skat_put_model``
(``--model`` elsewhere). ``evaluate`` scores the shipped model on recorded puts (another
player's, say).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from common import check_data_spec, data_spec, load_chunks, write_data_spec, write_model
from spielwerk.arena.match import derive_seed
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat.rules import PLAY
from spielwerk.games.skat_ai.infer_models import PutModel, fit_put_model, shared_put_model

CHUNK = 1000


class _Declared(Exception):
    pass


PLAYER = "knn:play=rule:calibration=strong"
"""The default player: the default's decisions before the first card (no card is played)."""
def player_of(data: Path) -> str:
    """The player spec a data folder records (folders from before the option: the default)."""
    return data_spec(data, "player", PLAYER)


def make_data(out: Path, deals: int, seed: int, player: str = PLAYER) -> None:
    game = load_game("skat")
    check_data_spec(out, "player", player, PLAYER, "puts")
    try:
        agents = [make_agent(player, game, 0) for _ in range(3)]
    except (AgentSpecError, SpielwerkError) as exc:
        raise SystemExit(f"--player {player!r}: {exc}") from None
    write_data_spec(out, "player", player)

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
            "player": player_of(data),
            "data_command": f"python experiments/skat_put_model.py data ({len(chunks)} chunks "
                            f"of {CHUNK} deals)"}
    write_model(model.net, model_path, meta,
                "python experiments/skat_put_model.py fit --data DIR")


def evaluate(data: Path) -> None:
    """The shipped model on every chunk of ``data``: the log-loss of the pair put, over all
    pick-ups and per game kind (suit, grand, null), next to uniform (1 in 66)."""
    rows = np.concatenate([c["rows"] for c in load_chunks(data)])
    logp = shared_put_model().pair_log_probability(rows[:, 0], rows[:, 1], rows[:, 2])
    print(f"{data}: {len(rows)} pick-ups put by {player_of(data)}; uniform log-loss "
          f"{np.log(66):.3f}")
    kinds = {"all": rows[:, 1] >= 0, "suit": rows[:, 1] < GRAND, "grand": rows[:, 1] == GRAND,
             "null": rows[:, 1] == NULL}
    for name, keep in kinds.items():
        if keep.any():
            print(f"  {name:<6} {int(keep.sum()):>6} pick-ups, log-loss {-logp[keep].mean():.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="record the bot's puts")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--deals", type=int, default=20000)
    d.add_argument("--seed", type=int, default=7201)
    d.add_argument("--player", default=PLAYER, help="the spec whose puts are recorded "
                   "(e.g. knn2:worlds=1, a frozen bot; no card is played)")
    f = sub.add_parser("fit", help="fit the model, report held-out scores, write it")
    f.add_argument("--data", type=Path, required=True)
    f.add_argument("--model", type=Path, default=PutModel.FILE, help="where to write it")
    f.add_argument("--hidden", type=int, default=64)
    f.add_argument("--epochs", type=int, default=20)
    f.add_argument("--seed", type=int, default=0)
    e = sub.add_parser("evaluate", help="score the shipped model on recorded puts")
    e.add_argument("--data", type=Path, required=True)
    args = ap.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs")
    if args.cmd == "evaluate":
        evaluate(args.data)
    elif args.cmd == "data":
        make_data(args.out, args.deals, args.seed, args.player)
    else:
        fit(args.data, args.model, args.hidden, args.epochs, args.seed)


if __name__ == "__main__":
    main()
