"""Duplicate-deal Skat matches: every deal replayed under every seating of the agents.

A Skat match seats two or three agents at one table of three (``skat``,
dealer seat 2, so seat 0 is forehand). Deal ``d`` is one shuffle (its chance
seed is :func:`derive_seed(seed, 1, d) <spielwerk.arena.match.derive_seed>`)
and is played once for each *arrangement* of the agents on the seats, so the
cards each seat holds are the same in every game of a deal and luck of the
deal cancels out:

- **two agents A and B** (``seating="pairs"``): the six arrangements
  ``BAA ABA AAB ABB BAB BBA`` - one agent alone in each seat, the other in the
  two remaining seats, both ways round. Every agent holds every hand three
  times per deal, once alone and twice as one of two.
- **three agents** (``seating="rotations"``, default): the three rotations
  (every agent holds every hand once); ``seating="permutations"`` plays all
  six orders, so that who sits after whom is balanced too.

Games run as :class:`~spielwerk.arena.match.GameTask` s on the arena's
executors (serial, local process pool, Dask) through
:func:`~spielwerk.arena.tournament.run_tournament`, written to a JSON Lines
results file under a header with the configuration hash, and resumed after
Ctrl-C or kill -9 (:mod:`spielwerk.arena.results`). Each record carries the
deal's Skat outcome in ``details``: declarer seat, contract (ISS notation),
bid, won, value, card points, tricks and the Seeger-Fabian points of every
seat (:func:`spielwerk.games.skat.scoring.seeger_fabian`).

Statistics (:func:`skat_match_stats`) are computed over the *complete* deals
(every arrangement played); a deal with a game missing (an interrupted run)
is left out of every figure until it is complete. An agent's *seat-games*
are the seats it held; its Seeger-Fabian points per 36 games are its mean
points per seat-game times 36 (the expected total of one player over a
36-game list; passed-in games count as games with 0 points, as in list
play). Intervals treat deals as the independent units: per deal, the agent's
mean points per seat-game; mean and normal interval over the deals (games
of one deal share the cards and are not independent). The paired difference
of A and B is the per-deal difference of those means, so each deal's luck
cancels.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from spielwerk.arena.match import (
    ArenaError,
    GameResult,
    GameTask,
    _game,
    play_task,
)
from spielwerk.arena.results import ResultsFileError, read_results
from spielwerk.arena.stats import mean_and_se, wilson_interval, z_value
from spielwerk.arena.tournament import (
    TournamentConfig,
    TournamentResult,
    run_tournament,
    unique_labels,
)
from spielwerk.core.agent import make_agent
from spielwerk.core.parallel import Executor
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat.rules import SkatState
from spielwerk.games.skat.scoring import Contract, parse_contract, seeger_fabian

SKAT_GAME = "skat(players=3)"
KIND = "skat-duplicate"
MATCH_FORMAT_VERSION = 1
SKAT_SEATINGS = ("pairs", "rotations", "permutations")
LIST_GAMES = 36
"""Games of a three-player Seeger-Fabian list: the unit of the per-list figures."""

GAME_CATEGORIES = (
    "suit", "grand", "null", "hand", "schneider announced", "schwarz announced", "ouvert",
    "overbid",
)
"""Categories counted per agent: the game type and every announcement (a game can be in
several, e.g. a grand hand with schneider announced)."""


def arrangements(num_agents: int, seating: str) -> list[tuple[int, ...]]:
    """The seatings of one deal: ``arrangement[s]`` is the agent index in seat ``s``."""
    if num_agents == 2:
        if seating != "pairs":
            raise ArenaError(f"two agents are seated as 'pairs', not {seating!r}")
        out = []
        for lone in (1, 0):
            for seat in range(3):
                out.append(tuple(lone if s == seat else 1 - lone for s in range(3)))
        return out
    if num_agents == 3:
        if seating == "rotations":
            return [tuple((s + r) % 3 for s in range(3)) for r in range(3)]
        if seating == "permutations":
            return list(itertools.permutations(range(3)))
        raise ArenaError(f"three agents are seated by 'rotations' or 'permutations', "
                         f"not {seating!r}")
    raise ArenaError(f"a Skat match is between 2 or 3 agents, got {num_agents}")


def default_seating(num_agents: int) -> str:
    return "pairs" if num_agents == 2 else "rotations"


@dataclass(frozen=True)
class SkatMatchConfig(TournamentConfig):
    """A duplicate Skat match; ``games_per_group`` is deals x arrangements per deal.

    ``knowledge_bases`` (label, JSON of the base's fingerprint) for every agent that decides
    from a knowledge base (an agent with ``knowledge_base_info()``, e.g. ``knn``): written to
    the results header, so a file says which base was used, and part of the configuration
    hash, so ``--resume`` with another base is refused."""

    knowledge_bases: tuple[tuple[str, str], ...] = ()

    @classmethod
    def create_match(
        cls,
        agents: Sequence[str],
        deals: int,
        seed: int = 0,
        seating: str | None = None,
        check_agents: bool = True,
    ) -> SkatMatchConfig:
        """Validate agents, deals and seed; raises a one-line :class:`ArenaError` (or the
        agent-spec error) on bad input."""
        specs = tuple(a.strip() for a in agents)
        if len(specs) not in (2, 3):
            raise ArenaError(
                f"a Skat match is between 2 or 3 agents (one of them may be repeated), "
                f"got {len(specs)}"
            )
        mode = seating or default_seating(len(specs))
        orders = arrangements(len(specs), mode)
        if deals < 1:
            raise ArenaError(f"--deals must be at least 1, not {deals}")
        if seed < 0:
            raise ArenaError(f"the seed must be a non-negative integer, not {seed}")
        game = load_game(SKAT_GAME)
        labels = unique_labels(specs)
        bases: list[tuple[str, str]] = []
        if check_agents:
            for spec, label in zip(specs, labels, strict=True):
                info = getattr(make_agent(spec, game, seed=0), "knowledge_base_info", None)
                if info is not None:
                    bases.append((label, json.dumps(info(), sort_keys=True)))
        return cls(game.spec(), specs, deals * len(orders), seed, mode, labels, tuple(bases))

    @property
    def arrangements(self) -> list[tuple[int, ...]]:
        return arrangements(len(self.agents), self.seating)

    @property
    def deals(self) -> int:
        return self.games_per_group // len(self.arrangements)

    def groups(self) -> list[tuple[int, ...]]:
        return [tuple(range(len(self.agents)))]

    def to_dict(self) -> dict[str, Any]:
        d = {
            "kind": KIND,
            "format_version": MATCH_FORMAT_VERSION,
            "game": self.game,
            "agents": list(self.agents),
            "labels": list(self.labels),
            "deals": self.deals,
            "seed": self.seed,
            "seating": self.seating,
        }
        if self.knowledge_bases:  # absent in older files: their hash stays valid
            d["knowledge_bases"] = {label: json.loads(info) for label, info in
                                    self.knowledge_bases}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SkatMatchConfig:
        """The configuration a results file's header describes (no agent checks)."""
        if d.get("kind") != KIND or d.get("format_version") != MATCH_FORMAT_VERSION:
            raise ArenaError("not a Skat duplicate match (or another format version)")
        config = cls.create_match(
            [str(a) for a in d["agents"]], int(d["deals"]), int(d["seed"]), str(d["seating"]),
            check_agents=False,
        )
        bases = d.get("knowledge_bases") or {}
        return replace(config, knowledge_bases=tuple(
            (str(label), json.dumps(info, sort_keys=True)) for label, info in bases.items()))

    SEED_BY_GROUP = False  # one group: game seeds derive_seed(seed, 2, deal, seating)

    def _orders(self) -> list[tuple[int, ...]]:
        return self.arrangements

    def _task_template(self, group: int, seating: int) -> str:
        return f"d%d-s{seating}"

    def _size_text(self, games_per_group: int) -> str:
        return f"{games_per_group // len(self.arrangements):,} deals"


def skat_details(state: SkatState) -> dict[str, Any]:
    """The JSON-ready outcome of a finished deal (see the module docstring)."""
    res = state.result
    if res is None:
        raise ArenaError("a Skat duplicate match needs a finished deal without Ramsch")
    contract = res.contract
    return {
        "declarer": res.declarer,
        "contract": contract.iss() if contract is not None else None,
        "bid": res.bid,
        "won": res.won,
        "value": res.value,
        "declarer_points": res.declarer_points,
        "declarer_tricks": res.declarer_tricks,
        "schneider": res.schneider,
        "schwarz": res.schwarz,
        "overbid": res.overbid,
        "seeger": seeger_fabian(res, 3),
    }


def run_skat_task(task: GameTask) -> GameResult:
    """Play one game of a match and record its Skat outcome (picklable, top-level)."""
    result, history = play_task(task)
    state = _game(task.game).new_initial_state()  # replay the record to read the result
    for action in history:
        state.apply(action)
    if not isinstance(state, SkatState):
        raise ArenaError(f"{task.game} is not Skat")
    return replace(result, details=skat_details(state))


def run_skat_match(
    config: SkatMatchConfig,
    executor: Executor | None = None,
    output: str | Path | None = None,
    resume: bool = False,
    fresh: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_result: Callable[[GameResult], None] | None = None,
) -> TournamentResult:
    """Play the match's games not yet in ``output`` (see :func:`run_tournament`)."""
    return run_tournament(
        config, executor, output, resume=resume, fresh=fresh, on_start=on_start,
        on_result=on_result, runner=run_skat_task,
    )


# ----- statistics ------------------------------------------------------------------------------
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


def _details_of(r: GameResult) -> dict[str, Any]:
    if r.details is None or "seeger" not in r.details:
        raise ArenaError(f"game {r.task_id} has no Skat outcome (not a Skat match record)")
    return r.details


def skat_match_stats(
    results: Sequence[GameResult],
    labels: Sequence[str],
    games_per_deal: int,
    confidence: float = 0.95,
) -> SkatMatchStats:
    """Per-agent figures and paired differences over the complete deals of ``results``."""
    z = z_value(confidence)
    by_deal: dict[int, list[GameResult]] = {}
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
                    raise ArenaError(f"game {r.task_id} has unknown agent {label!r}")
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


def match_stats(result: TournamentResult, confidence: float = 0.95) -> SkatMatchStats:
    """:func:`skat_match_stats` of a finished (or partial) :func:`run_skat_match`."""
    config = result.config
    if not isinstance(config, SkatMatchConfig):
        raise ArenaError("not a Skat duplicate match")
    return skat_match_stats(result.results, config.labels, len(config.arrangements), confidence)


def read_match(path: Path) -> tuple[SkatMatchConfig, list[GameResult]]:
    """The configuration and games of a match results file (also while it is being written:
    an unfinished last line is ignored). Refuses files that are not Skat match results."""
    if not path.is_file():
        raise ResultsFileError(f"{path} is not a file")
    back = read_results(path)
    if back.header is None:
        raise ResultsFileError(f"{path} holds no results yet")
    try:
        config = SkatMatchConfig.from_dict(back.header.get("config") or {})
    except (ArenaError, KeyError, TypeError, ValueError):
        raise ResultsFileError(f"{path} is not a Skat duplicate match results file") from None
    if config.config_hash() != back.header.get("config_hash"):
        raise ResultsFileError(f"{path}: the header's configuration hash does not match it")
    return config, back.results


def describe_config(config: SkatMatchConfig) -> str:
    """One line: the agents, deals, seed and seating scheme."""
    letters = "ABC"
    names = ", ".join(f"{letters[i]} = {label}" for i, label in enumerate(config.labels))
    scheme = " ".join("".join(letters[m] for m in order) for order in config.arrangements)
    bases = "".join(
        f"; {label}'s knowledge base: {info.get('deals')} deals, {info.get('dir')}"
        for label, info in ((lb, json.loads(i)) for lb, i in config.knowledge_bases))
    return (f"{names}; {config.deals} deals x {len(config.arrangements)} seatings ({scheme}), "
            f"seed {config.seed}{bases}")


def stats_json(config: SkatMatchConfig, stats: SkatMatchStats) -> str:
    return json.dumps(
        {"config": config.to_dict(), "config_hash": config.config_hash(), **stats.to_dict()},
        indent=2,
    )
