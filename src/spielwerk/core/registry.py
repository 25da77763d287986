"""Game registry: ``register_game``, ``list_games`` and ``load_game("kalah(pits=6)")``.

A game registers when its plug-in's packages are imported (:mod:`spielwerk.plugins`), on
first use of its name.

Parameters are typed by their defaults (bool, int, float, str); an optional
validator rejects bad combinations with a :class:`GameParameterError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spielwerk.core.errors import GameParameterError, UnknownGameError
from spielwerk.core.game import Game


@dataclass(frozen=True)
class GameEntry:
    name: str
    factory: Callable[[dict[str, Any]], Game]
    defaults: dict[str, Any]
    description: str
    parameter_help: dict[str, str] = field(default_factory=dict)


_GAMES: dict[str, GameEntry] = {}
_ALL_LOADED = False


def load_builtin_games() -> None:
    """Import every game plug-in's packages (:mod:`spielwerk.plugins`), registering the
    games and all their agents (once); cheap after the first call."""
    global _ALL_LOADED
    if not _ALL_LOADED:
        from spielwerk.plugins import game_plugins

        for record in game_plugins():
            record.load_packages()
        _ALL_LOADED = True


_PACKAGES_LOADED: set[str] = set()


def load_game_packages(name: str) -> bool:
    """Import the packages of the game ``name`` alone (its plug-in record's), registering
    it and its agents; False when no plug-in declares ``name``. Cheap after the first call
    (``make_agent`` asks before it takes a generic agent)."""
    if name in _PACKAGES_LOADED:
        return True
    from spielwerk.plugins import game_plugin

    record = game_plugin(name)
    if record is None:
        return False
    record.load_packages()
    _PACKAGES_LOADED.add(name)
    return True


_SPEC_RE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)


def register_game(
    name: str,
    factory: Callable[[dict[str, Any]], Game],
    defaults: dict[str, Any],
    description: str,
    parameter_help: dict[str, str] | None = None,
) -> None:
    """Register ``factory(params) -> Game`` under ``name`` with typed ``defaults``."""
    if name in _GAMES and _GAMES[name].factory is not factory:
        raise ValueError(f"game {name!r} is already registered")
    _GAMES[name] = GameEntry(name, factory, dict(defaults), description, parameter_help or {})


def _load_builtin(name: str) -> None:
    """Import the game ``name``'s packages alone (every game's for an unknown name)."""
    if not load_game_packages(name):
        load_builtin_games()


def list_games() -> list[GameEntry]:
    """Registered games, sorted by name."""
    load_builtin_games()
    return [_GAMES[k] for k in sorted(_GAMES)]


def _convert(game: str, key: str, text: str, default: Any) -> Any:
    text = text.strip()
    if isinstance(default, bool):
        low = text.lower()
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
        raise GameParameterError(f"{game}: parameter {key!r} must be true or false, not {text!r}")
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise GameParameterError(
                f"{game}: parameter {key!r} must be an integer, not {text!r}"
            ) from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise GameParameterError(
                f"{game}: parameter {key!r} must be a number, not {text!r}"
            ) from None
    return text


def parse_game_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name(a=1,b=x)"`` into the name and raw string parameters."""
    match = _SPEC_RE.match(spec)
    if not match:
        raise GameParameterError(f"cannot read game spec {spec!r}; expected e.g. 'kalah(pits=6)'")
    name, body = match.group(1), match.group(2)
    raw: dict[str, str] = {}
    if body and body.strip():
        for item in body.split(","):
            if "=" not in item:
                raise GameParameterError(f"{name}: parameter {item.strip()!r} needs a value (k=v)")
            key, value = item.split("=", 1)
            key = key.strip()
            if key in raw:
                raise GameParameterError(f"{name}: parameter {key!r} given twice")
            raw[key] = value
    return name, raw


def load_game(spec: str, **overrides: Any) -> Game:
    """Create a game from ``"name(k=v,...)"``; keyword overrides win over the string."""
    name, raw = parse_game_spec(spec)
    if name not in _GAMES:
        _load_builtin(name)  # a game's package is imported on first use
    if name not in _GAMES:
        known = ", ".join(sorted(_GAMES)) or "none"
        raise UnknownGameError(f"unknown game {name!r}; known games: {known}")
    entry = _GAMES[name]
    params = dict(entry.defaults)
    for key, text in raw.items():
        if key not in entry.defaults:
            known = ", ".join(sorted(entry.defaults)) or "none"
            raise GameParameterError(f"{name}: unknown parameter {key!r}; parameters: {known}")
        params[key] = _convert(name, key, text, entry.defaults[key])
    for key, value in overrides.items():
        if key not in entry.defaults:
            known = ", ".join(sorted(entry.defaults)) or "none"
            raise GameParameterError(f"{name}: unknown parameter {key!r}; parameters: {known}")
        params[key] = _convert(name, key, str(value), entry.defaults[key])
    return entry.factory(params)
