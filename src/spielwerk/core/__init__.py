"""Core game API: protocols, registry, agents and the conformance harness."""

from spielwerk.core.agent import Agent, AgentSpecError, list_agents, make_agent, register_agent
from spielwerk.core.errors import (
    GameParameterError,
    IllegalActionError,
    NotChanceNodeError,
    SpielwerkError,
    UnknownGameError,
)
from spielwerk.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameType,
    InfoState,
    PerfectInfoState,
    Playouts,
    State,
    sample_chance,
)
from spielwerk.core.play import Played, play
from spielwerk.core.registry import list_games, load_game, register_game

__all__ = [
    "Agent",
    "AgentSpecError",
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameParameterError",
    "GameType",
    "IllegalActionError",
    "InfoState",
    "NotChanceNodeError",
    "PerfectInfoState",
    "Played",
    "Playouts",
    "SpielwerkError",
    "State",
    "UnknownGameError",
    "list_agents",
    "list_games",
    "load_game",
    "make_agent",
    "play",
    "register_agent",
    "register_game",
    "sample_chance",
]
