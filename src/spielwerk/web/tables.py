"""A table: people's seats and engine seats, a game in progress, a series of games.

The server is authoritative: the browser sends only the action it chose (with
the ply it saw, so a repeated or stale message is refused rather than played
twice); :meth:`Table.human_act` checks turn and legality with the rules engine
before anything changes. Chance (the deal) is drawn from the table's seed, the
deal number and the ply, so a restarted server replays the same game.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.faces import NoFaceError
from spielwerk.core.game import CHANCE, Game, State, sample_chance
from spielwerk.core.record_format import RecordFormat, record_format
from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.views import action_label, public_view, seat_view

log = logging.getLogger("spielwerk.web")

DEFAULT_AWAY_S = 60.0
"""Seconds a person may be away (all their connections closed) before an engine plays
their seat, unless the table chose otherwise (``away_s``)."""


class TableError(SpielwerkError):
    """A request the table refuses; the message goes to that browser only."""


def own_record_format(game: Game) -> RecordFormat:
    """The game's record format face; the plain one (JSON records only) for a table game
    whose package has none."""
    try:
        return record_format(game)
    except NoFaceError:
        return RecordFormat(game)


class Table:
    """State and bookkeeping of one table (no I/O here; the app persists and sends)."""

    def __init__(self, table_id: str, config: dict[str, Any], history: list[int],
                 deal_no: int = 0, series: list[dict[str, Any]] | None = None) -> None:
        self.id = table_id
        self.config = config
        self.deal_no = deal_no
        self.seat, self.agents, self.seed, self.budget_s = self._check_config(config)
        self.persons = [s for s, a in enumerate(self.agents) if a is None]
        """The people's seats (the creator's is :attr:`seat`)."""
        keys = config.get("keys")
        self.key_hashes: dict[int, str] = {
            int(k): str(v) for k, v in keys.items()
            if str(k).isdigit() and int(k) in self.persons and isinstance(v, str)
        } if isinstance(keys, dict) else {}
        """sha256 of each person seat's key (none for a table stored before keys)."""
        self.names = self._names(config.get("names"))
        away_s = config.get("away_s", DEFAULT_AWAY_S)
        self.away_s: float | None = float(away_s) if isinstance(away_s, int | float) and \
            not isinstance(away_s, bool) and away_s >= 0 else None
        """Seconds a person may be away before the stand-in plays their seat (None: never)."""
        stand_in = config.get("stand_in")
        self.stand_in: str | None = stand_in if isinstance(stand_in, str) else None
        """The agent spec that plays for an away person (None: the game's default)."""
        self.standing_in = self._seat_set(config.get("standing_in"))
        """The person seats the stand-in plays now (its owner is away)."""
        self.stood_in = self._seat_set(config.get("stood_in"))
        """The person seats the stand-in moved for in this deal (named so in its record)."""
        self.series: list[dict[str, Any]] = list(series or [])
        self._check_series()
        self.last: dict[str, Any] | None = None
        self.issued_keys: dict[int, str] = {}
        """The person seats' keys of a table just created (never stored: the store keeps
        their hashes); the creator gets them once, in the links."""
        self.finished_game_id: int | None = None
        self.state = self._replay(history)

    def damaged(self, what: str) -> TableError:
        return TableError(f"table {self.id} is damaged in the database ({what}); start a "
                          "new table")

    def _check_config(self, config: dict[str, Any]) -> tuple[int, list[str | None], int,
                                                              float]:
        """Seat, agents, seed and time of a stored configuration, checked: a damaged one
        raises :class:`TableError` naming what is wrong (never a KeyError or TypeError)."""
        if not isinstance(config, dict):
            raise self.damaged("its configuration is not an object")
        missing = [k for k in ("spec", "seat", "agents", "seed", "time") if k not in config]
        if missing:
            raise self.damaged(f"its configuration lacks {', '.join(map(repr, missing))}")
        spec, seat, agents = config["spec"], config["seat"], config["agents"]
        seed, budget = config["seed"], config["time"]
        if not isinstance(spec, str):
            raise self.damaged("its game spec is not a string")
        try:
            game = load_game(spec)
        except SpielwerkError as exc:
            raise self.damaged(f"its game spec: {str(exc).splitlines()[0]}") from None
        n = game.num_players
        if not isinstance(self.deal_no, int) or isinstance(self.deal_no, bool) or (
                self.deal_no < 0):
            raise self.damaged("its deal number is not a non-negative integer")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise self.damaged(f"its seat is not a number 0..{n - 1}")
        if not isinstance(agents, list) or len(agents) != n or agents[seat] is not None or any(
                not isinstance(a, str | None) for a in agents):
            raise self.damaged(f"its agents are not {n} entries, an agent spec for each "
                               "engine seat and null for a person's")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise self.damaged("its seed is not an integer")
        if isinstance(budget, bool) or not isinstance(budget, int | float) or not budget > 0:
            raise self.damaged("its time per engine move is not a positive number")
        return seat, list(agents), seed, float(budget)

    def _names(self, raw: Any) -> list[str]:
        """The stored players' names, else (a table from before names, or damaged names)
        "you" and each engine's agent spec."""
        n = len(self.agents)
        if isinstance(raw, list) and len(raw) == n and all(isinstance(x, str) for x in raw):
            return [str(x) for x in raw]
        return ["you" if a is None else f"{a} ({s})" for s, a in enumerate(self.agents)]

    def _seat_set(self, raw: Any) -> set[int]:
        """A stored list of person seats (anything else is no seat)."""
        if not isinstance(raw, list):
            return set()
        return {s for s in raw if isinstance(s, int) and s in self.persons}

    def _sync(self) -> None:
        """Write the stand-in's seats into the configuration (the store keeps them)."""
        self.config["standing_in"] = sorted(self.standing_in)
        self.config["stood_in"] = sorted(self.stood_in)

    def stand_in_for(self, seat: int, spec: str) -> None:
        """From now on the stand-in ``spec`` plays the away person's ``seat``."""
        self.stand_in = self.stand_in or spec
        self.config["stand_in"] = self.stand_in
        self.standing_in.add(seat)
        self._sync()

    def hand_back(self, seat: int) -> bool:
        """The person of ``seat`` is back: they decide from the next decision on (whether
        the stand-in played the seat)."""
        if seat not in self.standing_in:
            return False
        self.standing_in.discard(seat)
        self._sync()
        return True

    def agent_of(self, seat: int) -> str | None:
        """The agent spec that moves for ``seat`` now (None: its person)."""
        if seat in self.standing_in:
            return self.stand_in
        return self.agents[seat]

    def shown_names(self, played: bool = False) -> list[str]:
        """The players' names, a seat the stand-in plays now named so ("Anna (knn
        playing)"); ``played``: also a seat it moved for in this deal (the record's)."""
        stood = self.standing_in | (self.stood_in if played else set())
        name = (self.stand_in or "").split(":")[0]
        return [f"{n} ({name} playing)" if s in stood and self.stand_in else n
                for s, n in enumerate(self.names)]

    def _check_series(self) -> None:
        for entry in self.series:
            sf = entry.get("sf") if isinstance(entry, dict) else None
            if not isinstance(sf, list) or len(sf) != len(self.agents) or not all(
                    isinstance(x, int | float) and not isinstance(x, bool) for x in sf):
                raise self.damaged("its list of deals is not readable")

    # ----- game of the current deal
    def current_spec(self) -> str:
        return table_face(load_game(self.config["spec"])).deal_spec(self.deal_no)

    def _replay(self, history: list[int]) -> State:
        state = load_game(self.current_spec()).new_initial_state()
        for ply, a in enumerate(history):
            try:
                state.apply(int(a))
            except (SpielwerkError, ValueError, TypeError, IndexError, OverflowError) as exc:
                # the rules' message names the legal moves of the player to move (maybe
                # an engine's cards): it goes to the server log only, never to a browser
                log.warning("table %s: stored game cannot be replayed at ply %d: %s",
                            self.id, ply, str(exc).splitlines()[0] if str(exc) else exc)
                raise self.damaged(f"its stored game cannot be replayed: action {ply + 1} "
                                   f"of {len(history)} is not legal there") from None
        self._chance(state)
        return state

    def _chance(self, state: State) -> None:
        while state.current_player == CHANCE:
            rng = np.random.default_rng([self.seed, self.deal_no, len(state.history)])
            state.apply(sample_chance(state, rng))

    @property
    def history(self) -> list[int]:
        return self.state.history

    def engine_seat(self) -> int | None:
        """The engine seat to move, or None (a person's turn or the game is over)."""
        cur = self.state.current_player
        if cur < 0 or self.agent_of(cur) is None:
            return None
        return cur

    # ----- actions
    def human_act(self, action: Any, ply: Any, seat: int | None = None) -> None:
        """The move of the person at ``seat`` (the creator's by default), checked."""
        seat = self.seat if seat is None else seat
        st = self.state
        if isinstance(action, bool) or not isinstance(action, int):
            raise TableError("malformed message: 'action' must be an integer action id")
        if isinstance(ply, bool) or not isinstance(ply, int):
            raise TableError("malformed message: 'ply' must be the integer ply you saw")
        if st.is_terminal():
            raise TableError("the game is over; start the next one")
        if ply != len(st.history):
            raise TableError(f"stale move: the table is at ply {len(st.history)}, your message "
                             f"was for ply {ply} (not played twice)")
        if st.current_player != seat:
            raise TableError(f"it is not your turn: seat {st.current_player} is to move")
        legal = st.legal_actions()
        if action not in legal:
            names = ", ".join(action_label(st, a) for a in legal[:40])
            what = self._describe_refused(action, seat)
            raise TableError(f"{what} is not a legal move now; legal: {names}")
        self.apply(action)

    def _describe_refused(self, action: int, seat: int) -> str:
        # name a refused action without revealing anything: only the seat's own things
        return table_face(self.state.game).refused_name(self.state, seat, action)

    def apply(self, action: int) -> None:
        """Apply a legal action of the player to move, then any chance that follows."""
        st = self.state
        seat = st.current_player
        is_put = table_face(st.game).hides_action(st)  # e.g. a card put away unseen
        if seat in self.standing_in and seat not in self.stood_in:
            self.stood_in.add(seat)
            self._sync()
        st.apply(action)
        self._chance(st)
        self.last = {"seat": seat, "action": action, "put": is_put,
                     "label": action_label(st, action) if not is_put else "puts a card"}

    def can_undo(self, seat: int | None = None) -> bool:
        """Whether the person at ``seat`` may take back their last action (the game says
        which: e.g. a card put away, until the game is declared)."""
        return table_face(self.state.game).can_undo(self.state,
                                                     self.seat if seat is None else seat)

    def undo(self, seat: int | None = None) -> None:
        """Take back the person's last action (see :meth:`can_undo`)."""
        if not self.can_undo(seat):
            raise TableError(table_face(self.state.game).undo_refusal)
        self.state = self._replay(self.history[:-1])
        self.last = None

    def next_game(self) -> None:
        if not self.state.is_terminal():
            raise TableError("the game is still running")
        self.deal_no += 1
        self.stood_in = set(self.standing_in)
        self._sync()
        self.last = None
        self.finished_game_id = None
        self.state = self._replay([])

    def record_finish(self) -> dict[str, Any] | None:
        """The list entry of a finished deal (appended to the series) where the game
        keeps a list: its result and each seat's list points (``sf``)."""
        entry = table_face(self.state.game).series_entry(self.state)
        if entry is None:
            return None
        entry = {"deal": self.deal_no + 1, **entry}
        self.series.append(entry)
        return entry

    def has_iss_record(self) -> bool:
        """Whether a text record of the finished game exists (the game's own format)."""
        st = self.state
        return bool(st.is_terminal() and own_record_format(st.game).has_text_record(st))

    def summary(self) -> str:
        st = self.state
        if not st.is_terminal():
            return "unfinished"
        return table_face(st.game).named_summary(st, self.seat, self.shown_names(True))

    # ----- messages
    def message(self, thinking: int | None = None, seat: int | None = None,
                public: bool = False, joined: list[int] | None = None,
                away: list[int] | None = None) -> dict[str, Any]:
        """The full message for the browser(s) of ``seat`` (the creator's by default):
        that seat's view plus table facts; ``public``: a spectator's (the public view)."""
        seat = self.seat if seat is None else seat
        view = public_view(self.state) if public else seat_view(self.state, seat)
        last = None
        if self.last is not None:
            last = {k: self.last[k] for k in ("seat", "label")}
            if not self.last["put"]:
                last["action"] = self.last["action"]
        totals = None
        if self.series:
            n = len(self.series[0]["sf"])
            totals = [sum(e["sf"][s] for e in self.series) for s in range(n)]
        return {
            "type": "view",
            "table": {
                "id": self.id, "seat": None if public else seat, "agents": self.agents,
                "names": self.shown_names(), "persons": self.persons,
                "joined": joined or [], "away": away or [],
                "stand_ins": {str(s): self.stand_in for s in sorted(self.standing_in)},
                "away_s": self.away_s,
                "spectator": public,
                "time": self.budget_s,
                "deal_no": self.deal_no, "series": self.series, "totals": totals,
                "game_id": self.finished_game_id, "iss": self.has_iss_record(),
                "can_undo": not public and self.can_undo(seat),
                "hints": not public and table_face(self.state.game).has_hints,
            },
            "view": view,
            "last": last,
            "thinking": thinking,
        }


def lobby_entry(row: dict[str, Any], joined: list[int] | None = None) -> dict[str, Any]:
    """One of the lobby's "your tables" from a stored row (``Store.list_tables``): the game,
    when it was created and last played, who plays which seat, how many games (deals) are
    finished and how it stands now (your turn, who is to move, over). Nothing of the
    history itself: it holds the deal."""
    entry = {k: row.get(k) for k in ("id", "game", "spec", "opponents", "deal_no", "created",
                                     "updated")}
    try:
        table = Table(str(row["id"]), row["config"], row["history"], row["deal_no"],
                      row["series"])
    except (SpielwerkError, KeyError, TypeError, ValueError):
        return {**entry, "names": None, "seat": None, "finished": None, "status": "damaged"}
    st = table.state
    entry["heading"] = table_face(st.game).heading()
    cur = st.current_player
    if st.is_terminal():
        status = "over"
    elif cur == table.seat:
        status = "your turn"
    else:
        status = f"{table.names[cur]} to move" if 0 <= cur < len(table.names) else "in play"
    return {**entry, "names": table.shown_names(), "seat": table.seat, "persons": table.persons,
            "joined": joined or [],
            "finished": table.deal_no + int(st.is_terminal()), "status": status}
