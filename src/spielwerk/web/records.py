"""The web table's finished games: list, download (JSON, ISS), upload, review and analysis."""

from __future__ import annotations

import io
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import State
from spielwerk.core.registry import load_game
from spielwerk.web.engines import EngineCancelled, EngineFailed, EngineTimeout
from spielwerk.web.server import (
    MAX_UPLOAD,
    WEB_GAMES,
    ClientJSONError,
    Server,
    error_response,
    log,
    parse_client_json,
)
from spielwerk.web.store import StoreError
from spielwerk.web.views import final_reveal, seat_view


class RecordNotFound(SpielwerkError, LookupError):
    """A finished-game id the store does not hold (answered with 404)."""


class RecordDamaged(SpielwerkError):
    """A stored finished game that cannot be read or replayed (answered with 409)."""


class UploadError(SpielwerkError, ValueError):
    """An uploaded file that is no game record the review can show."""


def parse_upload(text: str) -> tuple[State, list[str]]:
    """The game of an uploaded record (a spielwerk JSON record or an ISS Skat record line)
    and notes for the person: an ISS record whose stated result is not the one its moves
    give, a file with more than one record."""
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
        if game.name not in WEB_GAMES:
            raise UploadError(f"the review shows {', '.join(WEB_GAMES)}, not {game.name}")
        # the spec may be written short ("kalah"): replay under the full spec
        return game.deserialize_state(json.dumps({"game": game.spec(), "history": history})), []
    from spielwerk.games.skat import iss

    records = list(iss.iter_records(io.StringIO(text)))
    if not records:
        raise UploadError("no game record found (expected a JSON record or an ISS record line)")
    cmp = iss.compare(records[0])
    if cmp.replay is None:
        raise UploadError(cmp.error.splitlines()[0])
    notes = []
    # fields the record states and the replay contradicts (a record without a result
    # block states nothing)
    stated = [m.replace("server ", "record ").replace("engine ", "replay ")
              for m in cmp.mismatches if "missing in the server's result" not in m]
    if stated:
        notes.append("the record's stated result disagrees with the replayed game ("
                     + "; ".join(stated) + ")")
    if len(records) > 1:
        notes.append(f"the file holds {len(records)} records; only the first is shown")
    state: State = cmp.replay.state
    return state, notes


def records_router(server: Server) -> APIRouter:
    """The ``/api/games/...`` routes of finished and uploaded games."""
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

    @router.get("/api/games/{game_id}/record.json")
    async def record_json(game_id: int) -> Any:
        row, state = load_record(game_id)
        return Response(state.serialize(), media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="spielwerk-{game_id}.json"'})

    @router.get("/api/games/{game_id}/record.sgf")
    async def record_iss(game_id: int) -> Any:
        row, state = load_record(game_id)
        if state.game.name != "skat":
            return error_response(400, "ISS records exist for Skat only; download the JSON record")
        from spielwerk.games.skat import iss

        pos_names = []
        for p in range(3):
            seat = state.sgame.seat_of(p)
            name = str(row["players"][seat]) if seat < len(row["players"]) else f"P{p}"
            pos_names.append("".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name))
        text = iss.write_record(state, game_id=str(game_id),
                                players=(pos_names[0], pos_names[1], pos_names[2]))
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
        return {"id": game_id, "spec": row["spec"], "seat": row["seat"],
                "players": row["players"], "summary": row["summary"],
                "steps": review_steps(final, row["seat"])}

    @router.post("/api/games/{game_id}/analysis")
    async def analysis(game_id: int) -> Any:
        row, final = load_record(game_id)
        name = {"skat": "skat_review", "kalah": "kalah_review", "durak": "durak_review"}[
            final.game.name]
        pimc: list[dict[str, Any]] = []
        try:
            work = {"spec": row["spec"], "history": row["history"]}
            items = await server.pool.run(name, work, 300)
            if final.game.name == "skat" and final.contract is not None:
                # the PIMC view of the seat's own cards, from what it could know then
                pimc = await server.pool.run("skat_pimc_review", {**work, "seat": row["seat"]},
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
