"""The one play loop: every front end, the arena and the test harness play through it.

:func:`play` takes a state and, for each seat, either an :class:`Agent` (it is
asked with ``state.info_state(seat)`` only, never the full state) or a
*chooser*: a callable ``choose(state, seat) -> action | None`` for a person at
a terminal or a playout policy (``None`` stops the game, e.g. the person
quit). An agent whose choice needs only the legal actions (the random agent,
:meth:`Agent.legal_policy`) is handed just ``state.legal_actions()``, which
is public to the player to move, without an info state. Chance nodes are
sampled with :func:`sample_chance` from one generator.
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


class Seating:
    """The seats of :func:`play`, prepared once: who moves for each seat and how it is asked.

    Built by :func:`play` from its ``seats`` argument; a caller that plays many
    games with the same agent objects (the arena, which resets them between
    games) builds it once, with the game's ``num_players``, and passes it instead.
    ``legal_only``: every seat of the game is a policy on the legal actions and
    nobody listens, so :func:`play` may take its tight loop.
    """

    __slots__ = ("size", "picks", "acts", "choosers", "listeners", "legal_only")

    def __init__(self, seats: Seats, num_players: int = 0) -> None:
        table = dict(enumerate(seats)) if not isinstance(seats, Mapping) else dict(seats)
        self.size = size = max([num_players, *(seat + 1 for seat in table)])
        # by seat: the agent's policy on the legal actions, its act, or the chooser
        self.picks: list[Callable[[list[int]], int] | None] = [None] * size
        self.acts: list[Callable[[InfoState], int] | None] = [None] * size
        self.choosers: list[Chooser | None] = [None] * size
        self.listeners: list[Callable[[int], None]] = []
        for seat, who in table.items():
            if isinstance(who, Agent):
                self.picks[seat] = who.legal_policy()
                self.acts[seat] = _act_of(who)
                if _uses_inform(who):
                    self.listeners.append(who.inform)
            else:
                self.choosers[seat] = who
        # every seat of the game a policy on the legal actions, nobody listening
        self.legal_only = (
            not self.listeners and all(p is not None for p in self.picks[:num_players])
            and num_players > 0
        )


def play(
    state: State,
    seats: Seats | Seating,
    chance_rng: UniformSource,
    *,
    before: Hook | None = None,
    after: Hook | None = None,
    max_actions: int | None = None,
) -> Played:
    """Play ``state`` on (mutating it) until the game ends, a chooser stops or ``max_actions``.

    ``seats[s]`` moves for seat ``s`` (a sequence by seat, a mapping or a
    :class:`Seating`). An agent's illegal action raises the state's
    :class:`~spielwerk.core.errors.IllegalActionError` with the state unchanged
    (the arena names the agent). ``max_actions`` caps ``len(state.history)``.
    """
    seating = seats if isinstance(seats, Seating) else Seating(seats, state.game.num_players)
    size, picks, acts, choosers = seating.size, seating.picks, seating.acts, seating.choosers
    listeners = seating.listeners
    limit = max_actions if max_actions is not None else -1
    plain = before is None and after is None and not listeners
    history = state.history
    start = len(history)
    if plain and limit < 0 and seating.legal_only:
        chances = _play_legal_only(state, picks, chance_rng)
        return Played(state, len(state.history) - start - chances, False)
    views: list[InfoState | None] = [None] * size
    chances = 0  # the players' moves are counted once at the end: actions minus chances
    while True:
        player = state.current_player
        if player >= 0:
            if limit >= 0 and len(history) >= limit:
                break
            pick = picks[player]
            act = acts[player]
            if pick is not None:
                action = pick(state.legal_actions())
            elif act is not None:
                info = views[player]
                if info is None:
                    info = state.info_view(player)
                    action = act(info)
                    if type(info) is PerfectInfoState and info._own is None:
                        # a borrowed view is used again next turn, unless the agent kept
                        # it: then it gets its own copy before the state moves on
                        if getrefcount(info) > 2:
                            info.detach()
                        else:
                            views[player] = info
                else:
                    action = act(info)
                    if info._own is not None or getrefcount(info) > 3:  # type: ignore[attr-defined]
                        info.detach()  # type: ignore[attr-defined]
                        views[player] = None
            else:
                choose = choosers[player]
                if choose is None:
                    raise PlayError(f"nobody plays seat {player} of {state.game.spec()}")
                chosen = choose(state, player)
                if chosen is None:
                    return Played(state, len(state.history) - start - chances, True)
                action = chosen
        elif player == TERMINAL or (limit >= 0 and len(history) >= limit):
            break
        else:
            action = sample_chance(state, chance_rng)
            chances += 1
        if plain:
            state.apply(action)
            continue
        if before is not None:
            before(state, player, action)
        state.apply(action)
        if after is not None:
            after(state, player, action)
        for inform in listeners:
            inform(action)
    return Played(state, len(state.history) - start - chances, False)


def play_out(state: State, seating: Seating, chance_rng: UniformSource) -> int:
    """``play(state, seating, chance_rng).moves`` for a :class:`Seating` whose
    ``legal_only`` is true (no hooks, no limit): the same moves, without the set-up
    of :func:`play`, for callers that play many short games (the arena's batches)."""
    if not seating.legal_only:
        raise PlayError("play_out needs a Seating of policies on the legal actions")
    start = len(state.history)
    chances = _play_legal_only(state, seating.picks, chance_rng)
    return len(state.history) - start - chances


def _play_legal_only(
    state: State, picks: list[Callable[[list[int]], int] | None], chance_rng: UniformSource
) -> int:
    """:func:`play`'s loop when every seat is a policy on the legal actions and there are
    no hooks, listeners or limit (random agents in the arena): the same moves, without
    the checks that cannot apply. Returns the number of chance actions."""
    legal_actions, apply = state.legal_actions, state.apply
    chances = 0
    while True:
        player = state.current_player
        if player >= 0:
            apply(picks[player](legal_actions()))  # type: ignore[misc]
        elif player == TERMINAL:
            return chances
        else:
            apply(sample_chance(state, chance_rng))
            chances += 1


def _act_of(agent: Agent) -> Callable[[InfoState], int]:
    """``agent.act`` without the check that the game is not over (the loop knows it is not)."""
    method = type(agent).act
    inner = getattr(method, "__wrapped__", None) if getattr(method, "_checks_terminal", False) \
        else None
    if inner is None:
        return agent.act
    bound: Callable[[InfoState], int] = inner.__get__(agent, type(agent))
    return bound
