"""spielwerk: strong game AI for Skat, Durak and Kalah.

The public entry points are :func:`load_game`, :func:`list_games` and
:func:`make_agent`; games register themselves when ``spielwerk.games`` is
imported (which this module does).
"""

from spielwerk._numba_cache import install as _install_cache_recovery

_install_cache_recovery()  # before any kernel is compiled or loaded

from spielwerk.core.agent import make_agent  # noqa: E402
from spielwerk.core.registry import list_games, load_game  # noqa: E402

__version__ = "0.1.0"

__all__ = ["load_game", "list_games", "make_agent", "__version__"]

import spielwerk.games  # noqa: E402,F401  (registers the built-in games and agents)

_SUBPACKAGES = ("arena", "core", "games", "mc", "search", "interop", "web", "cli")


def __getattr__(name: str) -> object:
    """``spielwerk.arena`` (and the other subpackages) after a plain ``import spielwerk``:
    imported on first use, so the package itself stays quick to import."""
    if name in _SUBPACKAGES:
        import importlib

        return importlib.import_module(f"spielwerk.{name}")
    raise AttributeError(f"module 'spielwerk' has no attribute {name!r}")
