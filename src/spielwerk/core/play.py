"""The one play loop: every front end, the arena and the test harness play through it.

:func:`play` takes a state and, for each seat, either an :class:`Agent` (it is
asked with ``state.info_state(seat)`` only, never the full state) or a
*chooser*: a callable ``choose(state, seat) -> action | None`` for a person at
a terminal or a playout policy (``None`` stops the game, e.g. the person
quit). Chance nodes are sampled with :func:`sample_chance` from one generator.
Every agent at the table is informed of every applied action, chance included.

Front ends add their printing through two optional hooks,
``before(state, player, action)`` (the action is chosen, not yet applied) and
``after(state, player, action)`` (applied); ``player`` is the seat or
:data:`CHANCE`.

>>> import numpy as np
>>> from spielwerk.core.agent import make_agent
>>> from spielwerk.core.registry import load_game
>>> game = load_game("kalah(pits=3,seeds=2)")
>>> agents = [make_agent("random", game, seed=s) for s in range(2)]
>>> played = play(game.new_initial_state(), agents, np.random.default_rng(0))
>>> played.state.is_terminal(), played.stopped, played.moves == len(played.state.history)
(True, False, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from sys import getrefcount
from typing import NamedTuple

from spielwerk.core.agent import Agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import (
    TERMINAL,
    InfoState,
    PerfectInfoState,
    State,
    UniformSource,
    sample_chance,
)

Chooser = Callable[[State, int], int | None]
"""``choose(state, seat)``: the action for ``seat`` to move in ``state``, or None to stop."""

Hook = Callable[[State, int, int], None]
"""``hook(state, player, action)``; ``player`` is a seat or :data:`CHANCE`."""

Seats = Sequence[Agent | Chooser] | Mapping[int, Agent | Chooser]


class Played(NamedTuple):
    """What :func:`play` returns.

    ``state`` is the final state (terminal unless ``stopped``); ``moves``
    counts the players' actions (chance outcomes excluded).
    """

    state: State
    moves: int
    stopped: bool


class PlayError(SpielwerkError, ValueError):
    """A play loop that cannot start: a seat with nobody to move for it."""


def _uses_inform(agent: Agent) -> bool:
    return type(agent).inform is not Agent.inform


def play(
    state: State,
    seats: Seats,
    chance_rng: UniformSource,
    *,
    before: Hook | None = None,
    after: Hook | None = None,
    max_actions: int | None = None,
) -> Played:
    """Play ``state`` on (mutating it) until the game ends, a chooser stops or ``max_actions``.

    ``seats[s]`` moves for seat ``s`` (a sequence by seat or a mapping). An
    agent's illegal action raises the state's
    :class:`~spielwerk.core.errors.IllegalActionError` with the state unchanged
    (the arena names the agent). ``max_actions`` caps ``len(state.history)``.
    """
    table = dict(enumerate(seats)) if not isinstance(seats, Mapping) else dict(seats)
    agents: dict[int, Callable[[InfoState], int]] = {}
    choosers: dict[int, Chooser] = {}
    for seat, who in table.items():
        if isinstance(who, Agent):
            agents[seat] = _act_of(who)
        else:
            choosers[seat] = who
    listeners = [a.inform for a in table.values() if isinstance(a, Agent) and _uses_inform(a)]
    views: dict[int, InfoState] = {}
    limit = max_actions if max_actions is not None else -1
    history = state.history
    moves = 0
    while True:
        player = state.current_player
        if player >= 0:
            if limit >= 0 and len(history) >= limit:
                return Played(state, moves, False)
            act = agents.get(player)
            if act is not None:
                info = views.pop(player, None)
                if info is None:
                    info = state.info_view(player)
                action = act(info)
                if type(info) is PerfectInfoState and info._own is None:
                    # a borrowed view is used again next turn, unless the agent kept it:
                    # then it gets its own copy of the state before the state moves on
                    if getrefcount(info) > 2:
                        info.detach()
                    else:
                        views[player] = info
                del info
            elif player in choosers:
                chosen = choosers[player](state, player)
                if chosen is None:
                    return Played(state, moves, True)
                action = chosen
            else:
                raise PlayError(f"nobody plays seat {player} of {state.game.spec()}")
            moves += 1
        elif player == TERMINAL or (limit >= 0 and len(history) >= limit):
            return Played(state, moves, False)
        else:
            action = sample_chance(state, chance_rng)
        if before is not None:
            before(state, player, action)
        state.apply(action)
        if after is not None:
            after(state, player, action)
        for inform in listeners:
            inform(action)


def _act_of(agent: Agent) -> Callable[[InfoState], int]:
    """``agent.act`` without the check that the game is not over (the loop knows it is not)."""
    method = type(agent).act
    inner = getattr(method, "__wrapped__", None) if getattr(method, "_checks_terminal", False) \
        else None
    if inner is None:
        return agent.act
    bound: Callable[[InfoState], int] = inner.__get__(agent, type(agent))
    return bound
