"""A game is one plug-in: its record (:class:`GamePlugin`) and how records are found.

Each game's package declares one record in a module that imports nothing heavy
(``games/<game>/plugin.py`` for the built-in games): its packages (rules, then
AI), its command group, terminal front end, seat names, default opponents,
warm-up and bench workload, named by import path so reading a record loads no
rules and no kernels. Everything central (the registry, the worker preload,
``spielwerk bench``, ``spielwerk warmup``, the command line, ``spielwerk play``)
loops over :func:`game_plugins` and names no game.

Records are found through the entry point group ``spielwerk.games`` (so a game
can live in another distribution: ``[project.entry-points."spielwerk.games"]``,
``NAME = "package.plugin:PLUGIN"``), and, for a checkout whose installed metadata
is stale or missing, in every ``plugin.py`` beside the built-in games
(``spielwerk/games/*/plugin.py``).

This module sits above nothing: it imports only the standard library, so
``spielwerk --help`` can read the records without typer, numpy or numba.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

ENTRY_POINT_GROUP = "spielwerk.games"
"""The entry point group a game's distribution declares its record in."""

BenchPositions = Iterable[tuple[str, int, float]]
"""(label, nodes, seconds) of each bench position, each solved with a fresh table."""


@dataclass(frozen=True)
class BenchWorkload:
    """A game's part of ``spielwerk bench``: fixed positions for its exact solver."""

    positions: Callable[[], BenchPositions]
    """Solve every position once: ``(label, nodes, seconds)`` per position."""
    warm_up: Callable[[], None]
    """Load (or compile) the solver's kernels on a tiny search, outside the timing."""


@dataclass(frozen=True)
class GamePlugin:
    """Everything the rest of spielwerk needs to know about one game.

    Every code reference is an import path (``"package.module"`` or
    ``"package.module:name"``), loaded only when it is used.
    """

    name: str
    """The registered game name (``load_game(name)``) and the entry point's name."""
    title: str
    """The game's name for people (help texts, the web table)."""
    packages: tuple[str, ...]
    """Modules whose import registers the game and its agents, rules first."""
    summary: str = ""
    """The one line ``spielwerk --help`` shows for the game's command group."""
    cli: str | None = None
    """A module with ``register(app)`` adding the command group ``spielwerk NAME``."""
    front_end: str | None = None
    """``"module:function"``: ``front_end(game, vs=, seat=, seed=)`` replacing the generic
    terminal loop of ``spielwerk play NAME``."""
    seat_names: tuple[str, ...] = ()
    """How the terminal names each seat (``"South: the bottom row, ..."``); empty: numbers."""
    default_opponents: tuple[str, ...] = ()
    """Preferred default opponents (the strongest measured first): the first registered one
    plays at the web table and in ``spielwerk play`` without ``--vs``."""
    warm_up: str | None = None
    """``"module:function"`` making the first calls of the game's kernels
    (``spielwerk warmup``)."""
    bench: str | None = None
    """``"module:name"`` of the game's :class:`BenchWorkload` (``spielwerk bench``)."""
    bench_signature: int | None = None
    """The bench's recorded total node count; a change must be made on purpose."""
    final_details: str | None = None
    """``"module:function"``: ``function(state) -> dict``, the JSON-ready outcome of a
    finished game that a duplicate match keeps with each game (Skat: the contract, card
    points, Seeger-Fabian points), read from the final state."""
    match_report: str | None = None
    """``"module:name"`` of the game's own figures of a duplicate match (a
    :class:`spielwerk.arena.duplicate.DuplicateReport`), printed instead of the standings."""
    preload: tuple[str, ...] | None = None
    """Modules a process-pool worker imports ahead (None: :attr:`packages`)."""
    rank: int = 100
    """Place in listings (help, bench, warm-up): lowest first, then by name."""

    @property
    def preload_modules(self) -> tuple[str, ...]:
        return self.packages if self.preload is None else self.preload

    def load_packages(self) -> None:
        """Import the game's packages: the game and its agents register."""
        for module in self.packages:
            importlib.import_module(module)


class PluginError(Exception):
    """A game plug-in that cannot be read (a bad record or entry point)."""


def load_object(reference: str) -> Any:
    """The object ``"package.module:name"`` names (a module for ``"package.module"``)."""
    module, _, name = reference.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, name) if name else loaded


def _checked(record: object, where: str) -> GamePlugin:
    if not isinstance(record, GamePlugin):
        raise PluginError(f"{where} is not a spielwerk.plugins.GamePlugin "
                          f"but {type(record).__name__}")
    return record


def _from_entry_points() -> list[GamePlugin]:
    """The records of the entry point group; an entry point of spielwerk itself that no
    longer loads is stale metadata of a checkout (skipped: the built-in scan finds it)."""
    from importlib.metadata import entry_points

    found = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            record = point.load()
        except (ImportError, AttributeError) as exc:
            if point.value.startswith(f"{__package__}."):
                continue
            raise PluginError(f"game plug-in {point.name!r} ({point.value}) does not load: "
                              f"{exc}") from exc
        record = _checked(record, f"entry point {point.name!r} ({point.value})")
        if record.name != point.name:
            raise PluginError(f"entry point {point.name!r} ({point.value}) declares the "
                              f"game {record.name!r}: the names must agree")
        found.append(record)
    return found


def builtin_plugins() -> list[GamePlugin]:
    """The records beside the built-in games (``games/*/plugin.py``), found on disk."""
    folder = os.path.join(os.path.dirname(__file__), "games")
    found = []
    for entry in sorted(os.listdir(folder)):
        if os.path.isfile(os.path.join(folder, entry, "plugin.py")):
            module = f"{__package__}.games.{entry}.plugin"
            found.append(_checked(load_object(f"{module}:PLUGIN"), module))
    return found


@functools.cache
def game_plugins() -> tuple[GamePlugin, ...]:
    """Every game's record, by :attr:`GamePlugin.rank` then name; read once per process."""
    records: dict[str, GamePlugin] = {}
    for record in [*_from_entry_points(), *builtin_plugins()]:
        records.setdefault(record.name, record)
    return tuple(sorted(records.values(), key=lambda r: (r.rank, r.name)))


def game_plugin(name: str) -> GamePlugin | None:
    """The record of the game ``name`` (None: no plug-in declares it)."""
    for record in game_plugins():
        if record.name == name:
            return record
    return None
