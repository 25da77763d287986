"""The engine seats' moves of a table, off the event loop (a part of the web server).

The driver lets the engines move until a person is to move or the game is over; a task
that runs too long or fails falls back to the same agent's smallest search, then to the
game's rule baseline, never to a random move.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import numpy as np

from spielwerk.core.agent import AgentSpec
from spielwerk.web.engines import EngineCancelled, EngineFailed, EnginePool, EngineTimeout
from spielwerk.web.tables import Table

log = logging.getLogger("spielwerk.web")


class EngineDriver:
    """The engine part of the server (a mixin: the server has the attributes below)."""

    pool: EnginePool
    warm_done: asyncio.Event
    hard_limit_factor: float
    drivers: dict[str, asyncio.Task[None]]
    cancels: dict[str, asyncio.Event]
    thinking: dict[str, int | None]
    stats: dict[str, int]

    if TYPE_CHECKING:  # the server's own
        def lock(self, table_id: str) -> asyncio.Lock:
            ...

        def after_action(self, table: Table) -> None:
            ...

        async def broadcast(self, table: Table, msg: dict[str, Any] | None = None) -> None:
            ...

        async def wait_warm(self, table: Table, cancel: asyncio.Event | None) -> bool:
            ...

    def ensure_driver(self, table: Table) -> None:
        task = self.drivers.get(table.id)
        ev = self.cancels.get(table.id)
        if task is not None and not task.done() and ev is not None and not ev.is_set():
            return
        if table.engine_seat() is None:
            return
        self.cancels[table.id] = asyncio.Event()
        self.drivers[table.id] = asyncio.create_task(self.drive(table))

    async def drive(self, table: Table) -> None:
        """Let the engines move until it is the person's turn or the game is over."""
        try:
            await self._drive(table)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - logged; the table stays as it was saved
            log.exception("table %s: the engine driver stopped", table.id)
            self.thinking[table.id] = None
            await self.broadcast(table, {"type": "error", "message": "internal error while the "
                                         "engines moved; reload the page to retry"})

    async def _drive(self, table: Table) -> None:
        cancel = self.cancels[table.id]
        while not cancel.is_set():
            async with self.lock(table.id):
                seat = table.engine_seat()
                if seat is None:
                    return
                ply = len(table.history)
                history = list(table.history)
                stored = table.agent_of(seat)
                # a seat whose person comes back while the stand-in thinks: its move counts
                standing_in = seat in table.standing_in
                spec = table.state.game.spec()
            assert stored is not None
            if not self.warm_done.is_set():  # the first start: wait, then look again
                if not await self.wait_warm(table, cancel):
                    self.stats["cancelled"] += 1
                    log.info("table %s: engine work cancelled (no browser)", table.id)
                    return
                continue
            agent = AgentSpec.parse(stored)  # once: the worker and the fallback take it parsed
            self.thinking[table.id] = seat
            await self.broadcast(table, {"type": "thinking", "seat": seat})
            seed = int(np.random.default_rng([table.seed, table.deal_no, ply, seat]).integers(
                2**31))
            limit = table.budget_s * self.hard_limit_factor + 10.0
            notice = None
            try:
                action = await self.pool.run(
                    "engine_move", {"spec": spec, "history": history, "seat": seat,
                                    "agent": agent, "seed": seed, "budget_s": table.budget_s},
                    limit, cancel)
                self.stats["engine_moves"] += 1
            except EngineCancelled:
                self.stats["cancelled"] += 1
                self.thinking[table.id] = None
                log.info("table %s: engine work cancelled (no browser)", table.id)
                return
            except (EngineTimeout, EngineFailed) as exc:
                self.stats["fallbacks"] += 1
                log.warning("table %s: engine %s for seat %d: %s", table.id, agent, seat, exc)
                fell = await self._fallback(table, spec, history, seat, agent, seed, limit,
                                            cancel)
                if fell is None:
                    return
                action, by = fell
                # the engine's error text may name its cards: the log has it, not the notice
                what = "did not answer in time" if isinstance(exc, EngineTimeout) else "failed"
                notice = f"seat {seat}'s engine ({agent}) {what}; {by} played for it"
            async with self.lock(table.id):
                self.thinking[table.id] = None
                if len(table.history) != ply or table.state.current_player != seat or (
                        table.engine_seat() != seat and not standing_in):
                    continue
                table.apply(int(action))
                self.after_action(table)
            if notice:
                await self.broadcast(table, {"type": "notice", "message": notice})
            await self.broadcast(table)
        self.thinking[table.id] = None

    async def _fallback(self, table: Table, spec: str, history: list[int], seat: int,
                        agent: AgentSpec, seed: int, limit: float, cancel: asyncio.Event
                        ) -> tuple[int, str] | None:
        """The move for an engine that did not answer in time or failed: the same agent with
        its smallest search (``work.fallback_spec``), else the game's rule baseline - never a
        random move. None: cancelled (no browser)."""
        from spielwerk.web.work import baseline_move, fallback_spec

        small = fallback_spec(agent, table.state.game.name)
        try:
            action = await self.pool.run(
                "engine_move", {"spec": spec, "history": history, "seat": seat,
                                "agent": small, "seed": seed, "budget_s": table.budget_s},
                limit, cancel)
            log.warning("table %s: seat %d played by the fallback %s", table.id, seat, small)
            return int(action), f"its fallback ({small})"
        except EngineCancelled:
            self.thinking[table.id] = None
            return None
        except (EngineTimeout, EngineFailed) as exc:
            log.warning("table %s: fallback %s for seat %d: %s", table.id, small, seat, exc)
        action, name = baseline_move(table.state, seat, seed)
        log.warning("table %s: seat %d played by the baseline %s", table.id, seat, name)
        return action, f"the {name} baseline"

