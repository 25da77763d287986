"""The web table's server state: tables in memory, connections and engine drivers.

:class:`Server` loads tables from the store on demand, applies the browser's
moves (checked: turn, legality, ply), drives the engine seats through the
engine pool off the event loop, and broadcasts each seat's view.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import secrets
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import WebSocket
from fastapi.responses import JSONResponse

from spielwerk.core.agent import default_opponent as game_default_opponent
from spielwerk.core.agent import make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import Game
from spielwerk.core.registry import list_games, load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.away import Presence
from spielwerk.web.driving import EngineDriver
from spielwerk.web.engines import EngineCancelled, EngineFailed, EnginePool, EngineTimeout
from spielwerk.web.seats import (
    PERSON,
    ConnectionLimit,
    Limits,
    RateLimit,
    from_this_machine,
    key_hash,
    key_matches,
    new_key,
    parse_seat,
)
from spielwerk.web.store import Store
from spielwerk.web.tables import DEFAULT_AWAY_S, Table, TableError
from spielwerk.web.warm import WARM_LIMIT_S, WARMING_NOTICE, WarmUp, share_out

log = logging.getLogger("spielwerk.web")

MAX_MESSAGE = 4096
MAX_UPLOAD = 1_000_000
HINT_MIN_S = 3.0  # the hint's time asked for; Skat's hint gives each run at least 10 s
"""A card hint's two PIMC runs (win shares, card points) get at least this many seconds
each (the table's engine time if more); they stop earlier once their worlds are solved."""
MAX_JSON_DEPTH = 32
"""Deepest nesting of lists and objects accepted in JSON from a browser (a table request
needs 2, a game record 2); deeper input is refused before it can exhaust the stack."""


def error_response(status: int, message: str) -> JSONResponse:
    """A refused request: ``{"error": message}`` with ``status``, and a log line."""
    log.warning("refused (%d): %s", status, message)
    return JSONResponse({"error": message}, status_code=status)


class ClientJSONError(ValueError):
    """JSON from a browser that the server does not read (its message goes back as is)."""


def json_depth(value: Any, limit: int) -> int:
    """The nesting depth of lists and objects in ``value`` (iterative: any depth is safe),
    counting stops once it exceeds ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((x, depth + 1) for x in item)
    return deepest


def parse_client_json(raw: str | bytes, what: str = "message") -> Any:
    """JSON text from a browser as Python data; :class:`ClientJSONError` with a one-line
    reason for text that is not JSON or nests deeper than ``MAX_JSON_DEPTH``."""
    too_deep = f"malformed {what}: nested too deeply (at most {MAX_JSON_DEPTH} levels)"
    try:
        value = json.loads(raw)
    except RecursionError:
        raise ClientJSONError(too_deep) from None
    except ValueError:  # also UnicodeDecodeError
        raise ClientJSONError(f"malformed {what}: not JSON") from None
    if json_depth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise ClientJSONError(too_deep)
    return value


@functools.cache
def web_games() -> tuple[str, ...]:
    """The registered games the table offers (their table face says so), by name."""
    out = []
    for entry in list_games():
        try:
            face = table_face(load_game(entry.name))
        except SpielwerkError:  # no table face, or no game without parameters
            continue
        if face.table:
            out.append(entry.name)
    return tuple(out)


LIMITS_FILE = "lobby-limits.json"
"""The lobby's probed limits, kept beside the kernels for these sources (a later start
answers the lobby at once instead of probing the agents again, seconds for Kalah's)."""
_saved: dict[str, Any] | None = None


def _limits_file() -> Path:
    from spielwerk._jit import kernel_folder

    return kernel_folder() / LIMITS_FILE


def _saved_limits() -> dict[str, Any]:
    """The limits an earlier start probed for these very sources (read once per process)."""
    global _saved
    if _saved is None:
        from spielwerk._jit import source_digest

        try:
            data = json.loads(_limits_file().read_text())
        except (OSError, ValueError):
            data = None
        ok = isinstance(data, dict) and data.get("digest") == source_digest() \
            and isinstance(data.get("games"), dict)
        _saved = dict(data["games"]) if ok else {}
    return _saved


def _save_limits(saved: dict[str, Any]) -> None:
    from spielwerk._jit import source_digest

    path = _limits_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        tmp.write_text(json.dumps({"digest": source_digest(), "games": saved}))
        tmp.replace(path)
    except OSError:  # a read-only cache folder: probed again next time
        pass


def lobby_limits(game: str) -> dict[str, Any] | None:
    """Limits of the lobby's number fields for ``game``, per agent name (None: no
    field to limit), probed on the game and agent code by the game's table face (once
    for these sources: kept in :data:`LIMITS_FILE`)."""
    saved = _saved_limits()
    if game in saved:
        value: dict[str, Any] | None = saved[game]
        return value
    value = table_face(load_game(game)).lobby_limits()
    saved[game] = value
    _save_limits(dict(saved))
    return value


def all_lobby_limits() -> None:
    """Probe every table game's lobby limits (seconds for a solver agent; cached)."""
    for game in web_games():
        lobby_limits(game)


MAX_NAME = 24


def player_names(raw: Any, agents: list[str | None]) -> list[str]:
    """The players' names at a table: ``raw`` (a list with one name or null per seat) where
    given, else "you" for the one person (``person (S)`` where several people sit) and the
    agent's name (with its seat) for an engine;
    names are trimmed printable text of at most :data:`MAX_NAME` characters."""
    n = len(agents)
    if raw is not None and (not isinstance(raw, list) or len(raw) != n or not all(
            x is None or isinstance(x, str) for x in raw)):
        raise TableError(f"names must be a list of {n} names (or null for the default)")
    out = []
    person = "you" if agents.count(None) == 1 else "person"
    for s, agent in enumerate(agents):
        given = raw[s] if raw is not None else None
        name = "".join(ch for ch in (given or "") if ch.isprintable()).strip()[:MAX_NAME]
        if not name:
            name = (person if person == "you" else f"person ({s})") if agent is None \
                else f"{agent.split(':')[0]} ({s})"
        out.append(name)
    if len(set(out)) != n:
        raise TableError("each player needs a different name")
    return out


def _static_dir() -> Path:
    return Path(str(resources.files("spielwerk.web") / "static"))


def default_opponent(game: str) -> str:
    """The game's preferred default opponent (:func:`spielwerk.core.agent.default_opponent`;
    the table lists all)."""
    return game_default_opponent(load_game(game))


class Server(EngineDriver, Presence, WarmUp):
    """Tables in memory (loaded from the store on demand), connections, engine drivers."""

    def warm_opponents(self) -> dict[str, str]:
        """Each table game's default opponent (the engines warm up with one decision each)."""
        return {g: default_opponent(g) for g in web_games()}

    def __init__(self, store: Store, pool: EnginePool, abandon_s: float = 10.0,
                 hard_limit_factor: float = 3.0, local_open: bool = True,
                 limits: Limits | None = None) -> None:
        self.store = store
        self.pool = pool
        self.abandon_s = abandon_s
        self.hard_limit_factor = hard_limit_factor
        self.tables: dict[str, Table] = {}
        self.conns: dict[str, dict[WebSocket, int | None]] = {}
        """Each table's connections and the seat of each (None: a spectator)."""
        self.local_open = local_open
        """Whether a one-person table opens by its id alone for a request from this machine
        (the server listens on this machine only); else every seat needs its key."""
        self.limits = limits or Limits()
        self.table_limit = RateLimit(self.limits.tables_per_minute, 60.0)
        self.message_limit = RateLimit(self.limits.messages_per_second, 1.0)
        self.connection_limit = ConnectionLimit(self.limits.connections)
        self.locks: dict[str, asyncio.Lock] = {}
        self.drivers: dict[str, asyncio.Task[None]] = {}
        self.cancels: dict[str, asyncio.Event] = {}
        self.thinking: dict[str, int | None] = {}
        self.abandoners: dict[str, asyncio.Task[None]] = {}
        self.seen: dict[str, set[int]] = {}
        self.away_timers: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.stats = {"errors_sent": 0, "actions": 0, "engine_moves": 0, "fallbacks": 0,
                      "cancelled": 0, "hints": 0}
        self.hinting: set[str] = set()
        self.warmed = 0
        # set while no warm-up runs: an engine move or hint waits for it (never compiles)
        self.warm_done = asyncio.Event()
        self.warm_done.set()
        self.side_tasks: set[asyncio.Task[None]] = set()

    # ----- tables
    def create_table(self, body: dict[str, Any]) -> Table:
        game_name = body.get("game")
        if not isinstance(game_name, str) or game_name not in web_games():
            raise TableError(f"unknown game {game_name!r}; the table plays "
                             f"{', '.join(web_games())}")
        params = body.get("params") or {}
        if not isinstance(params, dict):
            raise TableError("params must be an object of game parameters")
        params = {str(k): str(v).lower() if isinstance(v, bool) else str(v)
                  for k, v in params.items()}
        game = load_game(game_name, **params)
        seat, agents = self._seats(body, game, game_name)
        budget = body.get("time", 2.0)
        if isinstance(budget, bool) or not isinstance(budget, int | float) or not (
                0.05 <= float(budget) <= 60):
            raise TableError("time per engine move must be 0.05 to 60 seconds")
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbits(31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise TableError("seed must be a non-negative integer")
        keys = {s: new_key() for s, a in enumerate(agents) if a is None}
        away_s, stand_in = self._away(body, game, game_name)
        config = {"game": game_name, "spec": game.spec(), "seat": seat, "agents": agents,
                  "time": float(budget), "seed": int(seed), "away_s": away_s,
                  "stand_in": stand_in,
                  "names": player_names(body.get("names"), agents),
                  "keys": {str(s): key_hash(k) for s, k in keys.items()}}  # hashes only
        table_id = secrets.token_hex(12)
        table = Table(table_id, config, [])
        table.issued_keys = keys
        # only in the store: a table enters memory when a browser opens it (get_table with
        # keep) and leaves it abandon_s after the last one went, so tables created and
        # never opened cannot pile up in memory
        self.save(table)
        log.info("table %s created: %s, people at %s, engines %s", table_id, game.spec(),
                 table.persons, ", ".join(a for a in agents if a is not None) or "none")
        return table

    def _seats(self, body: dict[str, Any], game: Game, game_name: str
               ) -> tuple[int, list[str | None]]:
        """The creator's seat and each seat's agent (None: a person) of a new table: from
        ``seats`` (``"person"`` or an agent spec per seat), else the single-person form
        (``seat`` and ``opponents``)."""
        n = game.num_players
        raw = body.get("seats")
        if raw is not None:
            if not isinstance(raw, list) or len(raw) != n or not all(
                    isinstance(x, str) and 0 < len(x) <= 200 for x in raw):
                raise TableError(f"seats must be a list of {n} entries, each \"{PERSON}\" or "
                                 "an agent spec")
            agents: list[str | None] = [None if x == PERSON else x for x in raw]
            persons = [s for s, a in enumerate(agents) if a is None]
            if not persons:
                raise TableError(f"a table needs at least one \"{PERSON}\" seat")
            seat = body.get("seat", persons[0])
            if seat not in persons or isinstance(seat, bool):
                raise TableError(f"seat (yours) must be one of the person seats {persons}")
        else:
            seat = body.get("seat", 0)
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise TableError(f"seat must be a number 0..{n - 1}")
            opponents = body.get("opponents")
            if opponents is None:
                opponents = [default_opponent(game_name)] * (n - 1)
            if (not isinstance(opponents, list) or len(opponents) != n - 1
                    or not all(isinstance(o, str) and 0 < len(o) <= 200 for o in opponents)):
                raise TableError(f"{game.name} needs {n - 1} opponent agent spec(s)")
            it = iter(opponents)
            agents = [None if s == seat else next(it) for s in range(n)]
            persons = [seat]
        for s in persons:
            refusal = table_face(game).seat_refusal(s)
            if refusal is not None:
                raise TableError(refusal)
        for spec in agents:
            if spec is None:
                continue
            try:  # validates name and parameters, and that the agent plays this game
                make_agent(spec, game, seed=0)
            except SpielwerkError as exc:
                raise TableError(f"the opponent {spec!r} cannot play {game.name} "
                                 f"{game.spec()}: {str(exc).splitlines()[0]}") from None
        return int(seat), agents

    def _away(self, body: dict[str, Any], game: Game, game_name: str
              ) -> tuple[float | None, str]:
        """A new table's ``away_s`` (seconds a person may be away before the stand-in plays
        their seat; None or "never": never) and ``stand_in`` (an agent spec, default the
        game's default opponent)."""
        away_s = body.get("away_s", DEFAULT_AWAY_S)
        if away_s == "never":
            away_s = None
        if away_s is not None and (isinstance(away_s, bool) or not isinstance(
                away_s, int | float) or not 0 <= away_s <= 86400):
            raise TableError("away_s must be 0 to 86400 seconds, or null or \"never\"")
        stand_in = body.get("stand_in") or default_opponent(game_name)
        if not isinstance(stand_in, str) or len(stand_in) > 200:
            raise TableError("stand_in must be an agent spec")
        try:
            make_agent(stand_in, game, seed=0)
        except SpielwerkError as exc:
            raise TableError(f"the stand-in {stand_in!r} cannot play {game.name} "
                             f"{game.spec()}: {str(exc).splitlines()[0]}") from None
        return None if away_s is None else float(away_s), stand_in

    def default_stand_in(self, table: Table) -> str:
        """The stand-in of a table that names none: the game's default opponent."""
        return default_opponent(table.config["game"]) if isinstance(
            table.config.get("game"), str) else default_opponent(table.state.game.name)

    def get_table(self, table_id: str, keep: bool = False) -> Table | None:
        """The table in memory, else loaded from the store (None: no such table); ``keep``
        holds a loaded table in memory (a browser opens it and will be connected), else
        it is a copy for one answer and memory is unchanged."""
        if table_id in self.tables:
            return self.tables[table_id]
        if not (0 < len(table_id) <= 64 and table_id.isalnum()):
            return None
        row = self.store.load_table(table_id)
        if row is None:
            return None
        table = Table(table_id, row["config"], row["history"], row["deal_no"], row["series"])
        if table.state.is_terminal():  # its record was stored when it ended: keep the links
            table.finished_game_id = self.store.find_game(table_id, table.history)
        if keep:
            self.tables[table_id] = table
        return table

    def lock(self, table_id: str) -> asyncio.Lock:
        return self.locks.setdefault(table_id, asyncio.Lock())

    def save(self, table: Table) -> None:
        self.store.save_table(table.id, table.config, table.history, table.deal_no, table.series)

    def after_action(self, table: Table) -> None:
        """Persist; store a finished game as its record."""
        if table.state.is_terminal() and table.finished_game_id is None:
            table.record_finish()
            players = table.shown_names(played=True)
            table.finished_game_id = self.store.add_game(
                table.state.game.spec(), table.history, table.seat, players, table.summary(),
                table_id=table.id, persons=table.persons,
            )
        self.save(table)

    def is_local(self, client: Any, headers: Mapping[str, str]) -> bool:
        """Whether a request is from this machine to a server on this machine only."""
        return self.local_open and from_this_machine(client, headers)

    def seat_access(self, table_id: str, params: Mapping[str, str], client: Any,
                    headers: Mapping[str, str]) -> tuple[Table | None, int | None] | None:
        """Who a request may be: ``(table, seat)`` for a person seat (its key given),
        ``(table, None)`` for a spectator (``spectate=1``), ``(None, None)`` for an
        unknown table asked for by id alone from this machine (as before keys); None:
        refused (a wrong, missing or other seat's key, an unknown table). A one-person
        table opens by its id alone (its creator's seat) only for :meth:`is_local`."""
        seat_raw, key = params.get("seat"), params.get("key")
        if params.get("spectate") == "1" and seat_raw is None and key is None:
            table = self._quiet_table(table_id)
            return None if table is None else (table, None)
        if seat_raw is None and key is None:
            if not self.is_local(client, headers):
                return None
            table = self.get_table(table_id)  # a damaged table raises: said as before
            if table is None:
                return None, None
            return (table, table.seat) if len(table.persons) == 1 else None
        table = self._quiet_table(table_id)
        if table is None:
            return None
        seat = parse_seat(seat_raw, len(table.agents))
        if seat is None or not key_matches(key, table.key_hashes.get(seat)):
            return None
        return table, seat

    def _quiet_table(self, table_id: str) -> Table | None:
        """The table, None where unknown or damaged (a refusal does not tell which)."""
        try:
            return self.get_table(table_id)
        except SpielwerkError:
            return None

    # ----- sending
    async def send(self, ws: WebSocket, msg: dict[str, Any]) -> bool:
        try:
            await ws.send_text(json.dumps(msg))
            return True
        except Exception:  # noqa: BLE001 - a closed socket is dropped by the receiver
            return False

    def message(self, table: Table, seat: int | None) -> dict[str, Any]:
        """The view message for the browsers of ``seat`` (None: a spectator's)."""
        return table.message(self.thinking.get(table.id), seat=seat, public=seat is None,
                             joined=self.joined(table.id), away=self.away(table))

    async def broadcast(self, table: Table, msg: dict[str, Any] | None = None) -> None:
        """``msg`` to every browser of the table; none: each its own seat's view."""
        conns = list(self.conns.get(table.id, {}).items())
        views: dict[int | None, dict[str, Any]] = {}
        for ws, seat in conns:
            if msg is None and seat not in views:
                views[seat] = self.message(table, seat)
            await self.send(ws, msg if msg is not None else views[seat])

    async def error(self, ws: WebSocket, table_id: str, message: str) -> None:
        self.stats["errors_sent"] += 1
        log.warning("table %s: refused: %s", table_id, message)
        await self.send(ws, {"type": "error", "message": message})

    # ----- hints
    async def start_hint(self, ws: WebSocket, table: Table, seat: int) -> None:
        """Compute a hint for the person (on their turn, in a game with hints) in an engine
        worker; the answer ``{"type": "hint", "ply", "hint"}`` comes when it is ready, the
        socket keeps serving meanwhile."""
        st = table.state
        if not table_face(st.game).has_hints:
            titles = [face.title for face in (table_face(load_game(g)) for g in web_games())
                      if face.has_hints]
            await self.error(ws, table.id, f"hints exist for {' and '.join(titles)} tables")
            return
        if st.is_terminal() or st.current_player != seat:
            await self.error(ws, table.id, "a hint is given on your turn")
            return
        if table.id in self.hinting:
            await self.error(ws, table.id, "a hint is being worked out; it comes shortly")
            return
        ply = len(table.history)
        seed = int(np.random.default_rng([table.seed, table.deal_no, ply, seat, 7])
                   .integers(2**31))
        work = {"spec": st.game.spec(), "history": list(table.history), "seat": seat,
                "seed": seed, "time_s": max(HINT_MIN_S, table.budget_s)}
        self.hinting.add(table.id)
        task = asyncio.create_task(self._hint(ws, table, ply, work))
        self.side_tasks.add(task)
        task.add_done_callback(self.side_tasks.discard)

    async def _hint(self, ws: WebSocket, table: Table, ply: int, work: dict[str, Any]) -> None:
        try:
            if not await self.wait_warm(table, self.cancels.get(table.id)):
                return
            limit = 3 * float(work["time_s"]) + 30.0
            hint = await self.pool.run("hint", work, limit, self.cancels.get(table.id))
            self.stats["hints"] += 1
            await self.send(ws, {"type": "hint", "ply": ply, "hint": hint})
        except (EngineTimeout, EngineFailed, EngineCancelled) as exc:
            # the error text may name the seat's cards only, but the log has it, not the page
            log.warning("table %s: hint failed: %s", table.id, exc)
            await self.error(ws, table.id, "the hint could not be worked out; try again")
        finally:
            self.hinting.discard(table.id)

    async def shutdown(self) -> None:
        for ev in self.cancels.values():
            ev.set()
        tasks = [t for t in self.drivers.values() if not t.done()]
        for t in tasks:
            t.cancel()
        for t in [*self.abandoners.values(), *self.away_timers.values()]:
            t.cancel()
        for t in list(self.side_tasks):
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ----- websocket messages
    async def handle(self, ws: WebSocket, table: Table, text: str,
                     seat: int | None = -1) -> None:
        """A browser's message; ``seat``: the person seat it joined (None: a spectator;
        the default: the creator's seat)."""
        me = table.seat if seat == -1 else seat
        if len(text) > MAX_MESSAGE:
            await self.error(ws, table.id, f"message too large ({len(text)} bytes; at most "
                                           f"{MAX_MESSAGE})")
            return
        try:
            msg = parse_client_json(text)
        except ClientJSONError as exc:
            await self.error(ws, table.id, str(exc))
            return
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            await self.error(ws, table.id, "malformed message: expected an object with a 'type'")
            return
        kind = msg["type"]
        if kind == "ping":
            await self.send(ws, {"type": "pong"})
            return
        if kind == "view":
            await self.send(ws, self.message(table, me))
            return
        if me is None:
            await self.error(ws, table.id, "a spectator watches: no moves, hints or undo")
            return
        if kind == "hint":
            await self.start_hint(ws, table, me)
            return
        try:
            async with self.lock(table.id):
                if kind == "act":
                    table.human_act(msg.get("action"), msg.get("ply"), me)
                    self.stats["actions"] += 1
                elif kind == "next":
                    table.next_game()
                elif kind == "undo":
                    table.undo(me)
                else:
                    raise TableError(f"unknown message type {kind[:40]!r}; expected act, "
                                     "undo, hint, next, view or ping")
                self.after_action(table)
        except TableError as exc:
            await self.error(ws, table.id, str(exc))
            return
        except Exception:  # noqa: BLE001 - a bug must not drop the table or the server
            log.exception("table %s: internal error on %s", table.id, text[:200])
            await self.error(ws, table.id, "internal error: the move was not played")
            return
        await self.broadcast(table)
        self.ensure_driver(table)


__all__ = ["WARMING_NOTICE", "WARM_LIMIT_S", "Server", "share_out"]
