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

``--types grand,grand_hand`` plays out only those game types (the other declared deals
are recorded as skipped, at the cost of their auction only). The deals are
:mod:`spielwerk.games.skat_ai.defence_runs` tasks: ``--executor dask://HOST:PORT`` plays
them on a Dask cluster (the workers need spielwerk installed), with the records of a local
run of the same seed.

Results go to a JSON Lines file (one line per deal, in the order they finish), resumed
when it exists.

    python experiments/skat_defence_compare.py --deals 500 --seed 616161 --workers 1 \\
        --defence knn --defence knn:null_defence=true --out results/null-defence.jsonl
    python experiments/skat_defence_compare.py --force none --deals 300 --seed 626262 \\
        --defence knn --defence pimc:worlds=32:values=points --out results/defences.jsonl
    python experiments/skat_defence_compare.py --force none --types grand,grand_hand \\
        --deals 4000 --seed 7162 --executor dask://scheduler:8786 --defence knn \\
        --defence knn:worlds=64 --out results/grand-worlds.jsonl
    python experiments/skat_defence_compare.py --summarize results/null-defence.jsonl
    python experiments/skat_defence_compare.py --summarize a.jsonl --also b.jsonl  # pooled
    python experiments/skat_defence_compare.py --summarize a.jsonl --beside a2.jsonl  # joined
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from skat_defence_gap import (  # the same runner and options
    add_run_options,
    read_results,
    run_defences,
    summarized,
)
from spielwerk.arena.stats import wilson_interval
from spielwerk.games.skat_ai.calibration import GAME_TYPES
from spielwerk.games.skat_ai.defence_runs import OPEN, DefenceRun, gap_difference, played


def joined(path: Path, beside: tuple[Path, ...]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The results of ``path`` with the defences of the files ``beside`` (runs of the same
    declarer, seed, force and types with other defences) joined to them deal by deal, over
    the deals every file holds; the open-hand games must agree, deal by deal."""
    header, rows = read_results(path)
    for other in beside:
        h, more = read_results(other)
        if any(h.get(k) != header.get(k) for k in ("agent", "seed", "force", "types")):
            raise SystemExit(f"{other}: another declarer, seed, force or types than {path}")
        if set(h["defences"]) & set(header["defences"]):
            raise SystemExit(f"{other}: a defence of {path} again")
        by_deal = {r["deal"]: r for r in more}
        out = []
        for r in rows:
            m = by_deal.get(r["deal"])
            if m is None:
                continue
            if r["passed"] or "skipped" in r:
                out.append(r)
                continue
            if "skipped" in m or any(m[OPEN][k] != r[OPEN][k]
                                     for k in ("won", "declarer_points")):
                raise SystemExit(f"{other}: deal {r['deal']} is not the game of {path}")
            out.append({**r, **{d: m[d] for d in h["defences"]}})
        rows = out
        header = {**header, "defences": [*header["defences"], *h["defences"]]}
    return header, rows


def summarize(path: Path, also: tuple[Path, ...] = (), beside: tuple[Path, ...] = ()) -> None:
    """The summary of ``path``, pooled with the files ``also`` (the same declarer, defences
    and force; other seeds), with the defences of the files ``beside`` joined by deal."""
    header, rows = joined(path, beside)
    for other in also:
        h, more = read_results(other)
        if (h["agent"], h["defences"], h.get("force", "null")) != (
                header["agent"], header["defences"], header.get("force", "null")):
            raise SystemExit(f"{other}: another declarer, defences or force than {path}")
        rows += more
        header["seed"] = f"{header['seed']}+{h['seed']}"
    games = played(rows)
    defences = header["defences"]
    force = header.get("force", "null")
    what = "forced nulls" if force == "null" else "games declared"
    declared = sum(not r["passed"] for r in rows)
    kept = (f", {len(games)} of them played out ({', '.join(header['types'])})"
            if header.get("types") else "")
    print(f"declarer {header['agent']}, seed {header['seed']}: {len(rows)} deals, "
          f"{declared} {what}{kept}")
    types = [t for t in GAME_TYPES if any(r.get("type", "null") == t for r in games)]
    for t in [*types, "all"] if len(types) > 1 else types:
        rs = [r for r in games if t == "all" or r.get("type", "null") == t]
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
            mean, lo, hi = gap_difference(rs, defences[0], d)
            print(f"  gap of {d} minus {defences[0]}: {mean:+.3f} ({lo:+.3f} .. {hi:+.3f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="knn", help="the declarer (and the auction)")
    ap.add_argument("--defence", action="append", dest="defences",
                    help="a defender spec, played on every game (repeat the option for "
                         "more; the first is the one the others are compared with)")
    add_run_options(ap, 616161, executor=True)
    ap.add_argument("--force", choices=("null", "none"), default="null",
                    help="null: the auction's winner declares a plain null; none: AGENT's own "
                         "declarations")
    ap.add_argument("--types", default="",
                    help="play out only these game types, comma-separated (e.g. "
                         "grand,grand_hand); the other declared deals are recorded as skipped")
    ap.add_argument("--also", action="append", type=Path, default=[],
                    help="with --summarize: another result file of the same declarer and "
                         "defences, pooled (repeat for more)")
    ap.add_argument("--beside", action="append", type=Path, default=[],
                    help="with --summarize: a run of the same declarer, seed and types with "
                         "other defences, joined deal by deal (repeat for more)")
    args = ap.parse_args()
    if summarized(ap, args, lambda path: summarize(path, tuple(args.also),
                                                  tuple(args.beside))):
        return
    defences = tuple(d.strip() for d in args.defences or ["knn"] if d.strip())
    types = tuple(t.strip() for t in args.types.split(",") if t.strip())
    run = DefenceRun(args.agent, defences, args.seed, args.force, types)
    run_defences(args.out, run, args.deals, args.executor, args.workers, every=25)
    summarize(args.out)


if __name__ == "__main__":
    main()
