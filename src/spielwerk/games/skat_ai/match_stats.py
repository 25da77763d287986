"""Seeger-Fabian figures of a duplicate Skat match, from the outcome each game recorded.

Each game's record carries the deal's outcome in ``details``
(:func:`spielwerk.games.skat.outcome.final_details`: declarer seat, contract in ISS
notation, bid, won, value, card points, tricks and the Seeger-Fabian points of every
seat). The figures (:func:`skat_match_stats`) are computed over the *complete* deals
(every arrangement played); a deal with a game missing (an interrupted run) is left out
of every figure until it is complete. An agent's *seat-games* are the seats it held; its
Seeger-Fabian points per 36 games are its mean points per seat-game times 36 (the
expected total of one player over a 36-game list; passed-in games count as games with 0
points, as in list play). Intervals treat deals as the independent units: per deal, the
agent's mean points per seat-game; mean and normal interval over the deals (games of one
deal share the cards and are not independent). The paired difference of A and B is the
per-deal difference of those means, so each deal's luck cancels.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.intervals import mean_and_se, wilson_interval, z_value
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat.scoring import Contract, parse_contract

LIST_GAMES = 36
"""Games of a three-player Seeger-Fabian list: the unit of the per-list figures."""

GAME_CATEGORIES = (
    "suit", "grand", "null", "hand", "schneider announced", "schwarz announced", "ouvert",
    "overbid",
)
"""Categories counted per agent: the game type and every announcement (a game can be in
several, e.g. a grand hand with schneider announced)."""


class SkatMatchError(SpielwerkError, ValueError):
    """Records that are not those of a Skat duplicate match."""


class Played(Protocol):
    """What the figures read from a game's record (an arena ``GameResult``)."""

    @property
    def task_id(self) -> str: ...
    @property
    def deal(self) -> int: ...
    @property
    def labels(self) -> tuple[str, ...]: ...
    @property
    def details(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class CategoryCount:
    """Games of one category an agent declared: how many, won, and their Seeger-Fabian
    points for the declarer (summed, and per 36 of the agent's seat-games)."""

    declared: int
    won: int
    seeger: int
    seeger_per_list: float
    value: int = 0
    """The game values of these games, summed (lost ones included)."""
    of_declared: int = 0
    """All games the agent declared (the denominator of :attr:`share`)."""

    @property
    def share(self) -> float:
        """These games' share of the agent's declared games."""
        return self.declared / self.of_declared if self.of_declared else math.nan

    @property
    def win_rate(self) -> float:
        return self.won / self.declared if self.declared else math.nan

    @property
    def mean_value(self) -> float:
        return self.value / self.declared if self.declared else math.nan

    @property
    def seeger_per_game(self) -> float:
        """The declarer's Seeger-Fabian points per game of this category."""
        return self.seeger / self.declared if self.declared else math.nan


@dataclass(frozen=True)
class SkatAgentStats:
    """One agent's line (module docstring: seat-games, per-list figures, intervals)."""

    label: str
    seat_games: int
    declared: int
    won: int
    win_rate: float
    win_low: float
    win_high: float
    passed_in: int  # seat-games at a table where all passed
    mean_value: float  # mean game value of its declared games (lost ones included)
    mean_declarer_score: float  # value if won, -2 x value if lost
    seeger_per_list: float
    seeger_low: float
    seeger_high: float
    categories: dict[str, CategoryCount]


@dataclass(frozen=True)
class PairedDifference:
    """``a`` minus ``b`` in Seeger-Fabian points per 36 games, paired over the same deals."""

    a: str
    b: str
    deals: int
    mean: float
    low: float
    high: float


@dataclass(frozen=True)
class SkatMatchStats:
    deals: int  # complete deals used
    incomplete_deals: int  # deals with a game missing, left out
    games: int
    passed_in_games: int
    confidence: float
    agents: list[SkatAgentStats]
    differences: list[PairedDifference] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def clean(x: Any) -> Any:
            if isinstance(x, float) and math.isnan(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, list):
                return [clean(v) for v in x]
            return x

        return clean(asdict(self))  # type: ignore[no-any-return]


def categories_of(contract: Contract, overbid: bool) -> list[str]:
    """The :data:`GAME_CATEGORIES` a declared game belongs to."""
    out = ["null" if contract.game == NULL else "grand" if contract.game == GRAND else "suit"]
    if contract.hand:
        out.append("hand")
    if contract.schneider_announced and not contract.ouvert:
        out.append("schneider announced")
    if contract.schwarz_announced and not contract.ouvert:
        out.append("schwarz announced")
    if contract.ouvert:
        out.append("ouvert")
    if overbid:
        out.append("overbid")
    return out


def _interval(values: list[float], z: float) -> tuple[float, float, float]:
    mean, se = mean_and_se(values)
    if math.isnan(se):
        return mean, math.nan, math.nan
    return mean, mean - z * se, mean + z * se


def _details_of(r: Played) -> dict[str, Any]:
    if r.details is None or "seeger" not in r.details:
        raise SkatMatchError(f"game {r.task_id} has no Skat outcome (not a Skat match record)")
    return r.details


def skat_match_stats(
    results: Sequence[Played],
    labels: Sequence[str],
    games_per_deal: int,
    confidence: float = 0.95,
) -> SkatMatchStats:
    """Per-agent figures and paired differences over the complete deals of ``results``."""
    z = z_value(confidence)
    by_deal: dict[int, list[Played]] = {}
    for r in results:
        by_deal.setdefault(r.deal, []).append(r)
    complete = {d: rs for d, rs in sorted(by_deal.items()) if len(rs) == games_per_deal}
    games = [r for rs in complete.values() for r in rs]
    seat_games = dict.fromkeys(labels, 0)
    declared = dict.fromkeys(labels, 0)
    won = dict.fromkeys(labels, 0)
    passed = dict.fromkeys(labels, 0)
    values: dict[str, list[int]] = {label: [] for label in labels}
    scores: dict[str, list[int]] = {label: [] for label in labels}
    cats: dict[str, dict[str, list[int]]] = {
        label: {c: [0, 0, 0, 0] for c in GAME_CATEGORIES} for label in labels
    }
    per_deal: dict[str, list[float]] = {label: [] for label in labels}
    passed_games = 0
    for rs in complete.values():
        deal_points = dict.fromkeys(labels, 0)
        deal_seats = dict.fromkeys(labels, 0)
        for r in rs:
            d = _details_of(r)
            seeger = [int(p) for p in d["seeger"]]
            for seat, label in enumerate(r.labels):
                if label not in seat_games:
                    raise SkatMatchError(f"game {r.task_id} has unknown agent {label!r}")
                seat_games[label] += 1
                deal_seats[label] += 1
                deal_points[label] += seeger[seat]
            decl = int(d["declarer"])
            if decl < 0:
                passed_games += 1
                for label in r.labels:
                    passed[label] += 1
                continue
            label = r.labels[decl]
            declared[label] += 1
            won[label] += bool(d["won"])
            values[label].append(int(d["value"]))
            scores[label].append(int(d["value"]) if d["won"] else -2 * int(d["value"]))
            contract = parse_contract(str(d["contract"]))
            for c in categories_of(contract, bool(d["overbid"])):
                counts = cats[label][c]
                counts[0] += 1
                counts[1] += bool(d["won"])
                counts[2] += seeger[decl]
                counts[3] += int(d["value"])
        for label in labels:
            if deal_seats[label]:
                per_deal[label].append(LIST_GAMES * deal_points[label] / deal_seats[label])
    agents = []
    for label in labels:
        lo, hi = wilson_interval(won[label], declared[label], confidence)
        sf, sf_lo, sf_hi = _interval(per_deal[label], z)
        n = seat_games[label]
        agents.append(
            SkatAgentStats(
                label=label,
                seat_games=n,
                declared=declared[label],
                won=won[label],
                win_rate=won[label] / declared[label] if declared[label] else math.nan,
                win_low=lo,
                win_high=hi,
                passed_in=passed[label],
                mean_value=mean_and_se([float(v) for v in values[label]])[0],
                mean_declarer_score=mean_and_se([float(v) for v in scores[label]])[0],
                seeger_per_list=sf,
                seeger_low=sf_lo,
                seeger_high=sf_hi,
                categories={
                    c: CategoryCount(v[0], v[1], v[2], LIST_GAMES * v[2] / n if n else math.nan,
                                     v[3], declared[label])
                    for c, v in cats[label].items()
                },
            )
        )
    differences = []
    for a, b in itertools.combinations(labels, 2):
        diffs = [x - y for x, y in zip(per_deal[a], per_deal[b], strict=True)]
        mean, lo, hi = _interval(diffs, z)
        differences.append(PairedDifference(a, b, len(diffs), mean, lo, hi))
    return SkatMatchStats(
        deals=len(complete),
        incomplete_deals=len(by_deal) - len(complete),
        games=len(games),
        passed_in_games=passed_games,
        confidence=confidence,
        agents=agents,
        differences=differences,
    )
