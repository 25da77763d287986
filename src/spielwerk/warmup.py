"""Compile (or load) the numba kernels ahead of a user's first command.

numba compiles a kernel on its first call; with ``cache=True`` the result is
kept in the user's cache folder (:mod:`spielwerk._jit`) and later processes
load it in milliseconds. :func:`warm_up` makes those first calls on tiny
inputs, with the same argument types the commands use, so that a game's
command or an arena run starts without a compile wait: each game's plug-in
record names its warm-up (:mod:`spielwerk.plugins`), and the arena's schedule
seeds are warmed here. ``spielwerk warmup`` runs it; ``make install`` / ``make
run`` call that.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from spielwerk.core.errors import SpielwerkError
from spielwerk.plugins import game_plugins, load_object


def steps() -> dict[str, Callable[[], None]]:
    """Each game's warm-up, by game name, in the records' order (its module loads when the
    step runs)."""
    return {r.name: _loader(r.warm_up) for r in game_plugins() if r.warm_up is not None}


def _loader(reference: str) -> Callable[[], None]:
    def step() -> None:
        load_object(reference)()

    return step


def _arena() -> None:
    from spielwerk.arena.seeds import derive_seeds

    derive_seeds([(0, 1, 2)])  # a tournament schedule's seeds (arena/_seedhash.py)


STAMP = "warmed"
"""The file in the kernel folder that says every game's kernels were compiled there."""


def kernels_warm() -> bool:
    """Whether a whole :func:`warm_up` finished for these sources (the kernels are in the
    cache: a process loads them, it does not compile them)."""
    from spielwerk._jit import kernel_folder, source_digest

    try:
        return (kernel_folder() / STAMP).read_text().strip() == source_digest()
    except OSError:
        return False


def warm_up(progress: Callable[[str], None] | None = None,
            games: Iterable[str] | None = None) -> float:
    """Run every game's step once (only ``games``' when given) and the arena's; returns the
    seconds taken. ``progress`` gets one line per game. A run of every game leaves the
    stamp :func:`kernels_warm` reads (:func:`stamp`)."""
    start = time.perf_counter()
    table = steps()
    chosen = list(table) if games is None else list(dict.fromkeys(games))
    unknown = [g for g in chosen if g not in table]
    if unknown:
        raise SpielwerkError(f"warmup: no warm-up for {', '.join(unknown)} "
                             f"(games: {', '.join(table)})")
    for name in chosen:
        t0 = time.perf_counter()
        table[name]()
        if progress is not None:
            progress(f"{name}: kernels ready in {time.perf_counter() - t0:.1f} s")
    _arena()
    if games is None:
        stamp()
    return time.perf_counter() - start


def stamp() -> None:
    """Say that every game's kernels are in the kernel folder (:func:`kernels_warm`)."""
    from spielwerk._jit import kernel_folder, source_digest

    try:
        folder = kernel_folder()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / STAMP).write_text(source_digest() + "\n")  # for these very sources
    except OSError:  # a read-only cache folder: the kernels still work, only unstamped
        pass
