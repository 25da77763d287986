"""The FastAPI application of the web table: pages, JSON API and one websocket per table.

``create_app(db_path, workers)`` returns the app; ``spielwerk serve`` runs it
with uvicorn. Protocol (JSON text frames, at most 4 KiB and 32 levels of nesting from
the browser):

* browser -> server: ``{"type": "act", "action": ID, "ply": N}`` (an action id
  from the view's ``legal`` list and the ply the browser saw), ``{"type":
  "next"}`` (next deal / game once over), ``{"type": "ping"}``.
* server -> browser: ``{"type": "view", ...}`` (the seat's view, built from its
  info state only), ``{"type": "thinking", "seat": S}``, ``{"type": "error",
  "message": ...}``, ``{"type": "notice", "message": ...}``.

A browser joins a person's seat with ``/ws/ID?seat=S&key=K`` (the seat's key, from its
private link) and watches with ``/ws/ID?spectate=1`` (the public view); any other way in
gets one refusal, closed before it opens (:mod:`spielwerk.web.seats`).

Bad input (malformed or oversized frames, unknown tables, moves out of turn,
illegal or stale moves) gets a one-line error to that browser and a log line;
the table is unchanged and everybody else keeps playing.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

import spielwerk  # noqa: F401 - games and agents register themselves
from spielwerk.core.agent import AgentSpecError, list_agents
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.registry import list_games, load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.engines import EnginePool, in_daemon_thread
from spielwerk.web.records import (
    RecordDamaged,
    RecordNotFound,
    all_hands,
    records_router,
    review_steps,
)
from spielwerk.web.seats import (
    REFUSED,
    REFUSED_CODE,
    TOO_MANY_CONNECTIONS_CODE,
    Limits,
    address,
    same_origin,
    seat_link,
    spectate_link,
    too_many_connections,
)
from spielwerk.web.server import (
    MAX_MESSAGE,
    MAX_UPLOAD,
    ClientJSONError,
    Server,
    _static_dir,
    all_lobby_limits,
    default_opponent,
    error_response,
    lobby_limits,
    log,
    parse_client_json,
    web_games,
)
from spielwerk.web.store import Store, StoreError
from spielwerk.web.tables import lobby_entry


def create_app(db_path: str | Path, workers: int = 1, abandon_s: float = 10.0,
               local_open: bool = True, limits: Limits | None = None) -> FastAPI:
    """The web table application; opens (or creates) the SQLite file ``db_path`` now,
    so an unusable file is reported before the server starts listening. ``local_open``:
    the server listens on this machine only (a one-person table then also opens by its id
    alone from this machine, and this machine is not limited); ``limits``: the limits per
    address (:class:`~spielwerk.web.seats.Limits`)."""
    store = Store(db_path)
    pool = EnginePool(workers)
    server = Server(store, pool, abandon_s=abandon_s, local_open=local_open, limits=limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await pool.start()
        log.info("web table ready: database %s, %d engine worker(s)", store.path, pool.size)
        warm = server.start_prewarm()  # in the background: pages answer now
        # the lobby's limits are probed on the agents (seconds per size for a solver
        # agent): started now in a thread, so the first visitor of the lobby waits less (a
        # daemon thread: the server's exit does not wait for the probe)
        limits = asyncio.create_task(in_daemon_thread(all_lobby_limits))
        try:
            yield
        finally:  # Ctrl-C at any moment: the engine work stops, no worker is replaced
            pool.stop_replacing()
            warm.cancel()
            limits.cancel()
            await server.shutdown()
            await asyncio.gather(warm, limits, return_exceptions=True)
            await pool.close()
            store.close()
            log.info("web table stopped: tables saved in %s", store.path)

    app = FastAPI(title="spielwerk web table", lifespan=lifespan, docs_url=None,
                  redoc_url=None, openapi_url=None)
    app.state.server = server
    static = _static_dir()
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.exception_handler(SpielwerkError)
    async def spielwerk_error(request: Request, exc: SpielwerkError) -> JSONResponse:
        return error_response(400, str(exc).splitlines()[0])

    @app.exception_handler(RecordDamaged)
    async def damaged(request: Request, exc: RecordDamaged) -> JSONResponse:
        return error_response(409, str(exc).splitlines()[0])

    @app.exception_handler(RecordNotFound)
    async def not_found(request: Request, exc: RecordNotFound) -> JSONResponse:
        return error_response(404, str(exc))

    page: list[str] = []  # the index page with the games' page code, made once

    @app.get("/")
    async def index() -> HTMLResponse:
        if not page:
            page.append(await asyncio.to_thread(index_page, static))
        return HTMLResponse(page[0])

    @app.get("/games/{name}/{file}")
    async def game_file(name: str, file: str) -> Response:
        """A file of a game's page code: only those its table face declares."""
        path = await asyncio.to_thread(game_web_file, name, file)
        if path is None:
            return error_response(404, "no such file")
        return FileResponse(path)

    @app.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(status_code=204)

    app.include_router(tables_router(server))
    app.include_router(records_router(server))
    return app


def game_web_file(name: str, file: str) -> Path | None:
    """The declared page-code file ``file`` of the table game ``name`` (None: not one)."""
    if name not in web_games():
        return None
    return table_face(load_game(name)).web_file(file)


def index_page(static: Path) -> str:
    """``index.html`` with each table game's style sheets and scripts (its table face's
    :attr:`~spielwerk.core.table_face.TableFace.web_styles` and ``web_scripts``),
    loaded after the page's own: the scripts register the games' drawing code."""
    styles, scripts = [], []
    for name in web_games():
        face = table_face(load_game(name))
        styles += [f'<link rel="stylesheet" href="/games/{name}/{f}">' for f in face.web_styles]
        scripts += [f'<script src="/games/{name}/{f}"></script>' for f in face.web_scripts]
    html = (static / "index.html").read_text(encoding="utf-8")
    return html.replace("<!-- game styles -->", "\n".join(styles)).replace(
        "<!-- game scripts -->", "\n".join(scripts))


def tables_router(server: Server) -> APIRouter:
    """The game list, tables (create, list, state), statistics and the table websocket."""
    router = APIRouter()

    @router.get("/api/games")
    async def games() -> dict[str, Any]:
        out = {}
        faces = {name: table_face(load_game(name)) for name in web_games()}
        for entry in sorted((e for e in list_games() if e.name in faces),
                            key=lambda e: (faces[e.name].lobby_rank, e.name)):
            face = faces[entry.name]
            out[entry.name] = {
                "title": face.title,
                # the lobby's form: the fields, the seat count, an example agent spec
                "lobby": [f.web(entry.defaults) for f in face.lobby_fields],
                "players": face.game.num_players,
                "seats_param": face.seats_param,
                "seat_labels": face.seat_labels(),
                "spec_example": face.spec_example,
                "defaults": entry.defaults,
                "help": entry.parameter_help,
                "description": entry.description,
                "agents": [{"name": a.name, "usage": a.usage(), "description": a.description}
                           for a in list_agents(entry.name)],
                "default_opponent": default_opponent(entry.name),
                # probed once per process (seconds for a solver agent), off the event loop
                "limits": await in_daemon_thread(lobby_limits, entry.name),
            }
        return {"games": out}

    @router.post("/api/tables")
    async def new_table(request: Request) -> Any:
        if not server.is_local(request.client, request.headers):
            wait = server.table_limit.hit(address(request.client))
            if wait is not None:
                return error_response(429, "too many tables created from your address: at "
                                      f"most {server.limits.tables_per_minute} a minute; "
                                      f"try again in {math.ceil(wait)} s")
        raw = await request.body()
        if len(raw) > MAX_MESSAGE:
            return error_response(413, "request too large")
        try:
            body = parse_client_json(raw, "request")
        except ClientJSONError as exc:
            return error_response(400, str(exc))
        if not isinstance(body, dict):
            return error_response(400, "malformed request: expected a JSON object")
        try:
            table = server.create_table(body)
        except (SpielwerkError, AgentSpecError) as exc:
            return error_response(400, str(exc).splitlines()[0])
        links = {str(s): seat_link(table.id, s, k) for s, k in table.issued_keys.items()}
        return {"id": table.id, "seat": table.seat, "url": links[str(table.seat)],
                "links": links, "spectate": spectate_link(table.id)}

    @router.get("/api/tables")
    async def tables(request: Request, ids: str | None = None) -> dict[str, Any]:
        """The lobby's tables: all of them for this machine (a server on this machine
        only), else only those named in ``ids`` (the tables a browser has links of)."""
        rows = server.store.list_tables()
        if not server.is_local(request.client, request.headers):
            wanted = set((ids or "").split(",")[:200])
            rows = [row for row in rows if row["id"] in wanted]
        return {"tables": [lobby_entry(row, server.joined(row["id"])) for row in rows]}

    @router.get("/api/tables/{table_id}")
    async def table_info(request: Request, table_id: str) -> Any:
        try:
            found = server.seat_access(table_id, request.query_params, request.client,
                                       request.headers)
        except SpielwerkError as exc:  # a damaged stored table: refused, not a server error
            return error_response(409, str(exc).splitlines()[0])
        if found is None:
            return error_response(403, REFUSED)
        table, seat = found
        if table is None:
            return error_response(404, f"unknown table {table_id[:64]!r}")
        return server.message(table, seat)

    @router.get("/api/engines")
    async def engines() -> dict[str, Any]:
        return {"warming": server.warming, "workers": server.pool.size,
                "workers_warmed": server.warmed}

    @router.get("/api/stats")
    async def stats() -> dict[str, Any]:
        return {**server.stats, "tables_in_memory": len(server.tables),
                "engine_workers_warmed": server.warmed,
                "engine_workers": server.pool.alive,
                "engine_tasks_killed": server.pool.tasks_killed}

    add_table_socket(router, server)
    return router


def add_table_socket(router: APIRouter, server: Server) -> None:
    """The table websocket ``/ws/ID``: the origin check, the connection limit, the seat
    (:mod:`spielwerk.web.seats`), then the table's messages until it closes."""

    @router.websocket("/ws/{table_id}")
    async def ws_table(ws: WebSocket, table_id: str) -> None:
        if not same_origin(ws.headers.get("origin"), ws.headers.get("host")):
            log.warning("websocket refused: its origin is another site")
            await ws.close(code=REFUSED_CODE, reason="refused: another site's page")
            return
        limited = not server.is_local(ws.client, ws.headers)
        peer = address(ws.client)
        if limited and not server.connection_limit.enter(peer):
            await ws.accept()  # accepted to say why (a refusal before it opens says nothing)
            with contextlib.suppress(Exception):  # the browser may be gone already
                await server.error(ws, table_id[:64], too_many_connections(
                    server.limits.connections))
                await ws.close(code=TOO_MANY_CONNECTIONS_CODE,
                               reason="too many connections from your address")
            return
        try:
            await table_socket(ws, table_id, limited)
        finally:
            if limited:
                server.connection_limit.leave(peer)

    async def table_socket(ws: WebSocket, table_id: str, limited: bool) -> None:
        """A table's websocket past the origin check and the connection limit."""
        try:
            found = server.seat_access(table_id, ws.query_params, ws.client, ws.headers)
        except SpielwerkError as exc:
            await ws.accept()
            await server.error(ws, table_id[:64], str(exc).splitlines()[0])
            await ws.close(code=4409, reason="table damaged")
            return
        if found is None:  # one refusal for all: nothing tells whether the table exists
            log.warning("websocket refused: no seat for that link")
            await ws.close(code=REFUSED_CODE, reason="refused")
            return
        await ws.accept()
        if found[0] is None:
            await server.error(ws, table_id[:64], f"unknown table {table_id[:64]!r}")
            await ws.close(code=4404)
            return
        table = server.get_table(found[0].id, keep=True)
        assert table is not None
        seat = found[1]
        server.connect(table, ws, seat)
        try:
            await server.broadcast(table)  # the others see who joined
            server.ensure_driver(table)
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                text = msg.get("text")
                if text is None:
                    await server.error(ws, table.id, "binary messages are not accepted")
                    continue
                if limited and server.message_limit.hit(address(ws.client)) is not None:
                    await server.error(ws, table.id, "too many messages from your address: "
                                       f"at most {server.limits.messages_per_second} a "
                                       "second; this one was ignored")
                    continue
                await server.handle(ws, table, text, seat)
        except WebSocketDisconnect:
            pass
        except Exception:  # noqa: BLE001 - a bug: say so and close cleanly, keep the server
            log.exception("table %s: internal error on the websocket", table.id)
            with contextlib.suppress(Exception):
                await ws.close(code=1011, reason="internal error; reload the page to retry")
        finally:
            server.disconnect(table, ws)
            with contextlib.suppress(Exception):
                await server.broadcast(table)  # the others see who left


__all__ = ["MAX_MESSAGE", "MAX_UPLOAD", "Server", "StoreError", "all_hands", "create_app",
           "default_opponent", "review_steps", "web_games"]
