"""Duplicate matches, for any game: every deal played under every arrangement of the agents.

A duplicate match seats two or more agents (at most one per seat of the game) at one
table. Deal ``d`` is one shuffle (its chance seed is :func:`derive_seed(seed, 2, d, ...)
<spielwerk.arena.match.derive_seed>`, the same in every arrangement) and is played once
for each *arrangement* of the agents on the seats, so the cards each seat holds are the
same in every game of a deal and luck of the deal cancels out:

- **fewer agents than seats** (``seating="pairs"``, the default then): every arrangement
  that seats each agent at least once. Two agents A and B at Skat's three seats: the six
  arrangements ``BAA ABA AAB ABB BAB BBA``, one agent alone in each seat, the other in
  the two remaining seats, both ways round; every agent holds every hand three times per
  deal, once alone and twice as one of two.
- **as many agents as seats**: ``seating="permutations"`` (every order, the default of
  ``spielwerk arena --seating duplicate``) or ``"rotations"`` (every agent holds every
  hand once; the default of ``spielwerk skat match`` with three agents).

Games run as :class:`~spielwerk.arena.match.GameTask` s on the arena's executors through
:func:`~spielwerk.arena.tournament.run_tournament`, written to a JSON Lines results file
under a header with the configuration hash, and resumed after Ctrl-C or kill -9
(:mod:`spielwerk.arena.results`). A game whose plug-in record names a ``final_details``
hook keeps that outcome in each record's ``details`` (read from the final state: nothing
is replayed), and a game with a ``match_report`` prints its own figures from them (Skat:
Seeger-Fabian points, :mod:`spielwerk.games.skat_ai.match_stats`); others print the
arena's standings.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from spielwerk.arena.match import ArenaError, GameResult, game_name
from spielwerk.arena.results import ResultsFileError, read_results
from spielwerk.arena.tournament import (
    TournamentConfig,
    TournamentResult,
    run_tournament,
    unique_labels,
)
from spielwerk.core.agent import make_agent
from spielwerk.core.parallel import Executor
from spielwerk.core.registry import load_game
from spielwerk.plugins import game_plugin, load_object

KIND_SUFFIX = "-duplicate"
"""A results header's ``kind`` is the game's name and this (``skat-duplicate``)."""
MATCH_FORMAT_VERSION = 1
DUPLICATE_SEATINGS = ("pairs", "rotations", "permutations")
LETTERS = "ABCDEFGH"


def _spread(num_agents: int, num_seats: int) -> list[tuple[int, ...]]:
    """Every arrangement of fewer agents than seats that seats each agent at least once."""
    if (num_agents, num_seats) == (2, 3):  # the order of the first match files: their game
        out = []  # seeds follow it (agent 1 alone in each seat, then agent 0)
        for lone in (1, 0):
            for seat in range(3):
                out.append(tuple(lone if s == seat else 1 - lone for s in range(3)))
        return out
    return [order for order in itertools.product(range(num_agents), repeat=num_seats)
            if len(set(order)) == num_agents]


def arrangements(num_agents: int, num_seats: int, seating: str) -> list[tuple[int, ...]]:
    """The arrangements of one deal: ``arrangement[s]`` is the agent index in seat ``s``."""
    if not 2 <= num_agents <= num_seats:
        raise ArenaError(f"a duplicate match at {num_seats} seats is between 2 and {num_seats} "
                         f"agents (one of them may be repeated), got {num_agents}")
    if num_agents < num_seats:
        if seating != "pairs":
            raise ArenaError(f"{num_agents} agents at {num_seats} seats are seated as 'pairs' "
                             f"(every arrangement that seats each), not {seating!r}")
        return _spread(num_agents, num_seats)
    if seating == "rotations":
        return [tuple((s + r) % num_seats for s in range(num_seats)) for r in range(num_seats)]
    if seating == "permutations":
        return list(itertools.permutations(range(num_seats)))
    raise ArenaError(f"{num_agents} agents at {num_seats} seats are seated by 'rotations' or "
                     f"'permutations', not {seating!r}")


def default_seating(num_agents: int, num_seats: int, every_order: bool = True) -> str:
    """``pairs`` for fewer agents than seats; else every order (``permutations``), or the
    rotations with ``every_order=False``."""
    if num_agents < num_seats:
        return "pairs"
    return "permutations" if every_order else "rotations"


@dataclass(frozen=True)
class DuplicateConfig(TournamentConfig):
    """A duplicate match; ``games_per_group`` is deals x arrangements per deal.

    ``knowledge_bases`` (label, JSON of the base's fingerprint) for every agent that decides
    from a knowledge base (an agent with ``knowledge_base_info()``, e.g. Skat's ``knn``):
    written to the results header, so a file says which base was used, and part of the
    configuration hash, so ``--resume`` with another base is refused.

    ``settings`` (label, JSON of what the spec means now) for every agent that tells it (an
    agent with ``provenance()``, e.g. Skat's ``knn``: every setting, the base's manifest):
    in the header and the hash too, so resuming a ``knn`` match after the default moved
    (the same spec, another bot) is refused instead of mixing two bots in one file. Files
    written before settings were recorded resume as before (:meth:`as_written`)."""

    knowledge_bases: tuple[tuple[str, str], ...] = ()
    settings: tuple[tuple[str, str], ...] = ()

    @classmethod
    def create_match(
        cls,
        game: str,
        agents: Sequence[str],
        deals: int,
        seed: int = 0,
        seating: str | None = None,
        check_agents: bool = True,
    ) -> DuplicateConfig:
        """Validate game, agents, deals and seed; raises a one-line :class:`ArenaError` (or
        the game's or agent spec's error) on bad input. ``seating`` None: every order."""
        g = load_game(game)
        specs = tuple(a.strip() for a in agents)
        mode = seating or default_seating(len(specs), g.num_players)
        orders = arrangements(len(specs), g.num_players, mode)
        if deals < 1:
            raise ArenaError(f"--deals must be at least 1, not {deals}")
        if seed < 0:
            raise ArenaError(f"the seed must be a non-negative integer, not {seed}")
        labels = unique_labels(specs)
        bases: list[tuple[str, str]] = []
        settings: list[tuple[str, str]] = []
        if check_agents:
            for spec, label in zip(specs, labels, strict=True):
                agent = make_agent(spec, g, seed=0)
                info = getattr(agent, "knowledge_base_info", None)
                if info is not None:
                    bases.append((label, json.dumps(info(), sort_keys=True)))
                tell = getattr(agent, "provenance", None)
                if callable(tell):
                    settings.append((label, json.dumps(tell(), sort_keys=True)))
        return cls(g.spec(), specs, deals * len(orders), seed, mode, labels, tuple(bases),
                   tuple(settings))

    @property
    def arrangements(self) -> list[tuple[int, ...]]:
        return arrangements(len(self.agents), self.num_players, self.seating)

    @property
    def deals(self) -> int:
        return self.games_per_group // len(self.arrangements)

    @property
    def kind(self) -> str:
        return game_name(self.game) + KIND_SUFFIX

    def groups(self) -> list[tuple[int, ...]]:
        return [tuple(range(len(self.agents)))]

    def to_dict(self) -> dict[str, Any]:
        d = {
            "kind": self.kind,
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
        if self.settings:  # absent in older files, as above
            d["settings"] = {label: json.loads(told) for label, told in self.settings}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DuplicateConfig:
        """The configuration a results file's header describes (no agent checks)."""
        kind, game = str(d.get("kind")), str(d.get("game"))
        if (d.get("format_version") != MATCH_FORMAT_VERSION or not kind.endswith(KIND_SUFFIX)
                or kind != game_name(game) + KIND_SUFFIX):
            raise ArenaError("not a duplicate match (or another format version)")
        config = cls.create_match(
            game, [str(a) for a in d["agents"]], int(d["deals"]), int(d["seed"]),
            str(d["seating"]), check_agents=False,
        )
        bases = d.get("knowledge_bases") or {}
        told = d.get("settings") or {}
        return replace(config, knowledge_bases=tuple(
            (str(label), json.dumps(info, sort_keys=True)) for label, info in bases.items()),
            settings=tuple((str(label), json.dumps(value, sort_keys=True))
                           for label, value in told.items()))

    def as_written(self, written: dict[str, Any] | None) -> DuplicateConfig:
        """A file written before agents' settings were recorded is resumed by the specs'
        names, as it was written (its header, and so its hash, has no ``settings``)."""
        if written is not None and self.settings and "settings" not in written:
            return replace(self, settings=())
        return self

    SEED_BY_GROUP = False  # one group: game seeds derive_seed(seed, 2, deal, seating)
    RECORDS_DETAILS = True

    def _orders(self) -> list[tuple[int, ...]]:
        return self.arrangements

    def _task_template(self, group: int, seating: int) -> str:
        return f"d%d-s{seating}"

    def _size_text(self, games_per_group: int) -> str:
        return f"{games_per_group // len(self.arrangements):,} deals"


def run_duplicate(
    config: DuplicateConfig,
    executor: Executor | None = None,
    output: str | Path | None = None,
    resume: bool = False,
    fresh: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_result: Callable[[GameResult], None] | None = None,
) -> TournamentResult:
    """Play the match's games not yet in ``output`` (see :func:`run_tournament`)."""
    return run_tournament(config, executor, output, resume=resume, fresh=fresh,
                          on_start=on_start, on_result=on_result)


def read_duplicate(path: Path, game: str | None = None) -> tuple[DuplicateConfig,
                                                                 list[GameResult]]:
    """The configuration and games of a match results file (also while it is being written:
    an unfinished last line is ignored). Refuses files that are not duplicate match results
    (of the game named ``game``, when given)."""
    record = game_plugin(game) if game else None
    what = f"{record.title} " if record is not None else ""
    if not path.is_file():
        raise ResultsFileError(f"{path} is not a file")
    back = read_results(path)
    if back.header is None:
        raise ResultsFileError(f"{path} holds no results yet")
    try:
        config = DuplicateConfig.from_dict(back.header.get("config") or {})
    except (ArenaError, KeyError, TypeError, ValueError):
        raise ResultsFileError(f"{path} is not a {what}duplicate match results file") from None
    if game is not None and game_name(config.game) != game:
        raise ResultsFileError(f"{path} is not a {what}duplicate match results file")
    if config.config_hash() != back.header.get("config_hash"):
        raise ResultsFileError(f"{path}: the header's configuration hash does not match it")
    return config, back.results


def describe_config(config: DuplicateConfig) -> str:
    """One line: the agents, deals, seed and seating scheme."""
    names = ", ".join(f"{LETTERS[i]} = {label}" for i, label in enumerate(config.labels))
    scheme = " ".join("".join(LETTERS[m] for m in order) for order in config.arrangements)
    bases = "".join(
        f"; {label}'s knowledge base: {info.get('deals')} deals, {info.get('dir')}"
        for label, info in ((lb, json.loads(i)) for lb, i in config.knowledge_bases))
    return (f"{names}; {config.deals} deals x {len(config.arrangements)} seatings ({scheme}), "
            f"seed {config.seed}{bases}")


class DuplicateReport(Protocol):
    """A game's own figures of a duplicate match (its plug-in record's ``match_report``),
    computed from the ``details`` its ``final_details`` hook recorded."""

    def figures(self, results: Sequence[GameResult], labels: Sequence[str],
                games_per_deal: int, confidence: float) -> Any:
        """The figures of the complete deals among ``results``."""

    def to_dict(self, figures: Any) -> dict[str, Any]:
        """The figures as JSON-ready data (``--json``)."""

    def renderables(self, figures: Any, described: str) -> list[Any]:
        """Rich tables of the figures; ``described`` is :func:`describe_config`'s line."""


def match_report(game: str) -> DuplicateReport | None:
    """The game's :class:`DuplicateReport` (None: the game has none; the arena's standings)."""
    record = game_plugin(game_name(game))
    if record is None or record.match_report is None:
        return None
    report: DuplicateReport = load_object(record.match_report)
    return report


def report_json(config: DuplicateConfig, report: DuplicateReport, figures: Any) -> str:
    """``--json``: the configuration, its hash and the game's figures."""
    return json.dumps(
        {"config": config.to_dict(), "config_hash": config.config_hash(),
         **report.to_dict(figures)},
        indent=2,
    )
