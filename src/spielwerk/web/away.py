"""Who sits at a table now: connections per seat, a person who leaves, the stand-in.

A person whose connections to their seat have all closed is *away* (the others' views say
so, ``away``). At a table of several people, after the table's ``away_s`` seconds (None:
never) the stand-in (the table's ``stand_in`` agent spec, else the game's default
opponent) plays that seat, named so ("Anna (knn playing)") in the players and the record,
until the person comes back with their seat's link: the seat is handed back at its next
decision (an engine move already under way for it may still be played). The seats the
stand-in plays are kept with the table in the store, so a restarted server continues with
the stand-in and the person can still come back. When the last browser of a table leaves,
its engine work stops after ``abandon_s`` seconds and the table leaves memory.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from fastapi import WebSocket

from spielwerk.web.tables import Table

log = logging.getLogger("spielwerk.web")


class Presence:
    """The connections part of the server (a mixin: the server has the attributes below)."""

    conns: dict[str, dict[WebSocket, int | None]]
    abandoners: dict[str, asyncio.Task[None]]
    abandon_s: float
    tables: dict[str, Table]
    locks: dict[str, asyncio.Lock]
    drivers: dict[str, asyncio.Task[None]]
    cancels: dict[str, asyncio.Event]
    thinking: dict[str, int | None]
    seen: dict[str, set[int]]
    """The person seats of each table in memory that have been taken since it was loaded
    (one of them without a connection now is away)."""
    away_timers: dict[tuple[str, int], asyncio.Task[None]]

    if TYPE_CHECKING:  # the server's own
        def lock(self, table_id: str) -> asyncio.Lock:
            ...

        def save(self, table: Table) -> None:
            ...

        def ensure_driver(self, table: Table) -> None:
            ...

        def default_stand_in(self, table: Table) -> str:
            ...

        async def broadcast(self, table: Table, msg: dict[str, Any] | None = None) -> None:
            ...

    def joined(self, table_id: str) -> list[int]:
        """The person seats with a browser connected now."""
        return sorted({s for s in self.conns.get(table_id, {}).values() if s is not None})

    def away(self, table: Table) -> list[int]:
        """The person seats whose person left (taken before, no connection now), and those
        the stand-in plays."""
        joined = set(self.joined(table.id))
        return sorted((self.seen.get(table.id, set()) | table.standing_in) - joined)

    def connect(self, table: Table, ws: WebSocket, seat: int | None) -> None:
        self.conns.setdefault(table.id, {})[ws] = seat
        abandon = self.abandoners.pop(table.id, None)
        if abandon is not None:
            abandon.cancel()
        if seat is None:
            return
        self.seen.setdefault(table.id, set()).add(seat)
        timer = self.away_timers.pop((table.id, seat), None)
        if timer is not None:
            timer.cancel()
        if table.hand_back(seat):  # the next decision of the seat is the person's
            self.save(table)
            log.info("table %s: seat %d is back; the stand-in hands it back", table.id, seat)

    def disconnect(self, table: Table, ws: WebSocket) -> None:
        conns = self.conns.get(table.id, {})
        seat = conns.pop(ws, None)
        if not conns:
            self.abandoners[table.id] = asyncio.create_task(self._abandon_later(table))
        if seat is None or seat in conns.values() or seat in table.standing_in:
            return
        if table.away_s is None or len(table.persons) < 2:
            return
        key = (table.id, seat)
        if key not in self.away_timers:
            self.away_timers[key] = asyncio.create_task(self._stand_in_later(table, seat))

    async def _stand_in_later(self, table: Table, seat: int) -> None:
        """After the table's ``away_s``, the stand-in plays the seat of the away person."""
        try:
            await asyncio.sleep(table.away_s or 0.0)
            async with self.lock(table.id):
                if seat in self.joined(table.id) or self.tables.get(table.id) is not table:
                    return
                table.stand_in_for(seat, self.default_stand_in(table))
                self.save(table)
            log.info("table %s: seat %d is away; %s plays it", table.id, seat, table.stand_in)
            await self.broadcast(table)
            self.ensure_driver(table)
        finally:
            if self.away_timers.get((table.id, seat)) is asyncio.current_task():
                self.away_timers.pop((table.id, seat), None)

    async def _abandon_later(self, table: Table) -> None:
        await asyncio.sleep(self.abandon_s)
        if self.conns.get(table.id):
            return
        ev = self.cancels.get(table.id)
        if ev is not None:
            ev.set()  # the driver stops its engine task (the worker is replaced) and returns
        self.abandoners.pop(table.id, None)
        driver = self.drivers.get(table.id)
        if driver is not None and not driver.done():
            await asyncio.wait([driver], timeout=5)
        # the table stays in the store; drop it from memory when nobody watches
        async with self.lock(table.id):
            if not self.conns.get(table.id):
                self.tables.pop(table.id, None)
                self.conns.pop(table.id, None)
                self.thinking.pop(table.id, None)
                self.seen.pop(table.id, None)
                for key in [k for k in self.away_timers if k[0] == table.id]:
                    self.away_timers.pop(key).cancel()
                task = self.drivers.pop(table.id, None)
                if task is not None and not task.done():
                    task.cancel()
                self.cancels.pop(table.id, None)
        self.locks.pop(table.id, None)
