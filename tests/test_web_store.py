"""The web table's SQLite file: spielwerk uses only its own databases and never writes to
another program's (``Store``, ``spielwerk serve --db``)."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from spielwerk.web.store import APPLICATION_ID, Store, StoreError


def _foreign(path: Path, *statements: str) -> Path:
    con = sqlite3.connect(path)
    for sql in statements:
        con.execute(sql)
    con.commit()
    con.close()
    return path


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in ``folder``: its bytes and its modification time (ns)."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


FOREIGN = {
    "other_table": ("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
                    "INSERT INTO notes (text) VALUES ('mine')"),
    "games_table": ("CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT, score REAL)",
                    "INSERT INTO games (name, score) VALUES ('chess', 1.5)"),
    "application_id": ("PRAGMA application_id=1234",),
}


SCHEMA_1 = """
    CREATE TABLE tables (
        id TEXT PRIMARY KEY, config TEXT NOT NULL, history TEXT NOT NULL,
        deal_no INTEGER NOT NULL DEFAULT 0, series TEXT NOT NULL DEFAULT '[]',
        created REAL NOT NULL, updated REAL NOT NULL
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT, table_id TEXT, spec TEXT NOT NULL,
        history TEXT NOT NULL, seat INTEGER NOT NULL DEFAULT 0,
        players TEXT NOT NULL DEFAULT '[]', summary TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL DEFAULT 'played', finished REAL NOT NULL
    );
"""
"""The two tables of a spielwerk database of schema 1 (before the mark and ``persons``)."""


@pytest.mark.parametrize("kind", sorted(FOREIGN))
def test_a_database_of_another_program_is_refused_and_left_untouched(
        tmp_path: Path, kind: str) -> None:
    db = _foreign(tmp_path / "other.sqlite3", *FOREIGN[kind])
    before = _snapshot(tmp_path)
    with pytest.raises(StoreError, match="not a spielwerk database"):
        Store(db)
    assert _snapshot(tmp_path) == before  # no byte written, no journal left beside it


def test_serve_refuses_a_foreign_database_in_one_line(tmp_path: Path) -> None:
    db = _foreign(tmp_path / "other.sqlite3", *FOREIGN["games_table"])
    before = _snapshot(tmp_path)
    out = subprocess.run([sys.executable, "-m", "spielwerk.cli.main", "serve", "--db", str(db),
                          "--port", str(_free_port()), "--engines", "0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a spielwerk database" in lines[0], out.stderr
    assert "games" in lines[0] and str(db) in lines[0]
    assert _snapshot(tmp_path) == before


def test_a_new_or_empty_file_becomes_a_marked_spielwerk_database(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    for path in (tmp_path / "new" / "web.sqlite3", empty):
        store = Store(path)
        store.add_game("kalah", [0, 1], 0, ["you", "random"], "draw")
        store.close()
        con = sqlite3.connect(path)
        assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        con.close()
        again = Store(path)  # and it is accepted again
        assert [g["spec"] for g in again.list_games()] == ["kalah"]
        again.close()


def test_a_database_of_an_earlier_spielwerk_is_kept_and_marked(tmp_path: Path) -> None:
    """Databases written before the mark existed: spielwerk's two tables, user_version 1."""
    db = tmp_path / "old.sqlite3"
    con = sqlite3.connect(db)
    con.executescript(SCHEMA_1 + """
        INSERT INTO games (spec, history, finished) VALUES ('kalah', '[0, 1]', 1.0);
        PRAGMA user_version=1;
        """
    )
    con.close()
    store = Store(db)
    assert store.get_game(1)["history"] == [0, 1]  # type: ignore[index]
    store.close()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    con.close()
