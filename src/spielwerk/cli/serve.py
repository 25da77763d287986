"""``spielwerk serve``: the web table (FastAPI + uvicorn) on this machine."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from pathlib import Path
from types import FrameType
from typing import Any

import typer

from spielwerk.cli.options import file_target
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.process import ignore_further_interrupts


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
    max_tables: int = typer.Option(
        20, "--max-tables-per-minute", min=1, help="tables one address may create a minute "
        "(a server reachable from elsewhere; this machine's own requests are not limited)"),
    max_messages: int = typer.Option(
        20, "--max-messages-per-second", min=1, help="websocket messages one address may "
        "send a second (moves, ...; more are ignored with an error)"),
    max_connections: int = typer.Option(
        20, "--max-connections", min=1, help="websocket connections one address may hold "
        "open at once (browser tabs of tables and spectators)"),
) -> None:
    """Start the web table: play every table game in the browser; Ctrl-C stops it."""
    if db is not None:
        file_target("--db", db, "web.sqlite3")
    import socket

    import uvicorn

    from spielwerk.web.app import create_app
    from spielwerk.web.seats import Limits, plain_http_warning, redact_logs
    from spielwerk.web.store import default_db_path

    try:  # a taken port is one clear line, before the database and the workers start
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise SpielwerkError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    path = db if db is not None else default_db_path()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    redact_logs()  # seat keys never reach the log, whatever uvicorn writes
    warning = plain_http_warning(host)
    try:
        limits = Limits(tables_per_minute=max_tables, messages_per_second=max_messages,
                        connections=max_connections)
        app = create_app(path, workers=engines, abandon_s=abandon, local_open=warning is None,
                         limits=limits)
        shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
        print(f"spielwerk web table: http://{shown}:{port}/  (database {path}; Ctrl-C stops)",
              flush=True)
        if warning:
            print(warning, flush=True)
        _run(uvicorn.Config(app, host=host, port=port, log_level="warning",
                            ws_max_size=1 << 20, timeout_graceful_shutdown=3))
    except OSError as exc:
        raise SpielwerkError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    except KeyboardInterrupt:  # Ctrl-C before uvicorn started: nothing runs yet
        pass
    ignore_further_interrupts()  # a second Ctrl-C cannot raise into the exit's clean-up
    print("spielwerk web table stopped", flush=True)


def _run(config: Any) -> None:
    """``uvicorn.run``: uvicorn takes Ctrl-C over, stops the server (the engine workers ignore
    Ctrl-C; the app stops them) and returns (exit code 0, as uvicorn's own command). A second
    Ctrl-C while it stops is ignored: the stop takes seconds at most, and uvicorn would re-raise
    both at the end (the second cancels the stopping server: a traceback)."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if self.should_exit and sig == signal.SIGINT:
                return
            super().handle_exit(sig, frame)

    server = Server(config)
    with contextlib.suppress(KeyboardInterrupt):  # the Ctrl-C, re-raised after the clean stop
        server.run()
    if not server.started:  # as uvicorn.run: it did not start (its log says why)
        raise SystemExit(3)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
