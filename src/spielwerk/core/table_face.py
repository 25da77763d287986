"""The table face of a game: what people see of it at the web table and in its lobby.

A seat's view and the labels of actions, the lobby's form, the page code that draws the
table, the summary and reveal of a finished game, reviews, hints, undo and the engine
warm-up, and the defaults the terminal shares with the table (the default opponents:
:func:`spielwerk.core.agent.default_opponent`). Each game answers these in
``table_face.py`` of its own package (a ``table_face(game)`` factory, found by
:func:`table_face`), so the web table holds no game names.

Every view reads only the seat's :class:`~spielwerk.core.game.InfoState`, never the full
State, so what a browser shows a player is, by construction, what that player may know.
The few methods that take a State use only what the rules make public (the played
actions, a finished game).

Every default is the plain, game-free answer, so a game offers the table
(``table = True``) by overriding what it shows differently: its view, action labels, the
summary of a finished game, its review. Work that an AI package beside the rules does for
the table (hints, a seat's review) is registered with :func:`register_advice` when that
package is imported, as its agents are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spielwerk.core.faces import find_face

if TYPE_CHECKING:
    from spielwerk.core.game import Game, InfoState, State

_ADVICE: dict[str, dict[str, Callable[..., Any]]] = {}


def register_advice(game_name: str, **work: Callable[..., Any]) -> None:
    """Table work for ``game_name`` that lives beside its rules (an AI package the rules
    may not import): ``hint=f(info, seed, time_s) -> dict`` and ``seat_review=f(spec,
    history, seat) -> list``; registered when that package is imported."""
    _ADVICE.setdefault(game_name, {}).update(work)


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


class TableFace:
    """A game's face to people; built once per game (:func:`table_face`)."""

    table: bool = False
    """Whether the web table offers this game."""
    title: str = ""
    """The game's name for people (messages)."""
    default_opponents: tuple[str, ...] = ()
    """Default opponents at the table and in ``spielwerk play``, strongest measured first."""
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
    """The page code: scripts in the package's ``web/`` (``Spielwerk.registerGame``)."""
    web_styles: tuple[str, ...] = ()
    """Style sheets in the same folder, loaded after the page's own."""

    def __init__(self, game: Game) -> None:
        self.game = game

    # ----- a seat's view and the names of actions
    def table_view(self, info: InfoState) -> dict[str, Any]:
        """The game's own fields of a table view of ``info`` (``legal``: ``{"id", "label",
        "kind"}`` per legal action); the web adds the common ones (seat, ply, ...)."""
        return {"legal": [{"id": a, "label": info.action_to_string(a), "kind": "action"}
                          for a in info.legal_actions()]}

    def public_view(self, state: State) -> dict[str, Any]:
        """The game's own fields of a spectator's view: what the whole table may see (no
        hand of anyone). The safe default shows nothing of the game beyond the common
        fields and :meth:`table_extras`; a game may show its public cards or board."""
        return {}

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
        """Name of an illegal action ``seat`` sent, revealing nothing the seat does not know."""
        return f"action {action}"

    def hides_action(self, state: State) -> bool:
        """Whether the action now due in ``state`` is hidden from the other seats."""
        return False

    def seat_labels(self) -> list[str]:
        """A label for each seat, for the lobby's choice of the person's seat."""
        return [f"seat {s}" for s in range(self.game.num_players)]

    def heading(self) -> str:
        """The game in words for people (the table's header; the spec stays beside it)."""
        return self.title or self.game.name

    # ----- a table and its series
    def deal_spec(self, deal_no: int) -> str:
        """The spec of the ``deal_no``-th game of a series at one table (0: the first)."""
        return self.game.spec()

    def seat_refusal(self, seat: int) -> str | None:
        """Why a person may not take ``seat`` at a new table (None: they may)."""
        return None

    def can_undo(self, state: State, seat: int) -> bool:
        """Whether ``seat`` may take back its last action."""
        return False

    def series_entry(self, state: State) -> dict[str, Any] | None:
        """The list entry of a finished game in a series (``sf``: points per seat), or
        None where the game keeps no list."""
        return None

    record_score: str = "won - lost"
    """What a person's record adds up per game (:meth:`record_row`'s ``score``)."""

    def record_row(self, state: State, seat: int) -> dict[str, Any]:
        """A finished game in the record of the person at ``seat``: ``result`` (``"won"``,
        ``"lost"`` or ``"drawn"``), ``score`` (what :attr:`record_score` adds up) and
        ``declared`` (the game type ``seat`` declared, None where it declared none). By
        default from the returns: the seat won with the best return that not every seat
        has, drew when all are equal; 1, -1 or 0 points."""
        returns = state.returns()
        if max(returns) == min(returns):
            return {"result": "drawn", "score": 0, "declared": None}
        won = returns[seat] == max(returns)
        return {"result": "won" if won else "lost", "score": 1 if won else -1,
                "declared": None}

    # ----- a finished game
    def summary(self, state: State, seat: int) -> str:
        """One line on a finished game, for the person at ``seat``."""
        return "over"

    def named_summary(self, state: State, seat: int, names: list[str]) -> str:
        """:meth:`summary` with the players named as the table names them (``names`` by
        seat) wherever it speaks of a seat; by default the summary itself."""
        return self.summary(state, seat)

    def final_reveal(self, state: State) -> dict[str, Any] | None:
        """What the rules show once ``state`` (finished) is over: every hand, ..."""
        return None

    def all_hands(self, state: State) -> list[list[str]] | None:
        """Every seat's hand in ``state`` (a review of a finished game), or None."""
        return None

    # ----- the page, the lobby and the engine warm-up
    def web_file(self, name: str) -> Path | None:
        """The file ``name`` of the game's page code, if the face declares it
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

    # ----- reviews and hints
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


def table_face(game: Game) -> TableFace:
    """The table face of ``game``: ``table_face(game)`` of the module ``table_face`` in
    the package of the game's class. Raises :class:`~spielwerk.core.faces.NoFaceError`
    when there is none."""
    face: TableFace = find_face(game, "table_face", "table_face", TableFace,
                                "table face (no view or defaults for the table and the terminal)")
    return face
