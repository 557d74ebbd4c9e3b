"""What one client may hold: time to send a request, idle time, open
connections, bytes waiting in each direction.

Slow and stuck clients cost memory and file descriptors, never CPU: a
request's head and body must arrive in time, an idle keep-alive connection
is closed, a connection past the cap is answered 503 and closed, and a
client that does not read its responses stops being read (its responses
waiting are bounded by ``max_output`` and ``max_pipeline``; its request
bodies by DynamoDB's 16 MB, and every connection's together by
``max_body_memory``, ``bodies.py``). Deadlines are checked by one ``Watchdog``
tick for every connection rather than a timer per request: the hot path
only stores a timestamp.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import resource
from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Protocol

import orjson

from tallydb.engine.errors import ThrottlingException
from tallydb.server import http
from tallydb.server.bodies import BodyBudget
from tallydb.server.clock import CoarseClock

FD_RESERVE = 64  # descriptors kept for the store, logs and the listening sockets
TOO_MANY_CONNECTIONS = "Too many open connections: the server holds {} (--max-connections)"
BODY_MEMORY_FULL = (
    "Too many request bytes arriving at once: the server holds at most {} bytes of unfinished "
    "request bodies (--max-body-memory); retry")


@dataclass(frozen=True)
class ConnectionLimits:
    header_timeout: float = 10.0  # seconds from a request's first byte to the end of its head
    body_timeout: float = 60.0  # seconds from the end of its head to the end of its body
    idle_timeout: float = 60.0  # seconds a keep-alive connection may wait with nothing to do
    max_connections: int = 4096  # open at once; more are answered 503 and closed
    max_output: int = 64 << 10  # response bytes waiting for a client before it stops being read
    max_pipeline: int = 8  # requests in progress per connection before it stops being read
    # bytes of request bodies still arriving, all connections together (bodies.py)
    max_body_memory: int = 256 << 20

    def tick(self) -> float:
        """How often the watchdog looks: a quarter of the shortest timeout, at most 1 s."""
        return min(1.0, self.header_timeout / 4, self.body_timeout / 4, self.idle_timeout / 4)


def busy_response(limits: ConnectionLimits) -> bytes:
    """What a connection past the cap is told before it is closed (botocore
    retries a 503)."""
    error = ThrottlingException(TOO_MANY_CONNECTIONS.format(limits.max_connections))
    return http.render(503, orjson.dumps(error.to_wire()), http.JSON_1_0, http.CLOSE)


def body_memory_full(limits: ConnectionLimits, cors: bytes = b"") -> bytes:
    """What a request is told, before its body is read, when the bodies
    still arriving already hold the server's budget (botocore retries a 503);
    ``cors``: the CORS headers its answer carries."""
    error = ThrottlingException(BODY_MEMORY_FULL.format(limits.max_body_memory))
    return http.render(503, orjson.dumps(error.to_wire()), http.JSON_1_0, cors + http.CLOSE)


def raise_descriptor_limit(connections: int) -> int:
    """Raise this process's soft file-descriptor limit towards what
    ``connections`` need (within the hard limit); return how many
    connections the limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + FD_RESERVE
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return connections
    return max(1, min(connections, soft - FD_RESERVE))


class Deadlines(Protocol):
    """A connection, as the watchdog sees it."""

    def check_deadlines(self, now: float, began: Callable[[float], float]) -> None:
        """Act on any deadline of the connection's that ``now`` has passed
        (``began``: when a phase its mark records began at the latest)."""


class Watched(Protocol):
    """A server, as the watchdog sees it."""

    limits: ConnectionLimits
    loop: asyncio.AbstractEventLoop
    clock: CoarseClock
    bodies: BodyBudget

    @property
    def connections(self) -> Set[Deadlines]:
        """The open connections."""


#: How many past clock values the watchdog keeps: a mark older than the
#: oldest counts from it (later than it began), long past every deadline.
_CLOCKS_KEPT = 64


class Watchdog:
    """Keeps ``server.clock.now`` (coarse loop time) and enforces each
    connection's deadlines once a tick."""

    def __init__(self, server: Watched) -> None:
        self.server = server
        #: The clock's recent values, oldest first (the newest is now's).
        self.recent: list[float] = []

    def began(self, mark: float) -> float:
        """The latest time a phase whose mark holds the coarse clock value
        ``mark`` can have begun: when the clock next moved. Deadlines count
        from it, so a tick that runs late (a busy machine) never makes one
        come early."""
        recent = self.recent
        return recent[min(bisect.bisect_right(recent, mark), len(recent) - 1)]

    async def run(self) -> None:
        server = self.server
        tick = server.limits.tick()
        self.recent = [server.clock.now]
        while True:
            await asyncio.sleep(tick)
            now = server.clock.now = server.loop.time()
            self.recent.append(now)
            del self.recent[:-_CLOCKS_KEPT]
            for conn in list(server.connections):
                conn.check_deadlines(now, self.began)
            server.bodies.trim()
