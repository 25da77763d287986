"""People's seats at a table: seat keys, who may join, the limits per address.

Every person's seat of a table has its own random key (:data:`KEY_BYTES` bytes from
:mod:`secrets`); the key is part of that seat's private link (in the address's fragment,
``/#table=ID&seat=S&key=K``, which a browser never sends in a request) and the store
holds only its sha256. Opening a seat needs its key; any refusal (a wrong, missing or
other seat's key, an unknown table) is the same one line, so it tells nothing, not even
whether the table exists. A spectator (``spectate=1``) sees the public view only.

A table made by the single-person form (no ``seats``) gets a key too, in its creator's
link. As before, it may also be opened by its id alone, but only by a request from this
machine to a server that listens on this machine only (not forwarded by a proxy); a
server reachable from elsewhere asks every seat for its key.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

PERSON = "person"
"""A seat entry of ``POST /api/tables``'s ``seats`` for a person (else an agent spec)."""
KEY_BYTES = 16
"""A seat key's random bytes (128 bits)."""
REFUSED = "refused: this link does not open a seat here"
"""The one refusal of a seat request (wrong, missing or other seat's key, unknown table)."""
REFUSED_CODE = 4403
"""The websocket close code of a refusal (closed before it is accepted: HTTP 403)."""
FORWARDED = ("x-forwarded-for", "forwarded", "x-real-ip")
"""Headers a proxy adds: a request with one was forwarded (not from this machine)."""


def new_key() -> str:
    """A fresh seat key (URL-safe text)."""
    return secrets.token_urlsafe(KEY_BYTES)


def key_hash(key: str) -> str:
    """What the store keeps of a key: its sha256 in hex."""
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


def key_matches(key: str | None, stored: str | None) -> bool:
    """Whether ``key`` is the one whose hash is ``stored`` (in constant time)."""
    if not key or not stored or len(key) > 200:
        return False
    return hmac.compare_digest(key_hash(key), stored)


def seat_link(table_id: str, seat: int, key: str) -> str:
    """The private link of a seat (the key in the fragment: never sent in a request)."""
    return f"/#table={table_id}&seat={seat}&key={key}"


def spectate_link(table_id: str) -> str:
    return f"/#table={table_id}&spectate=1"


def parse_seat(raw: str | None, n: int) -> int | None:
    """A seat number ``0..n-1`` from a request's text, else None."""
    if raw is None or not raw.isdigit() or len(raw) > 3:
        return None
    seat = int(raw)
    return seat if seat < n else None


def address(client: Any) -> str:
    """The peer address of a request (``request.client``), for the limits."""
    return str(getattr(client, "host", None) or "unknown")


def from_this_machine(client: Any, headers: Mapping[str, str]) -> bool:
    """Whether a request comes straight from this machine (a loopback peer, or the test
    client) and was not forwarded by a proxy."""
    if any(headers.get(h) is not None for h in FORWARDED):
        return False
    client_host = getattr(client, "host", None)
    if client_host in (None, "testclient"):
        return True
    try:
        return ipaddress.ip_address(client_host).is_loopback
    except ValueError:
        return False


def same_origin(origin: str | None, host: str | None) -> bool:
    """Whether a websocket's ``Origin`` is this server (the ``Host`` it was asked as); a
    request without an ``Origin`` comes from no browser page and passes."""
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and \
        parts.netloc.lower() == str(host).lower()


class RateLimit:
    """At most ``limit`` events per ``per_s`` seconds for each address (a sliding window)."""

    def __init__(self, limit: int, per_s: float) -> None:
        self.limit = limit
        self.per_s = per_s
        self.seen: dict[str, deque[float]] = {}

    def hit(self, address: str, now: float | None = None) -> float | None:
        """Count an event of ``address``; None when allowed, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        if len(self.seen) > 10_000:  # forget idle addresses
            self.seen = {a: q for a, q in self.seen.items() if q and q[-1] > now - self.per_s}
        q = self.seen.setdefault(address, deque())
        while q and q[0] <= now - self.per_s:
            q.popleft()
        if len(q) >= self.limit:
            return max(0.0, q[0] + self.per_s - now)
        q.append(now)
        return None


class ConnectionLimit:
    """At most ``limit`` websocket connections open at once for each address."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open: dict[str, int] = {}

    def enter(self, address: str) -> bool:
        """Count a new connection of ``address``; False (not counted) when it has
        ``limit`` open already."""
        n = self.open.get(address, 0)
        if n >= self.limit:
            return False
        self.open[address] = n + 1
        return True

    def leave(self, address: str) -> None:
        """A counted connection of ``address`` has closed."""
        n = self.open.get(address, 0) - 1
        if n > 0:
            self.open[address] = n
        else:
            self.open.pop(address, None)


@dataclass
class Limits:
    """Per-address limits of a server reachable from elsewhere (requests from this machine
    itself are not limited: ``make run``, the tests and the load benchmark); ``spielwerk
    serve --max-tables-per-minute``, ``--max-messages-per-second``, ``--max-connections``."""

    tables_per_minute: int = 20
    """Tables created (``POST /api/tables``) per minute (a sliding window)."""
    messages_per_second: int = 20
    """Websocket messages per second (a sliding window), over all its connections."""
    connections: int = 20
    """Websocket connections open at once (tabs of tables and spectators)."""

    def __post_init__(self) -> None:
        for name in ("tables_per_minute", "messages_per_second", "connections"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"limit {name} must be a whole number of at least 1, "
                                 f"not {value!r}")


TOO_MANY_CONNECTIONS_CODE = 4429
"""The websocket close code of a connection over :attr:`Limits.connections`."""


def too_many_connections(limit: int) -> str:
    """The error a connection over the limit gets before it is closed."""
    return (f"too many connections from your address: at most {limit} open at once; "
            "close another tab of this site (this page tries again each second)")


_KEY_IN_TEXT = re.compile(r"(key=)[^&\s\"']+")


def redact(text: str) -> str:
    """``text`` with every ``key=...`` value replaced by ``***``."""
    return _KEY_IN_TEXT.sub(r"\1***", text)


class RedactKeys(logging.Filter):
    """A log filter that removes seat keys from messages (uvicorn logs request paths)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad record is left to the handler
            return True
        if "key=" in text:
            record.msg, record.args = redact(text), None
        return True


def redact_logs() -> None:
    """Install :class:`RedactKeys` on the server's and uvicorn's loggers."""
    for name in ("spielwerk.web", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactKeys) for f in logger.filters):
            logger.addFilter(RedactKeys())


def plain_http_warning(host: str) -> str | None:
    """The one-line warning for a server listening beyond this machine, else None."""
    try:
        local = ipaddress.ip_address(host).is_loopback
    except ValueError:
        local = host == "localhost"
    if local:
        return None
    return ("warning: the web table speaks plain HTTP (seat keys travel unencrypted); to serve "
            "it beyond this machine put it behind a TLS reverse proxy such as Caddy or nginx "
            "(docs/web.md, 'Playing together')")
