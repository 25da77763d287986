"""A duplicate Skat match of two agents with the open-hand defence in every defending seat.

Each seeded deal is played in the six arrangements of ``spielwerk skat match A B`` (BAA
ABA AAB ABB BAB BBA: each agent alone in each seat, and twice with itself). The agents
bid, pick up, put and declare as they do; from the declaration on the declarer's own agent
plays its cards and both defenders - whichever agent sits there - play the open-hand
defence (:mod:`open_defence`: they see every card and play the double-dummy best one). So
the match measures who loses less to a perfect defence: the declarations, the putting and
the declarer's card play, never the defence. :func:`match_figures` gives ``spielwerk skat
match``'s figures (:func:`match_stats.skat_match_stats`). It is for measuring only: the
open-hand defence reads the whole state. ``spielwerk skat match A B --defence open`` runs it
(:mod:`spielwerk.games.skat.cli_open_match`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from spielwerk.core.agent import Agent, make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.core.seeds import derive_seed
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat_ai.calibration import play_to_declaration
from spielwerk.games.skat_ai.match_stats import SkatMatchStats, skat_match_stats
from spielwerk.games.skat_ai.open_defence import OpenHandDefence

ORDERS: list[tuple[int, ...]] = [tuple(lone if s == seat else 1 - lone for s in range(3))
                                 for lone in (1, 0) for seat in range(3)]
"""The six arrangements, as ``spielwerk skat match`` with two agents seats them."""


@dataclass(frozen=True)
class Game:
    """One game's record as the match figures read it (an arena ``GameResult``'s fields)."""

    task_id: str
    deal: int
    labels: tuple[str, ...]
    details: dict[str, Any] | None


class OpenMatch:
    """The two agents (three of each, one per seat) of one process, by their specs."""

    def __init__(self, specs: Sequence[str]) -> None:
        if len(specs) != 2:
            raise ValueError(f"an open-hand match is between 2 agents, got {len(specs)}")
        self.game = load_game("skat")
        self.specs = list(specs)
        self.agents: list[list[Agent]] = [[make_agent(spec, self.game, 0) for _ in range(3)]
                                          for spec in specs]

    def play_deal(self, seed: int, deal: int) -> dict[str, Any]:
        """The six arrangements of one deal: per game the agent indices by seat
        (``order``) and the outcome's details (``final_details``). The cards and every
        agent's seeds depend on the deal and the seat only, so two agents that decide alike
        play alike; a declaration reached again (the same declarer's agent and seat, the
        same auction and put) is played once (``played`` counts those played out): the
        declarer's play from there is seeded alike and the defence is exact."""
        chance = derive_seed(seed, 1, deal)
        games = []
        played: dict[tuple[Any, ...], dict[str, Any]] = {}
        for order in ORDERS:
            seats = [self.agents[order[s]][s] for s in range(3)]
            for s in range(3):
                seats[s].reset(derive_seed(seed, 2, deal, s))
            state = self.game.new_initial_state()
            rng = np.random.default_rng(chance)
            declared = play_to_declaration(state, seats, rng)
            if declared is None:
                games.append({"order": list(order), "details": final_details(state)})
                continue
            me = declared.declarer
            key = (self.specs[order[me]], me, tuple(declared.history))
            if key not in played:
                open_hand = OpenHandDefence()
                seats[me].reset(derive_seed(seed, 3, deal, me))
                table = [seats[s] if s == me else open_hand for s in range(3)]
                played[key] = final_details(play(declared, table, rng).state)
            games.append({"order": list(order), "details": played[key]})
        return {"deal": deal, "games": games, "played": len(played)}


def labels_of(specs: Sequence[str]) -> list[str]:
    """The agents' labels: their specs, numbered when both are the same."""
    return [f"{i}:{s}" for i, s in enumerate(specs)] if specs[0] == specs[1] else list(specs)


def match_figures(specs: Sequence[str], rows: Iterable[dict[str, Any]],
                  confidence: float = 0.95) -> SkatMatchStats:
    """``spielwerk skat match``'s figures of the deals ``rows`` (:meth:`OpenMatch.play_deal`'s
    records)."""
    labels = labels_of(specs)
    records = [Game(f"{row['deal']}-{k}", row["deal"],
                    tuple(labels[i] for i in g["order"]), g["details"])
               for row in rows for k, g in enumerate(row["games"])]
    return skat_match_stats(records, labels, len(ORDERS), confidence)


_MATCHES: dict[tuple[str, ...], OpenMatch] = {}


def play_open_deal(task: tuple[tuple[str, ...], int, int]) -> dict[str, Any]:
    """``(specs, seed, deal)`` -> :meth:`OpenMatch.play_deal` (top level, for process pools;
    the agents are made once per process)."""
    specs, seed, deal = task
    if specs not in _MATCHES:
        _MATCHES[specs] = OpenMatch(specs)
    return _MATCHES[specs].play_deal(seed, deal)
