"""Two more kinds of Skat runs as plain-data tasks: declarations compared, and declarers.

Like :mod:`spielwerk.games.skat_ai.defence_runs`, each run is a frozen record and its deal
a top-level function of ``(run, deal)``, so the deals can run in a process pool or on a
Dask cluster (:func:`spielwerk.core.parallel.make_executor`) and give the same records
whatever the executor, the worker or the order: every deal carries its seeds (the deal
from ``(seed, 1, deal)``, the auction from ``(seed, 2, deal, seat)``, the card play from
``(seed, 3, deal, seat)``).

* :class:`DiffRun` / :func:`play_diff`: two agent specs bid and declare on the same deal;
  where their declarations differ, both games are played out against the declaring
  spec's own defenders (``ours``), the open-hand defence (``open``) and any other
  ``defences`` (``experiments/skat_declaration_diff.py``).
* :class:`DeclarerRun` / :func:`play_declarers`: one agent's declaration (its own, its own
  nulls only, or a forced null) played out by each declarer spec against the defence and
  the open-hand defence (``experiments/skat_declarer_compare.py``); ``open`` as a declarer
  is :class:`OpenHandDeclarer`.
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
from spielwerk.games.skat.cards import DISPLAY_ORDER, NULL
from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat_ai.calibration import OPEN, game_type
from spielwerk.games.skat_ai.defence_runs import DefenceRunError, reach_declaration, table_seats

OURS = "ours"
OWN_NULLS = "own-nulls"
DIFF_DEFENCES = (OURS, OPEN)  # a DiffRun's changed games are always played against these
DECLARER_FORCES = ("null", "none", OWN_NULLS)
_RANK = {c: i for i, c in enumerate(DISPLAY_ORDER)}
_PLAYERS: dict[Any, Any] = {}  # this process's agents per run, made once


def _check_specs(specs: Iterable[str]) -> None:
    game = load_game("skat")
    for spec in specs:
        try:
            make_agent(spec, game, 0)
        except (AgentSpecError, SpielwerkError) as exc:
            raise DefenceRunError(f"{spec!r}: {exc}") from None


def _three(spec: str, game: Any) -> list[Any]:
    return [make_agent(spec, game, 0) for _ in range(3)]


@dataclass(frozen=True)
class DiffRun:
    """Agent specs A and B (``specs``), the seed, and further ``defences`` the changed games
    are played against besides ``ours`` and ``open``."""

    specs: tuple[str, str]
    seed: int
    defences: tuple[str, ...] = ()

    def tasks(self, deals: Iterable[int]) -> list[tuple[DiffRun, int]]:
        return [(self, d) for d in deals]

    def header(self) -> dict[str, Any]:
        """What a results file records about the run (and a resumed one must match)."""
        return {"specs": list(self.specs), "seed": self.seed, "defences": list(self.defences)}

    def check(self) -> None:
        """Refuse, in one line and before any deal, a run that cannot be played."""
        if len(self.specs) != 2:
            raise DefenceRunError("give two agent specs, A and B")
        if set(DIFF_DEFENCES) & set(self.defences) or len(set(self.defences)) != len(self.defences):
            raise DefenceRunError(f"each further defence once ({OURS} and {OPEN} are always "
                                  "played)")
        _check_specs([*self.specs, *self.defences])


def declaration(state: Any) -> list[Any] | None:
    """What a declared state's declarer chose: seat, contract (game, hand, announcements)
    and the skat put as a card mask (None: passed in)."""
    if state is None or state.contract is None:
        return None
    return [state.declarer, state.contract.iss(), int(state.skat)]


def play_diff(task: tuple[DiffRun, int]) -> dict[str, Any]:
    """One deal of a :class:`DiffRun`: ``{"deal", "same"}``, and where the declarations
    differ, per side ``"a"``/``"b"`` its ``"declaration"`` and, for a declared game, its
    ``"type"`` and per defence ``{"won", "sf", "relative", "seconds"}`` (the declarer's
    Seeger-Fabian score, and that minus the mean of the defenders')."""
    run, deal = task
    if run not in _PLAYERS:
        game = load_game("skat")
        _PLAYERS[run] = (game, [_three(s, game) for s in run.specs],
                         {d: _three(d, game) for d in run.defences})
    game, sides, others = _PLAYERS[run]
    states = [reach_declaration(game, agents, run.seed, deal, "none") for agents in sides]
    chosen = [declaration(state) for state, _ in states]
    record: dict[str, Any] = {"deal": deal, "same": chosen[0] == chosen[1]}
    if record["same"]:
        return record
    for side, (agents, (state, chance), decl) in enumerate(
            zip(sides, states, chosen, strict=True)):
        out: dict[str, Any] = {"declaration": decl}
        if state is not None and state.contract is not None:
            out["type"] = game_type(state.contract)
            for name in (*DIFF_DEFENCES, *run.defences):
                defending = agents if name == OURS else None if name == OPEN else others[name]
                seats = table_seats(state.declarer, agents, defending, run.seed, deal)
                t0 = time.perf_counter()
                final = play(state.clone(), seats, np.random.default_rng(chance)).state
                d = final_details(final)
                sf = d["seeger"]
                rest = [sf[s] for s in range(3) if s != state.declarer]
                out[name] = {"won": d["won"], "sf": sf[state.declarer],
                             "relative": sf[state.declarer] - sum(rest) / 2,
                             "seconds": round(time.perf_counter() - t0, 2)}
        record["ab"[side]] = out
    return record


class OpenHandDeclarer:
    """``chooser(state, seat)`` for the declarer's seat: where a card still reaches the
    contract's goal against the double-dummy defence, the first such card (display order);
    where none does (a game lost against best defence), the card of ``fallback`` (an agent
    that sees its own seat only: it plays on for the defenders' mistakes). It wins every game
    that can be won double-dummy, and the others as the fallback does."""

    def __init__(self, fallback: Any) -> None:
        self.solver = Solver()
        self.fallback = fallback

    def reset(self, seed: int | None = None) -> None:
        self.fallback.reset(seed)

    def __call__(self, state: Any, seat: int) -> int:
        legal = [a for a in state.legal_actions() if a < 32]
        if len(legal) == 1:
            return int(legal[0])
        wins = self.solver.move_values(deal_from_state(state), state.contract.goal())
        winning = [c for c in legal if wins.get(c, False)]
        if not winning:
            return int(self.fallback.act(state.info_state(seat)))
        return int(min(winning, key=lambda c: _RANK.get(c, 99)))


@dataclass(frozen=True)
class DeclarerRun:
    """The ``agent`` whose auction, put and declaration are played, the ``declarers``
    compared (the first is the reference; ``open``: :class:`OpenHandDeclarer`), the
    ``defence``, ``force`` (``"none"``: the agent's declarations; ``"own-nulls"``: only its
    nulls played; ``"null"``: forced plain nulls) and the seed."""

    agent: str
    declarers: tuple[str, ...]
    defence: str
    force: str
    seed: int

    def tasks(self, deals: Iterable[int]) -> list[tuple[DeclarerRun, int]]:
        return [(self, d) for d in deals]

    def header(self) -> dict[str, Any]:
        """What a results file records about the run (and a resumed one must match)."""
        return {"agent": self.agent, "seed": self.seed, "declarers": list(self.declarers),
                "defence": self.defence, "force": self.force}

    def check(self) -> None:
        """Refuse, in one line and before any deal, a run that cannot be played."""
        if self.force not in DECLARER_FORCES:
            raise DefenceRunError(f"force must be one of {', '.join(DECLARER_FORCES)}, not "
                                  f"{self.force!r}")
        if not self.declarers or len(set(self.declarers)) != len(self.declarers):
            raise DefenceRunError("name each declarer once")
        _check_specs([self.agent, *[d for d in self.declarers if d != OPEN], self.defence])


def play_declarers(task: tuple[DeclarerRun, int]) -> dict[str, Any]:
    """One deal of a :class:`DeclarerRun`: ``{"deal", "passed": True}`` where no game of
    the run was declared (with its ``"type"`` where ``own-nulls`` left a declared game out);
    else ``"declarer"``, ``"type"``, the agent's ``"predicted"`` and ``"decided"`` chances
    where it tells them (not for forced nulls), and per declarer spec ``{"ours": {"won",
    "seconds"}, "open": {...}}``."""
    run, deal = task
    if run not in _PLAYERS:
        game = load_game("skat")
        _PLAYERS[run] = (game, _three(run.agent, game),
                         {d: [OpenHandDeclarer(make_agent(run.agent, game, 0))
                              for _ in range(3)] if d == OPEN else _three(d, game)
                          for d in run.declarers},
                         _three(run.defence, game))
    game, agents, declarers, defence = _PLAYERS[run]
    force = run.force
    state, chance = reach_declaration(game, agents, run.seed, deal,
                                      "none" if force == OWN_NULLS else force)
    if state is None or force == "null" and (state.contract.game != NULL
                                             or state.auction.value > 23):
        return {"deal": deal, "passed": True}
    if force == OWN_NULLS and state.contract.game != NULL:
        return {"deal": deal, "passed": True, "type": game_type(state.contract)}
    declarer = state.declarer
    record: dict[str, Any] = {"deal": deal, "passed": False, "declarer": declarer,
                              "type": game_type(state.contract)}
    chance_of = getattr(agents[declarer], "declaration_chance", None)
    if force != "null" and callable(chance_of):  # what the agent expected of its declaration
        info = state.info_state(declarer)
        record["predicted"] = round(float(chance_of(info) or 0.0), 6)
        record["decided"] = round(float(chance_of(info, cautious=True) or 0.0), 6)
    for name, players in declarers.items():
        record[name] = {}
        for against in (OURS, OPEN):
            seats = table_seats(declarer, players, None if against == OPEN else defence,
                                run.seed, deal)
            t0 = time.perf_counter()
            final = play(state.clone(), seats, np.random.default_rng(chance)).state
            record[name][against] = {"won": bool(final_details(final)["won"]),
                                     "seconds": round(time.perf_counter() - t0, 2)}
    return record
