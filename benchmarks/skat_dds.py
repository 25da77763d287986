"""Double-dummy solver timings on seeded random full deals, the ablation, and PIMC per decision.

Deals: 32 cards shuffled (seed = deal number), the seat with the strongest
hand (2 x jacks + longest suit + aces, as a stand-in for the bidding) takes
the skat (12 cards), declares a reasonable game - grand with 3+ jacks, else
the longest suit (ties: the suit with more points) - and puts the two side
cards (not trumps, not aces) of the shortest side suits with the most points.
Forehand (seat 0) leads. Per deal and query the solver's tables are cleared
first, so every time is a cold solve of one deal. Times are CPU seconds of the
process (``time.process_time``), so other jobs on a shared machine inflate them
less than wall-clock times would.

Queries: ``61`` (can the declarer reach 61), ``exact`` (final card points),
``null`` (the same twelve cards as a null game, the two highest cards put:
can the declarer avoid every trick).

    python benchmarks/skat_dds.py --deals 1000 --workers 8
    python benchmarks/skat_dds.py --deals 0 --ablation 100 --played 4
    python benchmarks/skat_dds.py --pimc 10
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from spielwerk.games.skat.cards import CARD_POINTS
from spielwerk.games.skat.dds import DealPosition, SearchLimitError, Solver, SolverConfig
from spielwerk.games.skat.kernel import trump_mask


def _popcount(m: int) -> int:
    return int(m).bit_count()


def make_deal(seed: int, null: bool = False) -> DealPosition:
    """A seeded deal with a reasonable game for the declarer (see the module docstring)."""
    rng = np.random.default_rng(seed)
    perm = [int(c) for c in rng.permutation(32)]
    hands = [sum(1 << c for c in perm[i * 10:(i + 1) * 10]) for i in range(3)]
    skat = (1 << perm[30]) | (1 << perm[31])

    def strength(h: int) -> int:  # the bidding winner: jacks, longest suit, aces
        longest = max(_popcount(h & (0x7F << (8 * s))) for s in range(4))
        return 2 * _popcount(h & 0x80808080) + longest + _popcount(h & 0x40404040)

    declarer = max(range(3), key=lambda s: (strength(hands[s]), -s))
    twelve = hands[declarer] | skat
    cards = [c for c in range(32) if twelve >> c & 1]
    if null:
        game = 5
        # put the two highest cards by null rank (A K Q J T 9 8 7)
        null_rank = (0, 1, 2, 5, 6, 3, 7, 4)
        put = sorted(cards, key=lambda c: -null_rank[c & 7])[:2]
    else:
        jacks = _popcount(twelve & 0x80808080)
        if jacks >= 3:
            game = 4
        else:
            def suit_key(s: int) -> tuple[int, int]:
                suit_cards = [c for c in cards if c >> 3 == s and c & 7 != 7]
                return len(suit_cards), sum(CARD_POINTS[c & 7] for c in suit_cards)

            game = max(range(4), key=suit_key)
        trumps = int(trump_mask(game))
        side = [c for c in cards if not trumps >> c & 1 and c & 7 != 6]

        def suit_len(c: int) -> int:
            return sum(1 for d in cards if d >> 3 == c >> 3 and not trumps >> d & 1)

        side.sort(key=lambda c: (suit_len(c), -CARD_POINTS[c & 7], c))
        put = side[:2]
        if len(put) < 2:
            rest = sorted((c for c in cards if c not in put), key=lambda c: (CARD_POINTS[c & 7], c))
            put += rest[: 2 - len(put)]
    put_mask = (1 << put[0]) | (1 << put[1])
    hands[declarer] = twelve & ~put_mask
    skat_points = sum(CARD_POINTS[c & 7] for c in put) if game != 5 else 0
    return DealPosition(game=game, declarer=declarer, hands=(hands[0], hands[1], hands[2]),
                        leader=0, declarer_points=skat_points)


def make_endgame(seed: int, null: bool = False, played: int = 4) -> DealPosition:
    """:func:`make_deal` after ``played`` tricks of seeded random legal play."""
    from spielwerk.games.skat.kernel import legal_cards, trick_winner

    pos = make_deal(seed, null)
    rng = np.random.default_rng(seed + 7_000_000)
    hands = list(pos.hands)
    leader = pos.leader
    won = {True: 0, False: 0}
    tricks = {True: 0, False: 0}
    for _ in range(played):
        trick: list[int] = []
        for i in range(3):
            seat = (leader + i) % 3
            legal = int(legal_cards(hands[seat], trick[0] if trick else -1, pos.game))
            cards = [c for c in range(32) if legal >> c & 1]
            card = cards[int(rng.integers(len(cards)))]
            hands[seat] &= ~(1 << card)
            trick.append(card)
        leader = (leader + int(trick_winner(trick[0], trick[1], trick[2], pos.game))) % 3
        side = leader == pos.declarer
        won[side] += sum(CARD_POINTS[c & 7] for c in trick)
        tricks[side] += 1
    return DealPosition(game=pos.game, declarer=pos.declarer, hands=(hands[0], hands[1], hands[2]),
                        leader=leader, declarer_points=pos.declarer_points + won[True],
                        defender_points=won[False], declarer_tricks=tricks[True],
                        defender_tricks=tricks[False])


def _time_query(solver: Solver, pos: DealPosition, query: str) -> tuple[float, int, Any]:
    """CPU seconds (this process only, so other jobs on a shared machine count less),
    nodes and the answer of one cold query."""
    solver.clear()
    t0 = time.process_time()
    value = solver.query(pos, query)
    return time.process_time() - t0, solver.nodes, value


def _run_chunk(args: tuple[list[int], dict[str, Any], tuple[str, ...], int]
               ) -> list[dict[str, Any]]:
    seeds, config, queries, played = args
    solver = Solver(SolverConfig(**config))
    warm = Solver(SolverConfig(tt_log2=10))  # compile / load the kernels outside the timing
    tiny = DealPosition(game=4, declarer=0, hands=(1, 2, 4))
    warm.query(tiny, "61")
    warm.query(tiny, "exact")
    rows = []
    for seed in seeds:
        row: dict[str, Any] = {"seed": seed}
        for q in queries:
            pos = (make_endgame(seed, q == "null", played) if played
                   else make_deal(seed, null=q == "null"))
            try:
                dt, nodes, value = _time_query(solver, pos, q)
            except SearchLimitError:
                dt, nodes, value = float("nan"), -1, None
            row[q] = (dt, nodes, value)
        rows.append(row)
    return rows


def run(seeds: list[int], config: dict[str, Any], queries: tuple[str, ...], workers: int,
        played: int = 0) -> list[dict[str, Any]]:
    if workers <= 1:
        return _run_chunk((seeds, config, queries, played))
    chunks = [seeds[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(_run_chunk, [(c, config, queries, played) for c in chunks]))
    return [r for p in parts for r in p]


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def timing_table(rows: list[dict[str, Any]], queries: tuple[str, ...]) -> None:
    print(f"{'query':<8} {'deals':>6} {'median ms':>10} {'p90 ms':>10} {'median nodes':>13} "
          f"{'p90 nodes':>11} {'max ms':>9} {'gave up':>8}")
    for q in queries:
        ok = [r[q] for r in rows if r[q][1] >= 0]
        ms = [t * 1000 for t, _, _ in ok]
        nodes = [float(n) for _, n, _ in ok]
        print(f"{q:<8} {len(ok):>6} {statistics.median(ms):>10.2f} {_pct(ms, 90):>10.2f} "
              f"{statistics.median(nodes):>13.0f} {_pct(nodes, 90):>11.0f} {max(ms):>9.1f} "
              f"{len(rows) - len(ok):>8}")


ABLATION = [
    ("all on", {}),
    ("no transposition table", {"transposition_table": False}),
    ("no equivalence classes", {"equivalence": False}),
    ("no move ordering", {"move_ordering": False}),
    ("no quick tricks", {"quick_tricks": False}),
    ("no ordering, no quick tricks", {"move_ordering": False, "quick_tricks": False}),
    ("+ history + killers", {"history": True, "killers": True}),
    ("no null window / MTD", {"null_window": False}),
]


def ablation(seeds: list[int], workers: int, node_limit: int, played: int) -> None:
    queries = ("61", "exact", "null")
    where = f"endgames after {played} random tricks" if played else "full deals"
    print(f"ablation over {len(seeds)} {where}; node limit {node_limit:,} per query "
          "(a query over it counts as 'gave up'; medians over the deals all configs solved)")
    results = {}
    for name, cfg in ABLATION:
        rows = run(seeds, {**cfg, "node_limit": node_limit}, queries, workers, played)
        results[name] = {r["seed"]: r for r in rows}
    for q in queries:
        solved = [s for s in seeds if all(results[n][s][q][1] >= 0 for n, _ in ABLATION)]
        print(f"\n{q}: {len(solved)} deals solved by every configuration")
        print(f"{'configuration':<26} {'median nodes':>13} {'total nodes':>14} {'median ms':>10} "
              f"{'total s':>9} {'gave up':>8}")
        if not solved:
            continue
        for name, _ in ABLATION:
            res = results[name]
            nodes = [res[s][q][1] for s in solved]
            ms = [res[s][q][0] * 1000 for s in solved]
            gave_up = sum(1 for s in seeds if res[s][q][1] < 0)
            print(f"{name:<26} {statistics.median(nodes):>13.0f} {sum(nodes):>14,} "
                  f"{statistics.median(ms):>10.2f} {sum(ms) / 1000:>9.2f} {gave_up:>8}")
        base = results["all on"]
        for name, _ in ABLATION:
            vals = [results[name][s][q][2] for s in solved]
            assert vals == [base[s][q][2] for s in solved], f"{name} changed a value"


def pimc_timing(count: int, worlds: int, values: str, prune: bool = True) -> None:
    """Time per PIMC decision for the first card of trick 1 (deals bid by the rule agent)."""
    from spielwerk.core.agent import make_agent
    from spielwerk.core.game import CHANCE
    from spielwerk.core.registry import load_game
    from spielwerk.games.skat.rules import PLAY
    from spielwerk.games.skat_ai import pimc_agent  # noqa: F401

    game = load_game("skat")
    times = []
    nodes: list[int] = []
    seed = 0
    agent = make_agent(f"pimc:worlds={worlds}:values={values}:prune={prune}", game, seed=1)
    warm = True
    while len(times) < count:
        rng = np.random.default_rng(seed)
        seed += 1
        st = game.new_initial_state()
        rule = make_agent("rule", game, seed=seed)
        while not st.is_terminal() and st.phase != PLAY:
            if st.current_player == CHANCE:
                o = st.chance_outcomes()
                st.apply(o[int(rng.integers(len(o)))][0])
            else:
                st.apply(rule.act(st.info_state(st.current_player)))
        if st.is_terminal():
            continue
        for _ in range(2 if warm else 1):
            agent.reset(seed)  # the same worlds with and without pruning
            agent.solver.clear()  # cold tables: every decision is timed alike
            n0 = agent.solver.nodes
            t0 = time.process_time()
            agent.act(st.info_state(st.current_player))
            dt = time.process_time() - t0
        warm = False
        times.append(dt)
        nodes.append(agent.solver.nodes - n0)
        print(f"  deal {seed - 1}: {st.contract}, seat {st.current_player} "
              f"({'declarer' if st.current_player == st.declarer else 'defender'}) "
              f"{dt:.2f} s, {nodes[-1]:,} nodes", flush=True)
    print(f"PIMC {worlds} worlds, values={values}, prune={prune}, first card of trick 1, "
          f"{count} deals: "
          f"median {statistics.median(times):.2f} s, p90 {_pct(times, 90):.2f} s, "
          f"max {max(times):.2f} s; median nodes {statistics.median(nodes):,.0f}, "
          f"total nodes {sum(nodes):,}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--ablation", type=int, default=0, help="deals for the ablation (0: skip)")
    ap.add_argument("--node-limit", type=int, default=20_000_000)
    ap.add_argument("--played", type=int, default=4,
                    help="random tricks played before the ablation positions (0: full deals)")
    ap.add_argument("--pimc", type=int, default=0, help="deals for PIMC timing (0: skip)")
    ap.add_argument("--worlds", type=int, default=64)
    ap.add_argument("--values", default="win")
    ap.add_argument("--no-prune", action="store_true",
                    help="PIMC: solve every card in every world (no vote pruning)")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    if args.deals:
        queries = ("61", "exact", "null")
        t0 = time.perf_counter()
        rows = run(list(range(args.deals)), {"node_limit": args.node_limit}, queries, args.workers)
        print(f"{args.deals} deals, {args.workers} worker process(es), "
              f"wall {time.perf_counter() - t0:.1f} s")
        timing_table(rows, queries)
        wins = sum(1 for r in rows if r["61"][2])
        print(f"declarer reaches 61 in {wins} of {len(rows)} deals")
        both = [r for r in rows if r["61"][1] >= 0 and r["exact"][1] >= 0]
        agree = sum(1 for r in both if r["61"][2] == (r["exact"][2] >= 61))
        print(f"61 answer agrees with the exact value in {agree} of {len(both)} deals")
        assert agree == len(both), "a threshold answer contradicts the exact value"
    if args.ablation:
        ablation(list(range(args.ablation)), args.workers, args.node_limit, args.played)
    if args.pimc:
        pimc_timing(args.pimc, args.worlds, args.values, not args.no_prune)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
