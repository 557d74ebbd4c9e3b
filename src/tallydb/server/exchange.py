"""One request and, once decided, its response."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from tallydb.engine.api import DEFAULT_REGION, Access

if TYPE_CHECKING:
    from tallydb.console.live import LiveStream


class Peer(Protocol):
    """The connection an exchange came on, as the batch and routing see it:
    where its response goes once the batch has committed."""

    out: list[bytes]  # responses due, in the order the requests came
    pending: int  # requests handed to the batch and not yet answered
    stopped: bool  # no more requests are read from it
    close_after_write: bool
    stream: LiveStream | None  # the console's live feed, which takes it over

    def write_out(self) -> None:
        """Write what is due in ``out``."""


class Exchange:
    """What the parser learnt about one HTTP request, what routing made of
    it (an operation to run, or a response already rendered), and the
    response bytes the connection writes once the batch has committed."""

    __slots__ = (
        "access",
        "authorization",
        "body",
        "close",
        "coding",
        "conn",
        "connection",
        "content_encoding",
        "content_type",
        "extra",
        "fetch_site",
        "headers",
        "host",
        "method",
        "observed",
        "operation",
        "origin",
        "region",
        "request",
        "response",
        "response_type",
        "started",
        "stream",
        "target",
        "url",
    )

    # Set before they are read, so not on every request: the method once
    # the request is complete (or "" for the connection's final answer);
    # the time it was complete (``time.perf_counter``), with the access log
    # or the console's operational view on.
    method: bytes
    started: float

    def __init__(self, conn: Peer) -> None:
        self.conn = conn
        self.url = b""
        self.target: bytes | None = None
        self.content_type: bytes | None = None
        self.origin: bytes | None = None
        self.host: bytes | None = None
        self.fetch_site: bytes | None = None  # Sec-Fetch-Site
        self.content_encoding: bytes | None = None
        #: the coding the client takes a response in (gzip, deflate, None)
        self.coding: bytes | None = None
        self.connection = False  # a Connection (or Proxy-Connection) header came
        self.authorization: bytes | None = None
        # every header, in order, only when a signature has to be checked
        self.headers: list[tuple[bytes, bytes]] | None = None
        self.body: bytes = b""
        # set by routing
        self.operation: str | None = None
        self.request: dict[str, Any] | None = None
        self.response_type: bytes | None = None
        # what the caller may do (the signing key's), for the engine to
        # decide by; and what the engine resolved it to touch (the access log)
        self.access: Access | None = None
        self.region = DEFAULT_REGION  # the one the request was signed for
        self.extra = b""  # header lines every response to this request carries
        # set by routing or by the batch
        self.response: bytes | None = None
        self.close = False  # close the connection once this response is written
        # with close: the console's live feed, which takes the connection over
        self.stream: LiveStream | None = None
        # while a console page listens: the ConsumedCapacity it was answered
        # with, the engine's units report, or (table, throttled)
        # (server/observe.py, console/metrics.py)
        self.observed: dict[str, Any] | list[Any] | tuple[str, bool | float] | str | None = None
