"""Built-in games. Each game's packages register the game and its agents when imported.

The registry imports a game's package on first use (``load_game("skat")``),
so ``import spielwerk`` loads neither numba nor any kernel;
:func:`load_builtin_games` imports all of them at once.
"""

from spielwerk._jit import prepare as _prepare

_prepare()  # before any kernel module is imported: the cache folder and its recovery

BUILTIN_GAMES = ("durak", "kalah", "skat")
GAME_PACKAGES = {"durak": ("durak",), "kalah": ("kalah",), "skat": ("skat", "skat_ai")}
"""The packages of each built-in game under ``spielwerk.games``: its rules (which register
the game) and, where the AI lives apart from the rules, the AI (which registers the agents)."""


def load_game_packages(name: str) -> None:
    """Import the packages of the built-in game ``name`` (the plugin discovery)."""
    import importlib

    for package in GAME_PACKAGES[name]:
        importlib.import_module(f"spielwerk.games.{package}")


def load_builtin_games() -> None:
    """Import every built-in game (registering the games and all their agents)."""
    for name in BUILTIN_GAMES:
        load_game_packages(name)
