"""Are the defenders' worlds as strong as the real declarer? The weighting checked by rank.

If the worlds a defender draws (weighted by the auction and the put, :mod:`inference`)
followed the true posterior of the declarer's cards, the real declarer would rank
anywhere among them alike: his strength's percentile among the worlds would be uniform
over the games, mean 0.5, a tenth of the games in each decile. This probe replays the
auction of every game of some types in a results file of ``skat_defence_compare.py``, and
for the first defender after the declarer draws ``--batches`` batches of ``--worlds``
weighted worlds (as a card decision draws them) under each named inference setting; it
records where the real declarer's strength (``skat_tie_tail.declarer_strength``: trumps,
jacks, side aces and tens, the points he holds) ranks among them, and the seconds a batch
takes. The summary gives, per setting, the mean percentile, the share of games in the
top and the bottom decile, and the milliseconds per batch.

    python experiments/skat_worlds_strength.py results/suit-gap-7164.jsonl --shard 0/2 \\
        --setting c4=candidates=4 --setting c16=candidates=16 \\
        --setting c16p2=candidates=16,power=2 --out results/strength-7164-0.jsonl
    python experiments/skat_worlds_strength.py --summarize results/strength-7164-0.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from skat_tie_tail import declarer_strength
from skat_tied_cards import game_arguments, sharded_games
from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai.defence_runs import reach_declaration
from spielwerk.games.skat_ai.infer_models import BID_MODELS
from spielwerk.games.skat_ai.inference import Inference, InferenceSettings, weighted_deals


def parse_setting(text: str) -> tuple[str, InferenceSettings]:
    """``NAME=key=value,key=value``: a named :class:`InferenceSettings` (floats but
    ``candidates``, and ``bid_model`` one of ``infer_models.BID_MODELS``)."""
    name, _, rest = text.partition("=")
    if not name or not rest:
        raise argparse.ArgumentTypeError(f"NAME=key=value[,key=value], not {text!r}")
    fields: dict[str, Any] = {}
    for part in rest.split(","):
        key, _, value = part.partition("=")
        if key not in InferenceSettings.__dataclass_fields__ or key == "play_model":
            raise argparse.ArgumentTypeError(f"no inference setting {key!r}")
        if key == "bid_model":
            if value not in BID_MODELS:
                raise argparse.ArgumentTypeError(
                    f"bid_model: one of {', '.join(BID_MODELS)}, not {value!r}")
            fields[key] = value
            continue
        try:
            fields[key] = int(value) if key == "candidates" else float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{key}: a number, not {value!r}") from None
    return name, InferenceSettings(**fields)


def percentile(real: float, strengths: np.ndarray) -> float:
    """Where ``real`` ranks among ``strengths`` (ties count half)."""
    return float((strengths < real).mean() + 0.5 * (strengths == real).mean())


def rank_game(game: Any, agents: list[Any], seed: int, deal: int,
              settings: dict[str, Any], batches: int, worlds: int) -> dict[str, Any]:
    """The real declarer's percentile among each setting's worlds, and the seconds per batch,
    for the defender after the declarer at the declaration of ``deal``."""
    state, _ = reach_declaration(game, agents, seed, deal, "none")
    real = declarer_strength(deal_from_state(state))
    info = state.info_state((state.declarer + 1) % 3)
    out: dict[str, Any] = {"deal": deal}
    for name, inference in settings.items():
        rng = np.random.default_rng([seed, deal])
        t0 = time.perf_counter()
        drawn = [w for _ in range(batches) for w in weighted_deals(info, rng, worlds, inference)]
        seconds = (time.perf_counter() - t0) / batches
        out[name] = {"percentile": percentile(real, np.array([declarer_strength(w)
                                                              for w in drawn])),
                     "seconds": round(seconds, 4)}
    return out


def summarize(paths: list[Path]) -> None:
    rows = [json.loads(x) for p in paths for x in p.read_text().splitlines()[1:] if x.strip()]
    if not rows:
        print("no games")
        return
    names = [k for k in rows[0] if k not in ("deal", "type")]
    print(f"{len(rows)} games; the real declarer's strength among the defender's worlds "
          "(uniform: mean 0.5, 0.1 in each decile)")
    print(f"{'setting':<12} {'mean':>6} {'top decile':>11} {'bottom decile':>14} "
          f"{'ms/batch':>9}")
    for name in names:
        p = np.array([r[name]["percentile"] for r in rows])
        ms = 1000 * np.mean([r[name]["seconds"] for r in rows])
        print(f"{name:<12} {p.mean():>6.3f} {np.mean(p >= 0.9):>11.3f} "
              f"{np.mean(p < 0.1):>14.3f} {ms:>9.1f}")


def main() -> None:
    ap = game_arguments(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    ap.add_argument("--setting", type=parse_setting, action="append", default=[],
                    help="NAME=key=value[,key=value] of the auction's inference (repeat)")
    ap.add_argument("--batches", type=int, default=8)
    ap.add_argument("--worlds", type=int, default=32)
    args = ap.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return
    if args.results is None or args.out is None or not args.setting:
        ap.error("RESULTS, --out and at least one --setting are needed (or --summarize)")
    header, games = sharded_games(args)
    settings = {name: Inference.of("auction", s) for name, s in args.setting}
    game = load_game("skat")
    agents = [make_agent(header["agent"], game, 0) for _ in range(3)]
    with args.out.open("w") as fh:
        fh.write(json.dumps({"source": str(args.results), "seed": header["seed"],
                             "settings": {name: vars(s) for name, s in args.setting}}) + "\n")
        for i, r in enumerate(games, 1):
            got = rank_game(game, agents, header["seed"], r["deal"], settings, args.batches,
                            args.worlds)
            fh.write(json.dumps({**got, "type": r["type"]}) + "\n")
            if i % 50 == 0 or i == len(games):
                print(f"{i}/{len(games)} games", flush=True)
    summarize([args.out])


if __name__ == "__main__":
    main()
