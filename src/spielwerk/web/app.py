"""The FastAPI application of the web table: pages, JSON API and one websocket per table.

``create_app(db_path, workers)`` returns the app; ``spielwerk serve`` runs it
with uvicorn. Protocol (JSON text frames, at most 4 KiB from the browser):

* browser -> server: ``{"type": "act", "action": ID, "ply": N}`` (an action id
  from the view's ``legal`` list and the ply the browser saw), ``{"type":
  "next"}`` (next deal / game once over), ``{"type": "ping"}``.
* server -> browser: ``{"type": "view", ...}`` (the seat's view, built from its
  info state only), ``{"type": "thinking", "seat": S}``, ``{"type": "error",
  "message": ...}``, ``{"type": "notice", "message": ...}``.

Bad input (malformed or oversized frames, unknown tables, moves out of turn,
illegal or stale moves) gets a one-line error to that browser and a log line;
the table is unchanged and everybody else keeps playing.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import secrets
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles

import spielwerk  # noqa: F401 - games and agents register themselves
from spielwerk.core.agent import AgentSpecError, list_agents, make_agent
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.registry import list_games, load_game
from spielwerk.web.engines import EngineCancelled, EngineFailed, EnginePool, EngineTimeout
from spielwerk.web.store import Store, StoreError
from spielwerk.web.tables import Table, TableError
from spielwerk.web.views import final_reveal, seat_view

log = logging.getLogger("spielwerk.web")

MAX_MESSAGE = 4096
MAX_UPLOAD = 1_000_000
WEB_GAMES = ("skat", "durak", "kalah")
DEFAULT_OPPONENT = {"skat": ("knn", "pimc", "rule"), "durak": ("ismcts", "mcts", "smart"),
                    "kalah": ("perfect", "alphabeta")}
"""Preferred default opponents, first registered one wins (the table lists all)."""


def _static_dir() -> Path:
    return Path(str(resources.files("spielwerk.web") / "static"))


def default_opponent(game: str) -> str:
    names = {e.name for e in list_agents(game)}
    for name in DEFAULT_OPPONENT[game]:
        if name in names:
            return name
    return "random"


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
                      "cancelled": 0}

    # ----- tables
    def create_table(self, body: dict[str, Any]) -> Table:
        game_name = body.get("game")
        if game_name not in WEB_GAMES:
            raise TableError(f"unknown game {game_name!r}; the table plays {', '.join(WEB_GAMES)}")
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
        if game_name == "skat" and seat not in game.positions:  # type: ignore[attr-defined]
            raise TableError("at a 4-table the dealer of the first deal sits out: choose "
                             "another seat")
        opponents = body.get("opponents")
        if opponents is None:
            opponents = [default_opponent(game_name)] * (n - 1)
        if (not isinstance(opponents, list) or len(opponents) != n - 1
                or not all(isinstance(o, str) and 0 < len(o) <= 200 for o in opponents)):
            raise TableError(f"{game.name} needs {n - 1} opponent agent spec(s)")
        for spec in opponents:
            make_agent(spec, game, seed=0)  # validates name and parameters (one-line error)
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
                  "time": float(budget), "seed": int(seed)}
        table_id = secrets.token_hex(12)
        table = Table(table_id, config, [])
        self.tables[table_id] = table
        self.save(table)
        log.info("table %s created: %s, seat %d, opponents %s", table_id, game.spec(), seat,
                 ", ".join(opponents))
        return table

    def get_table(self, table_id: str) -> Table | None:
        if table_id in self.tables:
            return self.tables[table_id]
        if not (0 < len(table_id) <= 64 and table_id.isalnum()):
            return None
        row = self.store.load_table(table_id)
        if row is None:
            return None
        table = Table(table_id, row["config"], row["history"], row["deal_no"], row["series"])
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
            players = ["you" if a is None else a for a in table.agents]
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
                agent = table.agents[seat]
                spec = table.state.game.spec()
            assert agent is not None
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
                legal = table.state.legal_actions()
                action = legal[int(np.random.default_rng(seed).integers(len(legal)))]
                notice = (f"seat {seat}'s engine ({agent}) failed: {exc}; a random legal move "
                          "was played for it")
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

    async def shutdown(self) -> None:
        for ev in self.cancels.values():
            ev.set()
        tasks = [t for t in self.drivers.values() if not t.done()]
        for t in tasks:
            t.cancel()
        for t in self.abandoners.values():
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ----- websocket messages
    async def handle(self, ws: WebSocket, table: Table, text: str) -> None:
        if len(text) > MAX_MESSAGE:
            await self.error(ws, table.id, f"message too large ({len(text)} bytes; at most "
                                           f"{MAX_MESSAGE})")
            return
        try:
            msg = json.loads(text)
        except ValueError:
            await self.error(ws, table.id, "malformed message: not JSON")
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
        try:
            async with self.lock(table.id):
                if kind == "act":
                    table.human_act(msg.get("action"), msg.get("ply"))
                    self.stats["actions"] += 1
                elif kind == "next":
                    table.next_game()
                else:
                    raise TableError(f"unknown message type {kind[:40]!r}; expected act, next, "
                                     "view or ping")
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


def create_app(db_path: str | Path, workers: int = 1, abandon_s: float = 10.0) -> FastAPI:
    """The web table application; opens (or creates) the SQLite file ``db_path`` now,
    so an unusable file is reported before the server starts listening."""
    store = Store(db_path)
    pool = EnginePool(workers)
    server = Server(store, pool, abandon_s=abandon_s)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await pool.start()
        log.info("web table ready: database %s, %d engine worker(s)", store.path, pool.size)
        try:
            yield
        finally:
            await server.shutdown()
            await pool.close()
            store.close()
            log.info("web table stopped: tables saved in %s", store.path)

    app = FastAPI(title="spielwerk web table", lifespan=lifespan, docs_url=None,
                  redoc_url=None, openapi_url=None)
    app.state.server = server
    static = _static_dir()
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    def err(status: int, message: str) -> JSONResponse:
        log.warning("refused (%d): %s", status, message)
        return JSONResponse({"error": message}, status_code=status)

    @app.exception_handler(SpielwerkError)
    async def spielwerk_error(request: Request, exc: SpielwerkError) -> JSONResponse:
        return err(400, str(exc).splitlines()[0])

    @app.get("/")
    async def index() -> FileResponse:
        return FileResponse(static / "index.html")

    @app.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        out = {}
        for entry in list_games():
            if entry.name not in WEB_GAMES:
                continue
            out[entry.name] = {
                "defaults": entry.defaults,
                "help": entry.parameter_help,
                "description": entry.description,
                "agents": [{"name": a.name, "usage": a.usage(), "description": a.description}
                           for a in list_agents(entry.name)],
                "default_opponent": default_opponent(entry.name),
            }
        return {"games": out}

    @app.post("/api/tables")
    async def new_table(request: Request) -> Any:
        raw = await request.body()
        if len(raw) > MAX_MESSAGE:
            return err(413, "request too large")
        try:
            body = json.loads(raw)
        except ValueError:
            return err(400, "malformed request: not JSON")
        if not isinstance(body, dict):
            return err(400, "malformed request: expected a JSON object")
        try:
            table = server.create_table(body)
        except (SpielwerkError, AgentSpecError) as exc:
            return err(400, str(exc).splitlines()[0])
        return {"id": table.id, "url": f"/#table={table.id}"}

    @app.get("/api/tables")
    async def tables() -> dict[str, Any]:
        return {"tables": store.list_tables()}

    @app.get("/api/tables/{table_id}")
    async def table_info(table_id: str) -> Any:
        try:
            table = server.get_table(table_id)
        except SpielwerkError as exc:
            return err(500, str(exc).splitlines()[0])
        if table is None:
            return err(404, f"unknown table {table_id[:64]!r}")
        return table.message(server.thinking.get(table.id))

    @app.get("/api/stats")
    async def stats() -> dict[str, Any]:
        return {**server.stats, "tables_in_memory": len(server.tables),
                "engine_workers": pool.alive, "engine_tasks_killed": pool.tasks_killed}

    # ----- finished games: list, download, upload, review, analysis
    def load_record(game_id: int) -> tuple[dict[str, Any], Any]:
        row = store.get_game(game_id)
        if row is None:
            raise KeyError(game_id)
        game = load_game(row["spec"])
        state = game.new_initial_state()
        for a in row["history"]:
            state.apply(a)
        return row, state

    @app.get("/api/games/finished")
    async def finished() -> dict[str, Any]:
        return {"games": store.list_games()}

    @app.get("/api/games/{game_id}/record.json")
    async def record_json(game_id: int) -> Any:
        try:
            row, state = load_record(game_id)
        except KeyError:
            return err(404, f"unknown game {game_id}")
        return Response(state.serialize(), media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="spielwerk-{game_id}.json"'})

    @app.get("/api/games/{game_id}/record.sgf")
    async def record_iss(game_id: int) -> Any:
        from spielwerk.games.skat import iss

        try:
            row, state = load_record(game_id)
        except KeyError:
            return err(404, f"unknown game {game_id}")
        if state.game.name != "skat":
            return err(400, "ISS records exist for Skat only; download the JSON record")
        pos_names = []
        for p in range(3):
            seat = state.sgame.seat_of(p)
            name = str(row["players"][seat]) if seat < len(row["players"]) else f"P{p}"
            pos_names.append("".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name))
        text = iss.write_record(state, game_id=str(game_id),
                                players=(pos_names[0], pos_names[1], pos_names[2]))
        return PlainTextResponse(text + "\n", headers={
            "Content-Disposition": f'attachment; filename="spielwerk-{game_id}.sgf"'})

    @app.post("/api/games/upload")
    async def upload(request: Request) -> Any:
        raw = await request.body()
        if len(raw) > MAX_UPLOAD:
            return err(413, f"upload too large (at most {MAX_UPLOAD // 1000} kB)")
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            return err(400, "upload is not UTF-8 text")
        if not text:
            return err(400, "empty upload")
        try:
            if text.startswith("{"):
                try:
                    record = json.loads(text)
                    spec = record["game"]
                    history = record["history"]
                    if not isinstance(spec, str) or not isinstance(history, list):
                        raise TypeError("game must be a spec string and history a list")
                except (ValueError, KeyError, TypeError) as exc:
                    return err(400, f"not a spielwerk game record: {exc}")
                game = load_game(spec)
                if game.name not in WEB_GAMES:
                    return err(400, f"the review shows {', '.join(WEB_GAMES)}, not {game.name}")
                # the spec may be written short ("kalah"): replay under the full spec
                state = game.deserialize_state(json.dumps({"game": game.spec(),
                                                           "history": history}))
                seat = 0
            else:
                from spielwerk.games.skat import iss

                records = list(iss.iter_records(io.StringIO(text)))
                if not records:
                    return err(400, "no game record found (expected a JSON record or an ISS "
                                    "record line)")
                state = iss.replay(records[0]).state
                seat = 0
        except SpielwerkError as exc:
            return err(400, str(exc).splitlines()[0])
        players = [f"seat {s}" for s in range(state.game.num_players)]
        summary = "uploaded" + ("" if state.is_terminal() else " (unfinished)")
        gid = store.add_game(state.game.spec(), state.history, seat, players, summary,
                             source="upload")
        return {"id": gid}

    @app.get("/api/games/{game_id}/review")
    async def review(game_id: int) -> Any:
        try:
            row, final = load_record(game_id)
        except KeyError:
            return err(404, f"unknown game {game_id}")
        return {"id": game_id, "spec": row["spec"], "seat": row["seat"],
                "players": row["players"], "summary": row["summary"],
                "steps": review_steps(final, row["seat"])}

    @app.post("/api/games/{game_id}/analysis")
    async def analysis(game_id: int) -> Any:
        try:
            row, final = load_record(game_id)
        except KeyError:
            return err(404, f"unknown game {game_id}")
        name = {"skat": "skat_review", "kalah": "kalah_review", "durak": "durak_review"}[
            final.game.name]
        try:
            items = await pool.run(name, {"spec": row["spec"], "history": row["history"]}, 300)
        except (EngineFailed, EngineTimeout, EngineCancelled) as exc:
            return err(400, f"analysis failed: {exc}")
        return {"id": game_id, "game": final.game.name, "items": items}

    @app.websocket("/ws/{table_id}")
    async def ws_table(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        try:
            table = server.get_table(table_id)
        except SpielwerkError as exc:
            await server.error(ws, table_id[:64], str(exc).splitlines()[0])
            await ws.close(code=4500)
            return
        if table is None:
            await server.error(ws, table_id[:64], f"unknown table {table_id[:64]!r}")
            await ws.close(code=4404)
            return
        server.connect(table, ws)
        try:
            await server.send(ws, table.message(server.thinking.get(table.id)))
            server.ensure_driver(table)
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                text = msg.get("text")
                if text is None:
                    await server.error(ws, table.id, "binary messages are not accepted")
                    continue
                await server.handle(ws, table, text)
        except WebSocketDisconnect:
            pass
        finally:
            server.disconnect(table, ws)

    return app


def review_steps(final: Any, seat: int) -> list[dict[str, Any]]:
    """Every position of a finished (or uploaded) game after each non-chance action:
    the seat's view plus every hand (the game is over, so the rules show all)."""
    game = final.game
    state = game.new_initial_state()
    steps: list[dict[str, Any]] = []

    def snapshot(actor: int | None, label: str | None) -> dict[str, Any]:
        view = seat_view(state, seat)
        view.pop("reveal", None)
        return {"ply": len(state.history), "actor": actor, "label": label, "view": view,
                "hands": all_hands(state)}

    from spielwerk.core.game import CHANCE

    for a in final.history:
        cur = state.current_player
        if cur == CHANCE:
            state.apply(a)
            continue
        if not steps:
            steps.append(snapshot(None, None))
        label = state.action_to_string(a)
        if game.name == "kalah":
            label = f"pit {a + 1}"
        state.apply(a)
        steps.append(snapshot(cur, label))
    if not steps:
        steps.append(snapshot(None, None))
    if state.is_terminal():
        steps[-1]["reveal"] = final_reveal(state)
    return steps


def all_hands(state: Any) -> list[list[str]] | None:
    from spielwerk.web.views import _cards, durak_names

    if state.game.name == "skat":
        return [_cards(h) for h in state.hands]
    if state.game.name == "durak":
        from spielwerk.games.durak import kernel as K

        return [durak_names(int(state.S[K.HANDS + q]), int(state.S[K.TRUMP_SUIT]))
                for q in range(state.dgame.players)]
    return None


__all__ = ["StoreError", "create_app"]
