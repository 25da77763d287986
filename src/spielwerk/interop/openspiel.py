"""spielwerk games in OpenSpiel, and OpenSpiel's bots as spielwerk agents (extra ``[openspiel]``).

**Games.** :func:`register` (run on import) registers every spielwerk game as
an OpenSpiel Python game named ``spielwerk_<name>``::

    import pyspiel, spielwerk.interop.openspiel
    game = pyspiel.load_game("spielwerk_kalah(pits=3,seeds=2)")

OpenSpiel parameters are our game parameters, passed through to our registry
(``load_game("kalah(pits=3,seeds=2)")``); a bad one raises the registry's own
one-line message as an :class:`OpenSpielAdapterError`, which is a
``pyspiel.SpielError``. :func:`load_game` takes our spec string directly
("durak(preset=zarlykov2023)") and also reports an unknown game with our
registry's message (``pyspiel.load_game("spielwerk_nosuch")`` can only give
OpenSpiel's own).

The wrapped :class:`SpielwerkState` holds one of our ``State`` objects and
calls it for everything (legal actions, chance outcomes and their
probabilities, apply, returns): no rule is written twice. Action ids are ours
unchanged (so a Durak deal card keeps its id ``600 + card`` and
``max_chance_outcomes`` is 652). The information-state and observation
tensors and strings come from the player's ``InfoState`` only
(:mod:`spielwerk.interop.encoding`). Our info states are what a player knows
now, not the full sequence of what they saw; for Skat that includes the whole
public action sequence (perfect recall), for Durak it does not (the order of
past bouts is forgotten), which matters for CFR-style algorithms, not for
search. ``resample_from_infostate`` is our ``sample_world``; a resampled state
has an empty OpenSpiel-side ``history()`` (its spielwerk history is complete),
which keeps ISMCTS's per-simulation resampling at our speed.

**Bots.** The agent spec ``openspiel:BOT:key=value...`` (``openspiel:mcts``,
``openspiel:ismcts``) seats an OpenSpiel bot wherever
a spielwerk agent can sit. The bot sees only the agent's ``InfoState``: it is
given a world sampled from it (the position itself in a perfect-information
game), and ISMCTS resamples from that world's information state with our
determinization. OpenSpiel's MCTS on a hidden-card game therefore searches
one sampled world per move. Parameters: ``iters`` simulations per move;
``time`` seconds per move (if > 0: the simulations of each move are set from
the bot's measured simulation rate, so the time per move is met on average,
not per move - OpenSpiel's bots have no clock); ``c`` the UCT constant on raw
returns (OpenSpiel's convention; ours scale returns to [0, 1], so our
``c=1.4`` is OpenSpiel's ``1.4 * (max_utility - min_utility)``);
``rollouts`` random rollouts per leaf; ``worlds`` (ISMCTS) the most root
worlds, -1 unlimited.
"""

from __future__ import annotations

import time as _time
from typing import Any

import numpy as np

from spielwerk.core.agent import Agent, AgentSpecError
from spielwerk.core.errors import GameParameterError, SpielwerkError, UnknownGameError
from spielwerk.core.game import CHANCE, TERMINAL, Game, InfoState, State
from spielwerk.core.observation import observation_face
from spielwerk.core.registry import list_games, parse_game_spec
from spielwerk.core.registry import load_game as load_spielwerk_game
from spielwerk.interop import encoding

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts as os_ismcts
    from open_spiel.python.algorithms import mcts as os_mcts
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise SpielwerkError(
        "OpenSpiel is not installed; install the extra: pip install 'spielwerk[openspiel]'"
    ) from exc

PREFIX = "spielwerk_"
MIN_ITERATIONS = 4
"""Fewest simulations a timed OpenSpiel bot runs: with one, its root has no visited child."""


class OpenSpielAdapterError(GameParameterError, pyspiel.SpielError):
    """A spielwerk error raised through OpenSpiel: our message, OpenSpiel's exception type."""


# ----------------------------------------------------------------------------- game sizes
def _sizes(game: Game) -> tuple[int, int, int, int, int]:
    """(distinct actions, max chance outcomes, max game length, min players, max players):
    the game's own (its observation face)."""
    sz = observation_face(game).sizes()
    return (sz.num_actions, sz.max_chance_outcomes, sz.max_game_length, sz.min_players,
            sz.max_players)


def _game_type(game: Game, name: str) -> Any:
    gt = game.game_type
    *_, low, high = _sizes(game)
    Info = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=name,
        long_name=f"spielwerk {gt.long_name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
            if gt.chance else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=Info.PERFECT_INFORMATION if gt.perfect_information
        else Info.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if gt.zero_sum
        else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(game.params),
    )


def _game_info(game: Game) -> Any:
    gt = game.game_type
    actions, chance, length, *_ = _sizes(game)
    return pyspiel.GameInfo(
        num_distinct_actions=actions,
        max_chance_outcomes=chance,
        num_players=gt.num_players,
        min_utility=gt.min_utility,
        max_utility=gt.max_utility,
        utility_sum=gt.utility_sum if gt.utility_sum is not None else 0.0,
        max_game_length=length,
    )


def _spielwerk_game(name: str, params: dict[str, Any]) -> Game:
    """Our game for OpenSpiel parameters, with our registry's message on bad input."""
    try:
        return load_spielwerk_game(name, **params)
    except SpielwerkError as exc:
        raise OpenSpielAdapterError(str(exc)) from None


# ----------------------------------------------------------------------------- game and state
class SpielwerkGame(pyspiel.Game):
    """An OpenSpiel game that wraps one spielwerk game (subclassed per game name)."""

    spielwerk_name = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.game = _spielwerk_game(self.spielwerk_name, dict(params or {}))
        super().__init__(
            _game_type(self.game, PREFIX + self.spielwerk_name),
            _game_info(self.game),
            dict(self.game.params),
        )
        self._tensor_size = encoding.tensor_size(self.game)

    def new_initial_state(self) -> SpielwerkState:
        return SpielwerkState(self, self.game.new_initial_state())

    def wrap(self, state: State) -> SpielwerkState:
        """An OpenSpiel state around our ``state`` (not copied; its OpenSpiel history is empty)."""
        return SpielwerkState(self, state)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> InfoStateObserver:
        if params:
            raise OpenSpielAdapterError(f"observer parameters are not supported: {params}")
        perfect_recall = iig_obs_type is None or bool(iig_obs_type.perfect_recall)
        if iig_obs_type is not None and (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise OpenSpielAdapterError(
                "spielwerk games offer the observing player's own view only "
                "(public and single-player private information)"
            )
        return InfoStateObserver(self._tensor_size, perfect_recall)


class InfoStateObserver:
    """OpenSpiel's PyObserver protocol over our InfoState encoding."""

    def __init__(self, size: int, perfect_recall: bool) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"info_state": self.tensor}
        self.perfect_recall = perfect_recall

    def set_from(self, state: SpielwerkState, player: int) -> None:
        encoding.encode_into(state.inner.info_state(player), self.tensor)

    def string_from(self, state: SpielwerkState, player: int) -> str:
        info = state.inner.info_state(player)
        if self.perfect_recall:
            return encoding.info_string(info)
        return encoding.observation_string(info)


class SpielwerkState(pyspiel.State):
    """An OpenSpiel state that delegates everything to a spielwerk ``State`` (``inner``)."""

    def __init__(self, game: SpielwerkGame, inner: State) -> None:
        super().__init__(game)
        self.inner = inner
        self._legal: list[int] | None = None  # legal actions of the current node, once asked

    def current_player(self) -> int:
        p = self.inner.current_player
        if p == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if p == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        return p

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.inner.current_player:
            return []
        if self._legal is None:
            self._legal = self.inner.legal_actions()
        return self._legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.inner.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        legal, self._legal = self._legal, None
        if legal is None or self.inner.is_chance_node():
            self.inner.apply(int(action))  # validates
            return
        if action not in legal:
            raise OpenSpielAdapterError(
                f"{self.inner.action_to_string(int(action))} is not legal here"
            )
        # legality checked against the cached list: skip apply()'s second legal-move generation
        self.inner.apply_unchecked(int(action))
        self.inner.history.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.inner.action_to_string(int(action))

    def is_terminal(self) -> bool:
        return self.inner.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self.inner.returns()]

    def resample_from_infostate(self, player: int, sampler: Any) -> SpielwerkState:
        """A state drawn from ``player``'s information (our determinization)."""
        seed = int(float(sampler()) * 2**53)
        world = self.inner.info_state(player).sample_world(np.random.default_rng(seed))
        return SpielwerkState(self.get_game(), world)

    def __deepcopy__(self, memo: dict[int, Any]) -> SpielwerkState:
        # OpenSpiel clones Python states by deepcopy; our clone() is the cheap, exact copy
        copy = SpielwerkState(self.get_game(), self.inner.clone())
        return copy

    def __str__(self) -> str:
        return str(self.inner)


# ----------------------------------------------------------------------------- registration
_CLASSES: dict[str, type[SpielwerkGame]] = {}


def register() -> list[str]:
    """Register every spielwerk game with OpenSpiel (idempotent); returns the OpenSpiel names."""
    names = []
    registered = set(pyspiel.registered_names())
    for entry in list_games():
        name = PREFIX + entry.name
        names.append(name)
        if name in registered or entry.name in _CLASSES:
            continue
        try:
            default_game = entry.factory(dict(entry.defaults))
            encoding.tensor_size(default_game)
        except SpielwerkError:
            names.pop()
            continue  # a game without an encoding is not offered
        cls = type(f"Spielwerk{entry.name.title()}Game", (SpielwerkGame,),
                   {"spielwerk_name": entry.name})
        _CLASSES[entry.name] = cls
        pyspiel.register_game(_game_type(default_game, name), cls)
    return names


def load_game(spec: str) -> SpielwerkGame:
    """The OpenSpiel game for our spec string (``"durak(preset=zarlykov2023)"``).

    Unknown games and bad parameters raise our registry's one-line message as
    :class:`OpenSpielAdapterError` (a ``pyspiel.SpielError``).
    """
    register()
    try:
        name, _ = parse_game_spec(spec)
        game = load_spielwerk_game(spec)
    except SpielwerkError as exc:
        raise OpenSpielAdapterError(str(exc)) from None
    os_game = pyspiel.load_game(PREFIX + name, dict(game.params))
    assert isinstance(os_game, SpielwerkGame)
    return os_game


def os_game_of(game: Game) -> SpielwerkGame:
    """The OpenSpiel game wrapping exactly ``game``'s rules."""
    return load_game(game.spec())


# ----------------------------------------------------------------------------- bots as agents
BOTS: dict[str, dict[str, Any]] = {
    "mcts": {"iters": 1000, "time": 0.0, "c": 2.0, "rollouts": 1, "solve": True},
    "ismcts": {"iters": 1000, "time": 0.0, "c": 2.0, "rollouts": 1, "worlds": -1},
}
BOT_HELP = {
    "mcts": "OpenSpiel's MCTSBot (UCT, random rollouts) on one world sampled from the info state",
    "ismcts": "OpenSpiel's ISMCTSBot (imperfect-information games only)",
}


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"openspiel:ismcts:iters=500"`` -> ``("ismcts", {... defaults with iters=500})``."""
    parts = [p.strip() for p in spec.strip().split(":")]
    if len(parts) < 2 or parts[0] != "openspiel" or not parts[1]:
        raise AgentSpecError(
            f"agent spec {spec!r}: expected openspiel:BOT[:key=value...], BOT one of "
            f"{', '.join(BOTS)}"
        )
    bot = parts[1]
    if bot not in BOTS:
        raise AgentSpecError(f"unknown OpenSpiel bot {bot!r}; known bots: {', '.join(BOTS)}")
    params = dict(BOTS[bot])
    for item in parts[2:]:
        if "=" not in item:
            raise AgentSpecError(f"agent spec {spec!r}: {item!r} should be key=value")
        key, text = (s.strip() for s in item.split("=", 1))
        if key not in params:
            known = ", ".join(params) or "none"
            raise AgentSpecError(
                f"agent 'openspiel:{bot}': unknown parameter {key!r}; parameters: {known}"
            )
        default = params[key]
        try:
            if isinstance(default, bool):
                if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(text)
                value: Any = text.lower() in ("true", "1", "yes")
            else:
                value = type(default)(text)
        except ValueError:
            raise AgentSpecError(
                f"agent 'openspiel:{bot}': parameter {key!r} must be "
                f"{type(default).__name__}, not {text!r}"
            ) from None
        params[key] = value
    if params.get("iters", MIN_ITERATIONS) < MIN_ITERATIONS or params.get("rollouts", 1) < 1:
        raise AgentSpecError(
            f"agent 'openspiel:{bot}': iters must be at least {MIN_ITERATIONS} "
            "and rollouts at least 1"
        )
    if params.get("time", 0.0) < 0 or params.get("c", 1.0) <= 0:
        raise AgentSpecError(f"agent 'openspiel:{bot}': time must be >= 0 and c > 0")
    if params.get("worlds", -1) == 0 or params.get("worlds", -1) < -1:
        raise AgentSpecError(f"agent 'openspiel:{bot}': worlds must be -1 (unlimited) or >= 1")
    return bot, params


class OpenSpielBotAgent(Agent):
    """An OpenSpiel bot seated as a spielwerk agent; it sees only its InfoState.

    ``simulations`` and ``search_seconds`` count the bot's work, so the
    benchmarks can report simulations per second.
    """

    def __init__(self, game: Game, seed: int | None, bot: str, params: dict[str, Any]) -> None:
        super().__init__(game, seed)
        self.bot_name = bot
        self.params = params
        self.os_game = os_game_of(game)
        if bot == "ismcts" and game.game_type.perfect_information:
            raise AgentSpecError(
                f"OpenSpiel's ISMCTS refuses perfect-information games such as {game.spec()}; "
                "use openspiel:mcts"
            )
        self.simulations = 0
        self.search_seconds = 0.0
        self._rate: float | None = None  # simulations per second, smoothed
        self._bot: Any = None
        self._build(seed)

    def _build(self, seed: int | None) -> None:
        bot, p = self.bot_name, self.params
        rs = np.random.RandomState(self.rng.integers(2**31 - 1) if seed is not None else None)
        self._np_state = rs
        evaluator = os_mcts.RandomRolloutEvaluator(n_rollouts=p["rollouts"], random_state=rs)
        if bot == "mcts":
            self._bot = os_mcts.MCTSBot(
                self.os_game, p["c"], p["iters"], evaluator, solve=p["solve"], random_state=rs
            )
        else:
            self._bot = os_ismcts.ISMCTSBot(
                self.os_game, evaluator, p["c"], p["iters"], max_world_samples=p["worlds"],
                random_state=rs,
            )
            self._bot.set_resampler(self._resample)

    def _resample(self, state: SpielwerkState, player: int) -> SpielwerkState:
        self.simulations += 1
        return self.os_game.wrap(state.inner.info_state(player).sample_world(self.rng))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._build(seed)

    def _set_iterations(self, n: int) -> None:
        if self.bot_name == "mcts":
            self._bot.max_simulations = n
        else:
            self._bot._max_simulations = n  # noqa: SLF001 - ISMCTSBot has no setter

    def _search(self, state: SpielwerkState, n: int) -> int:
        self._set_iterations(n)
        start = _time.perf_counter()
        before = self.simulations
        action = int(self._bot.step(state))
        elapsed = _time.perf_counter() - start
        if self.bot_name == "mcts":
            self.simulations += n
        done = self.simulations - before
        self.search_seconds += elapsed
        if done > 1 and elapsed > 0:
            rate = done / elapsed
            self._rate = rate if self._rate is None else 0.7 * self._rate + 0.3 * rate
        return action

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if not legal:
            raise SpielwerkError(f"openspiel:{self.bot_name} asked to act with no legal actions")
        if len(legal) == 1:
            return int(legal[int(self.rng.integers(len(legal)))])
        state = self.os_game.wrap(info_state.sample_world(self.rng))
        budget = float(self.params["time"])
        if budget <= 0:
            return self._search(state, int(self.params["iters"]))
        start = _time.perf_counter()
        if self._rate is None:  # calibrate on a few simulations, then spend the rest
            self._search(state.clone(), 8)
        left = max(0.0, budget - (_time.perf_counter() - start))
        n = max(MIN_ITERATIONS, min(10_000_000, round((self._rate or 1.0) * left)))
        return self._search(state, n)


def make_openspiel_agent(spec: str, game: Game, seed: int | None = None) -> Agent:
    """Build the agent for an ``openspiel:BOT:params`` spec (the hook of ``make_agent``)."""
    bot, params = parse_bot_spec(spec)
    return OpenSpielBotAgent(game, seed, bot, params)


__all__ = [
    "BOTS", "InfoStateObserver", "OpenSpielAdapterError", "OpenSpielBotAgent", "SpielwerkGame",
    "SpielwerkState", "UnknownGameError", "load_game", "make_openspiel_agent", "os_game_of",
    "parse_bot_spec", "register",
]

register()
