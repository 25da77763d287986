"""The web table's finished games: list, download (JSON, a game's own text record), upload,
review and analysis."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import CHANCE, State
from spielwerk.core.record_format import RecordFormat, RecordFormatError
from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.engines import EngineCancelled, EngineFailed, EngineTimeout
from spielwerk.web.person_record import MAX_NAME, people, person_record
from spielwerk.web.server import (
    MAX_UPLOAD,
    ClientJSONError,
    Server,
    error_response,
    log,
    parse_client_json,
    web_games,
)
from spielwerk.web.store import StoreError
from spielwerk.web.tables import own_record_format
from spielwerk.web.views import final_reveal, seat_view


class RecordNotFound(SpielwerkError, LookupError):
    """A finished-game id the store does not hold (answered with 404)."""


class RecordDamaged(SpielwerkError):
    """A stored finished game that cannot be read or replayed (answered with 409)."""


class UploadError(SpielwerkError, ValueError):
    """An uploaded file that is no game record the review can show."""


def _record_faces() -> list[RecordFormat]:
    """The record formats of the table games that have a text record format of their own."""
    faces = [own_record_format(load_game(g)) for g in web_games()]
    return [f for f in faces if f.format_name is not None]


def parse_upload(text: str) -> tuple[State, list[str]]:
    """The game of an uploaded record (a spielwerk JSON record or a text record in a
    game's own format, e.g. an ISS line) and notes for the person: a record whose stated
    result is not the one its moves give, a file with more than one record."""
    if text.startswith(("{", "[")):
        try:
            record = parse_client_json(text, "upload")
        except ClientJSONError as exc:
            raise UploadError(str(exc)) from None
        try:
            if not isinstance(record, dict):
                raise TypeError("expected a JSON object")
            spec = record["game"]
            history = record["history"]
            if not isinstance(spec, str) or not isinstance(history, list) or not all(
                    isinstance(a, int) and not isinstance(a, bool) for a in history):
                raise TypeError("game must be a spec string and history a list of action ids")
        except (ValueError, KeyError, TypeError) as exc:
            raise UploadError(f"not a spielwerk game record: {exc}") from None
        game = load_game(spec)
        if game.name not in web_games():
            raise UploadError(f"the review shows {', '.join(web_games())}, not {game.name}")
        # the spec may be written short (no parameters): replay under the full spec
        return game.deserialize_state(json.dumps({"game": game.spec(), "history": history})), []
    faces = _record_faces()
    for face in faces:
        try:
            read = face.read_text_record(text)
        except RecordFormatError as exc:
            raise UploadError(str(exc)) from None
        if read is not None:
            return read
    lines = " or ".join(["a JSON record", *(f.record_line for f in faces)])
    raise UploadError(f"no game record found (expected {lines})")


def records_router(server: Server) -> APIRouter:
    """The ``/api/games/...`` routes of finished and uploaded games, and people's records
    (``/api/people``, ``/api/record?name=``)."""
    router = APIRouter()

    def load_record(game_id: int) -> tuple[dict[str, Any], Any]:
        try:
            row = server.store.get_game(game_id)
        except StoreError as exc:
            raise RecordDamaged(str(exc)) from None
        if row is None:
            raise RecordNotFound(f"unknown game {game_id}")
        try:
            state = load_game(row["spec"]).new_initial_state()
            for a in row["history"]:
                state.apply(a)
            if not isinstance(row["players"], list) or not isinstance(row["seat"], int) or (
                    not 0 <= row["seat"] < state.game.num_players):
                raise ValueError("players or seat")
        except (SpielwerkError, ValueError, TypeError, IndexError, OverflowError) as exc:
            # the rules' message may name hidden cards: the log has it, the answer not
            log.warning("game %d cannot be replayed: %s", game_id, exc)
            raise RecordDamaged(f"game {game_id} is damaged in the database (its record "
                                "cannot be replayed)") from None
        return row, state

    @router.get("/api/games/finished")
    async def finished() -> dict[str, Any]:
        return {"games": server.store.list_games()}

    @router.get("/api/people")
    async def people_list() -> dict[str, Any]:
        """Everyone who finished a game at a person's seat (for their records)."""
        return {"people": await asyncio.to_thread(people, server.store)}

    @router.get("/api/record")
    async def record_of(name: str = "") -> Any:
        """A person's record (:func:`~spielwerk.web.person_record.person_record`)."""
        if not name.strip() or len(name) > MAX_NAME:
            return error_response(400, f"name the person (1 to {MAX_NAME} characters)")
        return await asyncio.to_thread(person_record, server.store, name)

    @router.get("/api/games/{game_id}/record.json")
    async def record_json(game_id: int) -> Any:
        row, state = load_record(game_id)
        return Response(state.serialize(), media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="spielwerk-{game_id}.json"'})

    @router.get("/api/games/{game_id}/record.sgf")
    async def record_text(game_id: int) -> Any:
        row, state = load_record(game_id)
        face = own_record_format(state.game)
        if face.format_name is None:
            faces = _record_faces()
            formats = " and ".join(sorted({str(f.format_name) for f in faces}))
            titles = " and ".join(table_face(f.game).title for f in faces)
            return error_response(400, f"{formats} records exist for {titles} only; "
                                  "download the JSON record")
        text = face.write_text_record(state, list(row["players"]), str(game_id))
        return PlainTextResponse(text + "\n", headers={
            "Content-Disposition": f'attachment; filename="spielwerk-{game_id}.sgf"'})

    @router.post("/api/games/upload")
    async def upload(request: Request) -> Any:
        raw = await request.body()
        if len(raw) > MAX_UPLOAD:
            return error_response(413, f"upload too large (at most {MAX_UPLOAD // 1000} kB)")
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            return error_response(400, "upload is not UTF-8 text")
        if not text:
            return error_response(400, "empty upload")
        try:
            state, notes = parse_upload(text)
        except UploadError as exc:
            return error_response(400, str(exc))
        except SpielwerkError as exc:
            return error_response(400, str(exc).splitlines()[0])
        seat = 0
        players = [f"seat {s}" for s in range(state.game.num_players)]
        # the summary is what the list of games and the review show: the notes go there
        summary = "; ".join(["uploaded" + ("" if state.is_terminal() else " (unfinished)"),
                             *notes])
        gid = server.store.add_game(state.game.spec(), state.history, seat, players, summary,
                                    source="upload")
        return {"id": gid, "notes": notes}

    @router.get("/api/games/{game_id}/review")
    async def review(game_id: int) -> Any:
        row, final = load_record(game_id)
        return {"id": game_id, "spec": row["spec"], "heading": table_face(final.game).heading(),
                "seat": row["seat"],
                "players": row["players"], "summary": row["summary"],
                "steps": review_steps(final, row["seat"])}

    @router.post("/api/games/{game_id}/analysis")
    async def analysis(game_id: int) -> Any:
        row, final = load_record(game_id)
        pimc: list[dict[str, Any]] = []
        try:
            work = {"spec": row["spec"], "history": row["history"]}
            items = await server.pool.run("review", work, 300)
            if table_face(final.game).has_seat_review(final):
                # e.g. the PIMC view of the seat's own cards, from what it could know then
                pimc = await server.pool.run("seat_review", {**work, "seat": row["seat"]},
                                             300)
        except (EngineFailed, EngineTimeout, EngineCancelled) as exc:
            return error_response(400, f"analysis failed: {exc}")
        return {"id": game_id, "game": final.game.name, "items": items, "pimc": pimc,
                "seat": row["seat"]}

    return router


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

    face = table_face(game)
    for a in final.history:
        cur = state.current_player
        if cur == CHANCE:
            state.apply(a)
            continue
        if not steps:
            steps.append(snapshot(None, None))
        label = face.review_label(state, a)
        state.apply(a)
        steps.append(snapshot(cur, label))
    if not steps:
        steps.append(snapshot(None, None))
    if state.is_terminal():
        steps[-1]["reveal"] = final_reveal(state)
    return steps


def all_hands(state: Any) -> list[list[str]] | None:
    """Every seat's hand (the review of a finished game shows them), where the game has
    hands."""
    hands: list[list[str]] | None = table_face(state.game).all_hands(state)
    return hands
