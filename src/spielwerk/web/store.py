"""SQLite persistence of the web table: open tables and finished games.

A table is its configuration plus the action history of the game in progress,
written after every action, so a server restart continues where it stopped.
A finished game is stored as its action record (the project's JSON record:
game spec plus history). Writes are single transactions.

spielwerk writes only to its own databases: a new or empty file becomes one,
marked with :data:`APPLICATION_ID` (``PRAGMA application_id``); an existing
database is used only if it carries the mark, or if it is one written before
the mark existed (exactly spielwerk's two tables, schema 1), which is then
marked. Any other file (another program's database, a file that is not a
SQLite database) is refused with one clear line before anything is written
to it.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from spielwerk.core.errors import SpielwerkError

log = logging.getLogger("spielwerk.web")

SCHEMA_VERSION = 2
"""2: each finished game names its people's seats (``games.persons``), for their records."""
APPLICATION_ID = int.from_bytes(b"SPWK", "big")
"""``PRAGMA application_id`` of every spielwerk database (0x5350574B, "SPWK")."""
SCHEMA = {
    "tables": ("id", "config", "history", "deal_no", "series", "created", "updated"),
    "games": ("id", "table_id", "spec", "history", "seat", "players", "summary", "source",
              "finished"),
}
"""The tables of schema 1 and their columns, by which an unmarked database of an earlier
spielwerk is recognised (schema 2 adds ``games.persons``)."""
SQLITE_INT = range(-(2**63), 2**63)
"""The integers SQLite stores; an id outside it names no row (and would overflow)."""


class StoreError(SpielwerkError):
    """The database cannot be used (not a database, wrong schema, unreadable)."""


def default_db_path() -> Path:
    """``$SPIELWERK_DATA_DIR`` or ``$XDG_DATA_HOME/spielwerk`` or ``~/.local/share/spielwerk``."""
    base = os.environ.get("SPIELWERK_DATA_DIR")
    if base:
        return Path(base) / "web.sqlite3"
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "spielwerk" / "web.sqlite3"


class Store:
    """Tables and finished games in one SQLite file (thread-safe, one connection)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder for the database {self.path}: "
                             f"{exc.strerror}") from None
        self._lock = threading.Lock()
        try:
            self._check_owner()
            self.db = sqlite3.connect(str(self.path), check_same_thread=False,
                                      isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path} is not a usable spielwerk database ({exc}); move it away or "
                f"choose another file with --db"
            ) from None

    def _check_owner(self) -> None:
        """Refuse an existing database that is not spielwerk's, reading it only."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return  # a new file: spielwerk's from the start
        uri = self.path.resolve().as_uri() + "?mode=ro"
        con = sqlite3.connect(uri, uri=True)
        try:
            app_id = con.execute("PRAGMA application_id").fetchone()[0]
            version = con.execute("PRAGMA user_version").fetchone()[0]
            names = sorted(row[0] for row in con.execute(
                "SELECT name FROM sqlite_master WHERE substr(name, 1, 7) != 'sqlite_'"))
            columns = {name: tuple(row[0] for row in con.execute(
                "SELECT name FROM pragma_table_info(?)", (name,))) for name in SCHEMA}
        finally:
            con.close()
        if app_id == APPLICATION_ID:
            return
        if app_id == 0 and not names and version == 0:
            return  # an empty database: nothing in it to damage
        if app_id == 0 and version == 1 and columns == SCHEMA \
                and names == sorted(SCHEMA):
            return  # written by spielwerk before the mark; _migrate marks it
        what = (f"its tables: {', '.join(names)}" if names and app_id == 0
                else f"application id {app_id}")
        raise StoreError(f"{self.path} is not a spielwerk database ({what}); it is left "
                         "untouched: choose another file with --db")

    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer spielwerk "
                             f"(schema {version}); choose another file with --db")
        if version == 1:  # schema 1 had no people's seats: unknown (NULL) for its games
            self.db.executescript(
                "BEGIN; ALTER TABLE games ADD COLUMN persons TEXT; "
                "PRAGMA user_version=2; COMMIT;")
        self.db.executescript(
            f"""
            BEGIN;
            CREATE TABLE IF NOT EXISTS tables (
                id TEXT PRIMARY KEY, config TEXT NOT NULL, history TEXT NOT NULL,
                deal_no INTEGER NOT NULL DEFAULT 0, series TEXT NOT NULL DEFAULT '[]',
                created REAL NOT NULL, updated REAL NOT NULL
            );
            CREATE TABLE IF NOT EXISTS games (
                id INTEGER PRIMARY KEY AUTOINCREMENT, table_id TEXT, spec TEXT NOT NULL,
                history TEXT NOT NULL, seat INTEGER NOT NULL DEFAULT 0,
                players TEXT NOT NULL DEFAULT '[]', summary TEXT NOT NULL DEFAULT '',
                source TEXT NOT NULL DEFAULT 'played', finished REAL NOT NULL,
                persons TEXT
            );
            PRAGMA application_id={APPLICATION_ID};
            PRAGMA user_version={SCHEMA_VERSION};
            COMMIT;
            """
        )

    def close(self) -> None:
        with self._lock:
            self.db.close()

    # ----- tables
    def save_table(self, table_id: str, config: dict[str, Any], history: list[int],
                   deal_no: int, series: list[dict[str, Any]]) -> None:
        now = time.time()
        with self._lock:
            self.db.execute(
                "INSERT INTO tables (id, config, history, deal_no, series, created, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                "config=excluded.config, history=excluded.history, deal_no=excluded.deal_no, "
                "series=excluded.series, "
                "updated=excluded.updated",
                (table_id, json.dumps(config), json.dumps(history), deal_no,
                 json.dumps(series), now, now),
            )

    def load_table(self, table_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self.db.execute(
                "SELECT config, history, deal_no, series FROM tables WHERE id=?", (table_id,)
            ).fetchone()
        if row is None:
            return None
        try:
            config = json.loads(row[0])
            history = json.loads(row[1])
            series = json.loads(row[3])
            if not isinstance(config, dict):
                raise ValueError("its configuration is not an object")
            if not isinstance(history, list) or not all(
                    isinstance(a, int) and not isinstance(a, bool) for a in history):
                raise ValueError("its history is not a list of action ids")
            if not isinstance(series, list):
                raise ValueError("its list of deals is not a list")
            if isinstance(row[2], bool) or not isinstance(row[2], int):
                raise ValueError("its deal number is not an integer")
        except (ValueError, TypeError) as exc:
            raise StoreError(f"table {table_id} is damaged in the database ({exc}); start a "
                             "new table") from None
        return {"config": config, "history": history, "deal_no": row[2], "series": series}

    def list_tables(self, limit: int = 50) -> list[dict[str, Any]]:
        """The tables last played first, each with its stored configuration, history and
        list (``config``, ``history``, ``series``: the history holds the deal, so these
        stay on the server; :func:`spielwerk.web.tables.lobby_entry` makes what a browser
        sees)."""
        with self._lock:
            rows = self.db.execute(
                "SELECT id, config, deal_no, updated, created, history, series FROM tables "
                "ORDER BY updated DESC LIMIT ?", (limit,),
            ).fetchall()
        out = []
        for tid, config, deal_no, updated, created, history, series in rows:
            try:
                cfg = json.loads(config)
                hist, ser = json.loads(history), json.loads(series)
            except ValueError:
                continue
            if not isinstance(cfg, dict):
                continue
            out.append({"id": tid, "game": cfg.get("game"), "spec": cfg.get("spec"),
                        "opponents": cfg.get("agents"), "deal_no": deal_no, "updated": updated,
                        "created": created, "config": cfg, "history": hist, "series": ser})
        return out

    # ----- finished games
    def add_game(self, spec: str, history: list[int], seat: int, players: list[str],
                 summary: str, table_id: str | None = None, source: str = "played",
                 persons: list[int] | None = None, finished: float | None = None) -> int:
        """Store a finished game; ``persons``: the seats people played (None: unknown, as
        for an upload), ``finished``: its time (now by default)."""
        with self._lock:
            cur = self.db.execute(
                "INSERT INTO games (table_id, spec, history, seat, players, summary, source, "
                "finished, persons) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (table_id, spec, json.dumps(history), seat, json.dumps(players), summary,
                 source, time.time() if finished is None else finished,
                 None if persons is None else json.dumps(persons)),
            )
            return int(cur.lastrowid or 0)

    def get_game(self, game_id: int) -> dict[str, Any] | None:
        if game_id not in SQLITE_INT:
            return None
        with self._lock:
            row = self.db.execute(
                "SELECT id, table_id, spec, history, seat, players, summary, source, finished "
                "FROM games WHERE id=?", (game_id,),
            ).fetchone()
        if row is None:
            return None
        try:
            history = [int(a) for a in json.loads(row[3])]
            players = json.loads(row[5])
        except (ValueError, TypeError) as exc:
            raise StoreError(f"game {game_id} is damaged in the database ({exc})") from None
        return {"id": row[0], "table_id": row[1], "spec": row[2], "history": history,
                "seat": row[4], "players": players, "summary": row[6], "source": row[7],
                "finished": row[8]}

    def find_game(self, table_id: str, history: list[int]) -> int | None:
        """The id of the finished game stored for ``table_id`` with exactly this history
        (the last one if several), so a finished table reopened from the store keeps its
        review and download links; None if there is none."""
        text = json.dumps(history)
        with self._lock:
            row = self.db.execute(
                "SELECT id FROM games WHERE table_id=? AND history=? ORDER BY id DESC LIMIT 1",
                (table_id, text),
            ).fetchone()
        return None if row is None else int(row[0])

    def list_games(self, limit: int = 100) -> list[dict[str, Any]]:
        with self._lock:
            rows = self.db.execute(
                "SELECT id, spec, summary, source, finished, players, seat FROM games "
                "ORDER BY id DESC LIMIT ?", (limit,),
            ).fetchall()
        out = []
        for r in rows:
            try:
                players = json.loads(r[5])
            except ValueError:
                players = None
            if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
                players = []
            out.append({"id": r[0], "spec": r[1], "summary": r[2], "source": r[3],
                        "finished": r[4], "players": players, "seat": r[6]})
        return out

    # ----- people's records
    def people_seats(self) -> list[dict[str, Any]]:
        """Every played game's people, oldest first: ``{"id", "finished", "seats"}`` with
        ``seats`` the name at each person seat, as the record names it (a seat the
        stand-in played so: "Anna (knn playing)"). A game stored before schema 2 counts
        its creator's seat as its one person; an unreadable row is left out."""
        with self._lock:
            rows = self.db.execute(
                "SELECT id, seat, players, persons, finished FROM games "
                "WHERE source='played' ORDER BY id").fetchall()
        out = []
        for gid, seat, players, persons, finished in rows:
            try:
                names = json.loads(players)
                seats = [seat] if persons is None else json.loads(persons)
            except ValueError:
                continue
            if not isinstance(names, list) or not isinstance(seats, list):
                continue
            named = {s: names[s] for s in seats if isinstance(s, int)
                     and not isinstance(s, bool) and 0 <= s < len(names)
                     and isinstance(names[s], str)}
            out.append({"id": gid, "finished": finished, "seats": named})
        return out

    def games_by_id(self, ids: list[int]) -> list[dict[str, Any]]:
        """The spec and history of each stored game in ``ids`` (``{"id", "spec",
        "history"}``; an id without a readable game is left out)."""
        out = []
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            with self._lock:
                rows = self.db.execute(
                    f"SELECT id, spec, history FROM games WHERE id IN "
                    f"({', '.join('?' * len(chunk))})", chunk).fetchall()
            for gid, spec, history in rows:
                try:
                    hist = json.loads(history)
                except ValueError:
                    continue
                if isinstance(hist, list) and all(
                        isinstance(a, int) and not isinstance(a, bool) for a in hist):
                    out.append({"id": gid, "spec": spec, "history": hist})
        return out
