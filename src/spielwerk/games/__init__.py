"""The built-in games, one package each, each declaring itself in its ``plugin.py``.

A game's record (:class:`spielwerk.plugins.GamePlugin`) names the modules whose
import registers the game and its agents; the registry imports them on first use
(``load_game("kalah")``), so ``import spielwerk`` and reading the records load
neither numba nor any kernel. The records are found through the entry point group
``spielwerk.games`` and, without installed metadata, in ``games/*/plugin.py``.
"""

from spielwerk._jit import prepare as _prepare

_prepare()  # before any kernel module is imported: the cache folder and its recovery
