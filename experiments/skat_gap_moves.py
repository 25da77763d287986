"""Where our defence lets a game through: the defenders' losing cards in the gap games.

Reads a results file of ``skat_defence_compare.py`` (or ``skat_defence_gap.py``) and
replays, with the same seeds, every game DEFENCE let through that the open-hand defence
beat. Before each card a defender chooses, the double-dummy solver values every legal
card in the real deal: the card **loses the game** where the defence could still beat it
with best play by both sides and cannot after that card. The declarer's cards are valued
the same way (a declarer's card that gives a won game away). Per losing card it records
the trick (1-10), the defender's place in the trick (lead, second, third), and from the
defender's PIMC vote (``knn`` and ``pimc`` defenders): how many worlds were counted, the
worlds in which the chosen card beat the game, those of the best card that keeps the
game beaten, and whether the two were tied (the tie-break chose) or the vote preferred
the losing card outright. The summary tells whether the losing cards are ties broken
wrong (the tie-break's business), cards the vote preferred (the worlds' business:
sampling, their weights, strategy fusion), and in which tricks they fall.

    python experiments/skat_gap_moves.py results/worlds64-held-7161.jsonl --defence knn \\
        --out results/gap-moves-7161.jsonl
    python experiments/skat_gap_moves.py --summarize results/gap-moves-7161.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from skat_defence_gap import read_results
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat import kernel
from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai.calibration import GAME_TYPES
from spielwerk.games.skat_ai.defence_runs import OPEN, played, reach_declaration, table_seats

PLACES = ("lead", "second", "third")


def _vote(agent: Any) -> Any:
    """The defender's last PIMC result (the knn agent's card play, or a pimc agent)."""
    return getattr(getattr(agent, "player", agent), "last", None)


def lead_facts(pos: Any, player: int, card: int) -> dict[str, Any]:
    """A lead's facts in the real deal: a trump (``trump``), else whether the declarer is
    void in its suit (``void``); the declarer sits next (``short_way``) or last; of the
    leader's side suits, how many the declarer is void in (``void_suits`` of
    ``side_suits``)."""
    trumps = kernel.trump_mask(pos.game)
    suits = [int(pos.hands[s]) & ~trumps for s in range(3)]

    def void(suit: int) -> bool:
        return not suits[pos.declarer] >> 8 * suit & 0xFF

    mine = [t for t in range(4) if suits[player] >> 8 * t & 0xFF]
    facts: dict[str, Any] = {"trump": bool(trumps >> card & 1),
                             "short_way": (player + 1) % 3 == pos.declarer,
                             "void_suits": sum(void(t) for t in mine), "side_suits": len(mine)}
    if not facts["trump"]:
        facts["void"] = void(card >> 3)
    return facts


def replay(game: Any, agents: list[Any], defenders: list[Any], seed: int, deal: int,
           force: str, solver: Solver,
           probe: Callable[[Any, int, Any, dict[str, Any], list[int]], dict[str, Any]]
           | None = None) -> dict[str, Any]:
    """The deal's game against ``defenders`` again, with every card a side lost it by.
    ``probe(state, player, defender, record, keep)``, where given, is asked about each
    losing defender card before it is played; what it returns joins the card's record."""
    state, chance = reach_declaration(game, agents, seed, deal, force)
    declarer = state.declarer
    goal = state.contract.goal()
    seats = table_seats(declarer, agents, defenders, seed, deal)
    losing: list[dict[str, Any]] = []

    def chosen(state: Any, player: int, action: int) -> None:
        if player not in (0, 1, 2) or action >= 32:
            return
        pos = deal_from_state(state)
        values = solver.move_values(pos, goal)  # card -> the declarer still wins
        if len(values) < 2 or action not in values:
            return
        where = {"trick": 11 - int(pos.hands[player]).bit_count(),
                 "place": PLACES[len(pos.trick)]}
        if player == declarer:  # a won game given away
            if any(values.values()) and not values[action]:
                losing.append({"side": "declarer", **where})
            return
        if all(values.values()) or not values[action]:
            return  # nothing to lose, or the card keeps the game beaten
        keep = [c for c, won in values.items() if not won]
        record: dict[str, Any] = {"side": "defender", **where, "cards": len(values),
                                  "keep": len(keep), "card": action, "keep_cards": keep}
        vote = _vote(seats[player])
        if vote is not None and vote.action == action:
            counts = vote.best_counts
            record.update(worlds=vote.worlds, chosen=counts.get(action, 0),
                          best_keep=max(counts.get(c, 0) for c in keep),
                          top=max(counts.values()))
        if not pos.trick:
            record["lead"] = lead_facts(pos, player, action)
        if probe is not None:
            record.update(probe(state, player, seats[player], record, keep))
        losing.append(record)

    final = play(state.clone(), seats, np.random.default_rng(chance), before=chosen).state
    return {"deal": deal, "won": bool(final_details(final)["won"]), "losing": losing}


def summarize(path: Path) -> None:
    lines = path.read_text().splitlines()
    head, rows = json.loads(lines[0]), [json.loads(x) for x in lines[1:] if x.strip()]
    print(f"{head['source']}: defence {head['defence']}, {len(rows)} games it let through "
          "that the open-hand defence beat")
    for t in [*GAME_TYPES, "all"]:
        rs = [r for r in rows if t == "all" or r["type"] == t]
        if not rs:
            continue
        cards = [c for r in rs for c in r["losing"] if c["side"] == "defender"]
        gave = sum(any(c["side"] == "declarer" for c in r["losing"]) for r in rs)
        voted = [c for c in cards if "chosen" in c]
        tied = sum(c["chosen"] == c["best_keep"] for c in voted)
        behind = [c["chosen"] - c["best_keep"] for c in voted if c["chosen"] > c["best_keep"]]
        near = sum(d <= 2 for d in behind)
        tricks = Counter(c["trick"] for c in cards)
        places = Counter(c["place"] for c in cards)
        print(f"{t} ({len(rs)} games): {len(cards)} losing defender cards "
              f"({len(cards) / len(rs):.2f} a game); the declarer gave a won game away in "
              f"{gave}")
        if voted:
            keeping = np.mean([c["best_keep"] / c["worlds"] for c in voted])
            losing = np.mean([c["chosen"] / c["worlds"] for c in voted])
            print(f"  of {len(voted)} with the vote: tied with a card that keeps the game "
                  f"beaten {tied} ({tied / len(voted):.0%}), preferred by 1-2 worlds {near}, "
                  f"by more {len(behind) - near}; the best keeping card beat the game in "
                  f"{keeping:.2f} of the worlds, the losing card in {losing:.2f}")
        print("  by trick: " + ", ".join(f"{k}: {tricks[k]}" for k in sorted(tricks)))
        print("  by place: " + ", ".join(f"{p}: {places[p]}" for p in PLACES))
        leads = [c["lead"] for c in cards if "lead" in c]
        side = [x for x in leads if not x["trump"]]
        if side:
            base = sum(x["void_suits"] for x in side) / sum(x["side_suits"] for x in side)
            short = sum(x["short_way"] for x in leads)
            print(f"  leads: {len(leads) - len(side)} trumps; {len(side)} in a side suit, "
                  f"{sum(x['void'] for x in side)} of them into the declarer's void (of the "
                  f"leaders' side suits {base:.2f} were); the declarer next {short}, last "
                  f"{len(leads) - short}")


def replay_gap(results: Path, defence: str | None, out: Path, probe: Any = None,
               every: int = 20) -> None:
    """Every game of ``results`` that ``defence`` (default: the file's first) let through and
    the open-hand defence beat, replayed into ``out`` with its losing cards (``probe`` as
    for :func:`replay`)."""
    header, rows = read_results(results)
    defence = defence or (header.get("defences") or ["ours"])[0]
    games = played(rows)
    key = "ours" if games and "ours" in games[0] and defence in ("ours", header["agent"]) \
        else defence  # older gap files name the agent's own defence "ours"
    gap = [r for r in games if r[key]["won"] and not r[OPEN]["won"]]
    game = load_game("skat")
    agents = [make_agent(header["agent"], game, 0) for _ in range(3)]
    spec = header["agent"] if key == "ours" else defence
    defenders = [make_agent(spec, game, 0) for _ in range(3)]
    solver = Solver()
    t0 = time.perf_counter()
    with out.open("w") as fh:
        fh.write(json.dumps({"source": str(results), "defence": defence,
                             "seed": header["seed"]}) + "\n")
        for n, r in enumerate(gap, 1):
            got = replay(game, agents, defenders, header["seed"], r["deal"],
                         header.get("force", "none"), solver, probe=probe)
            if got["won"] != r[key]["won"]:
                raise SystemExit(f"deal {r['deal']}: the replay did not give the recorded game")
            fh.write(json.dumps({**got, "type": r["type"]}) + "\n")
            fh.flush()
            if n % every == 0 or n == len(gap):
                print(f"{n}/{len(gap)} games, {time.perf_counter() - t0:.0f} s", flush=True)


def gap_arguments(ap: argparse.ArgumentParser,
                  show: Callable[[Path], None]) -> argparse.Namespace | None:
    """RESULTS, ``--defence``, ``--out`` and ``--summarize`` added to ``ap`` and parsed; None
    where ``--summarize FILE`` was shown (``show``)."""
    ap.add_argument("results", nargs="?", type=Path)
    ap.add_argument("--defence", default=None, help="the defence whose gap games are replayed "
                    "(default: the file's first)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summarize", type=Path)
    args = ap.parse_args()
    if args.summarize:
        show(args.summarize)
        return None
    if args.results is None or args.out is None:
        ap.error("RESULTS and --out are needed (or --summarize FILE)")
    return args


def main() -> None:
    args = gap_arguments(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]),
                         summarize)
    if args is None:
        return
    replay_gap(args.results, args.defence, args.out)
    summarize(args.out)


if __name__ == "__main__":
    main()
