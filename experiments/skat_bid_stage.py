"""The win chances the bidding works with, against the games it then wins: a map per type for
the stage ``pickup``.

``spielwerk skat calibration --out`` records the chance of each declared game as it was
declared (after picking up: the stage ``put``). The bidding decides earlier, on the ten
cards, with the chance of the game it plans with the skat still to come (the stage
``pickup``); that chance is what decides whether to bid, how high, and hand or pick-up.

``replay`` plays each declared record of a calibration file again up to its declaration
(the same seeds, so the same auction: a record whose declaration comes out otherwise is
reported and left out) and writes one line per declared game: the game the bidding chose
(``plan``: suit, grand or null, ``_hand`` for a hand game), the chance it gave it
(``predicted``: the chance of its base's weights, before any map: the log-odds a map is
applied to) and whether the declared game was won.

``fit`` fits, per pick-up plan of ``--plans`` (default suit) with at least
``--min-games`` games, ``P(won) = sigmoid(a + b z)`` on the chance's log-odds
(``skat_open_map.fit``, the same pull towards the identity) and writes the calibration
``--own``: the ``--keep`` calibration's map with the ``_pickup`` maps added
(:data:`spielwerk.games.skat_ai.params.PICKUP_MAP_KINDS`; the decisions take
``min(z, a + b z)``). ``--check`` prints told, mapped and observed on held-out replays.

    python experiments/skat_bid_stage.py replay results/ipn-cal-tune-991991.jsonl \\
        --agent knn:calibration=played_null -o results/bid-stage-991991.jsonl
    python experiments/skat_bid_stage.py fit results/bid-stage-991991.jsonl \\
        --keep played_grand_hand --own played_pickup \\
        --check results/bid-stage-997997.jsonl results/bid-stage-976976.jsonl \\
        --write src/spielwerk/data/skat_calibration/played_pickup.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from skat_open_map import (  # the same fit and table as the declaration-stage maps
    fit,
    held_out_row,
    logit,
)
from spielwerk.core.seeds import derive_seed
from spielwerk.games.skat_ai import calibration as cal
from spielwerk.games.skat_ai.bidding import options
from spielwerk.games.skat_ai.params import CALIBRATION_DIR, game_type, typed_calibration

PLANS = ("suit", "grand", "null")
"""The pick-up plans a ``_pickup`` map is fitted for."""


def plan_chance(agent: Any, info: Any, position: int) -> tuple[str, float]:
    """(plan, chance) of the bidding's best option for the ten cards ``info`` was dealt: the
    game with the highest expected score, and its win chance before any map (the weights of
    the calibration's base: the log-odds a map is applied to)."""
    d = agent.bid_decision(info.own_dealt, position)
    p = agent.params.resolved()
    _, game, is_hand, _, ouvert = max(options(info.own_dealt, p, position, d),
                                      key=lambda o: (o[0], o[3]))
    raw = replace(p, calibration=typed_calibration(p.calibration).get("base", p.calibration))
    ev, value = next((o[0], o[3]) for o in options(info.own_dealt, raw, position, d)
                     if (o[1], o[2], o[4]) == (game, is_hand, ouvert))
    lost = 2 * value + 50 + p.loss_bonus  # expected_score inverted for the chance
    return game_type(game) + ("_hand" if is_hand else ""), (ev + lost) / (value + 50 + lost)


def declarations(path: Path, agent_spec: str | None, limit: int | None = None,
                 declared_only: bool = False) -> Iterator[tuple[dict[str, Any], Any, Any]]:
    """(record, agent, state at the declaration or None) for each record of a calibration
    file (the first ``limit``; ``declared_only``: those with a declared game), played
    again with ``agent_spec`` in the record's seat and as both other players (default: the
    file's own agent and defence): the same seeds, so the same deal and the same auction
    while the decisions are the same."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    head, records = lines[0], lines[1:limit + 1 if limit else None]
    if declared_only:
        records = [r for r in records if r.get("declared")]
    config = cal.CalibrationConfig(agent=agent_spec or head["agent"],
                                   defence=agent_spec or head["defence"],
                                   deals=head["deals"], seed=head["seed"])
    _, agent, defenders = cal._players(config)
    for r in records:
        deal, me = r["deal"], r["seat"]
        rest = iter(defenders)
        seats = [agent if s == me else next(rest) for s in range(3)]
        for s in range(3):
            seats[s].reset(derive_seed(config.seed, 2, deal, me, s))
        yield r, agent, cal.play_to_declaration(
            agent.game.new_initial_state(), seats,
            np.random.default_rng(derive_seed(config.seed, 1, deal)))


def replay(path: Path, agent_spec: str | None, out: Path) -> None:
    head = json.loads(path.read_text().split("\n", 1)[0])
    records = [r for r in read([path]) if r.get("declared")]
    spec = agent_spec or head["agent"]
    skipped = 0
    with out.open("w") as f:
        f.write(json.dumps({"replayed": path.name, "agent": spec,
                            "defence": agent_spec or head["defence"],
                            "seed": head["seed"], "records": len(records)}) + "\n")
        for i, (r, agent, state) in enumerate(declarations(path, agent_spec,
                                                           declared_only=True)):
            me = r["seat"]
            if (state is None or state.declarer != me
                    or cal.game_type(state.contract) != r["type"]):
                skipped += 1
                continue
            info = state.info_state(me)
            plan, chance = plan_chance(agent, info, agent.position(me))
            f.write(json.dumps({"deal": r["deal"], "seat": me, "plan": plan,
                                "type": r["type"], "bid": int(info.bid),
                                "predicted": round(chance, 6), "won": bool(r["won"])}) + "\n")
            if i % 500 == 0:
                print(f"{i}/{len(records)} records", file=sys.stderr, flush=True)
    print(f"wrote {out}: {len(records) - skipped} games ({skipped} whose declaration came "
          f"out otherwise, left out)")


def compare(path: Path, specs: list[str], limit: int | None) -> None:
    """How the declarations of two agent specs differ on a calibration file's seat-games:
    the pairs (game type of the first, of the second; ``-`` where the seat declares nothing)
    and each spec's declared mix. Only the auctions and declarations are played."""
    got = [{(r["deal"], r["seat"]): None if st is None or st.declarer != r["seat"]
            else cal.game_type(st.contract) for r, _, st in declarations(path, spec, limit)}
           for spec in specs]
    first, second = got
    pairs = Counter((first[k] or "-", second[k] or "-") for k in first)
    print(f"{len(first)} seat-games of {path.name}; {specs[0]} -> {specs[1]}:")
    for (a, b), n in sorted(pairs.items()):
        print(f"  {a:<12} -> {b:<12} {n:>6}{'' if a == b else '  changed'}")
    for spec, res in zip(specs, got, strict=True):
        kinds = Counter(t.split("_")[0] for t in res.values() if t)
        total = sum(kinds.values())
        print(f"{spec}: {total} declared, " + ", ".join(
            f"{k} {kinds[k] / total:.1%}" for k in PLANS if total))


def read(paths: list[Path]) -> list[dict[str, Any]]:
    return [r for p in paths for r in map(json.loads, p.read_text().splitlines()[1:])]


def show(rows: list[dict[str, Any]], maps: dict[str, list[float]], title: str) -> None:
    print(title)
    print(f"{'plan':<14} {'games':>5} {'told':>6} {'mapped':>6} {'won':>6}  95% interval")
    for plan in PLANS:
        own = [r for r in rows if r["plan"] == plan]
        if not own:
            continue
        print(f"{plan + ' pick-up':<14} "
              f"{held_out_row(own, maps.get(plan + '_pickup', [0.0, 1.0]))}")


def fit_maps(args: argparse.Namespace) -> None:
    rows = read(args.files)
    kept = json.loads((CALIBRATION_DIR / f"{args.keep}.json").read_text())
    if "map" not in kept:
        raise SystemExit(f"--keep {args.keep} has no map to add to")
    maps: dict[str, list[float]] = {}
    for plan in args.plans.split(","):
        own = [r for r in rows if r["plan"] == plan]
        if len(own) < args.min_games:
            continue
        z = logit(np.array([r["predicted"] for r in own]))
        won = np.array([1.0 if r["won"] else 0.0 for r in own])
        a, b = fit(z, won, bound=False)
        maps[plan + "_pickup"] = [round(a, 4), round(b, 4)]
        print(f"{plan} pick-up: {len(own)} games, a {a:+.3f}, b {b:.3f}")
    show(rows, maps, "fitted on (in-sample):")
    if args.check:
        show(read(args.check), maps, f"held out ({', '.join(p.name for p in args.check)}):")
    if args.write:
        made = {"by": "python experiments/skat_bid_stage.py fit " + " ".join(
                    p.name for p in args.files) + f" --keep {args.keep} --own {args.own} "
                    f"--plans {args.plans}",
                "records": {p.name: sum(1 for _ in p.open()) - 1 for p in args.files},
                "min_games": args.min_games}
        own = {**kept, "name": args.own, "map": {**kept["map"], **maps},
               "pickup_map_made": made}
        args.write.write_text(json.dumps(own, indent=1) + "\n")
        print(f"wrote {args.write}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="the bidding's chances of a calibration file's games")
    rp.add_argument("file", type=Path)
    rp.add_argument("--agent", help="the spec the file was made with, for agent and defence "
                                    "(default: the file's own)")
    rp.add_argument("-o", "--out", type=Path, required=True)
    fp = sub.add_parser("fit", help="fit the _pickup maps on replayed games")
    fp.add_argument("files", nargs="+", type=Path)
    fp.add_argument("--keep", required=True, help="the calibration whose map is added to")
    fp.add_argument("--own", default="played_pickup", help="the new calibration's name")
    fp.add_argument("--plans", default="suit", help="the pick-up plans to map "
                    f"(comma-separated, of {', '.join(PLANS)})")
    fp.add_argument("--min-games", type=int, default=100)
    fp.add_argument("--check", type=Path, nargs="+", default=[])
    fp.add_argument("--write", type=Path)
    cp = sub.add_parser("compare", help="the declarations two agent specs make on a "
                                         "calibration file's seat-games")
    cp.add_argument("file", type=Path)
    cp.add_argument("specs", nargs=2, metavar="SPEC")
    cp.add_argument("--limit", type=int, help="the first N seat-games only")
    args = ap.parse_args()
    if args.command == "replay":
        replay(args.file, args.agent, args.out)
    elif args.command == "compare":
        compare(args.file, args.specs, args.limit)
    else:
        fit_maps(args)


if __name__ == "__main__":
    main()
