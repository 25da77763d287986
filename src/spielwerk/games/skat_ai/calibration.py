"""Calibration of a Skat agent's declarations: the win chance it expected against the games
it won, per game type (``spielwerk skat calibration``).

Every seeded deal is played three times, the agent in each seat in turn and the other two
seats playing the defence; only the agent's own declarations count. A rotation in which
another seat wins the auction, or every seat passes, ends at the declaration (no card is
played). A game the agent declares is played out from the declaration: the agent as
declarer, the defence's two seats against it. The defence is an agent spec, or
:data:`OPEN`: the two seats bid, pick up and declare as the agent does (copies of it) and
defend with the open-hand defence (:mod:`open_defence`: they see every card and play the
double-dummy best one), the strongest defence there is.

Per game (:func:`play_seat`): the type (:data:`GAME_TYPES`, :func:`game_type`), the
contract, the win chance the agent expected when it declared (its
``declaration_chance(info)``, its calibration's chance - the ``knn`` agent's
:meth:`~spielwerk.games.skat_ai.knn_agent.SkatKnnAgent.declaration_chance`; None for an
agent that tells none; ``decided``: the chance its decisions compared, lower where its
``caution`` moves the chances towards the open-hand bound), won, the game value and the
declarer's Seeger-Fabian points (won: value + 50, lost: -2 x value - 50; the 40 the
defenders get for a lost game are not the declarer's). :func:`summarize` turns the games
into the figures per type: declared, mean predicted chance, observed win rate with its
Wilson interval, Seeger-Fabian points per declared game. Every task carries its seeds (the
deal from ``(seed, 1, deal)``, the agents from ``(seed, 2, deal, rotation, seat)``, reset
from ``(seed, 3, deal, rotation, seat)`` for the card play), so the figures do not depend on
workers or order.

The experiment ``experiments/skat_defence_gap.py`` plays to the declaration and classifies
the games with :func:`play_to_declaration` and :func:`game_type` from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from spielwerk.core.agent import Agent, AgentSpecError, make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import Game, State
from spielwerk.core.intervals import wilson_interval
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.core.seeds import derive_seed
from spielwerk.games.skat.actions import PICKUP
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat.outcome import final_details
from spielwerk.games.skat.rules import PLAY, SkatState
from spielwerk.games.skat.scoring import Contract
from spielwerk.games.skat_ai.open_defence import OpenHandDefence
from spielwerk.games.skat_ai.params import MAP_KINDS

GAME_TYPES = MAP_KINDS
"""The game types of the tables: null ouvert (with or without the skat) is its own type."""
OPEN = "open"
"""The ``--defence`` of the open-hand defenders (see the module docstring)."""
CONFIDENCE = 0.95
_WORKER: dict[tuple[str, str], tuple[Game, Agent, list[Any]]] = {}


class CalibrationError(SpielwerkError, ValueError):
    """A calibration run that cannot be played (a bad agent spec, no deals)."""


def game_type(contract: Contract) -> str:
    """One of :data:`GAME_TYPES` for a declared contract."""
    if contract.game == NULL and contract.ouvert:
        return "null_ouvert"
    kind = "null" if contract.game == NULL else "grand" if contract.game == GRAND else "suit"
    return kind + ("_hand" if contract.hand else "")


class _Declared(Exception):
    pass


def _stop(state: State, player: int, action: int) -> None:
    if isinstance(state, SkatState) and state.phase == PLAY and state.contract is not None:
        raise _Declared


def forcing_null(agents: Sequence[Any]) -> list[Any]:
    """Choosers for :func:`play_to_declaration`: the agents' own auction, except that its
    winner picks up the skat and declares a plain null (the experiments' forced nulls)."""

    def seat(state: Any, player: int) -> int:
        legal = state.legal_actions()
        if PICKUP in legal:
            return PICKUP
        null = [a for a in legal if state.action_to_string(a) == "N"]
        if null:
            return int(null[0])
        return int(agents[player].act(state.info_state(player)))

    return [seat] * 3


def play_to_declaration(state: State, seats: Sequence[Any], rng: np.random.Generator
                        ) -> SkatState | None:
    """Play ``state`` on with ``seats`` until a game is declared: the state then, or None
    when the deal was passed in (or it is not a Skat state)."""
    try:
        play(state, list(seats), rng, after=_stop)
    except _Declared:
        pass
    if not isinstance(state, SkatState) or state.contract is None:
        return None
    return state


@dataclass(frozen=True)
class CalibrationConfig:
    """A run: the agent and defence specs, the number of deals and the seed."""

    agent: str
    defence: str
    deals: int
    seed: int = 0

    def tasks(self) -> list[tuple[CalibrationConfig, int, int]]:
        """(config, deal, seat of the agent): three per deal."""
        return [(self, d, s) for d in range(self.deals) for s in range(3)]


def check_config(config: CalibrationConfig) -> None:
    """Refuse, in one line and before any game, a run that cannot be played."""
    if config.deals < 1:
        raise CalibrationError(f"--deals must be at least 1, not {config.deals}")
    if config.seed < 0:
        raise CalibrationError(f"--seed must be 0 or more, not {config.seed}")
    game = load_game("skat")
    for what, spec in (("--agent", config.agent), ("--defence", config.defence)):
        if what == "--defence" and spec.strip() == OPEN:
            continue
        try:
            make_agent(spec, game, 0)
        except AgentSpecError as exc:
            raise CalibrationError(f"{what} {spec!r}: {exc}") from None
        except SpielwerkError as exc:
            raise CalibrationError(f"{what} {spec!r} cannot play Skat: {exc}") from None


def _players(config: CalibrationConfig) -> tuple[Game, Agent, list[Any]]:
    """This process's game, agent and two defenders (made once per process)."""
    key = (config.agent, config.defence)
    if key not in _WORKER:
        game = load_game("skat")
        defence = config.agent if config.defence.strip() == OPEN else config.defence
        _WORKER[key] = (game, make_agent(config.agent, game, 0),
                        [make_agent(defence, game, 0) for _ in range(2)])
    return _WORKER[key]


def seat_declaration(config: CalibrationConfig, deal: int, me: int
                     ) -> tuple[SkatState | None, list[Any], int, dict[str, Any]]:
    """The auction of one seat-game of a run: the state once a game is declared (None when
    passed in), the three seats, the deal's chance seed, and the record so far (``deal``,
    ``seat``, ``declared`` False; where the agent declared, ``type``, ``bid``, the
    chances ``predicted`` and ``decided`` - None when the agent tells none; ``declared``
    True). Card play comes after (:func:`play_seat`); the declared mix needs none."""
    game, agent, defenders = _players(config)
    seats: list[Any] = []
    rest = iter(defenders)
    for s in range(3):
        seats.append(agent if s == me else next(rest))
        seats[s].reset(derive_seed(config.seed, 2, deal, me, s))
    chance = derive_seed(config.seed, 1, deal)
    state = play_to_declaration(game.new_initial_state(), seats, np.random.default_rng(chance))
    record: dict[str, Any] = {"deal": deal, "seat": me, "declared": False}
    if state is None or state.declarer != me:
        return state, seats, chance, record
    assert state.contract is not None
    chance_of = getattr(agent, "declaration_chance", None)
    predicted = chance_of(state.info_state(me)) if callable(chance_of) else None
    decided = chance_of(state.info_state(me), cautious=True) if callable(chance_of) else None
    record.update(declared=True, type=game_type(state.contract), bid=int(state.auction.value),
                  predicted=None if predicted is None else round(float(predicted), 6),
                  decided=None if decided is None else round(float(decided), 6))
    return state, seats, chance, record


def declare_seat(task: tuple[CalibrationConfig, int, int]) -> dict[str, Any]:
    """One seat-game of a run played only to its declaration: :func:`seat_declaration`'s
    record (a task of plain data, as :func:`play_seat`'s, for the declared mix)."""
    config, deal, me = task
    return seat_declaration(config, deal, me)[3]


def play_seat(task: tuple[CalibrationConfig, int, int]) -> dict[str, Any]:
    """One deal with the agent in one seat: a record with ``deal``, ``seat`` and
    ``declared`` (whether the agent declared), and for a declared game ``type``,
    ``contract``, ``predicted`` and ``decided`` (None when the agent tells no chance),
    ``won``, ``value``,
    ``declarer_points`` and ``sf`` (the declarer's Seeger-Fabian points)."""
    config, deal, me = task
    state, seats, chance, record = seat_declaration(config, deal, me)
    if state is None or not record["declared"]:
        return record
    agent = seats[me]
    for s in range(3):  # the card play from the declaration, seeded on its own (the
        seats[s].reset(derive_seed(config.seed, 3, deal, me, s))  # agents see it afresh)
    if config.defence.strip() == OPEN:
        open_hand = OpenHandDefence()
        seats = [agent if s == me else open_hand for s in range(3)]
    final = play(state, seats, np.random.default_rng(chance)).state
    d = final_details(final)
    return {"deal": deal, "seat": me, "declared": True, "type": record["type"],
            "contract": d["contract"], "predicted": record["predicted"],
            "decided": record["decided"], "won": bool(d["won"]), "value": int(d["value"]),
            "declarer_points": int(d["declarer_points"]), "sf": int(d["seeger"][me])}


def wilson(won: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of ``won`` of ``n`` (n > 0)."""
    low, high = wilson_interval(won, n, CONFIDENCE)
    return float(low), float(high)


def type_figures(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """declared, predicted (mean of the chances told; None when none), observed, low, high
    and sf_per_game of one type's declared games (rates None without games)."""
    n = len(games)
    if not n:
        return {"declared": 0, "predicted": None, "observed": None, "low": None,
                "high": None, "sf_per_game": None}
    chances = [g["predicted"] for g in games if g.get("predicted") is not None]
    won = sum(1 for g in games if g["won"])
    low, high = wilson(won, n)
    return {"declared": n,
            "predicted": round(sum(chances) / len(chances), 4) if chances else None,
            "observed": round(won / n, 4), "low": round(low, 4), "high": round(high, 4),
            "sf_per_game": round(sum(g["sf"] for g in games) / n, 2)}


def summarize(config: CalibrationConfig, records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The run's figures: ``types`` (every one of :data:`GAME_TYPES`, declared 0 with None
    rates when the agent declared none), ``all`` (every declared game together), the run's
    specs and counts (``seat_games``: the rotations played, ``complete``: all of them)."""
    rows = sorted(records, key=lambda r: (r["deal"], r["seat"]))
    declared = [r for r in rows if r["declared"]]
    return {
        "agent": config.agent, "defence": config.defence, "deals": config.deals,
        "seed": config.seed, "seat_games": len(rows),
        "complete": len(rows) == 3 * config.deals,
        "types": {t: type_figures([r for r in declared if r["type"] == t]) for t in GAME_TYPES},
        "all": type_figures(declared),
    }


def reliability(declared: Iterable[dict[str, Any]], bins: int) -> dict[str, list[dict[str, Any]]]:
    """Per game type, the declared games grouped by the chance told (``predicted``) into
    ``bins`` equal slices of [0, 1] (a chance of 1 in the last): per slice with games, ``from``
    and ``to`` (its edges) and :func:`type_figures` of its games. Games without a chance told
    are left out; a type without games has an empty list."""
    if bins < 1:
        raise CalibrationError(f"--bins must be at least 1, not {bins}")
    slices: dict[str, list[list[dict[str, Any]]]] = {t: [[] for _ in range(bins)]
                                                     for t in GAME_TYPES}
    for r in declared:
        chance = r.get("predicted")
        if chance is not None:
            slices[r["type"]][min(int(chance * bins), bins - 1)].append(r)
    return {t: [{"from": round(i / bins, 4), "to": round((i + 1) / bins, 4),
                 **type_figures(games)} for i, games in enumerate(parts) if games]
            for t, parts in slices.items()}


def reliability_lines(table: dict[str, list[dict[str, Any]]]) -> list[str]:
    """:func:`reliability`'s slices as a plain text table (the types with games)."""
    lines = [f"{'type':<12} {'told':<9} {_FIGURES_HEAD}"]
    for name, parts in table.items():
        for f in parts:
            lines.append(f"{name:<12} {f['from']:.2f}-{f['to']:.2f} {_figure_cells(f)}")
    return lines


def _cell(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


_FIGURES_HEAD = (f"{'declared':>8} {'predicted':>9} {'observed':>8}  {'95% interval':<13} "
                 f"{'SF/game':>8}")


def _figure_cells(f: dict[str, Any]) -> str:
    """One :func:`type_figures` as the text table's cells (under :data:`_FIGURES_HEAD`)."""
    interval = "-" if f["low"] is None else f"{f['low']:.3f}-{f['high']:.3f}"
    return (f"{f['declared']:>8} {_cell(f['predicted'], 3):>9} {_cell(f['observed'], 3):>8}  "
            f"{interval:<13} {_cell(f['sf_per_game'], 1):>8}")


def table_lines(summary: dict[str, Any]) -> list[str]:
    """The figures as a plain text table, one line per game type and one for all."""
    lines = [f"{'type':<12} {_FIGURES_HEAD}"]
    for name, f in [*summary["types"].items(), ("all", summary["all"])]:
        lines.append(f"{name:<12} {_figure_cells(f)}")
    return lines
