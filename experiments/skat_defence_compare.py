"""Skat defences compared on the same declared games, against the open-hand bound.

Per seeded deal, AGENT sits in all three seats through the auction and declares as it does
(``--force none``), or whoever wins the auction picks up the skat, puts as AGENT does and
declares a plain null (``--force null``, the default; a deal whose bid went past the null's
23 is left out, as in ``skat_defence_gap.py --force null``). The game is then played
out once per defence from the declaration - AGENT as the declarer (the same seeds each
time, so its decisions are the same until the defence differs), the two defenders each
spec of ``--defence`` in turn, and once the open-hand defence (defenders who see every
card: the bound). Per game type and defence the summary gives the declarer's win rate and
the **gap**: the share of the games it let through that the open-hand defence beats
(Wilson 95%). Against the first defence each other one gets the paired difference of the
gaps (the games one lets through and the other does not), with a 95% interval for
matched pairs. The seconds per game time the whole play-out (the declarer's cards too; the
defence listed first also carries the declarer's first pass over the deal); the
defenders' seconds per game time their own decisions, the figure that compares their cost.

Results go to a JSON Lines file (one line per deal), resumed when it exists.

    python experiments/skat_defence_compare.py --deals 500 --seed 616161 --workers 1 \\
        --defence knn --defence knn:null_defence=true --out results/null-defence.jsonl
    python experiments/skat_defence_compare.py --force none --deals 300 --seed 626262 \\
        --defence knn --defence pimc:worlds=32:values=points --out results/defences.jsonl
    python experiments/skat_defence_compare.py --summarize results/null-defence.jsonl
    python experiments/skat_defence_compare.py --summarize a.jsonl --also b.jsonl  # pooled
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from skat_defence_gap import (  # the same auction, runner and options
    add_run_options,
    paired_interval,
    reach_declaration,
    read_results,
    run_deals,
    summarized,
    table_seats,
)
from spielwerk.arena.stats import wilson_interval
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat_ai.calibration import (
    GAME_TYPES,
    game_type,
)

OPEN = "open"
_WORKER: dict[str, Any] = {}


def _init(agent: str, defences: list[str], force: str) -> None:
    game = load_game("skat")
    _WORKER.update(game=game, agents=[make_agent(agent, game, 0) for _ in range(3)],
                   defences={d: [make_agent(d, game, 0) for _ in range(3)]
                             for d in defences}, force=force)


def play_deal(seed: int, deal: int) -> dict[str, Any]:
    game, agents, defences = _WORKER["game"], _WORKER["agents"], _WORKER["defences"]
    force = _WORKER["force"]
    state, chance = reach_declaration(game, agents, seed, deal, force)
    if state is None or force == "null" and (state.contract.game != NULL
                                             or state.auction.value > 23):
        return {"deal": deal, "passed": True}
    declarer = state.declarer
    record: dict[str, Any] = {"deal": deal, "passed": False, "declarer": declarer,
                              "type": game_type(state.contract)}
    for name in [*defences, OPEN]:
        seats = table_seats(declarer, agents, None if name == OPEN else defences[name], seed,
                            deal)
        clock = {"last": time.perf_counter(), "defence": 0.0}

        def chosen(state: Any, player: int, action: int, clock: dict[str, float] = clock
                   ) -> None:  # the time since the last action was this player's decision
            if player in (0, 1, 2) and player != declarer:
                clock["defence"] += time.perf_counter() - clock["last"]

        def applied(state: Any, player: int, action: int, clock: dict[str, float] = clock
                    ) -> None:
            clock["last"] = time.perf_counter()

        t0 = clock["last"]
        final = play(state.clone(), seats, np.random.default_rng(chance), before=chosen,
                     after=applied).state
        record[name] = {"won": bool(final_details(final)["won"]),
                        "seconds": round(time.perf_counter() - t0, 2),
                        "defence_seconds": round(clock["defence"], 3)}
    return record


def paired_gap_difference(rows: list[dict[str, Any]], a: str, b: str) -> tuple[float, float,
                                                                               float]:
    """Gap of ``b`` minus gap of ``a`` over the same nulls, with a 95% interval for matched
    pairs (a null counts for a defence when it let it through and the open hand beat it)."""
    return paired_interval([int(r[b]["won"] and not r[OPEN]["won"])
                            - int(r[a]["won"] and not r[OPEN]["won"]) for r in rows])


def summarize(path: Path, also: tuple[Path, ...] = ()) -> None:
    """The summary of ``path``, pooled with the files ``also`` (the same declarer, defences
    and force; other seeds)."""
    header, rows = read_results(path)
    for other in also:
        h, more = read_results(other)
        if (h["agent"], h["defences"], h.get("force", "null")) != (
                header["agent"], header["defences"], header.get("force", "null")):
            raise SystemExit(f"{other}: another declarer, defences or force than {path}")
        rows += more
        header["seed"] = f"{header['seed']}+{h['seed']}"
    played = [r for r in rows if not r["passed"]]
    defences = header["defences"]
    force = header.get("force", "null")
    what = "forced nulls" if force == "null" else "games declared"
    print(f"declarer {header['agent']}, seed {header['seed']}: {len(rows)} deals, "
          f"{len(played)} {what}")
    types = [t for t in GAME_TYPES if any(r.get("type", "null") == t for r in played)]
    for t in [*types, "all"] if len(types) > 1 else types:
        rs = [r for r in played if t == "all" or r.get("type", "null") == t]
        n = len(rs)
        print(f"{t} ({n}):")
        print(f"  {'defence':<40} {'declarer won':>12} {'gap':>7}  95% interval  {'s/game':>6}"
              f"  {'defenders s/game':>16}")
        for d in [*defences, OPEN]:
            won = sum(r[d]["won"] for r in rs)
            gap = sum(r[d]["won"] and not r[OPEN]["won"] for r in rs)
            lo, hi = wilson_interval(gap, n, 0.95)
            secs = sum(r[d]["seconds"] for r in rs) / n
            timed = [r[d]["defence_seconds"] for r in rs if "defence_seconds" in r[d]]
            defending = f"{sum(timed) / len(timed):.2f}" if timed else "-"
            print(f"  {d:<40} {won / n:>12.3f} {gap / n:>7.3f}  {lo:.3f}-{hi:.3f}  "
                  f"{secs:>6.2f}  {defending:>16}")
        for d in defences[1:]:
            mean, lo, hi = paired_gap_difference(rs, defences[0], d)
            print(f"  gap of {d} minus {defences[0]}: {mean:+.3f} ({lo:+.3f} .. {hi:+.3f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="knn", help="the declarer (and the auction)")
    ap.add_argument("--defence", action="append", dest="defences",
                    help="a defender spec, played on every null (repeat the option for "
                         "more; the first is the one the others are compared with)")
    add_run_options(ap, 616161)
    ap.add_argument("--force", choices=("null", "none"), default="null",
                    help="null: the auction's winner declares a plain null; none: AGENT's own "
                         "declarations")
    ap.add_argument("--also", action="append", type=Path, default=[],
                    help="with --summarize: another result file of the same declarer and "
                         "defences, pooled (repeat for more)")
    args = ap.parse_args()
    if summarized(ap, args, lambda path: summarize(path, tuple(args.also))):
        return
    defences = [d.strip() for d in args.defences or ["knn"] if d.strip()]
    if OPEN in defences:
        ap.error("the open-hand defence is always played: name the others")
    game = load_game("skat")
    for spec in [args.agent, *defences]:
        make_agent(spec, game, 0)  # a bad spec stops here, before any deal
    run_deals(args.out, {"agent": args.agent, "seed": args.seed, "defences": defences,
                         "force": args.force},
              args.deals, args.workers, _init, (args.agent, defences, args.force), play_deal,
              args.seed, same=lambda h: (h["agent"], h["seed"], h["defences"],
                                         h.get("force", "null")) == (
                  args.agent, args.seed, defences, args.force), every=25)
    summarize(args.out)


if __name__ == "__main__":
    main()
