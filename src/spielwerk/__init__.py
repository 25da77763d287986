"""spielwerk: strong game AI for Skat, Durak and Kalah.

The public entry points are :func:`load_game`, :func:`list_games` and
:func:`make_agent`. A built-in game's package (its rules, kernels and agents)
is imported on first use, so this import stays quick and loads no numba.
"""

from spielwerk.core.agent import make_agent
from spielwerk.core.registry import list_games, load_game

__version__ = "0.1.0"

__all__ = ["load_game", "list_games", "make_agent", "__version__"]

_SUBPACKAGES = ("arena", "core", "games", "mc", "search", "interop", "web", "cli")


def __getattr__(name: str) -> object:
    """``spielwerk.arena`` (and the other subpackages) after a plain ``import spielwerk``:
    imported on first use, so the package itself stays quick to import."""
    if name in _SUBPACKAGES:
        import importlib

        return importlib.import_module(f"spielwerk.{name}")
    raise AttributeError(f"module 'spielwerk' has no attribute {name!r}")
