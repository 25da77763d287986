"""Kalah(m,n): rules, agents (the solver-backed ``perfect`` agent lives in ``perfect``).

Importing the package loads nothing (its plug-in record, ``plugin.py``, is read without the
rules); the registry imports the modules the record names on first use of the game.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from spielwerk.games.kalah.rules import KalahGame, KalahState

__all__ = ["KalahGame", "KalahState"]


def __getattr__(name: str) -> object:
    """``KalahGame`` and ``KalahState``, from the rules on first use (PEP 562)."""
    if name in __all__:
        from spielwerk.games.kalah import rules

        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
