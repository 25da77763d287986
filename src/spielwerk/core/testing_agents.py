"""The agent half of the conformance harness: ``check_agent``.

The rule every agent keeps (docs/ARCHITECTURE: "an agent acts correctly from the
InfoState alone"): at any point of any game, an agent built fresh - one that saw
none of the earlier decisions, as the web table builds one per move, after a
restarted server or when a seat is taken over mid-game - chooses a legal action,
and where the agent decides deterministically
(:meth:`~spielwerk.core.agent.Agent.decides_deterministically`) it chooses what
the long-lived agent that played the whole game chose. The claim of determinism is
itself checked: a fresh agent with another seed must choose the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spielwerk.core.agent import make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import Game, State
from spielwerk.core.play import play


class AgentConformanceError(SpielwerkError, AssertionError):
    """An agent broke the info-state rule; the message names the game, seed and history."""


@dataclass
class AgentCheckReport:
    """What :func:`check_agent` checked."""

    spec: str
    games: int = 0
    checked: int = 0  # decisions a fresh agent was asked about
    deterministic: int = 0  # of those, decisions compared with the long-lived agent's


def check_agent(
    game: Game,
    spec: str,
    n_games: int = 2,
    seed: int = 0,
    check_share: float = 1.0,
    max_actions: int = 10_000,
) -> AgentCheckReport:
    """Play ``n_games`` games with ``spec`` in every seat and, at a ``check_share`` of the
    decisions (drawn from their own generator), ask fresh agents built from ``spec``.

    Raises :class:`AgentConformanceError` when a fresh agent raises, chooses an illegal
    action, or, at a decision its agent calls deterministic, chooses otherwise than the
    long-lived agent (or than a fresh agent with another seed).
    """
    if n_games < 1:
        raise ValueError("n_games must be at least 1")
    if not 0.0 < check_share <= 1.0:
        raise ValueError("check_share must be in (0, 1]")
    report = AgentCheckReport(spec)
    for g in range(n_games):
        _check_one_game(game, spec, seed + g, check_share, max_actions, report)
        report.games += 1
    return report


def _check_one_game(game: Game, spec: str, game_seed: int, check_share: float,
                    max_actions: int, report: AgentCheckReport) -> None:
    agents = [make_agent(spec, game, seed=game_seed * 100 + s) for s in range(game.num_players)]
    pick = np.random.default_rng([game_seed, 1])

    def before(state: State, player: int, action: int) -> None:
        if player < 0 or pick.random() >= check_share:
            return
        deterministic = agents[player].decides_deterministically(state.info_state(player))
        _check_decision(game, spec, state, player, action, deterministic, report, game_seed)

    play(game.new_initial_state(), agents, np.random.default_rng(game_seed), before=before,
         max_actions=max_actions)


def _check_decision(game: Game, spec: str, state: State, player: int, action: int,
                    deterministic: bool, report: AgentCheckReport, game_seed: int) -> None:
    info = state.info_state(player)
    legal = info.legal_actions()
    where = (f"agent {spec!r} in {game.spec()}, game seed {game_seed}, seat {player}, "
             f"history {state.history}")
    choices = []
    for fresh_seed in (game_seed * 100 + player, 7_919 + game_seed):
        try:
            chosen = make_agent(spec, game, seed=fresh_seed).act(state.info_state(player))
        except Exception as exc:  # noqa: BLE001 - a fresh agent that raises is the finding
            raise AgentConformanceError(
                f"{where}: a fresh agent raised {type(exc).__name__}: {exc}") from exc
        if chosen not in legal:
            raise AgentConformanceError(
                f"{where}: a fresh agent chose {chosen}, not among the legal {legal}")
        choices.append(chosen)
        if not deterministic:
            break
    report.checked += 1
    if deterministic:
        report.deterministic += 1
        if any(c != action for c in choices):
            raise AgentConformanceError(
                f"{where}: a deterministic decision differs: the agent that played the game "
                f"chose {info.action_to_string(action)}, fresh agents chose "
                f"{[info.action_to_string(c) for c in choices]}")


__all__ = ["AgentCheckReport", "AgentConformanceError", "check_agent"]
