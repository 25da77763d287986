"""spielwerk: strong game AI for Skat, Durak and Kalah.

The public entry points are :func:`load_game`, :func:`list_games` and
:func:`make_agent`. They, the subpackages and a built-in game's package (its
rules, kernels and agents) are imported on first use, so ``import spielwerk``
itself loads nothing (and ``spielwerk --help`` only the command table).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing costs more than the rest of this module
if TYPE_CHECKING:
    from spielwerk.core.agent import make_agent
    from spielwerk.core.registry import list_games, load_game

__version__ = "0.1.0"

__all__ = ["load_game", "list_games", "make_agent", "__version__"]

_SUBPACKAGES = ("arena", "core", "games", "mc", "search", "interop", "web", "cli")
_ENTRY_POINTS = {
    "load_game": "spielwerk.core.registry",
    "list_games": "spielwerk.core.registry",
    "make_agent": "spielwerk.core.agent",
}


def __getattr__(name: str) -> object:
    """``spielwerk.load_game`` (and the other entry points and subpackages): imported on
    first use (PEP 562), so the package itself stays quick to import."""
    module = _ENTRY_POINTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups find the module global directly
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f"spielwerk.{name}")
    raise AttributeError(f"module 'spielwerk' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_ENTRY_POINTS, *_SUBPACKAGES])
