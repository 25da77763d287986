"""Limits found by asking the code: the largest parameter a game and an agent accept.

A lobby offers exactly what the engines play when it probes the game's and the agent's
own checks instead of writing their limits down a second time.
"""

from __future__ import annotations

from collections.abc import Callable

from spielwerk.core.agent import make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.registry import load_game

LIMIT_PROBE_MAX = 1 << 20
"""Probing a parameter's limit stops here (a parameter allowed beyond it is unbounded)."""


def plays(game_name: str, agent: str, **params: int) -> bool:
    """Whether ``game_name(**params)`` loads and ``agent`` accepts it: the game's and the
    agent's own checks decide."""
    try:
        make_agent(agent, load_game(game_name, **{k: str(v) for k, v in params.items()}),
                   seed=0)
    except SpielwerkError:
        return False
    return True


def largest(ok: Callable[[int], bool], lo: int) -> int:
    """The largest ``n >= lo`` with ``ok(n)`` (``lo - 1`` if none) for an ``ok`` that holds
    up to some limit and fails beyond it: doubling, then bisection."""
    if not ok(lo):
        return lo - 1
    good, bad = lo, 2 * lo
    while ok(bad):
        good, bad = bad, 2 * bad
        if bad > LIMIT_PROBE_MAX:
            return good
    while bad - good > 1:
        mid = (good + bad) // 2
        good, bad = (mid, bad) if ok(mid) else (good, mid)
    return good
