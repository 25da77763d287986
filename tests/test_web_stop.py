"""Ctrl-C stops ``spielwerk serve`` within seconds at any moment: while the engine workers
warm up, idle, and while an engine thinks.

The real command in a child process, SIGINT sent to its whole process group (as a terminal
does): the workers ignore it, the server stops them without replacing any, exit code 0 (as
uvicorn's own command), no traceback from any process, no process left.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from process_helpers import HAVE_PROC, Interrupted, ctrl_c, in_group
from web_helpers import free_port

STOPS_WITHIN = 15.0  # seconds after the Ctrl-C; it takes about one on an idle machine


def _stats(base: str) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(base + "/api/stats", timeout=5) as r:
            return json.loads(r.read())  # type: ignore[no-any-return]
    except OSError:
        return None


def _serve(tmp_path: Path, ready: Any, port: int) -> Interrupted:
    run = ctrl_c(["serve", "--port", str(port), "--db", str(tmp_path / "web.sqlite3"),
                  "--engines", "1"], ready, tmp_path, within=STOPS_WITHIN)
    return run


def _assert_stopped(run: Interrupted, pgid: int) -> None:
    print(f"stopped {run.seconds:.2f} s after the Ctrl-C")
    deadline = time.monotonic() + 5
    while in_group(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = in_group(pgid)
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert run.returncode == 0, run.output
    assert "Traceback" not in run.output and "Exception ignored" not in run.output, run.output
    assert "replaced" not in run.output, run.output  # no worker started during the stop
    assert run.output.count("spielwerk web table stopped") == 1, run.output
    assert "web table stopped: tables saved" in run.output, run.output
    assert not run.left and not left, f"processes left: {run.left} {left}\n{run.output}"
    assert run.seconds < STOPS_WITHIN


def _ctrl_c_again(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGINT)


pytestmark = pytest.mark.skipif(not HAVE_PROC,
                                reason="needs /proc and the installed spielwerk script")


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_during_the_warm_up_stops_the_server(tmp_path: Path, presses: int) -> None:
    """Also pressed twice: the second Ctrl-C, while the server stops, is ignored."""
    port = free_port()
    pid: list[int] = []

    def warming(p: int) -> bool:  # listening, the engine worker still warming up
        pid[:] = [p]
        stats = _stats(f"http://127.0.0.1:{port}")
        ready = stats is not None and stats["engine_workers_warmed"] == 0
        if ready and presses == 2:
            threading.Timer(0.15, _ctrl_c_again, args=(p,)).start()
        return ready

    run = _serve(tmp_path, warming, port)
    _assert_stopped(run, pid[0])
    assert "warmed up" not in run.output, "the Ctrl-C came after the warm-up"
    # a cold kernel cache (the test run alone on a fresh clone) compiles before warming up
    assert re.search(r"(warm_up|compile_kernels) cancelled", run.output), run.output


def test_ctrl_c_when_idle_stops_the_server(tmp_path: Path) -> None:
    port = free_port()
    pid: list[int] = []

    def idle(p: int) -> bool:
        pid[:] = [p]
        stats = _stats(f"http://127.0.0.1:{port}")
        return stats is not None and stats["engine_workers_warmed"] == 1

    run = _serve(tmp_path, idle, port)
    _assert_stopped(run, pid[0])


def test_ctrl_c_while_an_engine_thinks_stops_the_server(tmp_path: Path) -> None:
    """Kalah, the engine (seat 0) moves first with a minute's budget; the Ctrl-C comes a
    second after the table says it thinks, the browser still connected."""
    from websockets.sync.client import connect

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    pid: list[int] = []
    browser = contextlib.ExitStack()
    thinking = threading.Event()

    def listen(ws: Any) -> None:
        try:
            for raw in ws:
                if json.loads(raw).get("type") == "thinking":
                    thinking.set()
        except Exception:  # noqa: BLE001 - the server closes the socket when it stops
            pass

    def engine_thinks(p: int) -> bool:
        pid[:] = [p]
        stats = _stats(base)
        if stats is None or stats["engine_workers_warmed"] < 1:
            return False
        body = json.dumps({"game": "kalah", "seat": 1, "opponents": ["mcts:iters=100000000"],
                           "time": 60, "seed": 3}).encode()
        req = urllib.request.Request(base + "/api/tables", data=body,
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            tid = json.loads(r.read())["id"]
        ws = browser.enter_context(connect(f"ws://127.0.0.1:{port}/ws/{tid}", open_timeout=30))
        threading.Thread(target=listen, args=(ws,), daemon=True).start()
        assert thinking.wait(60), "the engine did not start"
        time.sleep(1.0)  # the worker is searching now
        return True

    with browser:
        run = _serve(tmp_path, engine_thinks, port)
    _assert_stopped(run, pid[0])
    assert "engine_move cancelled" in run.output, run.output


def test_exit_does_not_wait_for_the_lobby_probe(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The lobby's limits are probed in a thread at start (seconds for a solver agent); the
    server's exit must not wait for it (it did: ``asyncio.run`` joins its executor)."""
    from fastapi.testclient import TestClient

    import spielwerk.web.app as app_mod

    monkeypatch.setattr(app_mod, "all_lobby_limits", lambda: time.sleep(30))
    app = app_mod.create_app(tmp_path / "web.sqlite3", workers=0)
    t0 = time.monotonic()
    with TestClient(app) as client:
        assert client.get("/api/stats").status_code == 200
    assert time.monotonic() - t0 < 10

