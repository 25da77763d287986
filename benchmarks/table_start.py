"""How soon the web table opens: from the start of a command to the page, the engines warm,
and a table's first engine move.

Starts COMMAND (default: ``spielwerk serve`` of this checkout) in its own process group,
then measures, from the start:

* **page**: the first HTTP 200 of ``/``;
* **lobby**: the lobby's game list (``/api/games``: the form can be filled in);
* **table**: a Skat table created at once (``POST /api/tables``, the person at rearhand:
  the engines at middlehand and forehand bid first) and joined by a websocket client: the first
  engine move that reaches it (while the engines warm up the table waits for it);
* **warm**: ``/api/engines`` no longer says ``warming``;

and checks ``/api/stats``: engine moves that fell back (a timeout or failure) must be 0.
Then stops the command with SIGINT (as Ctrl-C does).

    .venv/bin/python benchmarks/table_start.py                       # this checkout, as it is
    NUMBA_CACHE_DIR=$(mktemp -d) .venv/bin/python benchmarks/table_start.py   # a fresh machine
    .venv/bin/python benchmarks/table_start.py --cwd /tmp/fresh --port 8791 -- make run PORT=8791

Prints the figures and the machine; never fails on time (exit 1 only when the table
never loads, an engine move fell back, or no move came within ``--limit`` seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _get(url: str, timeout: float = 120) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return int(r.status), bytes(r.read())
    except OSError:
        return 0, b""


def _post(url: str, body: dict[str, object]) -> dict[str, object]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        out: dict[str, object] = json.loads(r.read())
        return out


async def _first_engine_move(port: int, table: str, limit: float) -> bool:
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/{table}",
                                  origin=f"http://127.0.0.1:{port}") as ws:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
            except TimeoutError:
                return False
            if msg.get("type") == "view" and msg.get("last") is not None:
                return True
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--cwd", type=Path, default=ROOT, help="where the command runs")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds to wait at most")
    parser.add_argument("command", nargs="*", help="the command (after --)")
    args = parser.parse_args()
    command = args.command or [str(Path(sys.executable).with_name("spielwerk")), "serve",
                               "--port", str(args.port)]
    base = f"http://127.0.0.1:{args.port}"
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.2f}; NUMBA_CACHE_DIR={os.environ.get('NUMBA_CACHE_DIR', '-')}")
    print("command:", " ".join(command), "in", args.cwd)
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=args.cwd, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    figures: dict[str, float] = {}
    ok = True
    try:
        while _get(base + "/")[0] != 200:
            if proc.poll() is not None or time.perf_counter() - start > args.limit:
                print("the page never loaded")
                return 1
            time.sleep(0.05)
        figures["page"] = time.perf_counter() - start
        warming = json.loads(_get(base + "/api/engines")[1] or b"{}").get("warming")
        print(f"page after {figures['page']:.1f} s (engines warming: {warming})")
        while _get(base + "/api/games")[0] != 200 and time.perf_counter() - start < args.limit:
            time.sleep(0.05)
        figures["lobby"] = time.perf_counter() - start
        print(f"lobby's game list after {figures['lobby']:.1f} s")
        table = str(_post(base + "/api/tables", {"game": "skat", "seat": 2, "time": 2.0})["id"])
        moved = asyncio.run(_first_engine_move(args.port, table, args.limit))
        figures["table"] = time.perf_counter() - start
        print(f"first engine move after {figures['table']:.1f} s" if moved else
              "no engine move came")
        ok = moved
        while json.loads(_get(base + "/api/engines")[1] or b"{}").get("warming", True):
            if time.perf_counter() - start > args.limit:
                break
            time.sleep(0.2)
        figures["warm"] = time.perf_counter() - start
        print(f"engines warm after {figures['warm']:.1f} s")
        stats = json.loads(_get(base + "/api/stats")[1] or b"{}")
        print(f"engine moves {stats.get('engine_moves')}, fallbacks {stats.get('fallbacks')}")
        ok = ok and stats.get("fallbacks") == 0
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
