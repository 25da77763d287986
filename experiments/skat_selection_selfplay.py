"""Skat putting strategies under PIMC self-play (the seed's Table III, third column).

Takes the deals of ``skat_selection_glassbox.py`` (its JSON Lines file): the
same deal, declarer and game, and each strategy's put as recorded there. The
declarer wins the bidding at 18, picks up the skat, puts that strategy's two
cards and declares the game; then the game is played out with identical PIMC
card-play bots in all three seats (``pimc:worlds=W``, win values, each seat
seeded by the deal alone, so two strategies that put the same cards play the
same game). Reported per strategy: deals, win rate, mean card points, the
declarer's extended-Seeger points per 36 games (:func:`scoring.evaluate`, bid
18, schneider and schwarz as played) with a 95% interval, and the paired
difference to ``knn`` and to ``refined``.

Results go to a JSON Lines file, one line per deal; a rerun with the same
file continues (resumable). Never fails on time.

    nice -n 5 .venv/bin/python experiments/skat_selection_selfplay.py \\
        --glassbox /tmp/glassbox.jsonl --deals 200 --worlds 4 --out /tmp/selfplay.jsonl
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

from common import STRATEGIES, cards_mask, ci, load, load_rows, past, repair, start
from spielwerk.games.skat.cards import GAME_NAMES
from spielwerk.games.skat.rules import SkatState
from spielwerk.games.skat.scoring import seeger_fabian
from spielwerk.games.skat_ai.knowledge.deals import WEAK_ACCEPT, make_deal
from spielwerk.games.skat_ai.pimc_agent import SkatPimcAgent


def play_out(state: SkatState, worlds: int, seed: int) -> SkatState:
    """Identical PIMC bots in every seat play the game to its end."""
    agents = {s: SkatPimcAgent(state.game, seed=seed * 3 + s, worlds=worlds)
              for s in state.sgame.positions}
    while not state.is_terminal():
        p = state.current_player
        state.apply(agents[p].act(state.info_state(p)))
    return state


def play_strategies(args: argparse.Namespace, g: dict, want: list[str],
                    by_put: dict[str, dict]) -> dict[str, dict]:
    """Each wanted strategy's put of glassbox row ``g`` played out (equal puts once:
    ``by_put`` holds the results of the puts already played on this deal)."""
    position, hands, skat = make_deal(args.seed, g["deal"], WEAK_ACCEPT)
    game = GAME_NAMES.index(g["game"])
    results: dict[str, dict] = {}
    for s in want:
        text = g["puts"][s]
        if text not in by_put:
            t = time.perf_counter()
            st = play_out(start(hands, skat, position, game, cards_mask(text)), args.worlds,
                          g["deal"])
            res = st.result
            assert res is not None and res.contract is not None
            by_put[text] = {
                "won": res.won, "points": res.declarer_points,
                "seeger": seeger_fabian(res, 3)[res.declarer],
                "seconds": round(time.perf_counter() - t, 3)}
        results[s] = by_put[text]
    return results


def run(args: argparse.Namespace) -> None:
    """New deals get a line; deals played before the glassbox file had all strategies'
    puts (PIMC, rule) get an update line with the missing ones."""
    out = Path(args.out)
    repair(out)
    done = load_rows(out)
    if not Path(args.glassbox).exists():
        sys.exit(f"error: no glassbox results {args.glassbox}; "
                 "run skat_selection_glassbox.py first")
    glassbox = load(Path(args.glassbox))
    rows = [glassbox[d] for d in sorted(glassbox)][: args.deals]
    t0 = time.perf_counter()
    new = 0
    with out.open("a") as f:
        for n, g in enumerate(rows):
            row = done.get(g["deal"])
            want = [s for s in STRATEGIES if s in g["puts"]
                    and (row is None or s not in row["results"])]
            if not want:
                continue
            if past(args.until):
                break
            if row is None:
                line = {"deal": g["deal"], "game": g["game"], "position": g["position"],
                        "worlds": args.worlds,
                        "results": play_strategies(args, g, want, {})}
            else:
                by_put = {g["puts"][s]: v for s, v in row["results"].items()}
                line = {"deal": g["deal"], "update": True,
                        "results": play_strategies(args, g, want, by_put)}
            f.write(json.dumps(line) + "\n")
            f.flush()
            new += 1
            if new % 5 == 0:
                print(f"{n + 1}/{len(rows)} deals, {(time.perf_counter() - t0) / new:.1f} s "
                      f"per deal this run", flush=True)
    report(list(load_rows(out).values()))


def report(rows: list[dict]) -> None:
    print(f"machine: {platform.machine()} python {platform.python_version()}; {len(rows)} "
          f"deals, worlds {sorted({r['worlds'] for r in rows})}")
    print(f"{'strategy':9} {'deals':>5} {'won %':>6} {'points':>7} {'SF/36':>16} "
          f"{'vs knn /36':>16} {'vs refined /36':>16}")
    for s in STRATEGIES:
        sub = [r["results"] for r in rows if s in r["results"]]
        if not sub:
            continue
        won = 100 * statistics.fmean(x[s]["won"] for x in sub)
        pts = statistics.fmean(x[s]["points"] for x in sub)
        m, h = ci([36 * x[s]["seeger"] for x in sub])
        dm, dh = ci([36 * (x[s]["seeger"] - x["knn"]["seeger"]) for x in sub])
        rm, rh = ci([36 * (x[s]["seeger"] - x["refined"]["seeger"]) for x in sub])
        print(f"{s:9} {len(sub):5d} {won:6.1f} {pts:7.1f} {m:8.0f} +-{h:5.0f} "
              f"{dm:8.0f} +-{dh:5.0f} {rm:8.0f} +-{rh:5.0f}")
    secs = [v["seconds"] for r in rows for v in r["results"].values()]
    print(f"seconds per game played: median {statistics.median(secs):.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--glassbox", default="skat_selection_glassbox.jsonl",
                    help="skat_selection_glassbox.py results (its default output file)")
    ap.add_argument("--deals", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7, help="the glassbox run's deal seed")
    ap.add_argument("--worlds", type=int, default=4)
    ap.add_argument("--out", default="skat_selection_selfplay.jsonl")
    ap.add_argument("--until", default=None, help="stop (resumably) at this UTC time, HH:MM")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    if args.report_only:
        report(list(load_rows(Path(args.out)).values()))
        return
    run(args)


if __name__ == "__main__":
    main()
