"""``spielwerk serve``: the web table (FastAPI + uvicorn) on this machine."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import typer

from spielwerk.cli.options import file_target
from spielwerk.core.errors import SpielwerkError


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on"),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="port to listen on"),
    db: Path | None = typer.Option(
        None, "--db", help="the SQLite file for tables and games (default: the user data folder, "
        "$SPIELWERK_DATA_DIR or ~/.local/share/spielwerk/web.sqlite3)"),
    engines: int = typer.Option(
        max(1, min(4, (os.cpu_count() or 2) - 1)), "--engines", min=0, max=64,
        help="engine worker processes (0: run engines in a thread of the server)"),
    abandon: float = typer.Option(
        10.0, "--abandon", min=0, help="seconds after the last browser leaves a table before its "
        "engine work is cancelled"),
) -> None:
    """Start the web table: play Skat, Durak and Kalah in the browser; Ctrl-C stops it."""
    if db is not None:
        file_target("--db", db, "web.sqlite3")
    import socket

    import uvicorn

    from spielwerk.web.app import create_app
    from spielwerk.web.store import default_db_path

    try:  # a taken port is one clear line, before the database and the workers start
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise SpielwerkError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    path = db if db is not None else default_db_path()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    app = create_app(path, workers=engines, abandon_s=abandon)
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    print(f"spielwerk web table: http://{shown}:{port}/  (database {path}; Ctrl-C stops)",
          flush=True)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=1 << 20,
                    timeout_graceful_shutdown=3)
    except OSError as exc:
        raise SpielwerkError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its clean shutdown
        print("spielwerk web table stopped", flush=True)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
