"""A person's record at the web table: their finished games over time, per game.

Read from the store's finished games: every game in which a person's seat bears the
name (a seat the stand-in played for them too, counted and said so). For each game the
person played: the total per day of play (the Seeger-Fabian list in Skat, won minus lost
where a game keeps no list: :attr:`~spielwerk.core.table_face.TableFace.record_score`),
won and lost by game type as declarer, and the running total after each game (the page
draws it). Days are the server's local calendar days.

A name is what a person types at a table; two people who type the same name share one
record.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from typing import Any

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.store import Store

STAND_IN = re.compile(r"^(?P<name>.*) \((?P<agent>[^()]*) playing\)$")
"""How a record names a seat the stand-in played for its person: "Anna (knn playing)"."""
MAX_NAME = 100
"""The longest name a record is asked for (a table's names are shorter)."""
CACHE_SIZE = 20000
"""Finished games whose record rows are kept in memory (they never change)."""

_rows: OrderedDict[tuple[str, int], dict[str, Any] | None] = OrderedDict()
_rows_lock = threading.Lock()


def person_of(shown: str) -> tuple[str, bool]:
    """The person's name of a seat as a record names it, and whether the stand-in played
    it ("Anna (knn playing)" -> ("Anna", True))."""
    m = STAND_IN.match(shown)
    return (m.group("name"), True) if m else (shown, False)


def people(store: Store) -> list[dict[str, Any]]:
    """Everyone with a finished game at a person's seat, the last to play first:
    ``{"name", "games", "last"}`` (``last``: when their last game ended)."""
    seen: dict[str, dict[str, Any]] = {}
    for game in store.people_seats():
        for shown in set(game["seats"].values()):
            name, _ = person_of(shown)
            entry = seen.setdefault(name, {"name": name, "games": 0, "last": 0.0})
            entry["games"] += 1
            entry["last"] = max(entry["last"], game["finished"])
    return sorted(seen.values(), key=lambda e: (-e["last"], e["name"]))


def _record_rows(store: Store, wanted: dict[int, int]) -> dict[int, dict[str, Any] | None]:
    """The record row of each game id in ``wanted`` for its seat (``{id: seat}``), from the
    cache or by replaying the stored game; None for a game that cannot be replayed."""
    key = str(store.path)
    out: dict[int, dict[str, Any] | None] = {}
    missing = []
    with _rows_lock:
        for gid, seat in wanted.items():
            k = (key, gid)
            if k in _rows and (_rows[k] is None or _rows[k]["seat"] == seat):  # type: ignore[index]
                out[gid] = _rows[k]
                _rows.move_to_end(k)
            else:
                missing.append(gid)
    for game in store.games_by_id(missing):
        gid = game["id"]
        try:
            g = load_game(game["spec"])
            state = g.new_initial_state()
            for a in game["history"]:
                state.apply(a)
            row = None
            if state.is_terminal():
                face = table_face(g)
                row = {"seat": wanted[gid], "game": g.name, "title": face.title or g.name,
                       "score_name": face.record_score,
                       **face.record_row(state, wanted[gid])}
        except (SpielwerkError, ValueError, TypeError, IndexError, OverflowError):
            row = None
        out[gid] = row
        with _rows_lock:
            _rows[(key, gid)] = row
            while len(_rows) > CACHE_SIZE:
                _rows.popitem(last=False)
    return out


def person_record(store: Store, name: str) -> dict[str, Any]:
    """The record of the person ``name``: ``{"name", "games": [...]}``, one entry per game
    they played (the most played first) with ``played``, ``stand_in`` (games the stand-in
    finished for them), ``won``/``lost``/``drawn``, ``total``, ``days`` (``{"day",
    "games", "score", "won", "lost"}`` per day of play), ``declared`` (``{"type", "won",
    "lost"}`` per game type they declared) and ``running`` (``[finished, total]`` after
    each game); ``unreadable``: games that could not be replayed."""
    seats: dict[int, tuple[int, bool, float]] = {}
    for game in store.people_seats():
        for seat, shown in sorted(game["seats"].items()):
            who, stood = person_of(shown)
            if who == name:
                seats[game["id"]] = (seat, stood, game["finished"])
                break
    rows = _record_rows(store, {gid: s[0] for gid, s in seats.items()})
    per_game: dict[str, dict[str, Any]] = {}
    unreadable = 0
    for gid in sorted(seats, key=lambda g: (seats[g][2], g)):
        row = rows.get(gid)
        if row is None:
            unreadable += 1
            continue
        _, stood, finished = seats[gid]
        rec = per_game.setdefault(row["game"], {
            "game": row["game"], "title": row["title"], "score_name": row["score_name"],
            "played": 0, "stand_in": 0, "won": 0, "lost": 0, "drawn": 0, "total": 0,
            "days": {}, "declared": {}, "running": []})
        rec["played"] += 1
        rec["stand_in"] += stood
        rec[row["result"]] += 1
        rec["total"] += row["score"]
        day = time.strftime("%Y-%m-%d", time.localtime(finished))
        d = rec["days"].setdefault(day, {"day": day, "games": 0, "score": 0, "won": 0,
                                         "lost": 0})
        d["games"] += 1
        d["score"] += row["score"]
        if row["result"] in ("won", "lost"):
            d[row["result"]] += 1
        if row["declared"] is not None:
            t = rec["declared"].setdefault(row["declared"], {"type": row["declared"],
                                                             "won": 0, "lost": 0})
            t[row["result"]] += 1
        rec["running"].append([finished, rec["total"]])
    games = []
    for rec in sorted(per_game.values(), key=lambda r: (-r["played"], r["game"])):
        rec["days"] = list(rec["days"].values())
        rec["declared"] = sorted(rec["declared"].values(),
                                 key=lambda t: (-(t["won"] + t["lost"]), t["type"]))
        games.append(rec)
    return {"name": name, "games": games, "unreadable": unreadable}
