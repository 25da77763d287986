"""Web table load: many websocket clients play random legal moves at many tables.

Starts ``spielwerk serve`` on 127.0.0.1 (a free port, a fresh database in a
temporary folder) and opens ``--clients`` tables: by default one person each
against ``random`` engines (Kalah, Skat and Durak in turn); with ``--people 3``
(2 or 3) every seat of every table is a person, each its own websocket client
joined by its seat's private link (Skat and 3-player Durak in turn, Kalah with
``--people 2``). Every client plays random legal moves as fast as the server
answers for ``--seconds``; a finished game is followed by the next one (asked
for by the table's first person). It talks only to 127.0.0.1 and stops by
itself. Prints:

* errors: error messages received plus client exceptions (goal 0);
* lost and duplicated actions: every move a client saw acknowledged is
  compared with the server's stored record (finished games and open tables)
  of that seat, so a move played twice or never played is counted (goal 0);
* latency of the server's answer to a person's move (the new view), p50/p95/max
  (goal p95 < 50 ms);
* resident memory of the server process and its engine workers, after the
  warm-up and at the end.

Never fails on timing.

    python benchmarks/web_load.py [--clients 50] [--seconds 60] [--engines 2] [--people 3]
                                  [--think 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

GAMES = [("kalah", {}), ("skat", {}), ("durak", {"players": 2, "deck": 36})]
PEOPLE_GAMES = {2: [("kalah", {})],
                3: [("skat", {}), ("durak", {"players": 3, "deck": 36})]}
"""The games of a table of people only, by the number of people at it."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its children (MB), from /proc."""
    total = 0
    pids = [pid]
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
        pids += [int(p) for p in out.stdout.split()]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def get(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path, timeout=60) as r:
        return json.loads(r.read())


class Client:
    """One person's browser: a seat at a table, random legal moves."""

    def __init__(self, index: int, base: str, port: int, seed: int, people: int = 1,
                 table: tuple[str, str, dict[str, Any]] | None = None, seat: int = 0,
                 key: str | None = None) -> None:
        self.index = index
        self.base = base
        self.port = port
        self.rng = random.Random(seed)
        self.people = people
        self.game, self.params = GAMES[index % len(GAMES)]
        self.table_id = ""
        if table is not None:
            self.table_id, self.game, self.params = table
        self.seat = seat
        self.key = key
        self.leader = people == 1 or seat == 0
        """Whether this client asks for the next game (one per table: a second "next"
        for a game already dealt would be refused)."""
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.acked: dict[int, list[tuple[int, int]]] = {}  # deal_no -> [(ply, action)]
        self.games_done = 0
        self.lost_waits = 0
        self.think = 0.0
        """Mean seconds a person takes to decide (0: as fast as the server answers)."""

    async def run(self, stop_at: float) -> None:
        import websockets

        loop = asyncio.get_running_loop()
        if not self.table_id:
            body = {"game": self.game, "params": self.params, "seat": 0,
                    "opponents": ["random"] * (1 if self.game != "skat" else 2), "time": 1.0,
                    "seed": 1000 + self.index}
            self.table_id = (await loop.run_in_executor(None, post, self.base,
                                                        "/api/tables", body))["id"]
        url = f"ws://127.0.0.1:{self.port}/ws/{self.table_id}"
        if self.key is not None:
            url += f"?seat={self.seat}&key={self.key}"
        async with websockets.connect(url, max_size=2**22) as ws:
            pending: tuple[int, int, float] | None = None  # (ply, action, sent_at)
            while time.perf_counter() < stop_at:
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=15)
                except TimeoutError:
                    self.lost_waits += 1
                    self.errors.append("no message for 15 s")
                    await ws.send(json.dumps({"type": "view"}))
                    continue
                msg = json.loads(raw)
                if msg["type"] == "error":
                    self.errors.append(msg["message"])
                    pending = None
                    continue
                if msg["type"] != "view":
                    continue
                v = msg["view"]
                deal = msg["table"]["deal_no"]
                if pending is not None and (v["ply"] > pending[0] or deal > pending[3]):
                    ply, action, sent, _ = pending
                    self.latencies.append(time.perf_counter() - sent)
                    self.acked.setdefault(pending[3], []).append((ply, action))
                    pending = None
                if v["over"]:
                    if pending is None and (deal, v["ply"]) != self._over_seen:
                        self._over_seen = (deal, v["ply"])
                        self.games_done += 1
                        if self.leader:
                            await ws.send(json.dumps({"type": "next"}))
                    continue
                if v["to_move"] == v["seat"] and msg["thinking"] is None and pending is None \
                        and v["legal"]:
                    action = self.rng.choice(v["legal"])["id"]
                    if self.think > 0:  # a person's time to decide
                        await asyncio.sleep(self.rng.uniform(0, 2 * self.think))
                    pending = (v["ply"], action, time.perf_counter(), deal)
                    await ws.send(json.dumps({"type": "act", "action": action, "ply": v["ply"]}))

    _over_seen: tuple[int, int] = (-1, -1)


def people_tables(base: str, port: int, count: int, people: int) -> list[Client]:
    """``count`` tables of ``people`` persons each (every seat a person) and one client per
    seat with its private key."""
    clients = []
    games = PEOPLE_GAMES[people]
    for t in range(count):
        game, params = games[t % len(games)]
        r = post(base, "/api/tables", {"game": game, "params": params, "seed": 2000 + t,
                                       "seats": ["person"] * people, "time": 1.0,
                                       "away_s": "never"})
        for seat in range(people):
            key = r["links"][str(seat)].split("key=")[1]
            clients.append(Client(t * people + seat, base, port, seed=7919 * t + seat,
                                  people=people, table=(r["id"], game, params), seat=seat,
                                  key=key))
    return clients


def check_records(db: Path, clients: list[Client]) -> tuple[int, int, int]:
    """Compare each client's acknowledged moves with the server's records of its seat,
    read from the database after the server stopped (finished games in order, then the
    open game of each table). Returns (moves checked, lost, duplicated)."""
    import sqlite3

    import spielwerk  # noqa: F401
    from spielwerk.core.registry import load_game

    con = sqlite3.connect(db)
    checked = lost = dup = 0
    for c in clients:
        rows = con.execute("SELECT spec, history FROM games WHERE table_id=? ORDER BY id",
                           (c.table_id,)).fetchall()
        histories = {deal: (spec, json.loads(h)) for deal, (spec, h) in enumerate(rows)}
        config, history, deal_now = con.execute(
            "SELECT config, history, deal_no FROM tables WHERE id=?", (c.table_id,)).fetchone()
        if deal_now not in histories:
            spec = json.loads(config)["spec"]
            game = load_game(spec)
            if game.name == "skat":  # the dealer moves on with every deal
                game = load_game(spec, dealer=(int(game.params["dealer"]) + deal_now) % 3)
            histories[deal_now] = (game.spec(), json.loads(history))
        for deal, (spec, hist) in histories.items():
            state = load_game(spec).new_initial_state()
            mine = []
            for ply, a in enumerate(hist):
                if state.current_player == c.seat:
                    mine.append((ply, a))
                state.apply(a)
            sent = c.acked.get(deal, [])
            checked += len(sent)
            lost += len(set(sent) - set(mine))
            # a move of the seat in the record that the client never saw acknowledged would
            # be a duplicate or a move the server made up (the last one sent may be unacked)
            extra = len(set(mine) - set(sent))
            dup += max(0, extra - 1) + len(sent) - len(set(sent))
    con.close()
    return checked, lost, dup


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--engines", type=int, default=2, help="engine worker processes")
    ap.add_argument("--people", type=int, default=1, choices=(1, 2, 3),
                    help="people per table: 1 (against random engines) or every seat a "
                         "person (2: Kalah, 3: Skat and Durak)")
    ap.add_argument("--think", type=float, default=0.0,
                    help="mean seconds a person takes per move (uniform 0..2x; 0: none)")
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, {platform.platform()}")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.sqlite3"
        log = open(Path(tmp) / "server.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "spielwerk.cli.main", "serve", "--host", "127.0.0.1",
             "--port", str(port), "--db", str(db), "--engines", str(args.engines)],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(300):
                try:
                    get(base, "/api/games")
                    break
                except OSError:
                    time.sleep(0.2)
            clients = ([Client(i, base, port, seed=i) for i in range(args.clients)]
                       if args.people == 1 else people_tables(base, port, args.clients,
                                                              args.people))

            for c in clients:
                c.think = args.think

            async def go() -> float:
                # warm-up: one short game per game type compiles the kernels in the workers
                warm = [Client(i, base, port, seed=99 + i) for i in range(3)]
                await asyncio.gather(*(w.run(time.perf_counter() + 8) for w in warm))
                rss0 = rss_mb(proc.pid)
                stop_at = time.perf_counter() + args.seconds
                await asyncio.gather(*(c.run(stop_at) for c in clients))
                return rss0

            t0 = time.perf_counter()
            rss0 = asyncio.run(go())
            wall = time.perf_counter() - t0
            rss1 = rss_mb(proc.pid)
            stats = get(base, "/api/stats")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            log.close()
        checked, lost, dup = check_records(db, clients)
        lat = sorted(x for c in clients for x in c.latencies)
        errors = [e for c in clients for e in c.errors]
        games = sum(c.games_done for c in clients if c.leader)
        who = ("one person each" if args.people == 1 else
               f"{args.people} people each, {len(clients)} websocket clients")
        print(f"{args.clients} tables ({who}), {args.seconds:.0f} s (wall {wall:.1f} s incl. "
              f"warm-up), {args.engines} engine workers, loopback 127.0.0.1, "
              + (f"{args.think} s mean time per move" if args.think else "no time to think"))
        print(f"person moves answered: {len(lat)} ({len(lat) / args.seconds:.0f}/s); "
              f"games finished: {games}; engine moves: {stats['engine_moves']}")
        if lat:
            q = statistics.quantiles(lat, n=100)
            print(f"latency of the answer to a move: p50 {q[49] * 1000:.1f} ms, "
                  f"p95 {q[94] * 1000:.1f} ms, max {lat[-1] * 1000:.1f} ms (goal p95 < 50 ms)")
        print(f"errors: {len(errors)} (goal 0)" + (f"; first: {errors[0]}" if errors else ""))
        print(f"acknowledged moves checked against the server's records: {checked}; "
              f"lost {lost}, duplicated {dup} (goal 0 and 0)")
        print(f"server + engine workers resident memory: {rss0:.0f} MB after warm-up, "
              f"{rss1:.0f} MB at the end ({rss1 - rss0:+.0f} MB)")
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
