"""The defence gap: games our defence lets through that the open-hand defence beats.

Per seeded deal, AGENT sits in all three seats through the auction; a deal it declares is
then played out twice from the declaration with AGENT as the declarer (the same seed, so
its decisions are the same until the defence differs): once against two AGENT defenders
(our defence), once against the open-hand defence
(:mod:`spielwerk.games.skat_ai.open_defence`: defenders who see every card and play the
double-dummy best card). Per game type (suit, grand, null; each also with hand) the
summary gives the declared games, the declarer's win rate against each defence, and the
gap: the share of the declared games won against our defence and lost against the
open-hand one, with a 95% Wilson interval. The declarations are AGENT's own (what it
really declares), unless ``--force null``: then whoever wins the auction picks up the skat,
puts as AGENT does and declares a plain null (a deal whose bid went past the null's 23 is
left out as not forceable).

Results go to a JSON Lines file (one line per deal), resumed when it exists. Playing to
the declaration and the game types are :mod:`spielwerk.games.skat_ai.calibration`'s (the
``spielwerk skat calibration`` command's).

    python experiments/skat_defence_gap.py --deals 300 --seed 4242 --workers 2 \\
        --out results/defence-gap.jsonl
    python experiments/skat_defence_gap.py --summarize results/defence-gap.jsonl
    python experiments/skat_defence_gap.py --force null --deals 1000 --seed 4343 --workers 2 \
        --out results/defence-gap-null.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from spielwerk.arena.match import derive_seed
from spielwerk.arena.stats import wilson_interval
from spielwerk.core.agent import make_agent
from spielwerk.core.intervals import mean_and_se
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat_ai.calibration import (
    GAME_TYPES,
    forcing_null,
    game_type,
    play_to_declaration,
)
from spielwerk.games.skat_ai.open_defence import OpenHandDefence

_WORKER: dict[str, Any] = {}


def _init(agent: str, force: str) -> None:
    game = load_game("skat")
    _WORKER.update(game=game, agents=[make_agent(agent, game, 0) for _ in range(3)],
                   force=force)


def reach_declaration(game: Any, agents: list[Any], seed: int, deal: int, force: str
                      ) -> tuple[Any, int]:
    """The deal's state once a game is declared (None: passed in) and its chance seed:
    ``agents`` bid in every seat (reset from the deal's seeds), forcing a null where
    ``force`` is ``"null"``."""
    chance = derive_seed(seed, 1, deal)
    for i in range(3):
        agents[i].reset(derive_seed(seed, 2, deal, i))
    state = play_to_declaration(game.new_initial_state(),
                                forcing_null(agents) if force == "null" else agents,
                                np.random.default_rng(chance))
    return state, chance


def paired_interval(diffs: list[int]) -> tuple[float, float, float]:
    """The mean of matched-pair differences and its 95% interval (normal)."""
    mean, se = mean_and_se(diffs)
    half = 1.96 * (se if se == se else 0.0)  # one pair: no spread
    return mean, mean - half, mean + half


def table_seats(declarer: int, declaring: list[Any], defending: list[Any] | None, seed: int,
                deal: int) -> dict[int, Any]:
    """The seats that play a declared game out: the declarer's from ``declaring``, the other
    two from ``defending`` (each seat's own open-hand defence where it is None); agents are
    reset from the deal's card-play seeds, the same in every playing of the deal."""
    seats: dict[int, Any] = {}
    for s in range(3):
        who = declaring[s] if s == declarer else defending[s] if defending else None
        if who is None:
            seats[s] = OpenHandDefence()
        else:
            who.reset(derive_seed(seed, 3, deal, s))
            seats[s] = who
    return seats


def play_deal(seed: int, deal: int) -> dict[str, Any]:
    game, agents, force = _WORKER["game"], _WORKER["agents"], _WORKER["force"]
    state, chance = reach_declaration(game, agents, seed, deal, force)
    if state is None or state.contract is None:
        return {"deal": deal, "passed": True}
    declarer, contract = state.declarer, state.contract
    if force == "null" and (contract.game != NULL or state.auction.value > 23):
        return {"deal": deal, "passed": True, "not_forceable": True}
    record: dict[str, Any] = {"deal": deal, "passed": False, "declarer": declarer,
                              "contract": contract.iss(), "type": game_type(contract)}
    for name in ("ours", "open"):
        open_hand = OpenHandDefence()
        seats: dict[int, Any] = {}
        for s in range(3):
            agents[s].reset(derive_seed(seed, 3, deal, s))
            seats[s] = agents[s] if s == declarer or name == "ours" else open_hand
        t0 = time.perf_counter()
        final = play(state.clone(), seats, np.random.default_rng(chance)).state
        d = final_details(final)
        record[name] = {"won": d["won"], "declarer_points": d["declarer_points"],
                        "seconds": round(time.perf_counter() - t0, 2)}
    return record


def read_results(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A results file's header (its first line) and its rows (one per deal)."""
    lines = path.read_text().splitlines()
    return json.loads(lines[0]), [json.loads(x) for x in lines[1:] if x.strip()]


def summarize(path: Path) -> None:
    header, rows = read_results(path)
    played = [r for r in rows if not r["passed"]]
    forced = f", forced {header['force']}" if header.get("force") else ""
    print(f"agent {header['agent']}, seed {header['seed']}{forced}: {len(rows)} deals, "
          f"{len(played)} declared")
    print(f"{'type':<12} {'declared':>8} {'won vs ours':>12} {'won vs open':>12} "
          f"{'gap':>7}  95% interval")
    for t in [*GAME_TYPES, "all"]:
        rs = [r for r in played if t == "all" or r["type"] == t]
        if not rs:
            continue
        ours = sum(r["ours"]["won"] for r in rs)
        opn = sum(r["open"]["won"] for r in rs)
        gap = sum(r["ours"]["won"] and not r["open"]["won"] for r in rs)
        lo, hi = wilson_interval(gap, len(rs), 0.95)
        print(f"{t:<12} {len(rs):>8} {ours / len(rs):>12.3f} {opn / len(rs):>12.3f} "
              f"{gap / len(rs):>7.3f}  {lo:.3f}-{hi:.3f}")


def run_deals(out: Path, header: dict[str, Any], deals: int, workers: int,
              init: Callable[..., None], initargs: tuple[Any, ...],
              play: Callable[[int, int], dict[str, Any]], seed: int,
              same: Callable[[dict[str, Any]], bool], every: int) -> None:
    """Play deals ``0 .. deals-1`` in a process pool into the JSON Lines file ``out`` (its
    first line ``header`` with the machine), resuming the deals it holds; a file of another
    run (``same(header)`` false) is refused."""
    done: set[int] = set()
    if out.exists():
        found, rows = read_results(out)
        if not same(found):
            raise SystemExit(f"{out} holds another run ({found})")
        done = {r["deal"] for r in rows}
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({**header, "machine": f"{platform.machine()}, "
                                                        f"{os.cpu_count()} cores"}) + "\n")
    todo = [d for d in range(deals) if d not in done]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers, initializer=init, initargs=initargs) as pool, \
            out.open("a") as fh:
        futures = [pool.submit(play, seed, d) for d in todo]
        for n, f in enumerate(futures, 1):
            fh.write(json.dumps(f.result()) + "\n")
            fh.flush()
            if n % every == 0 or n == len(futures):
                print(f"{n}/{len(futures)} deals, {time.perf_counter() - t0:.0f} s", flush=True)


def add_run_options(ap: argparse.ArgumentParser, seed: int) -> None:
    """The options of a resumable run of deals: --deals, --seed, --workers, --out and
    --summarize (the experiments that use :func:`run_deals`)."""
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summarize", type=Path)


def summarized(ap: argparse.ArgumentParser, args: argparse.Namespace,
               show: Callable[[Path], None]) -> bool:
    """``--summarize FILE``: show it and say so (True); else require ``--out``."""
    if args.summarize:
        show(args.summarize)
        return True
    if args.out is None:
        ap.error("--out FILE is needed (one JSON line per deal, resumed)")
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="knn")
    add_run_options(ap, 4242)
    ap.add_argument("--force", choices=("none", "null"), default="none",
                    help="null: the auction's winner picks up and declares a plain null")
    args = ap.parse_args()
    if summarized(ap, args, summarize):
        return
    run_deals(args.out, {"agent": args.agent, "seed": args.seed, "force": args.force},
              args.deals, args.workers, _init, (args.agent, args.force), play_deal, args.seed,
              same=lambda h: (h["agent"], h["seed"], h.get("force", "none")) == (
                  args.agent, args.seed, args.force), every=10)
    summarize(args.out)


if __name__ == "__main__":
    main()
