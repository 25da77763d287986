"""Which of a suit defender's tied cards keep the game beaten, in every game, not only the gap.

The losing-cards diagnostic (``skat_gap_moves.py``) looks at the games our defence lets
through, so it sees only the ties the tie-break broke wrong. A rule for breaking ties must
also keep the ties it breaks right today. This probe replays every game of one type in a
results file of ``skat_defence_compare.py`` with the same seeds, and at each defender
decision where the PIMC vote ties two or more cards (and some legal card still beats the
game in the real deal) records the tied cards, which of them keep the game beaten in the
real deal (double-dummy), the card the defender chose, and for each tied card what the
defender knows about it: trump, rank and points, its suit's length in the hand, whether
it is the highest card of its suit still out, how many of its suit are gone, whether the
declarer or the partner has shown a void in it, and for a card played second or third
whether it takes the trick so far. ``--summarize`` then scores simple tie-break rules on
the decisions whose tied cards differ in the real deal: how often each picks a keeping
card, against the card the defence chose.

    python experiments/skat_tied_cards.py results/suit-gap-7164.jsonl --defence knn \\
        --types suit --shard 0/2 --out results/tied-7164-0.jsonl
    python experiments/skat_tied_cards.py --summarize results/tied-7164-0.jsonl \\
        results/tied-7164-1.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from skat_defence_gap import read_results
from skat_gap_moves import PLACES, _vote
from spielwerk.core.agent import make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import POINTS_BY_CARD
from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai import pimc_agent, suit_defence
from spielwerk.games.skat_ai.defence_runs import played, reach_declaration, table_seats

_MARGIN: dict[str, Any] = {}
"""The last margin scores a defender computed: its seat, the tied cards and their scores."""


def _recording_margin(info: Any, tied: list[int], *args: Any) -> int | None:
    """:func:`suit_defence.margin_preference`, keeping the scores it chose by."""
    scores = suit_defence.margin_scores(info, tied, *args)
    _MARGIN.update(player=info.player, tied=sorted(tied), scores=scores)
    return suit_defence.first_best(tied, scores)



def card_facts(info: Any, card: int) -> dict[str, Any]:
    """What the defender to play (``info``) knows about playing ``card`` now."""
    game, me, decl = info.game_code, info.player, info.declarer
    partner = 3 - me - decl
    cls = kernel.class_mask(game, card)
    trumps = kernel.trump_mask(game)
    gone = 0
    for s in range(3):
        gone |= int(info.played[s])
    gone |= sum(1 << c for c in info.trick)
    out = cls & ~gone & ~int(info.hand)  # the suit's cards still out, not mine
    led = info.trick[0] if info.trick else -1
    power = kernel.card_power(card, led if led >= 0 else card, game)
    facts: dict[str, Any] = {
        "trump": bool(trumps >> card & 1), "rank": card & 7, "points": POINTS_BY_CARD[card],
        "length": (int(info.hand) & cls).bit_count(), "gone": (gone & cls).bit_count(),
        "top": all(kernel.card_power(c, card, game) < power for c in range(32) if out >> c & 1),
        "declarer_void": bool(int(info.voids[decl]) & cls),
        "partner_void": bool(int(info.voids[partner]) & cls),
    }
    if info.trick:
        best = max(range(len(info.trick)),
                   key=lambda i: kernel.card_power(info.trick[i], led, game))
        facts["takes"] = power > kernel.card_power(info.trick[best], led, game)
        facts["partner_ahead"] = (info.leader + best) % 3 == partner
    return facts


def replay_ties(game: Any, agents: list[Any], defenders: list[Any], seed: int, deal: int,
                force: str, solver: Solver) -> dict[str, Any]:
    """The deal's game against ``defenders`` again, with every tied defender decision
    (``"passed": True`` and none for a deal passed in)."""
    state, chance = reach_declaration(game, agents, seed, deal, force)
    if state is None or state.contract is None:
        return {"deal": deal, "passed": True, "ties": []}
    declarer, goal = state.declarer, state.contract.goal()
    seats = table_seats(declarer, agents, defenders, seed, deal)
    ties: list[dict[str, Any]] = []

    def chosen(state: Any, player: int, action: int) -> None:
        if player not in (0, 1, 2) or action >= 32 or player == declarer:
            return
        vote = _vote(seats[player])
        if vote is None or vote.action != action:
            return
        counts = vote.best_counts
        top = max(counts.values())
        tied = sorted(c for c, n in counts.items() if n == top)
        if len(tied) < 2:
            return
        pos = deal_from_state(state)
        values = solver.move_values(pos, goal)  # card -> the declarer still wins
        if all(values.values()) or any(c not in values for c in tied):
            return  # nothing to keep, or a vote of another decision (not searched now)
        info = state.info_state(player)
        margin = _MARGIN.get("scores") if (_MARGIN.get("player") == player
                                           and _MARGIN.get("tied") == tied) else None
        _MARGIN.clear()
        ties.append({"margin": {str(c): v for c, v in margin.items()} if margin else None,
                     "player": player, "trick": 11 - int(pos.hands[player]).bit_count(),
                     "place": PLACES[len(pos.trick)],
                     "short_way": (player + 1) % 3 == declarer, "worlds": vote.worlds,
                     "top": top, "chosen": action,
                     "keeps": [c for c in tied if not values[c]],
                     "facts": {str(c): card_facts(info, c) for c in tied}})

    plain = pimc_agent.margin_preference
    pimc_agent.margin_preference = _recording_margin  # type: ignore[assignment]
    try:
        final = play(state.clone(), seats, np.random.default_rng(chance), before=chosen).state
    finally:
        pimc_agent.margin_preference = plain
    return {"deal": deal, "won": bool(final_details(final)["won"]), "ties": ties}


# ----- scoring tie-break rules ----------------------------------------------------------------
Rule = Callable[[dict[str, Any], dict[str, Any]], float]
"""A rule's preference for one tied card (its facts) in one decision: the highest wins."""

RULES: dict[str, Rule] = {
    "fewest points": lambda d, f: -f["points"],
    "most points": lambda d, f: f["points"],
    "trump": lambda d, f: f["trump"],
    "no trump": lambda d, f: not f["trump"],
    "highest out": lambda d, f: f["top"],
    "not highest out": lambda d, f: not f["top"],
    "not into declarer's void": lambda d, f: not f["declarer_void"],
    "into partner's void": lambda d, f: f["partner_void"],
    "longest suit": lambda d, f: f["length"],
    "shortest suit": lambda d, f: -f["length"],
    "short way long, long way short": lambda d, f: f["length"] * (1 if d["short_way"] else -1),
    "freshest suit": lambda d, f: -f["gone"],
    "takes the trick": lambda d, f: f.get("takes", False),
    "does not take it": lambda d, f: not f.get("takes", True),
    "smear to partner, else fewest": lambda d, f: (
        f["points"] if d.get("partner_ahead") else -f["points"]),
}


def keep_chance(d: dict[str, Any], cards: list[str]) -> float:
    """The share of ``cards`` (a uniform pick among them) that keeps the game beaten."""
    keeps = {str(c) for c in d["keeps"]}
    return sum(c in keeps for c in cards) / len(cards)


def rule_pick(d: dict[str, Any], rule: Rule) -> list[str]:
    """The tied cards ``rule`` prefers most."""
    score = {c: float(rule(d, f)) for c, f in d["facts"].items()}
    best = max(score.values())
    return [c for c, v in score.items() if v == best]


def margin_first(d: dict[str, Any], rule: Rule) -> list[str]:
    """The tied cards ``rule`` prefers most among those with the best margin score."""
    m = d.get("margin")
    if not m:
        return rule_pick(d, rule)
    best = max(m.values())
    return rule_pick({**d, "facts": {c: f for c, f in d["facts"].items() if m[c] == best}},
                     rule)


def summarize(paths: list[Path]) -> None:
    rows = [json.loads(x) for p in paths for x in p.read_text().splitlines()[1:] if x.strip()]
    ties = [d for r in rows for d in r["ties"]]
    mixed = [d for d in ties if 0 < len(d["keeps"]) < len(d["facts"])]
    print(f"{len(rows)} games, {len(ties)} tied defender decisions with the game still "
          f"beatable, {len(mixed)} of them with tied cards that differ in the real deal")
    for place in ("lead", "second", "third", "all"):
        ds = [d for d in mixed if place == "all" or d["place"] == place]
        if not ds:
            continue
        for d in ds:  # the partner's lead decides who is ahead in the trick
            first = next(iter(d["facts"].values()))
            d["partner_ahead"] = first.get("partner_ahead", False)
        chosen = np.mean([keep_chance(d, [str(d["chosen"])]) for d in ds])
        rand = np.mean([keep_chance(d, list(d["facts"])) for d in ds])
        print(f"{place}: {len(ds)} decisions; the defence kept the game beaten in "
              f"{chosen:.3f}, a random tied card would in {rand:.3f}")
        marked = [d for d in ds if "margin" in d]
        if marked:
            told = [d for d in marked if d["margin"] and len(set(d["margin"].values())) > 1]
            print(f"  the margin scored {sum(bool(d['margin']) for d in marked)} of "
                  f"{len(marked)} and told the cards apart in {len(told)}")
        own = [keep_chance(d, [str(d["chosen"])]) for d in marked]
        print(f"  a perfect tie-break would keep the game beaten in "
              f"{sum(1 - x for x in own):.0f} more")
        scores = sorted(((np.mean([keep_chance(d, rule_pick(d, r)) for d in ds]),
                          [keep_chance(d, margin_first(d, r)) - x
                           for d, x in zip(marked, own, strict=True)],
                          name) for name, r in RULES.items()),
                        key=lambda t: (t[0], t[2]), reverse=True)
        print(f"  {'rule':<34} alone  after the margin, change against the defence (95%), "
              "decisions changed")
        for v, diff, name in scores:
            line = f"  {name:<34} {v:.3f}"
            if len(diff) > 1:
                mean, half = np.mean(diff), 1.96 * np.std(diff, ddof=1) / np.sqrt(len(diff))
                line += (f"  {np.mean(own) + mean:.3f}  {mean:+.3f} ({mean - half:+.3f} .. "
                         f"{mean + half:+.3f}), {sum(x != 0 for x in diff)}")
            print(line)


def shard(text: str) -> tuple[int, int]:
    """``K/N`` (0 <= K < N): every Nth game from the Kth."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"K/N, not {text!r}") from None
    if not 0 <= k < n:
        raise argparse.ArgumentTypeError(f"K/N with 0 <= K < N, not {text!r}")
    return k, n


def game_arguments(ap: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """RESULTS, ``--types``, ``--shard``, ``--out`` and ``--summarize FILE...`` added to
    ``ap``: the arguments of a probe over the played games of a results file."""
    ap.add_argument("results", nargs="?", type=Path)
    ap.add_argument("--types", default="suit", help="comma-separated game types")
    ap.add_argument("--shard", type=shard, default=(0, 1), help="K/N: every Nth game from "
                    "the Kth")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summarize", type=Path, nargs="+")
    return ap


def game_types(args: argparse.Namespace) -> set[str]:
    """The game types ``--types`` names."""
    return {t.strip() for t in args.types.split(",") if t.strip()}


def sharded_games(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The results file's header and its played games of ``--types`` in ``--shard``."""
    header, rows = read_results(args.results)
    types = game_types(args)
    k, n = args.shard
    return header, [r for r in played(rows) if r["type"] in types][k::n]


def main() -> None:
    ap = game_arguments(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    ap.add_argument("--defence", default="knn")
    args = ap.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return
    if args.results is None or args.out is None:
        ap.error("RESULTS and --out are needed (or --summarize FILE...)")
    header, games = sharded_games(args)
    game = load_game("skat")
    agents = [make_agent(header["agent"], game, 0) for _ in range(3)]
    defenders = [make_agent(args.defence, game, 0) for _ in range(3)]
    solver = Solver()
    done = set()
    if args.out.exists():  # resume
        done = {json.loads(x)["deal"] for x in args.out.read_text().splitlines()[1:] if x.strip()}
    else:
        args.out.write_text(json.dumps({"source": str(args.results), "defence": args.defence,
                                        "seed": header["seed"], "types": sorted(game_types(args)),
                                        "shard": "/".join(map(str, args.shard))}) + "\n")
    t0 = time.perf_counter()
    with args.out.open("a") as fh:
        for i, r in enumerate(games, 1):
            if r["deal"] in done:
                continue
            got = replay_ties(game, agents, defenders, header["seed"], r["deal"],
                              header.get("force", "none"), solver)
            if got["won"] != r[args.defence]["won"]:
                raise SystemExit(f"deal {r['deal']}: the replay did not give the recorded game")
            fh.write(json.dumps({**got, "type": r["type"]}) + "\n")
            fh.flush()
            if i % 20 == 0 or i == len(games):
                print(f"{i}/{len(games)} games, {time.perf_counter() - t0:.0f} s", flush=True)
    summarize([args.out])


if __name__ == "__main__":
    main()
