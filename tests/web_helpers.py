"""Shared helpers of the web table tests: a server on a free port, a deal played by rule."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``spielwerk serve`` in a child process (the real CLI, uvicorn and engine workers)."""

    def __init__(self, db: Path, engines: int = 1, abandon: float = 10.0) -> None:
        self.db = db
        self.engines = engines
        self.abandon = abandon
        self.port = free_port()
        self.proc: subprocess.Popen[str] | None = None
        self.base = f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> ServerProcess:
        env = dict(os.environ)
        self.log_path = self.db.with_suffix(f".{self.port}.log")
        self.log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "spielwerk.cli.main", "serve", "--port", str(self.port),
             "--db", str(self.db), "--engines", str(self.engines), "--abandon",
             str(self.abandon)],
            stdout=self.log, stderr=subprocess.STDOUT, text=True, env=env,
        )
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()}")
            try:
                # /api/stats answers at once; /api/games may first probe the Kalah limits
                with urllib.request.urlopen(self.base + "/api/stats", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("server did not start")

    def stop(self) -> int:
        assert self.proc is not None
        self.proc.terminate()  # SIGTERM: uvicorn shuts down cleanly
        try:
            rc = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.log.close()
        return rc

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()
        self.log.close()


def served(tmp_path_factory: Any, name: str = "web", engines: int = 0) -> Iterator[ServerProcess]:
    """A module's server fixture body: ``spielwerk serve`` on a fresh database, stopped after
    the module (``yield from served(tmp_path_factory)``)."""
    srv = ServerProcess(tmp_path_factory.mktemp(name) / "web.sqlite3", engines=engines).start(
        timeout=300)  # a busy machine: the first /api/games may probe the Kalah limits
    yield srv
    srv.stop()


def rule_deal(seed: int, stop: Any = None) -> Any:
    """A Skat deal played by ``rule`` bots: to its end, or until ``stop(state)`` holds for
    the seat to move (None when it never does)."""
    from spielwerk.core.agent import make_agent
    from spielwerk.core.game import CHANCE, sample_chance
    from spielwerk.core.registry import load_game

    game = load_game("skat")
    st: Any = game.new_initial_state()
    rng = np.random.default_rng(seed)
    bots = [make_agent("rule", game, seed=s) for s in range(3)]
    while not st.is_terminal():
        if st.current_player == CHANCE:
            st.apply(sample_chance(st, rng))
            continue
        if stop is not None and stop(st):
            return st
        st.apply(bots[st.current_player].act(st.info_state(st.current_player)))
    return st if stop is None else None
