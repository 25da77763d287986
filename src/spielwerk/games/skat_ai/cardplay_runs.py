"""Card play against card play on the same contracts: the deals of a paired duplicate match.

A :class:`CardPlayRun` names two agent specs A and B that bid, put and declare alike (for
example ``knn:play=infer`` and ``knn:play=pimc`` with one calibration named for both) and
a seed. Per seeded deal (:func:`play_cardplay_deal`, one task) the auction is run once
with A in all three seats to find the declarer; then the deal is played twice from the
start: A in the declarer's seat against two B defenders, and B declaring against two A
defenders. A deal where the second table declares another game than the first is refused
(:class:`CardPlayRunError`): the agents do not declare alike, so the match would not
compare card play alone.

The record of a deal holds, per table, whether the declarer won, his card points, the
Seeger-Fabian points of the declarer and of each defender, and the time of every card
decision with more than one card to choose from (for the p95 of each agent; the only
figure that depends on the machine). The task is a top-level function of plain data, so
the deals can run in a process pool or on a Dask cluster
(:func:`spielwerk.core.parallel.make_executor`); every deal carries its seeds (the deal
from ``(seed, 1, deal)``, the auction from ``(seed, 2, deal, seat)``, the card play from
``(seed, 3, deal, seat)``), so the records do not depend on the executor, the worker or
the order. ``experiments/skat_card_play_match.py`` runs and summarizes them.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.core.seeds import derive_seed
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat.rules import PLAY, SkatState
from spielwerk.games.skat_ai.calibration import play_to_declaration

TABLES = ("a_declares", "b_declares")
"""The two tables of a deal: A declaring against two B, B declaring against two A."""

_PLAYERS: dict[tuple[str, str], tuple[Any, list[Any], list[Any]]] = {}
WARM_UP_SEED = 2**40
"""The chance seed of the deal that loads the solver and the models in a fresh process
before the first timed decision (no match uses it)."""


class CardPlayRunError(SpielwerkError, ValueError):
    """A match that cannot be played: a bad spec, or agents that do not declare alike."""


@dataclass(frozen=True)
class CardPlayRun:
    """Agent specs ``a`` and ``b`` (deciding alike up to the first card) and the seed."""

    a: str
    b: str
    seed: int

    def tasks(self, deals: Iterable[int]) -> list[tuple[CardPlayRun, int]]:
        return [(self, d) for d in deals]

    def header(self) -> dict[str, Any]:
        """What a results file records about the match (and a resumed one must match)."""
        return {"a": self.a, "b": self.b, "seed": self.seed}

    def check(self) -> None:
        """Refuse, in one line and before any deal, a match that cannot be played."""
        if self.seed < 0:
            raise CardPlayRunError(f"the seed must be 0 or more, not {self.seed}")
        game = load_game("skat")
        for spec in (self.a, self.b):
            try:
                make_agent(spec, game, 0)
            except (AgentSpecError, SpielwerkError) as exc:
                raise CardPlayRunError(f"{spec!r}: {exc}") from None


class DecisionClock:
    """Hooks for :func:`play` that time each seat's card decisions (more than one card
    legal): the time from the end of one action to the next is the mover's decision."""

    def __init__(self) -> None:
        self.times: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.last = time.perf_counter()

    def before(self, state: Any, player: int, action: int) -> None:
        if player >= 0 and state.phase == PLAY and \
                len([x for x in state.legal_actions() if x < 32]) > 1:
            self.times[player].append(time.perf_counter() - self.last)

    def after(self, state: Any, player: int, action: int) -> None:
        self.last = time.perf_counter()


def _players(run: CardPlayRun) -> tuple[Any, list[Any], list[Any]]:
    """This process's game and A and B in three seats each, made and warmed up once (the
    compiled solver and the models are loaded on a deal no match uses, so that the first
    timed decision is not the process's first search)."""
    key = (run.a, run.b)
    if key not in _PLAYERS:
        game = load_game("skat")
        a = [make_agent(run.a, game, 0) for _ in range(3)]
        b = [make_agent(run.b, game, 0) for _ in range(3)]
        for agents in (a, b):
            play(game.new_initial_state(), agents, np.random.default_rng(WARM_UP_SEED),
                 max_actions=45)
        _PLAYERS[key] = (game, a, b)
    return _PLAYERS[key]


def play_cardplay_deal(task: tuple[CardPlayRun, int]) -> dict[str, Any]:
    """One deal of the match: ``{"deal", "passed": True}`` when A in all three seats passes
    it in, else the declarer, the contract (ISS notation) and per table in
    :data:`TABLES` ``won``, ``declarer_points``, ``declarer_sf``, ``defender_sf`` (the two
    defenders' in seat order), ``times_lone`` (the declarer's card decisions, seconds) and
    ``times_pair`` (the defenders')."""
    run, deal = task
    game, a, b = _players(run)
    chance = derive_seed(run.seed, 1, deal)
    for i in range(3):
        a[i].reset(derive_seed(run.seed, 2, deal, i))
    state = play_to_declaration(game.new_initial_state(), a, np.random.default_rng(chance))
    if state is None or state.contract is None:
        return {"deal": deal, "passed": True}
    declarer = state.declarer
    contract = state.contract.iss()
    record: dict[str, Any] = {"deal": deal, "passed": False, "declarer": declarer,
                              "contract": contract, "games": {}}
    for name, lone, pair in ((TABLES[0], a, b), (TABLES[1], b, a)):
        seats = [lone[s] if s == declarer else pair[s] for s in range(3)]
        for s in range(3):
            seats[s].reset(derive_seed(run.seed, 3, deal, s))
        clock = DecisionClock()
        final = play(game.new_initial_state(), seats, np.random.default_rng(chance),
                     before=clock.before, after=clock.after).state
        assert isinstance(final, SkatState)
        d = final_details(final)
        if d["contract"] != contract or d["declarer"] != declarer:
            raise CardPlayRunError(
                f"deal {deal}: the agents did not declare alike ({contract} by {declarer} "
                f"vs {d['contract']} by {d['declarer']}); name one calibration for both")
        sf = d["seeger"]
        record["games"][name] = {
            "won": d["won"], "declarer_points": d["declarer_points"],
            "declarer_sf": sf[declarer],
            "defender_sf": [sf[s] for s in range(3) if s != declarer],
            "times_lone": [round(t, 4) for t in clock.times[declarer]],
            "times_pair": [round(t, 4) for s in range(3) if s != declarer
                           for t in clock.times[s]],
        }
    return record
