"""The game API: ``Game``, ``State`` and ``InfoState``, modelled on OpenSpiel.

A ``Game`` is a rule set with fixed parameters; it makes ``State`` objects.
A ``State`` is a full position (including hidden information) with its
action history; ``apply`` mutates it and ``clone`` copies it. Agents never see
a ``State``: they receive ``state.info_state(player)``, which holds exactly
what that player may know, and can ``sample_world(rng)`` from it to get a full
``State`` consistent with that knowledge (determinization).

Subclasses implement the underscored hooks (``_apply_action``,
``_legal_actions`` ...); the public methods add validation and history
keeping so every game behaves the same way.
"""

from __future__ import annotations

import functools
import json
from abc import ABC, abstractmethod
from bisect import bisect_right
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from numbers import Integral
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from spielwerk.core.errors import (
    IllegalActionError,
    NotChanceNodeError,
    SeatError,
    SerializationError,
)

if TYPE_CHECKING:  # numpy loads with the first game, not with ``import spielwerk``
    import numpy as np

CHANCE = -1
"""``current_player`` value of a chance node (a deal, a shuffle)."""
TERMINAL = -2
"""``current_player`` value of a finished game."""


@dataclass(frozen=True)
class GameType:
    """Static facts about a game that generic algorithms check before use.

    ``utility_sum`` is the constant sum of all players' returns in every
    terminal state (0.0 for zero-sum games) or ``None`` if not constant.
    """

    short_name: str
    long_name: str
    num_players: int
    chance: bool
    perfect_information: bool
    zero_sum: bool
    min_utility: float
    max_utility: float
    utility_sum: float | None = 0.0
    parameters: dict[str, Any] = field(default_factory=dict)


class Playouts(NamedTuple):
    """Outcomes of a batch of random games (:meth:`Game.random_playouts`).

    ``returns[i]`` holds every player's return of game ``i`` (shape
    ``(n, players)``); ``moves[i]`` its number of actions (chance included
    where the game deals by chance actions, as in :attr:`State.history`).
    """

    returns: np.ndarray
    moves: np.ndarray


def check_playouts(n: object, seed: object) -> int:
    """Validate ``random_playouts`` arguments; returns ``n`` as an int."""
    from spielwerk.core.errors import SpielwerkError

    if isinstance(n, bool) or not isinstance(n, Integral) or n < 0:
        raise SpielwerkError(f"random_playouts: n must be an integer >= 0, not {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= int(seed) < 2**32:
        raise SpielwerkError(f"random_playouts: seed must be an integer 0 .. 2**32-1, not {seed!r}")
    return int(n)


class Game(ABC):
    """A rule set with fixed parameters."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params: dict[str, Any] = dict(params)

    @property
    @abstractmethod
    def game_type(self) -> GameType:
        """Static metadata (players, chance, information, utilities)."""

    @abstractmethod
    def new_initial_state(self) -> State:
        """The state before the first action (possibly a chance node)."""

    @property
    def num_players(self) -> int:
        return self.game_type.num_players

    @property
    def name(self) -> str:
        return self.game_type.short_name

    def spec(self) -> str:
        """The ``load_game`` string that recreates exactly this game."""
        cached: str | None = self.__dict__.get("_spec")
        if cached is not None:
            return cached
        self.__dict__["_spec"] = spec = self._make_spec()
        return spec

    def _make_spec(self) -> str:
        if not self.params:
            return self.name
        parts = []
        for key in sorted(self.params):
            value = self.params[key]
            if isinstance(value, bool):
                value = "true" if value else "false"
            parts.append(f"{key}={value}")
        return f"{self.name}({','.join(parts)})"

    def __repr__(self) -> str:
        return f"<Game {self.spec()}>"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, Game) and self.spec() == other.spec()

    def __hash__(self) -> int:
        return hash(self.spec())

    def random_playouts(self, n: int, seed: int) -> Playouts:
        """``n`` games of uniformly random actions (chance by its probabilities).

        This generic version plays through the object API; games with a numba
        batch path (Kalah, Durak) override it. The same ``seed`` gives the
        same games.
        """
        import random

        import numpy as np

        n = check_playouts(n, seed)
        rng = random.Random(seed)
        returns = np.zeros((n, self.num_players))
        moves = np.zeros(n, np.int64)
        for g in range(n):
            state = self.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    action = sample_chance(state, rng)
                else:
                    legal = state.legal_actions()
                    action = legal[rng.randrange(len(legal))]
                state.apply(action)
            returns[g] = state.returns()
            moves[g] = len(state.history)
        return Playouts(returns, moves)

    def deserialize_state(self, text: str) -> State:
        """Replay a JSON record written by :meth:`State.serialize`."""
        try:
            record = json.loads(text)
            spec = record["game"]
            history = record["history"]
        except (ValueError, KeyError, TypeError) as exc:
            raise SerializationError(f"not a spielwerk game record: {exc}") from exc
        if spec != self.spec():
            raise SerializationError(f"record is for {spec!r}, not {self.spec()!r}")
        state = self.new_initial_state()
        for i, action in enumerate(history):
            if not isinstance(action, int):
                raise SerializationError(f"action {i} is not an integer: {action!r}")
            try:
                state.apply(action)
            except IllegalActionError as exc:
                raise SerializationError(
                    f"action {i} ({action}) cannot be replayed: {exc}"
                ) from exc
        return state


class State(ABC):
    """A full game position with its action history.

    Subclasses implement the ``_``-prefixed hooks plus :meth:`fingerprint`,
    :meth:`returns`, :meth:`action_to_string` and :meth:`info_state`.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.history: list[int] = []

    def __init_subclass__(cls, **kwargs: object) -> None:
        # every game's info_state() checks the seat first, before it reads any array
        super().__init_subclass__(**kwargs)
        cls._check_chance_outcomes()
        method = cls.__dict__.get("info_state")
        if method is None or getattr(method, "_checks_seat", False):
            return

        @functools.wraps(method)
        def info_state(self: State, player: int) -> InfoState:
            check_seat(self.game, player)
            return method(self, player)  # type: ignore[no-any-return]

        info_state._checks_seat = True  # type: ignore[attr-defined]
        cls.info_state = info_state  # type: ignore[method-assign]

    @classmethod
    def _check_chance_outcomes(cls) -> None:
        # one contract for every game: chance_outcomes() away from a chance node raises
        # NotChanceNodeError (never [] or a game's own error)
        method = cls.__dict__.get("chance_outcomes")
        if method is None or getattr(method, "_checks_chance", False):
            return

        @functools.wraps(method)
        def chance_outcomes(self: State) -> list[tuple[int, float]]:
            if self.current_player != CHANCE:
                raise self.not_chance_node()
            return method(self)  # type: ignore[no-any-return]

        chance_outcomes._checks_chance = True  # type: ignore[attr-defined]
        cls.chance_outcomes = chance_outcomes  # type: ignore[method-assign]

    # ----- hooks for subclasses -------------------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int:
        """A seat number, :data:`CHANCE` or :data:`TERMINAL`."""

    @abstractmethod
    def _legal_actions(self) -> list[int]:
        """Legal actions of the player to move, ascending (empty if terminal)."""

    @abstractmethod
    def _apply_action(self, action: int) -> None:
        """Apply a legal action (already validated)."""

    @abstractmethod
    def _clone(self) -> State:
        """A deep copy (the history is copied by :meth:`clone`)."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Each player's return; all zeros until the game is terminal."""

    @abstractmethod
    def fingerprint(self) -> Hashable:
        """A value that is equal exactly for equal positions (history excluded)."""

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """Human notation of ``action`` in this state."""

    @abstractmethod
    def info_state(self, player: int) -> InfoState:
        """Everything ``player`` may know in this state."""

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(action, probability)`` pairs at a chance node, probabilities summing to 1.

        Away from a chance node (a player to move, or the game over) it raises
        :class:`~spielwerk.core.errors.NotChanceNodeError` in every game.
        """
        raise self.not_chance_node()

    def not_chance_node(self) -> NotChanceNodeError:
        """The error :meth:`chance_outcomes` raises away from a chance node."""
        player = self.current_player
        who = "the game is over" if player == TERMINAL else f"player {player} is to move"
        return NotChanceNodeError(f"{self.game.name}: not a chance node ({who})")

    # ----- public API -------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self.is_terminal():
            return []
        if self.current_player == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        return self._legal_actions()

    def is_terminal(self) -> bool:
        return self.current_player == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player == CHANCE

    def apply(self, action: int) -> None:
        """Apply ``action``; raises :class:`IllegalActionError` (state unchanged) if illegal."""
        if type(action) is not int:
            if isinstance(action, bool) or not isinstance(action, Integral):
                raise IllegalActionError(action, self.clone(), "actions are integers")
            action = int(action)
        if not self._is_legal(action):
            self._refuse(action)
        self._apply_action(action)
        self.history.append(action)

    def _is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal here (False in a terminal state).

        Games may override this with a cheaper test than building
        :meth:`legal_actions`; it must agree with it exactly.
        """
        if self.is_terminal():
            return False
        return action in self.legal_actions()

    def _refuse(self, action: int) -> None:
        """Raise the :class:`IllegalActionError` that says why ``action`` is not legal."""
        if self.is_terminal():
            raise IllegalActionError(action, self.clone(), "the game is over")
        legal = self.legal_actions()
        legal_text = f"legal: {self._legal_names(legal)}"
        if action < 0:
            # a negative number is no action at all: naming it would show nonsense
            reason = f"actions are numbers >= 0 ({legal_text})"
        else:
            try:
                name = self.action_to_string(action)
            except Exception:  # noqa: BLE001 - a bad action may have no name at all
                name = ""
            shown = f"written {name!r}, which" if name and name != str(action) else "it"
            reason = f"{shown} is not legal here ({legal_text})"
        raise IllegalActionError(action, self.clone(), reason)

    def _legal_names(self, legal: Sequence[int]) -> str:
        names = []
        for a in legal[:20]:
            try:
                names.append(self.action_to_string(a))
            except Exception:  # noqa: BLE001
                names.append(str(a))
        return ", ".join(names) + (" ..." if len(legal) > 20 else "")

    def info_view(self, player: int) -> InfoState:
        """:meth:`info_state` for a caller that is done with it before the state moves on.

        The play loop asks agents with this. Perfect-information games may
        return :meth:`PerfectInfoState.borrowed` (no copy of the state per
        move); the loop detaches a view the agent kept. Default: ``info_state``.
        """
        return self.info_state(player)

    def apply_unchecked(self, action: int) -> None:
        """Apply ``action`` known to be legal, without validating or recording it.

        The fast apply for search code that takes ``action`` from
        :meth:`legal_actions` or :meth:`chance_outcomes` of this very state and
        works on a clone: nothing is checked and :attr:`history` is left as it
        was (the clone is thrown away, not serialized). Anything else uses
        :meth:`apply`.
        """
        self._apply_action(action)

    def clone(self) -> State:
        copy = self._clone()
        copy.history = list(self.history)
        return copy

    def string_to_action(self, text: str) -> int:
        """Parse human notation; raises :class:`IllegalActionError` if no legal action matches."""
        wanted = text.strip().upper()
        for action in self.legal_actions():
            if self.action_to_string(action).upper() == wanted:
                return action
        raise IllegalActionError(
            text, self.clone(), f"no legal action is written {text!r} "
            f"(legal: {self._legal_names(self.legal_actions())})"
        )

    def serialize(self) -> str:
        """The game record: game parameters plus action history, as JSON."""
        return json.dumps({"game": self.game.spec(), "history": self.history})

    def player_return(self, player: int) -> float:
        return self.returns()[player]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and self.game == other.game
            and self.fingerprint() == other.fingerprint()
        )

    def __hash__(self) -> int:
        return hash(self.fingerprint())


class UniformSource(Protocol):
    """Anything with ``random() -> float`` in [0, 1): a numpy Generator or a random.Random."""

    def random(self) -> float: ...


class LazyGenerator:
    """``numpy.random.default_rng(seed)``, made on the first draw.

    For the chance generator of a game that may have no chance node (Kalah):
    making a numpy generator costs more than a whole random Kalah game.
    """

    __slots__ = ("seed", "_rng")

    def __init__(self, seed: int | None) -> None:
        self.seed = seed
        self._rng: np.random.Generator | None = None

    @property
    def generator(self) -> np.random.Generator:
        if self._rng is None:
            import numpy as np

            self._rng = np.random.default_rng(self.seed)
        return self._rng

    def random(self) -> float:
        return float(self.generator.random())


def sample_chance(state: State, rng: UniformSource) -> int:
    """One chance outcome of ``state``, drawn by its probabilities.

    Takes exactly one uniform draw ``rng.random()`` and inverts the cumulative
    distribution, as ``numpy.random.Generator.choice(n, p=...)`` does, so the
    same generator state gives the same outcome. Raises
    :class:`~spielwerk.core.errors.NotChanceNodeError` away from a chance node.

    >>> from spielwerk.core.registry import load_game
    >>> import numpy as np
    >>> state = load_game("skat").new_initial_state()
    >>> a = sample_chance(state, np.random.default_rng(1))
    >>> a == sample_chance(state, np.random.default_rng(1)) and a in state.legal_actions()
    True
    """
    outcomes = state.chance_outcomes()
    cumulative = list(accumulate([p for _, p in outcomes]))
    index = bisect_right(cumulative, rng.random() * cumulative[-1])
    return outcomes[min(index, len(outcomes) - 1)][0]


def check_seat(game: Game, player: object) -> None:
    """Raise :class:`SeatError` unless ``player`` is a seat of ``game`` (0 .. players-1)."""
    n = game.num_players
    if type(player) is int and 0 <= player < n:  # the common case, without the ABC check
        return
    if isinstance(player, bool) or not isinstance(player, Integral) or not (
        0 <= int(player) < n
    ):
        raise SeatError(f"{game.name} has seats 0..{n - 1}; there is no seat {player!r}")


class InfoState(ABC):
    """What one player knows: the only thing an agent ever receives."""

    def __init__(self, game: Game, player: int) -> None:
        check_seat(game, player)
        self.game = game
        self.player = int(player)

    @property
    @abstractmethod
    def current_player(self) -> int:
        """Who is to move (a seat, CHANCE or TERMINAL)."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Legal actions if ``player`` is to move (empty otherwise)."""

    @abstractmethod
    def sample_world(self, rng: np.random.Generator) -> State:
        """A full State consistent with everything this player knows."""

    @abstractmethod
    def fingerprint(self) -> Hashable:
        """Equal for equal knowledge; ``sample_world(rng).info_state(player)`` keeps it."""

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """Human notation of ``action`` (the player's own moves)."""

    def is_terminal(self) -> bool:
        return self.current_player == TERMINAL

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, InfoState)
            and self.game == other.game
            and self.player == other.player
            and self.fingerprint() == other.fingerprint()
        )

    def __hash__(self) -> int:
        return hash((self.player, self.fingerprint()))


class PerfectInfoState(InfoState):
    """Info state of a perfect-information game: a private copy of the full state.

    ``state`` is exposed read-only by convention; agents may search it freely
    because it is a clone. :meth:`borrowed` makes the same view without the
    copy, for the play loop (see :meth:`State.info_view`).
    """

    def __init__(self, state: State, player: int) -> None:
        super().__init__(state.game, player)
        self._own: State | None = state.clone()
        self._live: State | None = None

    @classmethod
    def borrowed(cls, state: State, player: int) -> PerfectInfoState:
        """A view of ``state`` itself, not of a copy; ``player`` must be a seat.

        Only for a caller that drops the view before ``state`` moves on, or
        calls :meth:`detach` first (:func:`spielwerk.core.play.play` does so
        when the agent kept it). Reading :attr:`state` makes the private copy.
        """
        view = cls.__new__(cls)
        view.game = state.game
        view.player = player
        view._own = None
        view._live = state
        return view

    @property
    def detached(self) -> bool:
        """Whether this view holds its own copy (False while it borrows a live state)."""
        return self._own is not None

    def detach(self) -> None:
        """Take a private copy now (before the borrowed state moves on); no-op if owned."""
        if self._own is None:
            assert self._live is not None
            self._own = self._live.clone()
            self._live = None

    @property
    def state(self) -> State:
        """The full state, a private copy: agents may search it freely."""
        if self._own is None:
            self.detach()
        assert self._own is not None
        return self._own

    def _view(self) -> State:
        return self._own if self._own is not None else self._live  # type: ignore[return-value]

    @property
    def current_player(self) -> int:
        state = self._own if self._own is not None else self._live
        return state.current_player  # type: ignore[union-attr]

    def legal_actions(self) -> list[int]:
        state = self._own if self._own is not None else self._live
        assert state is not None
        if state.current_player != self.player:
            return []
        return state.legal_actions()

    def sample_world(self, rng: np.random.Generator) -> State:
        return self.state.clone()

    def fingerprint(self) -> Hashable:
        return self._view().fingerprint()

    def action_to_string(self, action: int) -> str:
        return self._view().action_to_string(action)

    def __str__(self) -> str:
        return str(self._view())
