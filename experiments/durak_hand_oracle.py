"""What would perfect inference of the opponents' hands be worth? A diagnostic, not an agent.

``ismcts_hand_oracle`` (registered only in this script's processes) is the Durak
``ismcts`` agent, same parameters, except that before each search it is told every
other seat's true hand, read from a copy of the game it keeps from the actions the
arena reports to every agent (the deal included). Its worlds then differ only in the
order of the stock: the best any inference from the opponents' moves could reach.
Both agents play the same deals with the same seeds (``durak_tables`` schedules), so
the two result files pair game by game:

    python experiments/durak_hand_oracle.py --agent ismcts:iters=10000 --opponent greedy \\
        --deals 250 --seed 2045 --workers 2 --out hand

writes ``OUT/<agent>_vs_<opponent>.jsonl`` for the plain agent and for the oracle
(``--resume`` continues both) and prints both rates and the paired counts.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from spielwerk.arena.match import GameResult
from spielwerk.arena.stats import wilson_interval
from spielwerk.arena.tournament import TournamentConfig, run_tournament, unique_labels
from spielwerk.core.agent import register_declared
from spielwerk.core.game import InfoState
from spielwerk.core.parallel import make_executor
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.agents import DurakISMCTSAgent, DurakISMCTSParams
from spielwerk.games.durak.rules import DurakInfoState, DurakState

ORACLE = "ismcts_hand_oracle"


class HandOracleISMCTS(DurakISMCTSAgent):
    """``ismcts`` told the other seats' true hands before every search (diagnostic)."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._true: Any = self.game.new_initial_state()

    def inform(self, action: int) -> None:
        self._true.apply(action)

    def search_action(self, info_state: InfoState, start: float) -> int:
        assert isinstance(info_state, DurakInfoState)
        true = self._true
        assert isinstance(true, DurakState)
        S = true.S
        if info_state.public[K.PHASE] != K.PH_DEAL and info_state.open_state is None:
            if int(S[K.HANDS + info_state.player]) != info_state.own_hand:
                raise RuntimeError("the oracle's copy of the game is out of step")
            info_state.known = tuple(int(S[K.HANDS + q]) if q != info_state.player else k
                                     for q, k in enumerate(info_state.known))
            info_state._arrays = None
            info_state.evidence = None
        return super().search_action(info_state, start)


register_declared(ORACLE, HandOracleISMCTS, DurakISMCTSParams,
                  "ismcts told the opponents' hands (diagnostic)", ("durak",))


def won_lost(results: list[GameResult], label: str) -> dict[tuple[int, int], float]:
    """(deal, seating) -> the agent's return."""
    out = {}
    for r in results:
        i = r.labels.index(label)
        out[(r.deal, r.seating)] = r.returns[i]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="durak(preset=zarlykov2023)")
    ap.add_argument("--agent", default="ismcts:iters=10000", help="an ismcts spec")
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()
    if not args.agent.split(":")[0] == "ismcts":
        ap.error("--agent must be an ismcts spec")
    game = load_game(args.game)
    P = game.num_players
    args.out.mkdir(parents=True, exist_ok=True)
    oracle = ORACLE + args.agent[len("ismcts"):]
    rows = {}
    with make_executor("local", args.workers) as ex:
        for spec in (args.agent, oracle):
            specs = [spec] + [args.opponent] * (P - 1)
            config = TournamentConfig.create(game.spec(), specs, args.deals * P, args.seed)
            name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f"{spec}_vs_{args.opponent}")
            out = args.out / f"{name}.jsonl"
            res = run_tournament(config, ex, out, resume=args.resume and out.exists())
            rows[spec] = won_lost(res.results, unique_labels(specs)[0])
    print(f"{game.game_type.long_name}: {args.deals} deals x {P} seatings against "
          f"{args.opponent}, seed {args.seed}")
    print("| agent | games | won | drawn | win rate (decisive) | 98% interval |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for spec, r in rows.items():
        won = sum(v > 0 for v in r.values())
        lost = sum(v < 0 for v in r.values())
        lo, hi = wilson_interval(won, won + lost, 0.98)
        print(f"| `{spec}` | {len(r)} | {won} | {len(r) - won - lost} | "
              f"{100 * won / max(won + lost, 1):.1f}% | {100 * lo:.1f}-{100 * hi:.1f}% |")
    a, b = rows[args.agent], rows[oracle]
    both = [k for k in a if k in b]
    print(f"paired over {len(both)} games: the oracle did better in "
          f"{sum(b[k] > a[k] for k in both)}, worse in {sum(b[k] < a[k] for k in both)}")


if __name__ == "__main__":
    main()
