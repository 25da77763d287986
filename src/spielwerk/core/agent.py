"""Agents and their spec strings (``"mcts:iters=800:c=1.4"``).

An agent receives only :class:`InfoState` objects. ``inform(action)`` tells it
every action applied to the game (its own, the opponents', chance), so agents
that keep a tree or beliefs can follow; ``reset(seed)`` starts a new game.
"""

from __future__ import annotations

import functools
import importlib
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import TYPE_CHECKING, Any

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import TERMINAL, Game, InfoState
from spielwerk.core.table_face import table_face

if TYPE_CHECKING:  # numpy loads with the first game, not with ``import spielwerk``
    import numpy as np


class AgentSpecError(SpielwerkError, ValueError):
    """An agent spec string that names no agent or has bad parameters."""


class Agent(ABC):
    """Base class of all agents. Every random choice uses ``self.rng``."""

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.game = game
        self._seed = seed
        self._rng: np.random.Generator | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The agent's generator, ``numpy.random.default_rng(seed)`` of the last seed given.

        Built on first use, so building and resetting an agent that never draws
        (or draws once a game) costs no generator set-up per game.
        """
        rng = self._rng
        if rng is None:
            import numpy as np  # loaded with the games, not with ``import spielwerk``

            rng = self._rng = np.random.default_rng(self._seed)
        return rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # every agent's act() refuses a finished game the same way, whatever it does inside
        super().__init_subclass__(**kwargs)
        act = cls.__dict__.get("act")
        if act is None or getattr(act, "_checks_terminal", False):
            return

        @functools.wraps(act)
        def checked_act(self: Agent, info_state: InfoState) -> int:
            if info_state.current_player == TERMINAL:
                raise SpielwerkError(
                    f"{type(self).__name__}.act: the game is over, there is no move to choose"
                )
            return int(act(self, info_state))

        checked_act._checks_terminal = True  # type: ignore[attr-defined]
        cls.act = checked_act  # type: ignore[method-assign]

    @abstractmethod
    def act(self, info_state: InfoState) -> int:
        """Choose a legal action for the player to move in ``info_state``."""

    reusable = False
    """True if :meth:`reset` ``(seed)`` leaves the agent exactly as if built anew with
    that seed: the arena then keeps one agent per seat across games. Read from the
    agent's own class only (:func:`is_reusable`): a subclass that may keep more state
    is not reusable unless it says so itself."""

    def legal_policy(self) -> Callable[[list[int]], int] | None:
        """For an agent whose choice depends on the legal actions alone (a uniformly
        random agent): ``choose(legal_actions) -> action``, equal to :meth:`act` on an
        info state with those legal actions, drawing the same random numbers. The play
        loop then hands it just the list, without building an info state. None (the
        default): the agent is asked with :meth:`act`.
        """
        return None

    def decides_deterministically(self, info_state: InfoState) -> bool:
        """True if this agent's choice at ``info_state`` depends on the info state alone -
        not on its seed, its clock or what it saw earlier - so any fresh agent of the same
        spec chooses the same (``check_agent`` holds it to that). False (the default):
        only the legality of a fresh agent's choice is checked."""
        return False

    def inform(self, action: int) -> None:  # noqa: B027 - optional hook
        """Observe an action applied to the game (by anyone)."""

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseeds the agent's generator."""
        self._seed = seed
        self._rng = None


@dataclass(frozen=True)
class AgentEntry:
    name: str
    factory: Callable[..., Agent]
    defaults: dict[str, Any]
    description: str
    games: tuple[str, ...] | None  # None: any game
    parameter_help: dict[str, str] = field(default_factory=dict)
    # numeric parameter -> (lowest, highest) allowed, None: unbounded on that side;
    # str parameter -> the allowed values. Numbers without an entry must be >= 0.
    limits: dict[str, Limit] = field(default_factory=dict)

    def usage(self) -> str:
        params = ":".join(f"{k}={v}" for k, v in self.defaults.items())
        return f"{self.name}:{params}" if params else self.name


Limit = tuple[float | None, float | None] | tuple[str, ...]

_AGENTS: dict[tuple[str | None, str], AgentEntry] = {}
_OWN_LOADED: set[str] = set()
"""Games whose own packages (and so agents) :func:`make_agent` has made sure of."""
_SPEC_FAMILIES: dict[str, str] = {
    # spec prefix -> "module:function(spec, game, seed)", imported on first use
    "openspiel": "spielwerk.interop.openspiel:make_openspiel_agent",
}


def register_agent(
    name: str,
    factory: Callable[..., Agent],
    defaults: dict[str, Any] | None = None,
    description: str = "",
    games: tuple[str, ...] | None = None,
    parameter_help: dict[str, str] | None = None,
    limits: dict[str, Limit] | None = None,
) -> None:
    """Register ``factory(game, seed=..., **params)`` for ``games`` (None: any game).

    ``limits`` bounds parameters: ``{"c": (0, None), "depth": (1, 60),
    "final": ("visits", "mean")}``. Every numeric parameter must be finite, and
    one without a limit must be >= 0; :func:`make_agent` checks this before the
    factory runs, so every agent rejects bad values with the same one-line error.
    """
    defaults = dict(defaults or {})
    for key in limits or {}:
        if key not in defaults:
            raise ValueError(f"agent {name!r}: limit for unknown parameter {key!r}")
    entry = AgentEntry(
        name, factory, defaults, description, games, parameter_help or {}, dict(limits or {})
    )
    for g in games or (None,):
        _AGENTS[(g, name)] = entry


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key reading a name's digit runs as numbers: ``knn2`` before ``knn10``."""
    return tuple((0, int(part)) if part.isdigit() else (1, part)
                 for part in re.split(r"(\d+)", name) if part)


def list_agents(game: str | Game | None = None) -> list[AgentEntry]:
    """Agents usable for ``game`` (all agents when ``game`` is None), in natural order of
    their names."""
    from spielwerk.core.registry import load_builtin_games

    load_builtin_games()  # the built-in games' agents register when their games load
    gname = game.name if isinstance(game, Game) else game
    seen: dict[str, AgentEntry] = {}
    for (g, name), entry in sorted(_AGENTS.items(),
                                   key=lambda kv: (natural_key(kv[0][1]), kv[0][0] or "")):
        if gname is None or g is None or g == gname:
            if gname is not None and g is None and (gname, name) in _AGENTS:
                continue
            seen.setdefault(name if gname else f"{name}@{g or '*'}", entry)
    return list(seen.values())


def default_opponent(game: Game) -> str:
    """The game's default opponent: the first registered agent of its table face's
    ``default_opponents`` (:mod:`spielwerk.core.table_face`: its strongest measured),
    else ``random``. The web table and the terminal (``spielwerk play`` and the games'
    own ``play`` commands) all take it, so they agree."""
    names = {e.name for e in list_agents(game)}
    for name in table_face(game).default_opponents:
        if name in names:
            return name
    return "random"


def _convert(name: str, key: str, text: str, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            low = text.lower()
            if low in ("true", "1", "yes"):
                return True
            if low in ("false", "0", "no"):
                return False
            raise ValueError(text)
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
    except ValueError:
        kind = type(default).__name__
        raise AgentSpecError(
            f"agent {name!r}: parameter {key!r} must be {kind}, not {text!r}"
        ) from None
    return text


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:iters=800:c=1.4"`` -> ``("mcts", {"iters": "800", "c": "1.4"})``.

    A spec family keeps its second part in the name: ``"openspiel:mcts:iters=9"`` ->
    ``("openspiel:mcts", {"iters": "9"})``.
    """
    parts = [p.strip() for p in spec.strip().split(":")]
    if not parts[0]:
        raise AgentSpecError(f"empty agent spec {spec!r}")
    if parts[0] in _SPEC_FAMILIES and len(parts) > 1:  # "openspiel:ismcts:iters=8"
        parts = [f"{parts[0]}:{parts[1]}", *parts[2:]]
    raw: dict[str, str] = {}
    for item in parts[1:]:
        if "=" not in item:
            raise AgentSpecError(f"agent spec {spec!r}: {item!r} should be key=value")
        k, v = item.split("=", 1)
        raw[k.strip()] = v.strip()
    return parts[0], raw


def _spec_text(value: object) -> str:
    """A parameter value as spec text: ``true`` / ``false`` for a bool, else ``str``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class AgentSpec:
    """An agent spec parsed once: the agent's ``name`` and its parameters as written, in
    order (``"mcts:iters=800:c=1.4"`` -> ``AgentSpec("mcts", (("iters", "800"), ("c",
    "1.4")))``). The web table, its fallback and its engine workers pass this around
    instead of writing the text back and parsing it again; :func:`make_agent` takes it as
    it is. ``str()`` writes it back: ``AgentSpec.parse(str(s)) == s``.

    >>> s = AgentSpec.parse("mcts: iters=800")
    >>> str(s.with_params(time=0.5)), s.params
    ('mcts:iters=800:time=0.5', {'iters': '800'})
    """

    name: str
    items: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        # only what str() can write and parse() read back the same
        head, colon, rest = self.name.partition(":")
        if not head or self.name != self.name.strip() or (colon and (
                head not in _SPEC_FAMILIES or not rest or ":" in rest)) or (
                self.items and head in _SPEC_FAMILIES and not colon):
            raise AgentSpecError(f"agent spec: {self.name!r} is not an agent name")
        keys = [k for k, _ in self.items]
        if len(set(keys)) != len(keys):
            raise AgentSpecError(f"agent spec {self.name!r}: a parameter is given twice")
        for key, value in self.items:
            if ":" in key or "=" in key or key != key.strip() or ":" in value or (
                    value != value.strip()):
                raise AgentSpecError(f"agent spec {self.name!r}: {key}={value} is not a "
                                     "parameter (no ':' in it, no '=' in its name)")

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """The spec string ``text`` (:func:`parse_agent_spec`), as one object."""
        name, raw = parse_agent_spec(text)
        return cls(name, tuple(raw.items()))

    @property
    def params(self) -> dict[str, str]:
        """The parameters as written (text), in order: a new dict each time."""
        return dict(self.items)

    def with_params(self, **params: object) -> AgentSpec:
        """This spec with ``params`` set (a given one keeps its place, a new one goes last;
        a bool is written ``true`` / ``false``)."""
        merged = dict(self.items)
        merged.update((key, _spec_text(value)) for key, value in params.items())
        return AgentSpec(self.name, tuple(merged.items()))

    def __str__(self) -> str:
        return ":".join([self.name, *(f"{key}={value}" for key, value in self.items)])


def param(default: Any, help: str, limits: Limit | None = None) -> Any:
    """One agent parameter, declared once: a dataclass field carrying its default, its help
    line and its limits (as for :func:`register_agent`; None: a number must be >= 0)."""
    return field(default=default, metadata={"help": help, "limits": limits})


def declared(params: type) -> tuple[dict[str, Any], dict[str, str], dict[str, Limit]]:
    """(defaults, help, limits) of a dataclass of :func:`param` fields."""
    if not is_dataclass(params):
        raise TypeError(f"{params!r} is not a dataclass of agent parameters")
    defaults, helps, limits = {}, {}, {}
    for f in fields(params):
        if f.default is MISSING or "help" not in f.metadata:
            raise TypeError(f"{params.__name__}.{f.name} is not declared with param()")
        defaults[f.name] = f.default
        helps[f.name] = f.metadata["help"]
        if f.metadata["limits"] is not None:
            limits[f.name] = f.metadata["limits"]
    return defaults, helps, limits


def register_declared(name: str, factory: Callable[..., Agent], params: type,
                      description: str, games: tuple[str, ...] | None = None) -> None:
    """:func:`register_agent` with the defaults, help and limits of the dataclass ``params``
    (its fields made with :func:`param`): each parameter is written in one place."""
    defaults, helps, limits = declared(params)
    register_agent(name, factory, defaults, description, games, helps, limits)


def check_declared(name: str, settings: Any) -> None:
    """Check every field of a dataclass of :func:`param` fields against its limits, with the
    registry's one-line error: the same check for an agent built from a spec and one built
    directly."""
    defaults, helps, limits = declared(type(settings))
    entry = AgentEntry(name, RandomAgent, defaults, "", None, helps, limits)
    for key in defaults:
        check_agent_parameter(entry, key, getattr(settings, key))


def make_agent(spec: str | AgentSpec, game: Game, seed: int | None = None) -> Agent:
    """Build an agent for ``game`` from a spec string, or a spec parsed already
    (:class:`AgentSpec`, used as it is)."""
    family = (spec.strip() if isinstance(spec, str) else spec.name).split(":", 1)[0]
    if family in _SPEC_FAMILIES:  # e.g. "openspiel:ismcts:iters=1000", loaded only when used
        module, function = _SPEC_FAMILIES[family].split(":")
        factory = getattr(importlib.import_module(module), function)
        return factory(str(spec), game, seed)  # type: ignore[no-any-return]
    parsed = AgentSpec.parse(spec) if isinstance(spec, str) else spec
    name, raw = parsed.name, parsed.params
    gname = game.name
    if gname not in _OWN_LOADED and (gname, name) not in _AGENTS:
        # the game's own agent wins over a generic one of the same name: its packages load
        # first (a game unpickled in a worker has loaded its rules only)
        from spielwerk.core.registry import load_game_packages

        load_game_packages(gname)
        _OWN_LOADED.add(gname)
    entry = _AGENTS.get((game.name, name)) or _AGENTS.get((None, name))
    if entry is None:
        from spielwerk.core.registry import load_builtin_games

        load_builtin_games()  # agents of the built-in games register when those load
        entry = _AGENTS.get((game.name, name)) or _AGENTS.get((None, name))
    if entry is None:
        known = ", ".join(e.usage() for e in list_agents(game)) or "none"
        raise AgentSpecError(f"unknown agent {name!r} for {game.name}; known agents: {known}")
    params = dict(entry.defaults)
    for key, text in raw.items():
        if key not in entry.defaults:
            known = ", ".join(entry.defaults) or "none"
            raise AgentSpecError(f"agent {name!r}: unknown parameter {key!r}; parameters: {known}")
        params[key] = _convert(name, key, text, entry.defaults[key])
        check_agent_parameter(entry, key, params[key])
    try:
        return entry.factory(game, seed=seed, **params)
    except SpielwerkError:
        raise
    except (ValueError, AssertionError, MemoryError) as exc:
        # a factory's own check that the limits did not cover: same one-line form
        raise AgentSpecError(f"agent {name!r}: {exc}") from None


def _number(value: float | int) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def check_agent_parameter(entry: AgentEntry, key: str, value: Any) -> None:
    """Raise :class:`AgentSpecError` if ``value`` is outside the limits of ``key``."""
    limit = entry.limits.get(key)
    if isinstance(value, bool):
        return
    if isinstance(value, str):
        if limit and isinstance(limit[0], str) and value not in limit:
            raise AgentSpecError(
                f"agent {entry.name!r}: parameter {key!r} must be one of "
                f"{', '.join(str(x) for x in limit)}, not {value!r}"
            )
        return
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise AgentSpecError(
                f"agent {entry.name!r}: parameter {key!r} must be a finite number, not {value}"
            )
        bounds = limit if limit and not isinstance(limit[0], str) else (0, None)
        lo, hi = (None if b is None else float(b) for b in bounds)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            if lo is not None and hi is not None:
                need = f"in {_number(lo)}..{_number(hi)}"
            elif lo is not None:
                need = f">= {_number(lo)}"
            else:
                need = f"<= {_number(hi or 0.0)}"
            raise AgentSpecError(
                f"agent {entry.name!r}: parameter {key!r} must be {need}, not {_number(value)}"
            )


def splitmix_uniforms(seed: int, start: int, count: int) -> list[float]:
    """Uniforms in [0, 1) number ``start`` .. ``start + count - 1`` of the stream ``seed``.

    SplitMix64 (Steele, Lea and Flood 2014) by counter, one compiled call
    (:mod:`spielwerk.core.splitmix`): a stream costs nothing to seed, which
    matters when an agent is seeded once per game and a game is a hundred
    microseconds.

    >>> splitmix_uniforms(7, 0, 3) == splitmix_uniforms(7, 0, 5)[:3]
    True
    >>> splitmix_uniforms(7, 2, 1) == splitmix_uniforms(7, 0, 3)[2:]
    True
    """
    from spielwerk.core.splitmix import uniforms

    return uniforms(seed, start, count)


_stack: Callable[[int, int], list[float]] | None = None


def _load_stack() -> Callable[[int, int], list[float]]:
    """:func:`spielwerk.core.splitmix.stack`, imported once (numba loads with it)."""
    global _stack
    from spielwerk.core.splitmix import stack

    _stack = stack
    return stack


def is_reusable(agent: Agent) -> bool:
    """Whether ``agent``'s own class declares ``reusable = True`` (see :attr:`Agent.reusable`)."""
    return bool(type(agent).__dict__.get("reusable", False))


class RandomAgent(Agent):
    """Uniformly random legal actions: ``legal[int(u * len(legal))]``.

    The uniforms ``u`` come from :func:`splitmix_uniforms` of the agent's
    seed, a block of 32 at a time: seeding a numpy generator per game cost more
    than a whole random Kalah game. The same seed gives the same moves;
    without a seed the stream starts from fresh entropy. Its choice needs
    nothing but the legal actions, so it offers :meth:`legal_policy` and
    :meth:`reset` restores a freshly built agent (``reusable``).
    """

    reusable = True

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(game, seed)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._seed = seed
        self._rng = None
        if seed is None:
            import secrets

            seed = secrets.randbits(64)
        self._stream = int(seed)
        self._drawn = 0
        self._uniforms: list[float] = []

    def act(self, info_state: InfoState) -> int:
        return self._choose(info_state.legal_actions())

    def legal_policy(self) -> Callable[[list[int]], int] | None:
        # a subclass with its own act() is asked through it
        return self._choose if type(self).act is RandomAgent.act else None

    def _choose(self, legal: list[int]) -> int:
        if not legal:
            raise SpielwerkError("random agent asked to act with no legal actions")
        uniforms = self._uniforms
        if not uniforms:
            uniforms = self._uniforms = (_stack or _load_stack())(self._stream, self._drawn)
            self._drawn += len(uniforms)
        return legal[int(uniforms.pop() * len(legal))]


register_agent("random", RandomAgent, {}, "uniformly random legal moves")
