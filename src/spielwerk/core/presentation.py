"""The presentation face of a game: how it shows itself outside its rules.

Host libraries (OpenSpiel, PettingZoo) need a game's sizes and a fixed-size
tensor of what a player knows; a table for people (the web) needs a view of
an info state and the names of its actions. Each game answers these through
one :class:`Presentation`, kept in its own package (``presentation.py`` beside
its rules), so the adapters in ``interop/`` and the web table hold no game
names: they ask ``game.presentation()``.

Every view reads only the player's :class:`~spielwerk.core.game.InfoState`,
never the full State, so what a host library or a browser shows a player is,
by construction, what that player may know. The few table methods that take a
State use only what the rules make public (the played actions, a finished game).

The web table's face (``table = True``) has neutral defaults, so a game offers
the table by overriding what it shows differently: its view, action labels, the
summary of a finished game, its review. Work that an AI package beside the rules
does for the table (hints, a seat's review) is registered with
:func:`register_advice` when that package is imported, as its agents are.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spielwerk.core.errors import SpielwerkError

if TYPE_CHECKING:
    import numpy as np

    from spielwerk.core.game import Game, InfoState, State


class NoPresentationError(SpielwerkError):
    """A game that has no presentation (no tensors, no sizes for host libraries)."""


class RecordFormatError(SpielwerkError, ValueError):
    """A text record in a game's own format that cannot be read (its message says why)."""


_ADVICE: dict[str, dict[str, Callable[..., Any]]] = {}


def register_advice(game_name: str, **work: Callable[..., Any]) -> None:
    """Table work for ``game_name`` that lives beside its rules (an AI package the rules
    may not import): ``hint=f(info, seed, time_s) -> dict`` and ``seat_review=f(spec,
    history, seat) -> list``; registered when that package is imported."""
    _ADVICE.setdefault(game_name, {}).update(work)


@dataclass(frozen=True)
class Sizes:
    """What a host library must know up front (OpenSpiel's ``GameInfo``)."""

    num_actions: int
    """Player action ids are ``0 .. num_actions - 1`` (chance outcomes excluded)."""
    max_chance_outcomes: int
    max_game_length: int
    min_players: int
    max_players: int


@dataclass(frozen=True)
class LobbyField:
    """One field of the web lobby's "new table" form: a game parameter the person chooses.
    Its default is the game's own default for ``param``."""

    param: str
    """The game parameter the field sets (also the field's id: ``opt-<param>``)."""
    label: str
    kind: str = "number"
    """``number`` (``low`` .. ``high``), ``choice`` (one of ``choices``) or ``check``."""
    low: float | None = None
    high: float | None = None
    choices: tuple[tuple[Any, str], ...] = ()
    """``(value, text)`` per choice, in the order shown."""

    def web(self, defaults: dict[str, Any]) -> dict[str, Any]:
        """The field as the lobby page reads it (JSON-ready)."""
        return {"param": self.param, "label": self.label, "kind": self.kind,
                "default": defaults.get(self.param), "low": self.low, "high": self.high,
                "choices": [list(c) for c in self.choices]}


class Presentation(ABC):
    """A game's face to host libraries and people; built once per game
    (:meth:`spielwerk.core.game.Game.presentation`)."""

    def __init__(self, game: Game) -> None:
        self.game = game

    @abstractmethod
    def sizes(self) -> Sizes:
        """Action count, chance outcomes, game length and player counts."""

    @abstractmethod
    def tensor_size(self) -> int:
        """Length of the information-state tensor."""

    def tensor_high(self) -> float:
        """Largest value any entry of the tensor takes (1 unless counts are encoded)."""
        return 1.0

    @abstractmethod
    def encode_into(self, info: InfoState, out: np.ndarray) -> None:
        """Write the tensor of ``info`` into ``out``, which the caller has zeroed."""

    def view(self, info: InfoState) -> dict[str, Any]:
        """What ``info``'s player sees, JSON-ready, for a table of people: the seat, the
        player to move, the legal actions with their names and the readable text. A game
        adds its own fields (a board, hands, the trick) by overriding this."""
        legal = info.legal_actions() if not info.is_terminal() else []
        return {
            "game": self.game.spec(),
            "seat": info.player,
            "to_move": info.current_player,
            "over": info.is_terminal(),
            "legal": [{"action": a, "name": info.action_to_string(a)} for a in legal],
            "text": str(info),
        }

    # ----- the web table (spielwerk.web); every default is the plain, game-free answer
    table: bool = False
    """Whether the web table offers this game."""
    title: str = ""
    """The game's name for people (messages)."""
    default_opponents: tuple[str, ...] = ()
    """Preferred default opponents of the table, the first registered one wins."""
    record_format: str | None = None
    """The name of the game's own text record format (None: JSON records only)."""
    record_line: str = ""
    """What an upload in that format holds, for a message (e.g. "an ISS record line")."""
    undo_refusal: str = "nothing to take back"
    """The answer to an undo the table refuses (:meth:`can_undo` false)."""
    warm_stages: tuple[str, ...] = ("start",)
    """The decisions an engine warm-up makes (:meth:`warm_bot`, :meth:`at_stage`)."""
    lobby_rank: int = 100
    """The game's place in the lobby's list of games (lowest first, and chosen)."""
    lobby_fields: tuple[LobbyField, ...] = ()
    """The game parameters the lobby's "new table" form offers."""
    seats_param: str | None = None
    """The lobby field that sets the number of seats (None: the game's default count)."""
    spec_example: str = ""
    """An agent spec the lobby shows as an example (e.g. ``"mcts:worlds=20"``)."""
    web_scripts: tuple[str, ...] = ()
    """The game's page code: JavaScript files in the ``web/`` folder of the game's package
    that draw its table and register it with ``Spielwerk.registerGame``."""
    web_styles: tuple[str, ...] = ()
    """Style sheets in the same folder, loaded after the page's own."""

    def table_view(self, info: InfoState) -> dict[str, Any]:
        """The game's own fields of a table view of ``info`` (``legal``: ``{"id", "label",
        "kind"}`` per legal action); the web adds the common ones (seat, ply, ...)."""
        return {"legal": [{"id": a, "label": info.action_to_string(a), "kind": "action"}
                          for a in info.legal_actions()]}

    def table_extras(self, state: State) -> dict[str, Any]:
        """Public facts of the table beside the view (from the actions played only)."""
        return {}

    def action_label(self, state: State, action: int) -> str:
        """Public label of ``action``, just played in ``state``."""
        return state.action_to_string(action)

    def review_label(self, state: State, action: int) -> str:
        """Label of ``action`` (about to be played in ``state``) in a game's review."""
        return state.action_to_string(action)

    def refused_name(self, state: State, seat: int, action: int) -> str:
        """Name of an action ``seat`` sent that is not legal, revealing nothing the seat
        does not know."""
        return f"action {action}"

    def deal_spec(self, deal_no: int) -> str:
        """The spec of the ``deal_no``-th game of a series at one table (0: the first)."""
        return self.game.spec()

    def seat_refusal(self, seat: int) -> str | None:
        """Why a person may not take ``seat`` at a new table (None: they may)."""
        return None

    def hides_action(self, state: State) -> bool:
        """Whether the action now due in ``state`` is hidden from the other seats."""
        return False

    def can_undo(self, state: State, seat: int) -> bool:
        """Whether ``seat`` may take back its last action."""
        return False

    def series_entry(self, state: State) -> dict[str, Any] | None:
        """The list entry of a finished game in a series (``sf``: points per seat), or
        None where the game keeps no list."""
        return None

    def summary(self, state: State, seat: int) -> str:
        """One line on a finished game, for the person at ``seat``."""
        return "over"

    def final_reveal(self, state: State) -> dict[str, Any] | None:
        """What the rules show once ``state`` (finished) is over: every hand, ..."""
        return None

    def all_hands(self, state: State) -> list[list[str]] | None:
        """Every seat's hand in ``state`` (a review of a finished game), or None."""
        return None

    def has_text_record(self, state: State) -> bool:
        """Whether :meth:`write_text_record` can write the finished ``state``."""
        return False

    def write_text_record(self, state: State, players: list[str], game_id: str) -> str:
        """The finished ``state`` as a record in :attr:`record_format`."""
        raise RecordFormatError(f"{self.game.name} has no text record format")

    def read_text_record(self, text: str) -> tuple[State, list[str]] | None:
        """The game of a text record in :attr:`record_format` and notes for the person;
        None when ``text`` holds no such record, :class:`RecordFormatError` when it does
        but cannot be read."""
        return None

    def web_file(self, name: str) -> Path | None:
        """The file ``name`` of the game's page code, if the presentation declares it
        (:attr:`web_scripts`, :attr:`web_styles`) and it exists; None otherwise (no other
        file of the package is ever served)."""
        if name not in (*self.web_scripts, *self.web_styles):
            return None
        package = type(self).__module__.rpartition(".")[0]
        path = Path(str(resources.files(package) / "web" / name))
        return path if path.is_file() else None

    def lobby_limits(self) -> dict[str, Any] | None:
        """Limits of the lobby's number fields per agent name (None: none to limit)."""
        return None

    def warm_bot(self, stage: str) -> str | None:
        """The agent that plays the seats up to a warm-up ``stage`` (None: it is the
        first decision)."""
        return None

    def at_stage(self, state: State, stage: str) -> bool:
        """Whether ``state`` (a decision) is the warm-up's ``stage``."""
        return True

    def review(self, spec: str, history: list[int]) -> list[dict[str, Any]]:
        """The engine's verdict on the moves of a game record (empty: none)."""
        return []

    @property
    def has_hints(self) -> bool:
        return "hint" in _ADVICE.get(self.game.name, {})

    def hint(self, info: InfoState, seed: int, time_s: float) -> dict[str, Any]:
        """A hint for ``info``'s player, from its info state only (:func:`register_advice`)."""
        work = _ADVICE.get(self.game.name, {}).get("hint")
        if work is None:
            return {"kind": "none", "text": "this game has no hints"}
        made: dict[str, Any] = work(info, seed, time_s)
        return made

    def has_seat_review(self, state: State) -> bool:
        """Whether :meth:`seat_review` reviews anything for this game."""
        return "seat_review" in _ADVICE.get(self.game.name, {})

    def seat_review(self, spec: str, history: list[int], seat: int) -> list[dict[str, Any]]:
        """A review of ``seat``'s decisions from what it knew then (empty: none)."""
        work = _ADVICE.get(self.game.name, {}).get("seat_review")
        if work is None:
            return []
        made: list[dict[str, Any]] = work(spec, history, seat)
        return made


def bits_into(out: np.ndarray, offset: int, mask: int, width: int) -> None:
    """Ones at ``out[offset + i]`` for the set bits ``i < width`` of ``mask`` (card planes)."""
    for i in range(width):
        if mask >> i & 1:
            out[offset + i] = 1.0


def presentation_of(game: Game) -> Presentation:
    """The presentation of ``game``: the ``presentation(game)`` factory of the module
    ``presentation`` in the package of the game's class (the plugin convention, no game
    names here). Raises :class:`NoPresentationError` when there is none."""
    package = type(game).__module__.rpartition(".")[0]
    try:
        if not package:
            raise ModuleNotFoundError(name=".presentation")
        module = importlib.import_module(f"{package}.presentation")
    except ModuleNotFoundError as exc:
        if exc.name not in (f"{package}.presentation", ".presentation"):
            raise
        raise NoPresentationError(
            f"{game.name} has no presentation (no tensors or sizes for host libraries): "
            f"add {package}.presentation with a presentation(game) factory") from None
    made: Presentation = module.presentation(game)
    return made
