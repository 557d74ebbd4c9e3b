"""One client connection: bytes in through httptools, responses out in order.

A raw ``asyncio.Protocol`` rather than a framework: on the hot path the
framework would cost more than all of tallydb's own work (see DESIGN.md).
Parsing fills an ``Exchange`` per request; routing decides it; the batcher
runs it and hands the responses back through ``out``/``write_out`` in the
order the requests arrived (pipelining included).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import socket
import ssl
import struct
import termios
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Protocol, cast

import httptools

from tallydb.engine.api import prevalidate
from tallydb.engine.errors import InternalServerError
from tallydb.server import http
from tallydb.server.batch import INTERNAL_ERROR
from tallydb.server.bodies import SMALL
from tallydb.server.clock import CoarseClock
from tallydb.server.encoding import response_coding
from tallydb.server.exchange import Exchange
from tallydb.server.limits import body_memory_full, busy_response
from tallydb.server.routing import MAX_BODY, TOO_LARGE_BODY, Verdict, error_response
from tallydb.server.screening import SCREENED_ENCODED, Screen

if TYPE_CHECKING:
    from tallydb.console.live import LiveStream
    from tallydb.server.batch import Batcher
    from tallydb.server.bodies import BodyBudget
    from tallydb.server.limits import ConnectionLimits
    from tallydb.server.routing import Router

log: Final = logging.getLogger("tallydb.server")

MAX_HEAD: Final = 16 * 1024  # request line and headers (httptools itself has no limit)
SLICE: Final = 4 * 1024  # bytes fed to the parser at a time when a read is larger
PIPELINED_SLICE: Final = 512  # the same while earlier requests are still in progress
#: A longer body is never read when the request's head already condemns it
#: (``Router.refuse_head``); a shorter one is judged whole, in DynamoDB's order.
JUDGED_ON_HEAD: Final = 64 * 1024
#: A body a request's head admits at once, in one step (``on_headers_complete``).
_ADMITTED_AT_ONCE: Final = min(JUDGED_ON_HEAD, SMALL)

#: What a header is to the server (``_WANTED``); ``_OTHER`` is 0, so falsy.
_OTHER: Final = 0
_TARGET: Final = 1
_CONTENT_TYPE: Final = 2
_CONTENT_LENGTH: Final = 3
_ORIGIN: Final = 4
_EXPECT: Final = 5
_CONNECTION: Final = 6
_HOST: Final = 7
_FETCH_SITE: Final = 8
_ACCEPT_ENCODING: Final = 9
_CONTENT_ENCODING: Final = 10
_PREFLIGHT: Final = 11
_AUTHORIZATION: Final = 12
_WANTED: Final = {
    b"authorization": _AUTHORIZATION,  # its credential scope names the region
    b"expect": _EXPECT,
    # the headers llhttp reads keep-alive from (an HTTP/1.0 request needs one)
    b"connection": _CONNECTION,
    b"proxy-connection": _CONNECTION,
    b"x-amz-target": _TARGET,
    b"content-type": _CONTENT_TYPE,
    b"content-length": _CONTENT_LENGTH,
    b"origin": _ORIGIN,
    b"host": _HOST,
    b"sec-fetch-site": _FETCH_SITE,
    b"accept-encoding": _ACCEPT_ENCODING,
    b"content-encoding": _CONTENT_ENCODING,
    b"access-control-request-headers": _PREFLIGHT,
    b"access-control-request-method": _PREFLIGHT,
}
#: Header names as clients spell them, to what they are: one dict lookup per
#: header instead of lowercasing it (clients send the same few names).
_KINDS: Final[dict[bytes, int]] = {}


def _kind(name: bytes) -> int:
    kind = _WANTED.get(name.lower(), _OTHER)
    if len(_KINDS) < 1024:
        _KINDS[name] = kind
    return kind


def header_kind(name: bytes) -> int:
    """What a header is (``_WANTED``). The spellings botocore and the
    bench send are compared first: a header name is a new bytes object,
    and a dict lookup hashes it whole (SipHash) before comparing, dearer
    than a length test and a compare or two. Any other spelling is looked
    up in ``_KINDS``."""
    size = len(name)
    if size == 12:
        if name == b"X-Amz-Target":
            return _TARGET
        if name == b"Content-Type":
            return _CONTENT_TYPE
    elif size == 4:
        if name == b"Host":
            return _HOST
    elif size == 14:
        if name == b"Content-Length":
            return _CONTENT_LENGTH
    elif size == 13:
        if name == b"Authorization":
            return _AUTHORIZATION
    elif size == 10 and (name == b"X-Amz-Date" or name == b"User-Agent"):
        return _OTHER
    which = _KINDS.get(name)
    return _kind(name) if which is None else which

LINGER: Final = 2.0  # seconds to drain a client's unread bytes before closing
#: The kernel's send buffer of a live feed's socket (it doubles it): what a
#: page that stops reading can make the kernel hold for it, instead of the
#: megabytes its autotuning would grow to; past it, frames wait in the
#: transport, where the feed sees them and drops the next (console/live.py).
FEED_SNDBUF: Final = 64 * 1024
try:  # the TLS layer of the loop the server runs on (uvloop's stubs do not list it)
    from uvloop.loop import SSLProtocol as _SSL_PROTOCOL  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Windows
    from asyncio.sslproto import SSLProtocol as _SSL_PROTOCOL


class _Refused(asyncio.Protocol):
    """An HTTPS connection past the cap: closed before its handshake."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        cast(asyncio.Transport, transport).abort()


#: SO_LINGER on, 0 s: close() sends RST, drops what is unsent.
_RESET: Final = struct.pack("ii", 1, 0)


def _kernel_unsent(fd: int) -> int:
    """Bytes in a socket's kernel send queue: not yet sent, or not yet
    acknowledged by the client (a client that does not read stops
    acknowledging once its receive window is full)."""
    try:
        return int(struct.unpack("i", fcntl.ioctl(fd, termios.TIOCOUTQ, b"\0\0\0\0"))[0])
    except OSError:  # (closed meanwhile)
        return 0


class Host(Protocol):
    """What a connection needs of the server that accepted it."""

    router: Router
    batcher: Batcher
    limits: ConnectionLimits
    log_requests: bool
    loop: asyncio.AbstractEventLoop
    clock: CoarseClock  # coarse loop time, moved once a watchdog tick
    connections: set[Connection]
    bodies: BodyBudget
    tls: ssl.SSLContext | None  # HTTPS: each connection begins TLS
    screen: Screen  # judges large requests off the loop


class Connection(asyncio.Protocol):
    """HTTP/1.1 keep-alive with pipelining for the DynamoDB JSON protocol."""

    def __init__(self, server: Host) -> None:
        self.server = server
        self.router = server.router
        self.batcher = server.batcher
        # every header of every request when a signature has to be checked;
        # else only of a console request (``on_url``)
        self.signed = self.keep_headers = server.router.verifier is not None
        self.console = server.router.console is not None
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.ex: Exchange | None = None
        self.body: list[bytes] = []
        self.size = 0
        self.length = -1  # the current request's Content-Length; -1: none given
        #: bytes of the server's body budget the current request holds; with
        #: no Content-Length (chunked) they are reserved as they arrive
        self.reserved = 0
        self.bodies = server.bodies
        self.head = -1  # bytes charged to the current request's head (_feed); -1 once complete
        self.expect_continue = False
        self.pending = 0  # requests handed to the batcher and not yet answered
        self.out: list[bytes] = []
        self.stopped = False  # no more requests are read from this connection
        self.close_after_write = False
        self.closed = False
        self.limits = server.limits
        self.log_requests = server.log_requests
        self.clock: CoarseClock = server.clock
        self.mark = self.clock.now  # when the current phase (idle, head, body) began
        # bytes read but not parsed while the client has too much in progress
        self.unparsed: bytes | None = None
        self.stream: LiveStream | None = None  # the console's live feed, once it has begun
        self.stream_fd = -1  # the live feed's socket, whose kernel queue the watchdog reads
        self.eof = False  # the client half-closed: close once every answer is written
        self.handshaking = False  # TLS begun and not finished
        #: while a large request is judged off the loop: the requests
        #: completed after it, with their shares of the body budget
        self.held: list[tuple[Exchange, int]] | None = None
        # the answers waiting in the transport at the last tick, and when
        # they last drained (or shrank): the client is reading them
        self.buffered = 0
        self.drained = self.mark

    # -- asyncio -----------------------------------------------------------

    def secured(self, tls: ssl.SSLContext) -> asyncio.BaseProtocol:
        """The protocol for a connection accepted for HTTPS: TLS around this
        one, counted as open from its first byte, so that a handshake holds
        one of ``max_connections`` and must end within the header timeout;
        past the cap, one that closes the connection at once. (TLS is put
        around the connection as it is accepted, as ``create_server(ssl=)``
        does, rather than begun on it by ``start_tls``: the client's first
        bytes may arrive with the connection, before reading could pause.)"""
        connections = self.server.connections
        if len(connections) >= self.limits.max_connections:
            return _Refused()
        connections.add(self)
        self.handshaking = True
        loop = self.server.loop
        waiter = loop.create_future()
        waiter.add_done_callback(self._handshaken)
        protocol: asyncio.BaseProtocol = _SSL_PROTOCOL(
            loop, self, tls, waiter, server_side=True,
            ssl_handshake_timeout=self.limits.header_timeout)
        return protocol

    def _handshaken(self, waiter: asyncio.Future[None]) -> None:
        if waiter.cancelled() or waiter.exception() is not None:
            self.connection_lost(None)  # (never connected: the TLS layer closed it)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.mark = self.clock.now
        if self.handshaking:  # TLS is up: counted since it began
            self.handshaking = False
            return
        connections = self.server.connections
        if len(connections) >= self.limits.max_connections:
            self.closed = self.stopped = True
            self.transport.write(busy_response(self.limits))
            self.transport.close()
            return
        connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.stopped = True
        # What the connection held goes now, not when the collector next
        # finds the connection (it and its parser refer to each other).
        self.unparsed = None
        self.body = []
        self.ex = None
        self._release()
        self.server.connections.discard(self)
        if self.stream is not None:
            self.stream.stopped()
            self.stream = None
            self.stream_fd = -1

    def eof_received(self) -> bool:
        """The client sent all it will (a half-close): answer what it asked
        for, then close. (False: nothing is due, asyncio closes now.)"""
        self.stopped = True
        self.unparsed = None
        if not self.pending and not self.out:
            return False
        self.eof = True
        return True

    def data_received(self, data: bytes) -> None:
        if self.stopped:
            return  # draining before a close, or shutting down
        if self.pending and (self.unparsed is not None or self._backlogged()):
            self.unparsed = data if self.unparsed is None else self.unparsed + data
            if self.transport is not None:
                self.transport.pause_reading()
            return
        if len(data) > SLICE:
            self._parse(data)
            return
        # (``_feed``, inline: an everyday request comes in one read)
        if self.head >= 0 and not self._charge_head(len(data)):
            return
        try:
            self.parser.feed_data(data)
        except (httptools.HttpParserUpgrade, httptools.HttpParserError) as error:
            self._unparsable(error)
            return
        if self.head == 0:  # a head began in this read and is not complete yet
            self.head = len(data)

    def _parse(self, data: bytes) -> None:
        """Feed ``data`` a slice at a time; once the client has too many
        responses due, keep the rest and stop reading until they are read."""
        view = memoryview(data)
        start, end = 0, len(data)
        while start < end:
            if self.pending:
                if self._backlogged():
                    self.unparsed = bytes(view[start:])
                    if self.transport is not None:
                        self.transport.pause_reading()
                    return
                step = PIPELINED_SLICE  # requests in a row: look again after a few
            else:
                step = SLICE
            self._feed(view[start : start + step])
            start += step
            if self.stopped:
                return

    def _backlogged(self) -> bool:
        transport = self.transport
        return self.held is not None or self.pending >= self.limits.max_pipeline or (
            transport is not None and transport.get_write_buffer_size() > self.limits.max_output
        )

    def _resume(self) -> None:
        """Parse what was held back, and read again, once the client has
        read enough of its responses."""
        if self.closed or self.stopped or self._backlogged():
            return
        data = self._take_unparsed()
        if data is not None:
            self._parse(data)  # may hold part of it back again
        if self.unparsed is None and not self.stopped and self.transport is not None:
            self.transport.resume_reading()

    # (The two ``_take`` methods empty an attribute that the caller's calls
    # may fill again: read back in the caller, it is not assumed still empty.)

    def _take_unparsed(self) -> bytes | None:
        """The bytes held back unparsed, no longer held."""
        data, self.unparsed = self.unparsed, None
        return data

    def _take_held(self) -> list[tuple[Exchange, int]]:
        """The requests held behind a large one, no longer held."""
        held, self.held = self.held or [], None
        return held

    def check_deadlines(self, now: float, began: Callable[[float], float]) -> None:
        """The watchdog's tick: close a connection whose answers have not
        drained for the idle timeout (a client that does not read, the live
        feed's included), time out a slow request, close an idle connection.
        ``began``: the latest time the phase ``mark`` records can have begun
        (marks hold the coarse clock)."""
        transport = self.transport
        if self.closed or transport is None:
            return
        limits = self.limits
        buffered = transport.get_write_buffer_size()
        if self.stream_fd >= 0:
            # A feed's frames are small and few: a page that stopped reading
            # may leave them all in the kernel's queue, never in the transport.
            buffered += _kernel_unsent(self.stream_fd)
        if not buffered or buffered < self.buffered:
            self.drained = now  # empty, or the client is reading
        self.buffered = buffered
        if buffered and now - self.drained > limits.idle_timeout:
            self._abandon(transport)
            return
        if self.stream is not None or self.unparsed is not None:
            return  # the live feed's, or not read until the client reads its answers
        waited = now - began(self.mark)
        if self.ex is not None and not self.stopped:
            if waited > (limits.header_timeout if self.head >= 0 else limits.body_timeout):
                self._stop(http.REQUEST_TIMEOUT)
        elif not self.pending and not buffered and waited > limits.idle_timeout:
            self.closed = self.stopped = True
            transport.close()

    def _abandon(self, transport: asyncio.Transport) -> None:
        """Close at once, dropping what the client has not read: a reset,
        so that neither this process nor the kernel keeps it (a plain close
        would leave the kernel holding it, waiting for a reader)."""
        self.closed = self.stopped = True
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
        transport.abort()

    def _feed(self, data: bytes | memoryview) -> None:
        """Parse; and bound a request's head, which httptools buffers without
        limit. The head is charged every chunk (at most SLICE bytes) fed
        while it is in progress, which overcounts it by less than a chunk at
        each end and costs nothing per header; the chunk that would take it
        past MAX_HEAD is refused before it is parsed."""
        if self.head >= 0 and not self._charge_head(len(data)):
            return
        try:
            self.parser.feed_data(data)
        except (httptools.HttpParserUpgrade, httptools.HttpParserError) as error:
            self._unparsable(error)
            return
        if self.head == 0:  # a head began in this chunk and is not complete yet
            self.head = len(data)

    def _charge_head(self, size: int) -> bool:
        """Charge ``size`` more bytes to the head in progress from an earlier
        chunk (``_feed``); past MAX_HEAD, answer 400 and stop (False)."""
        head = self.head + size
        if head > MAX_HEAD:
            self._stop(http.BAD_REQUEST)
            return False
        self.head = head
        return True

    def _unparsable(self, error: Exception) -> None:
        """What httptools refused to parse: Upgrade (h2c, websocket) is not
        offered, so what was asked is answered over HTTP/1.1, then the
        connection closes; anything else is a 400, then close."""
        self._stop(None if isinstance(error, httptools.HttpParserUpgrade) else http.BAD_REQUEST)

    def pause_writing(self) -> None:
        # The client is not reading its responses: stop reading its requests.
        if self.transport is not None and not self.closed:
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.unparsed is not None:
            self._resume()
        elif self.transport is not None and not self.closed and not self.stopped:
            self.transport.resume_reading()

    # -- httptools callbacks -------------------------------------------------

    def on_message_begin(self) -> None:
        self.mark = self.clock.now
        self.keep_headers = self.signed
        self.ex = Exchange(self)
        self.head = 0  # (body and size are left empty by the message before)
        self.length = -1

    def on_headers_complete(self) -> None:
        self.head = -1
        self.mark = self.clock.now
        length = self.length
        if length > 0:
            bodies = self.bodies
            held = bodies.held + length
            if length <= _ADMITTED_AT_ONCE and held <= bodies.limit:
                # the everyday body, admitted in one step (``BodyBudget.reserve``
                # of a small body, inline: this runs for every request)
                bodies.held = held
                self.reserved = length
            elif not self._admit(length):
                self.expect_continue = False
                return
        if self.expect_continue:
            # curl sends "Expect: 100-continue" before bodies over 1 KB and
            # waits a second for this; it is only sent when no earlier
            # response is still due, to keep responses in order.
            self.expect_continue = False
            if not self.pending and not self.stopped and self.transport is not None:
                self.transport.write(http.CONTINUE)

    def on_url(self, url: bytes) -> None:
        ex = self.ex
        if ex is not None:
            ex.url += url
            if self.console and ex.url != b"/" and ex.url.startswith(b"/console"):
                self.keep_headers = True

    def on_header(self, name: bytes, value: bytes) -> None:
        # Called for every header of every request: the names every SDK
        # sends are decided first, in few steps.
        which = header_kind(name)
        if not which and not self.keep_headers:  # (``_OTHER`` is 0)
            return
        ex: Exchange = self.ex  # type: ignore[assignment]  # set from on_message_begin on
        if self.keep_headers:  # every header, in order: a signature to check, or the console
            if ex.headers is None:
                ex.headers = []
            ex.headers.append((name, value))
            if not which:
                return
        if which == _TARGET:
            ex.target = value
        elif which == _CONTENT_TYPE:
            ex.content_type = value
        elif which == _HOST:
            ex.host = value
        elif which == _AUTHORIZATION:  # its credential scope names the request's region
            ex.authorization = value
        elif which == _CONTENT_LENGTH:
            if value.isdigit():  # (else llhttp refuses the request)
                self.length = int(value)  # (past MAX_BODY: 413 once the head is whole)
        else:
            self._rare_header(ex, which, name, value)

    def _rare_header(self, ex: Exchange, which: int, name: bytes, value: bytes) -> None:
        """The headers a browser, curl or a compressing client sends."""
        if which == _ORIGIN:
            ex.origin = value
        elif which == _FETCH_SITE:
            ex.fetch_site = value
        elif which == _ACCEPT_ENCODING:
            ex.coding = response_coding(value)  # the last header counts, as DynamoDB's
        elif which == _CONTENT_ENCODING:
            ex.content_encoding = value
        elif which == _EXPECT:
            self.expect_continue = value.lower() == b"100-continue"
        elif which == _CONNECTION:
            ex.connection = True
        elif not self.keep_headers:  # CORS preflight's questions
            if ex.headers is None:
                ex.headers = []
            ex.headers.append((name, value))

    def _admit(self, length: int) -> bool:
        """Whether to read a body of ``length`` bytes: not when the head
        already decides the answer, nor past the server's body budget
        (then answer, and close without reading it)."""
        if length > MAX_BODY:
            self._too_large()
            return False
        if length > JUDGED_ON_HEAD and self.ex is not None:
            refusal = self.router.refuse_head(self.ex, self.parser.get_method())
            if refusal is not None:
                self._stop(refusal)
                return False
        if not self.bodies.reserve(length):
            self._stop(body_memory_full(self.limits, self._cors()))
            return False
        self.reserved = length
        return True

    def on_body(self, body: bytes) -> None:
        if self.stopped:
            return
        self.size += len(body)
        if self.size > MAX_BODY:
            self._too_large()
            return
        if self.length < 0:  # chunked: reserved as it comes
            if not self.bodies.reserve(len(body), self.reserved + len(body)):
                self._stop(body_memory_full(self.limits, self._cors()))
                return
            self.reserved += len(body)
        self.body.append(body)

    def _release(self) -> None:
        """Give back the current request's share of the body budget."""
        if self.reserved:
            self.bodies.release(self.reserved)
            self.reserved = 0

    def on_message_complete(self) -> None:
        ex = self.ex
        if ex is None or self.stopped:
            return
        self.ex = None
        parser = self.parser
        ex.method = parser.get_method()
        if self.log_requests or self.batcher.metrics is not None:
            # (read by the access log and the console's operational view; the
            # loop's clock counts whole milliseconds)
            ex.started = time.perf_counter()
        body = self.body
        if body:
            ex.body = body[0] if len(body) == 1 else b"".join(body)
            self.body = []
            self.size = 0
        if not parser.should_keep_alive():
            ex.extra = http.CLOSE
            ex.close = True
            self.stopped = True
        elif ex.connection and parser.get_http_version() == "1.0":
            # (without a Connection header, only HTTP/1.1 keeps alive)
            ex.extra = http.KEEP_ALIVE
        self.pending += 1
        reserved, self.reserved = self.reserved, 0
        if self.held is not None:  # behind a large request being judged: in turn
            self.held.append((ex, reserved))
            return
        if reserved >= SCREENED_ENCODED or ex.response is not None:
            self._dispatch(ex, reserved)
            return
        # (``_dispatch`` of an everyday request, inline: a body too small to
        # screen gives back its share of the budget, then is routed)
        if reserved:  # (``BodyBudget.release``)
            bodies = self.bodies
            bodies.held -= reserved
            bodies.freed += reserved
        try:
            self.router.route(ex)
        except Exception:
            log.exception("routing failed; answering InternalServerError")
            ex.response = error_response(ex, InternalServerError(INTERNAL_ERROR))
        batcher = self.batcher  # (``Batcher.submit``, inline)
        batcher.queue.append(ex)
        if not batcher.scheduled:
            batcher.scheduled = True
            batcher.loop.call_soon(batcher.flush)

    def _dispatch(self, ex: Exchange, reserved: int) -> None:
        """Route a complete request, or have its large body judged first."""
        if ex.response is not None:  # the connection's final answer (_stop)
            self.batcher.submit(ex)
            return
        if reserved:
            if reserved >= SCREENED_ENCODED and Screen.wanted(ex.body, ex.content_encoding):
                operation = self.router.screened(ex)
                if operation is not None:
                    self._screen(ex, operation, reserved)
                    return
            self.bodies.release(reserved)
        try:  # (``_decide``, inline: every request comes this way)
            self.router.route(ex)
        except Exception:
            log.exception("routing failed; answering InternalServerError")
            ex.response = error_response(ex, InternalServerError(INTERNAL_ERROR))
        self.batcher.submit(ex)

    def _decide(self, ex: Exchange, verdict: Verdict) -> None:
        try:
            self.router.route(ex, verdict)
        except Exception:
            log.exception("routing failed; answering InternalServerError")
            ex.response = error_response(ex, InternalServerError(INTERNAL_ERROR))

    def _screen(self, ex: Exchange, operation: str, reserved: int) -> None:
        """Have a worker judge a large body before it is parsed here
        (screening.py), keeping the body's share of the budget until it is
        routed; the requests after it wait (``held``), so that the answers
        leave in order, and nothing more is read meanwhile."""
        self.held = []
        screen = self.server.screen
        loop = self.server.loop

        async def judged() -> None:
            try:
                verdict = await screen.judge(operation, ex.content_encoding, ex.body)
            finally:
                self.bodies.release(reserved)
            self._decide(ex, verdict)
            request = ex.request
            if verdict is None and ex.response is None and ex.operation and request is not None:
                # it may be valid: its values are checked on a thread, not
                # here, and the engine does not check them again
                with contextlib.suppress(Exception):  # (then they are, where it runs)
                    await loop.run_in_executor(None, prevalidate, ex.operation, request)
            self.batcher.submit(ex)
            held = self._take_held()
            for at, (waiting, share) in enumerate(held):
                if self.held is not None:  # another large one: the rest wait for it
                    self.held.extend(held[at:])
                    break
                self._dispatch(waiting, share)
            if self.held is None:
                self._resume()

        self.server.loop.create_task(judged())

    # -- responses -----------------------------------------------------------

    def write_out(self) -> None:
        """Write what the batcher queued for us (then close, if asked)."""
        out = self.out
        self.out = []
        transport = self.transport
        if transport is None or self.closed:
            return
        transport.write(out[0] if len(out) == 1 else b"".join(out))
        self.mark = self.clock.now
        if self.close_after_write:
            if self.stream is not None:
                self._feed_socket(transport)
                self.stream.start(transport)  # the connection is the live feed's now
            else:
                self._close_gracefully()
        elif self.eof and not self.pending:
            transport.close()
        elif self.unparsed is not None:
            self._resume()

    def _feed_socket(self, transport: asyncio.Transport) -> None:
        """The connection becomes a live feed: bound its kernel send buffer,
        and let the watchdog see what waits there (``check_deadlines``)."""
        sock = transport.get_extra_info("socket")
        if sock is None:
            return
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, FEED_SNDBUF)
            self.stream_fd = sock.fileno()

    def _too_large(self) -> None:
        self._stop(http.render(413, TOO_LARGE_BODY, http.JSON_1_0, self._cors() + http.CLOSE))

    def _cors(self) -> bytes:
        """The CORS headers of an answer to the request being read, made
        before its body is whole (so a page can read why it was refused)."""
        ex = self.ex
        return b"" if ex is None else self.router.cors_headers(ex)

    def _stop(self, final: bytes | None) -> None:
        """Read no more requests; after the responses already due (and
        ``final``, if given) are written, close."""
        if self.stopped:
            return
        self.stopped = True
        self.body = []  # a body in progress is dropped
        self._release()
        ex = Exchange(self)
        ex.method = b""
        ex.started = 0.0
        ex.response = final or b""
        ex.close = True
        self.pending += 1
        if self.held is not None:  # after the answers to the requests before it
            self.held.append((ex, 0))
        else:
            self.batcher.submit(ex)

    def _close_gracefully(self) -> None:
        """Half-close, let the client read the answer, then close.

        Closing a socket with unread input makes the kernel send RST, which
        can destroy the response before the client reads it (a 413 sent while
        the client is still uploading, say)."""
        transport = self.transport
        if transport is None or self.closed:
            return
        self.stopped = True
        if transport.can_write_eof():
            transport.write_eof()
            self.server.loop.call_later(LINGER, transport.close)
        else:
            transport.close()

    def shutdown(self) -> None:
        """Server shutdown: read nothing more; close once what is due is written."""
        self.stopped = True
        if self.transport is not None and not self.closed:
            if self.out:
                self.write_out()
            self.transport.close()
