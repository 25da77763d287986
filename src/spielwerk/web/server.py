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
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import WebSocket
from fastapi.responses import JSONResponse

from spielwerk.core.agent import AgentSpec, make_agent
from spielwerk.core.agent import default_opponent as game_default_opponent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.registry import list_games, load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.engines import EngineCancelled, EngineFailed, EnginePool, EngineTimeout
from spielwerk.web.store import Store
from spielwerk.web.tables import Table, TableError

log = logging.getLogger("spielwerk.web")

MAX_MESSAGE = 4096
MAX_UPLOAD = 1_000_000
HINT_MIN_S = 3.0  # the hint's time asked for; Skat's hint gives each run at least 10 s
WARM_LIMIT_S = 900.0
"""The most a worker's warm-up may take (compiling every kernel on a slow machine)."""
WARMING_NOTICE = ("the engines are warming up (the first start on a machine compiles them: "
                  "about half a minute); the engine moves follow")
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


def share_out(games: list[str], workers: int) -> list[list[str]]:
    """``games`` over at most ``workers`` lists: the first alone when there are two or more
    workers, the others dealt round the rest; no empty list."""
    if workers <= 1 or len(games) <= 1:
        return [games] if games else []
    rest = [games[1 + i::workers - 1] for i in range(workers - 1)]
    return [[games[0]], *(share for share in rest if share)]


def all_lobby_limits() -> None:
    """Probe every table game's lobby limits (seconds for a solver agent; cached)."""
    for game in web_games():
        lobby_limits(game)


MAX_NAME = 24


def player_names(raw: Any, agents: list[str | None]) -> list[str]:
    """The players' names at a table: ``raw`` (a list with one name or null per seat) where
    given, else "you" for the person and the agent's name (with its seat) for an engine;
    names are trimmed printable text of at most :data:`MAX_NAME` characters."""
    n = len(agents)
    if raw is not None and (not isinstance(raw, list) or len(raw) != n or not all(
            x is None or isinstance(x, str) for x in raw)):
        raise TableError(f"names must be a list of {n} names (or null for the default)")
    out = []
    for s, agent in enumerate(agents):
        given = raw[s] if raw is not None else None
        name = "".join(ch for ch in (given or "") if ch.isprintable()).strip()[:MAX_NAME]
        if not name:
            name = "you" if agent is None else f"{agent.split(':')[0]} ({s})"
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


class Server:
    """Tables in memory (loaded from the store on demand), connections, engine drivers."""

    def __init__(self, store: Store, pool: EnginePool, abandon_s: float = 10.0,
                 hard_limit_factor: float = 3.0) -> None:
        self.store = store
        self.pool = pool
        self.abandon_s = abandon_s
        self.hard_limit_factor = hard_limit_factor
        self.tables: dict[str, Table] = {}
        self.conns: dict[str, set[WebSocket]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.drivers: dict[str, asyncio.Task[None]] = {}
        self.cancels: dict[str, asyncio.Event] = {}
        self.thinking: dict[str, int | None] = {}
        self.abandoners: dict[str, asyncio.Task[None]] = {}
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
        n = game.num_players
        seat = body.get("seat", 0)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise TableError(f"seat must be a number 0..{n - 1}")
        refusal = table_face(game).seat_refusal(seat)
        if refusal is not None:
            raise TableError(refusal)
        opponents = body.get("opponents")
        if opponents is None:
            opponents = [default_opponent(game_name)] * (n - 1)
        if (not isinstance(opponents, list) or len(opponents) != n - 1
                or not all(isinstance(o, str) and 0 < len(o) <= 200 for o in opponents)):
            raise TableError(f"{game.name} needs {n - 1} opponent agent spec(s)")
        for spec in opponents:
            try:  # validates name and parameters, and that the agent plays this game
                make_agent(spec, game, seed=0)
            except SpielwerkError as exc:
                raise TableError(f"the opponent {spec!r} cannot play {game.name} "
                                 f"{game.spec()}: {str(exc).splitlines()[0]}") from None
        budget = body.get("time", 2.0)
        if isinstance(budget, bool) or not isinstance(budget, int | float) or not (
                0.05 <= float(budget) <= 60):
            raise TableError("time per engine move must be 0.05 to 60 seconds")
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbits(31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise TableError("seed must be a non-negative integer")
        agents: list[str | None] = []
        it = iter(opponents)
        for s in range(n):
            agents.append(None if s == seat else next(it))
        config = {"game": game_name, "spec": game.spec(), "seat": seat, "agents": agents,
                  "time": float(budget), "seed": int(seed),
                  "names": player_names(body.get("names"), agents)}
        table_id = secrets.token_hex(12)
        table = Table(table_id, config, [])
        # only in the store: a table enters memory when a browser opens it (get_table with
        # keep) and leaves it abandon_s after the last one went, so tables created and
        # never opened cannot pile up in memory
        self.save(table)
        log.info("table %s created: %s, seat %d, opponents %s", table_id, game.spec(), seat,
                 ", ".join(opponents))
        return table

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
            players = table.names
            table.finished_game_id = self.store.add_game(
                table.state.game.spec(), table.history, table.seat, players, table.summary(),
                table_id=table.id,
            )
        self.save(table)

    # ----- sending
    async def send(self, ws: WebSocket, msg: dict[str, Any]) -> bool:
        try:
            await ws.send_text(json.dumps(msg))
            return True
        except Exception:  # noqa: BLE001 - a closed socket is dropped by the receiver
            return False

    async def broadcast(self, table: Table, msg: dict[str, Any] | None = None) -> None:
        if msg is None:
            msg = table.message(self.thinking.get(table.id))
        for ws in list(self.conns.get(table.id, ())):
            await self.send(ws, msg)

    async def error(self, ws: WebSocket, table_id: str, message: str) -> None:
        self.stats["errors_sent"] += 1
        log.warning("table %s: refused: %s", table_id, message)
        await self.send(ws, {"type": "error", "message": message})

    # ----- engines
    def ensure_driver(self, table: Table) -> None:
        task = self.drivers.get(table.id)
        ev = self.cancels.get(table.id)
        if task is not None and not task.done() and ev is not None and not ev.is_set():
            return
        if table.engine_seat() is None:
            return
        self.cancels[table.id] = asyncio.Event()
        self.drivers[table.id] = asyncio.create_task(self.drive(table))

    async def drive(self, table: Table) -> None:
        """Let the engines move until it is the person's turn or the game is over."""
        try:
            await self._drive(table)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - logged; the table stays as it was saved
            log.exception("table %s: the engine driver stopped", table.id)
            self.thinking[table.id] = None
            await self.broadcast(table, {"type": "error", "message": "internal error while the "
                                         "engines moved; reload the page to retry"})

    async def _drive(self, table: Table) -> None:
        cancel = self.cancels[table.id]
        while not cancel.is_set():
            async with self.lock(table.id):
                seat = table.engine_seat()
                if seat is None:
                    return
                ply = len(table.history)
                history = list(table.history)
                stored = table.agents[seat]
                spec = table.state.game.spec()
            assert stored is not None
            if not self.warm_done.is_set():  # the first start: wait, then look again
                if not await self.wait_warm(table, cancel):
                    self.stats["cancelled"] += 1
                    log.info("table %s: engine work cancelled (no browser)", table.id)
                    return
                continue
            agent = AgentSpec.parse(stored)  # once: the worker and the fallback take it parsed
            self.thinking[table.id] = seat
            await self.broadcast(table, {"type": "thinking", "seat": seat})
            seed = int(np.random.default_rng([table.seed, table.deal_no, ply, seat]).integers(
                2**31))
            limit = table.budget_s * self.hard_limit_factor + 10.0
            notice = None
            try:
                action = await self.pool.run(
                    "engine_move", {"spec": spec, "history": history, "seat": seat,
                                    "agent": agent, "seed": seed, "budget_s": table.budget_s},
                    limit, cancel)
                self.stats["engine_moves"] += 1
            except EngineCancelled:
                self.stats["cancelled"] += 1
                self.thinking[table.id] = None
                log.info("table %s: engine work cancelled (no browser)", table.id)
                return
            except (EngineTimeout, EngineFailed) as exc:
                self.stats["fallbacks"] += 1
                log.warning("table %s: engine %s for seat %d: %s", table.id, agent, seat, exc)
                fell = await self._fallback(table, spec, history, seat, agent, seed, limit,
                                            cancel)
                if fell is None:
                    return
                action, by = fell
                # the engine's error text may name its cards: the log has it, not the notice
                what = "did not answer in time" if isinstance(exc, EngineTimeout) else "failed"
                notice = f"seat {seat}'s engine ({agent}) {what}; {by} played for it"
            async with self.lock(table.id):
                self.thinking[table.id] = None
                if len(table.history) != ply or table.engine_seat() != seat:
                    continue
                table.apply(int(action))
                self.after_action(table)
            if notice:
                await self.broadcast(table, {"type": "notice", "message": notice})
            await self.broadcast(table)
        self.thinking[table.id] = None

    async def _fallback(self, table: Table, spec: str, history: list[int], seat: int,
                        agent: AgentSpec, seed: int, limit: float, cancel: asyncio.Event
                        ) -> tuple[int, str] | None:
        """The move for an engine that did not answer in time or failed: the same agent with
        its smallest search (``work.fallback_spec``), else the game's rule baseline - never a
        random move. None: cancelled (no browser)."""
        from spielwerk.web.work import baseline_move, fallback_spec

        small = fallback_spec(agent, table.state.game.name)
        try:
            action = await self.pool.run(
                "engine_move", {"spec": spec, "history": history, "seat": seat,
                                "agent": small, "seed": seed, "budget_s": table.budget_s},
                limit, cancel)
            log.warning("table %s: seat %d played by the fallback %s", table.id, seat, small)
            return int(action), f"its fallback ({small})"
        except EngineCancelled:
            self.thinking[table.id] = None
            return None
        except (EngineTimeout, EngineFailed) as exc:
            log.warning("table %s: fallback %s for seat %d: %s", table.id, small, seat, exc)
        action, name = baseline_move(table.state, seat, seed)
        log.warning("table %s: seat %d played by the baseline %s", table.id, seat, name)
        return action, f"the {name} baseline"

    def connect(self, table: Table, ws: WebSocket) -> None:
        self.conns.setdefault(table.id, set()).add(ws)
        abandon = self.abandoners.pop(table.id, None)
        if abandon is not None:
            abandon.cancel()

    def disconnect(self, table: Table, ws: WebSocket) -> None:
        conns = self.conns.get(table.id, set())
        conns.discard(ws)
        if not conns:
            self.abandoners[table.id] = asyncio.create_task(self._abandon_later(table))

    async def _abandon_later(self, table: Table) -> None:
        await asyncio.sleep(self.abandon_s)
        if self.conns.get(table.id):
            return
        ev = self.cancels.get(table.id)
        if ev is not None:
            ev.set()  # the driver stops its engine task (the worker is replaced) and returns
        self.abandoners.pop(table.id, None)
        driver = self.drivers.get(table.id)
        if driver is not None and not driver.done():
            await asyncio.wait([driver], timeout=5)
        # the table stays in the store; drop it from memory when nobody watches
        async with self.lock(table.id):
            if not self.conns.get(table.id):
                self.tables.pop(table.id, None)
                self.conns.pop(table.id, None)
                self.thinking.pop(table.id, None)
                task = self.drivers.pop(table.id, None)
                if task is not None and not task.done():
                    task.cancel()
                self.cancels.pop(table.id, None)
        self.locks.pop(table.id, None)

    # ----- start
    @property
    def warming(self) -> bool:
        """Whether the engines are still warming up (the lobby says so)."""
        return not self.warm_done.is_set()

    def start_prewarm(self) -> asyncio.Task[None]:
        """:meth:`prewarm` in the background, marked as warming at once: a table opened
        before the task first runs waits for it too."""
        if self.pool.size:
            self.warm_done.clear()
        return asyncio.create_task(self.prewarm())

    async def wait_warm(self, table: Table, cancel: asyncio.Event | None) -> bool:
        """Wait (telling the table once) until the engines are warm; False when ``cancel``
        was set meanwhile."""
        if self.warm_done.is_set():
            return True
        await self.broadcast(table, {"type": "notice", "message": WARMING_NOTICE})
        waiters = [asyncio.ensure_future(self.warm_done.wait())]
        if cancel is not None:
            waiters.append(asyncio.ensure_future(cancel.wait()))
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
        return self.warm_done.is_set() and not (cancel is not None and cancel.is_set())

    async def _compile_kernels(self, games: list[str]) -> None:
        """Every game's kernels compiled into the cache (``spielwerk warmup``, about 45 s
        in one process on 2 cores), shared out over the workers: the first game (the
        heaviest, by the records' rank) alone on the first, the others round the rest."""
        log.info("engines warming up: compiling the kernels once; tables wait for their "
                 "first engine move")
        shares = share_out(games, self.pool.size)
        done = await asyncio.gather(
            *(self.pool.run("compile_kernels", {"games": share}, WARM_LIMIT_S)
              for share in shares), return_exceptions=True)
        failed = [r for r in done if isinstance(r, BaseException)]
        for r in failed:
            log.warning("compiling the kernels failed: %s", r)
        if not failed:
            from spielwerk.warmup import stamp

            stamp()
            log.info("kernels compiled (seconds per worker): %s", done)

    async def prewarm(self) -> None:
        """Every engine worker makes one small decision with each game's default opponent
        (``work.warm_up``) right after the server starts, so the first engine move of a
        table does not pay the model load and kernel start (seconds for knn). Workers are
        processes; ``workers=0`` (threads in tests) skips it."""
        try:
            if self.pool.size == 0:
                return
            from spielwerk import warmup

            if not warmup.kernels_warm():  # a fresh machine: the workers compile first
                await self._compile_kernels(list(warmup.steps()))
            opponents = {g: default_opponent(g) for g in web_games()}
            done = await asyncio.gather(
                *(self.pool.run("warm_up", {"opponents": opponents}, WARM_LIMIT_S)
                  for _ in range(self.pool.size)), return_exceptions=True)
            for r in done:
                if isinstance(r, BaseException):
                    log.warning("engine warm-up failed: %s", r)
                else:
                    log.info("engine worker warmed up (seconds per game): %s", r)
            self.warmed = sum(1 for r in done if not isinstance(r, BaseException))
        finally:
            self.warm_done.set()

    # ----- hints
    async def start_hint(self, ws: WebSocket, table: Table) -> None:
        """Compute a hint for the person (on their turn, in a game with hints) in an engine
        worker; the answer ``{"type": "hint", "ply", "hint"}`` comes when it is ready, the
        socket keeps serving meanwhile."""
        st = table.state
        if not table_face(st.game).has_hints:
            titles = [face.title for face in (table_face(load_game(g)) for g in web_games())
                      if face.has_hints]
            await self.error(ws, table.id, f"hints exist for {' and '.join(titles)} tables")
            return
        if st.is_terminal() or st.current_player != table.seat:
            await self.error(ws, table.id, "a hint is given on your turn")
            return
        if table.id in self.hinting:
            await self.error(ws, table.id, "a hint is being worked out; it comes shortly")
            return
        ply = len(table.history)
        seed = int(np.random.default_rng([table.seed, table.deal_no, ply, table.seat, 7])
                   .integers(2**31))
        work = {"spec": st.game.spec(), "history": list(table.history), "seat": table.seat,
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
        for t in self.abandoners.values():
            t.cancel()
        for t in list(self.side_tasks):
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ----- websocket messages
    async def handle(self, ws: WebSocket, table: Table, text: str) -> None:
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
            await self.send(ws, table.message(self.thinking.get(table.id)))
            return
        if kind == "hint":
            await self.start_hint(ws, table)
            return
        try:
            async with self.lock(table.id):
                if kind == "act":
                    table.human_act(msg.get("action"), msg.get("ply"))
                    self.stats["actions"] += 1
                elif kind == "next":
                    table.next_game()
                elif kind == "undo":
                    table.undo()
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
