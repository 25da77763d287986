"""Duplicate-deal strength match: an agent (default PIMC card play) against the rule baseline.

A thin front end to the arena's Skat duplicate matches
(:mod:`spielwerk.arena.duplicate`, the same code as ``spielwerk skat match``):
every seeded deal is played in the six seatings BAA ABA AAB ABB BAB BBA, so
each agent holds every hand three times, once alone and twice with itself.
``pimc`` bids, picks up and declares like the rule baseline and plays the
cards by PIMC, so against ``rule`` it measures card play on the same
contracts; ``--agent knn`` measures a whole bot.

Printed per agent: games declared, declarer win rate (95% Wilson interval),
Seeger-Fabian points per 36 games (95% interval, deals as units) and the
paired difference on the same deals, plus the machine, wall time and rate.

    python experiments/skat_pimc_match.py                         # 10 deals, 8 worlds
    python experiments/skat_pimc_match.py --deals 2000 --worlds 64 --workers 2 --log m.jsonl
    python experiments/skat_pimc_match.py --summarize m.jsonl     # figures so far

(Until commit 2acce4a this script fixed the contract by the baseline's bidding
and compared three ways of playing it; the figures in docs/skat-dds.md from
that version say so.)
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

from spielwerk.arena.duplicate import DuplicateConfig, describe_config
from spielwerk.arena.duplicate import run_duplicate as run_skat_match
from spielwerk.core.parallel import LocalProcessExecutor, SerialExecutor
from spielwerk.games.skat.cli_match import match_stats, read_match, skat_match_config
from spielwerk.games.skat_ai.match_stats import SkatMatchStats, skat_match_stats


def report(config: DuplicateConfig, stats: SkatMatchStats) -> None:
    print(describe_config(config))
    print(f"{stats.deals} complete deals, {stats.games} games, {stats.passed_in_games} passed in")
    print(f"{'agent':<24} {'declared':>8} {'win rate':>9} {'95% CI':>13} {'SF/36':>7} "
          f"{'95% CI':>13}")
    for a in stats.agents:
        print(f"{a.label:<24} {a.declared:>8} {a.win_rate:>9.3f} "
              f"{f'{a.win_low:.3f}-{a.win_high:.3f}':>13} {a.seeger_per_list:>+7.0f} "
              f"{f'{a.seeger_low:+.0f}..{a.seeger_high:+.0f}':>13}")
    for d in stats.differences:
        print(f"paired difference {d.a} - {d.b}: {d.mean:+.0f} SF points per 36 games "
              f"(95% {d.low:+.0f}..{d.high:+.0f}) over {d.deals} deals")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--worlds", type=int, default=8)
    ap.add_argument("--values", default="win")
    ap.add_argument("--agent", help="agent spec instead of pimc:worlds=W:values=V")
    ap.add_argument("--baseline", default="rule")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--log", type=Path, help="results file (JSON Lines); resumed if it exists")
    ap.add_argument("--summarize", type=Path, help="only print the figures of this results file")
    args = ap.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}; Python {platform.python_version()}")
    if args.summarize:
        config, results = read_match(args.summarize)
        report(config, skat_match_stats(results, config.labels, len(config.arrangements)))
        return
    agent = args.agent or f"pimc:worlds={args.worlds}:values={args.values}"
    config = skat_match_config([agent, args.baseline], args.deals, args.seed)
    executor = SerialExecutor() if args.workers == 1 else LocalProcessExecutor(args.workers)
    t0 = time.perf_counter()
    with executor:
        result = run_skat_match(config, executor, args.log, resume=args.log is not None)
    wall = time.perf_counter() - t0
    played = len(result.results) - result.resumed
    report(config, match_stats(result))
    print(f"{played} games played in {wall:.1f} s wall ({wall / max(played, 1):.2f} s per game, "
          f"{args.workers} worker(s)); load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
