"""PettingZoo AEC environments for every spielwerk game (extra ``[pettingzoo]``).

::

    from spielwerk.interop.pettingzoo import env

    e = env("durak(players=4)", render_mode="ansi")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        done = terminated or truncated
        e.step(None if done else e.action_space(agent).sample(obs["action_mask"]))

Agents are ``player_0 .. player_{n-1}`` (our seats). Each observation is a
dict: ``"observation"``, the player's information-state tensor
(:mod:`spielwerk.interop.encoding`, built from that player's ``InfoState``
only, so it never holds a hidden card), and ``"action_mask"``, 1 for the legal
actions of the player to move (all zeros for the others). Chance events (the
deal) are sampled inside the environment with the generator seeded by
``reset(seed=...)``, so the same seed gives the same deal. Rewards come at the
end: each player's return (Kalah: the store margin; Durak: +1/-1, 0 for a
draw; Skat: the game value of the score sheet). Kalah's extra turns mean the
same agent may move several times in a row. ``render_mode="ansi"`` returns
the text of the position as the player to move sees it, and the whole
position once the game is over. An illegal action raises our
``IllegalActionError`` (a ``ValueError``) and leaves the game unchanged;
unknown games and parameters raise our registry's errors unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import CHANCE, Game, State, sample_chance
from spielwerk.core.registry import load_game
from spielwerk.interop import encoding

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import AgentSelector, wrappers  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise SpielwerkError(
        "PettingZoo is not installed; install the extra: pip install 'spielwerk[pettingzoo]'"
    ) from exc


class SpielwerkAECEnv(AECEnv):  # type: ignore[misc]
    """One spielwerk game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, spec: str | Game, render_mode: str | None = None) -> None:
        super().__init__()
        self.game = spec if isinstance(spec, Game) else load_game(spec)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise SpielwerkError(
                f"render_mode must be one of {', '.join(self.metadata['render_modes'])} or None, "
                f"not {render_mode!r}"
            )
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"spielwerk_{self.game.name}_v0"}
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        size = encoding.tensor_size(self.game)
        actions = encoding.num_actions(self.game)
        high = encoding.tensor_high(self.game)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, high, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            })
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self._actions = actions
        self._rng = np.random.default_rng()
        self.state: State = self.game.new_initial_state()

    # ----- spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ----- the AEC protocol
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        if seed is not None:
            for i, a in enumerate(self.possible_agents):
                self.action_spaces[a].seed(seed + i)
                self.observation_spaces[a].seed(seed + i)
        self.state = self.game.new_initial_state()
        self._play_chance()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _play_chance(self) -> None:
        while self.state.current_player == CHANCE:
            self.state.apply(sample_chance(self.state, self._rng))

    def _select(self) -> None:
        if self.state.is_terminal():
            # the agent after the last mover first, so every agent sees its final reward
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[self.state.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        info = self.state.info_state(seat)
        mask = np.zeros(self._actions, np.int8)
        if not self.state.is_terminal() and self.state.current_player == seat:
            mask[self.state.legal_actions()] = 1
        return {"observation": encoding.encode(info), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise SpielwerkError(f"{agent} must choose an action: the game is not over")
        self._cumulative_rewards[agent] = 0.0
        self.state.apply(int(action))  # IllegalActionError (ValueError) leaves it unchanged
        self._play_chance()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.state.is_terminal():
            returns = self.state.returns()
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = float(returns[i])
            self.terminations = dict.fromkeys(self.agents, True)
        self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.state.is_terminal():
            return str(self.state)
        mover = self.state.current_player
        return f"{self.possible_agents[mover]} sees:\n{self.state.info_state(mover)}"

    def close(self) -> None:
        pass


def raw_env(spec: str | Game, render_mode: str | None = None) -> SpielwerkAECEnv:
    """The environment without PettingZoo's wrappers."""
    return SpielwerkAECEnv(spec, render_mode)


def env(spec: str | Game, render_mode: str | None = None) -> AECEnv:
    """The environment for ``spec`` wrapped as PettingZoo's classic games are
    (out-of-bounds actions asserted, call order enforced)."""
    e: AECEnv = raw_env(spec, render_mode)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


__all__ = ["SpielwerkAECEnv", "env", "raw_env"]
