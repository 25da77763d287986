"""Skat defences played on the same declared games, against the open-hand bound.

A :class:`DefenceRun` names a declarer ``agent``, the ``defences`` (agent specs) and a
seed. Per seeded deal (:func:`play_deal`, one task) the agent bids in all three seats and
declares as it does (``force="none"``), or whoever wins the auction picks up the skat,
puts as the agent does and declares a plain null (``force="null"``; a deal whose bid went
past the null's 23 is left out). The game is then played out once per defence from the
declaration - the agent as declarer, reset from the same seeds each time, so its
decisions are the same until the defence differs - and once against :data:`OPEN`, the
open-hand defence (:mod:`open_defence`: defenders who see every card). ``types`` keeps
the play-outs to those game types (a run about grands pays for grands only); the other
declared deals are recorded with their type and ``skipped``.

The task is a top-level function of plain data, so the deals can run in a process pool
or on a Dask cluster (:func:`spielwerk.core.parallel.make_executor`); every deal carries
its seeds (the deal from ``(seed, 1, deal)``, the auction from ``(seed, 2, deal, seat)``,
the card play from ``(seed, 3, deal, seat)``), so the records do not depend on the
executor, the worker or the order. The experiments ``skat_defence_compare.py`` and
``skat_defence_gap.py`` run and summarize them.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.intervals import mean_and_se
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.core.seeds import derive_seed
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat_ai.calibration import (
    GAME_TYPES,
    OPEN,
    forcing_null,
    game_type,
    play_to_declaration,
)
from spielwerk.games.skat_ai.open_defence import OpenHandDefence

FORCES = ("none", "null")
_PLAYERS: dict[tuple[str, tuple[str, ...]], tuple[Any, list[Any], dict[str, list[Any]]]] = {}


class DefenceRunError(SpielwerkError, ValueError):
    """A run that cannot be played: a bad spec, force or game type."""


@dataclass(frozen=True)
class DefenceRun:
    """The declarer ``agent``, the ``defences`` compared (the first is the reference), the
    seed, ``force`` (``"none"``: the agent's own declarations; ``"null"``: forced nulls)
    and ``types`` (the game types played out; empty: all)."""

    agent: str
    defences: tuple[str, ...]
    seed: int
    force: str = "none"
    types: tuple[str, ...] = ()

    def tasks(self, deals: Iterable[int]) -> list[tuple[DefenceRun, int]]:
        return [(self, d) for d in deals]

    def header(self) -> dict[str, Any]:
        """What a results file records about the run (and a resumed one must match)."""
        head: dict[str, Any] = {"agent": self.agent, "seed": self.seed,
                                "defences": list(self.defences), "force": self.force}
        if self.types:
            head["types"] = list(self.types)
        return head

    def check(self) -> None:
        """:func:`check_run` of this run."""
        check_run(self)


def check_run(run: DefenceRun) -> None:
    """Refuse, in one line and before any deal, a run that cannot be played."""
    if run.force not in FORCES:
        raise DefenceRunError(f"force must be one of {', '.join(FORCES)}, not {run.force!r}")
    if not run.defences:
        raise DefenceRunError("name at least one defence")
    if OPEN in run.defences:
        raise DefenceRunError("the open-hand defence is always played: name the others")
    if len(set(run.defences)) != len(run.defences):
        raise DefenceRunError("a defence is named twice")
    bad = [t for t in run.types if t not in GAME_TYPES]
    if bad:
        raise DefenceRunError(f"unknown game type {bad[0]!r} (one of {', '.join(GAME_TYPES)})")
    game = load_game("skat")
    for spec in (run.agent, *run.defences):
        try:
            make_agent(spec, game, 0)
        except (AgentSpecError, SpielwerkError) as exc:
            raise DefenceRunError(f"{spec!r}: {exc}") from None


def _players(run: DefenceRun) -> tuple[Any, list[Any], dict[str, list[Any]]]:
    """This process's game, the agent in three seats and each defence in three (made once)."""
    key = (run.agent, run.defences)
    if key not in _PLAYERS:
        game = load_game("skat")
        _PLAYERS[key] = (game, [make_agent(run.agent, game, 0) for _ in range(3)],
                         {d: [make_agent(d, game, 0) for _ in range(3)] for d in run.defences})
    return _PLAYERS[key]


def reach_declaration(game: Any, agents: Sequence[Any], seed: int, deal: int, force: str
                      ) -> tuple[Any, int]:
    """The deal's state once a game is declared (None: passed in) and its chance seed:
    ``agents`` bid in every seat (reset from the deal's seeds), forcing a null where
    ``force`` is ``"null"``."""
    chance = derive_seed(seed, 1, deal)
    for i in range(3):
        agents[i].reset(derive_seed(seed, 2, deal, i))
    state = play_to_declaration(game.new_initial_state(),
                                forcing_null(agents) if force == "null" else list(agents),
                                np.random.default_rng(chance))
    return state, chance


def table_seats(declarer: int, declaring: Sequence[Any], defending: Sequence[Any] | None,
                seed: int, deal: int) -> dict[int, Any]:
    """The seats that play a declared game out: the declarer's from ``declaring``, the other
    two from ``defending`` (each seat's own open-hand defence where it is None); agents are
    reset from the deal's card-play seeds, the same in every playing of the deal."""
    seats: dict[int, Any] = {}
    for s in range(3):
        who = declaring[s] if s == declarer else defending[s] if defending else None
        if who is None:
            seats[s] = OpenHandDefence()
        else:
            who.reset(derive_seed(seed, 3, deal, s))
            seats[s] = who
    return seats


def _play_out(state: Any, seats: dict[int, Any], declarer: int, chance: int
              ) -> dict[str, Any]:
    """One play-out from the declaration: won, the declarer's points, the seconds of the
    whole play-out and of the defenders' own decisions."""
    clock = {"last": time.perf_counter(), "defence": 0.0}

    def chosen(state: Any, player: int, action: int) -> None:
        if player in (0, 1, 2) and player != declarer:  # the time since the last action
            clock["defence"] += time.perf_counter() - clock["last"]

    def applied(state: Any, player: int, action: int) -> None:
        clock["last"] = time.perf_counter()

    t0 = clock["last"]
    final = play(state.clone(), seats, np.random.default_rng(chance), before=chosen,
                 after=applied).state
    d = final_details(final)
    return {"won": bool(d["won"]), "declarer_points": int(d["declarer_points"]),
            "seconds": round(time.perf_counter() - t0, 2),
            "defence_seconds": round(clock["defence"], 3)}


def play_deal(task: tuple[DefenceRun, int]) -> dict[str, Any]:
    """One deal of a run: ``{"deal", "passed": True}`` when it was passed in (with
    ``"not_forceable"`` where a null could not be forced); for a declared game
    ``"declarer"``, ``"contract"``, ``"type"`` and, per defence and :data:`OPEN`, ``{"won",
    "declarer_points", "seconds", "defence_seconds"}`` - or ``"skipped": True`` where
    ``types`` leaves its type out."""
    run, deal = task
    game, agents, defences = _players(run)
    state, chance = reach_declaration(game, agents, run.seed, deal, run.force)
    if state is None or state.contract is None:
        return {"deal": deal, "passed": True}
    declarer, contract = state.declarer, state.contract
    if run.force == "null" and (contract.game != NULL or state.auction.value > 23):
        return {"deal": deal, "passed": True, "not_forceable": True}
    record: dict[str, Any] = {"deal": deal, "passed": False, "declarer": declarer,
                              "contract": contract.iss(), "type": game_type(contract)}
    if run.types and record["type"] not in run.types:
        return {**record, "skipped": True}
    for name in (*run.defences, OPEN):
        seats = table_seats(declarer, agents, None if name == OPEN else defences[name],
                            run.seed, deal)
        record[name] = _play_out(state, seats, declarer, chance)
    return record


def played(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose game was played out (not passed in, not skipped by type)."""
    return [r for r in rows if not r["passed"] and not r.get("skipped")]


def paired_interval(diffs: Sequence[int]) -> tuple[float, float, float]:
    """The mean of matched-pair differences and its 95% interval (normal)."""
    mean, se = mean_and_se(list(diffs))
    half = 1.96 * (se if se == se else 0.0)  # one pair: no spread
    return mean, mean - half, mean + half


def let_through(row: dict[str, Any], defence: str) -> int:
    """1 where ``defence`` let the game through and the open-hand defence beat it."""
    return int(row[defence]["won"] and not row[OPEN]["won"])


def gap_difference(rows: Sequence[dict[str, Any]], a: str, b: str
                   ) -> tuple[float, float, float]:
    """The gap of ``b`` minus the gap of ``a`` over the same games, with a 95% interval for
    matched pairs."""
    return paired_interval([let_through(r, b) - let_through(r, a) for r in rows])
