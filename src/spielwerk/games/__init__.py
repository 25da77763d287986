"""Built-in games. Each game's package registers the game and its agents when imported.

The registry imports a game's package on first use (``load_game("skat")``),
so ``import spielwerk`` loads neither numba nor any kernel;
:func:`load_builtin_games` imports all of them at once.
"""

from spielwerk._jit import prepare as _prepare

_prepare()  # before any kernel module is imported: the cache folder and its recovery

BUILTIN_GAMES = ("durak", "kalah", "skat")


def load_builtin_games() -> None:
    """Import every built-in game (registering the games and all their agents)."""
    import importlib

    for name in BUILTIN_GAMES:
        importlib.import_module(f"spielwerk.games.{name}")
