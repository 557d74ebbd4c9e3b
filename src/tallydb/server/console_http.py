"""The console's requests and responses over the server's HTTP.

Routing hands a request under ``/console`` here; the console (``tallydb.console``)
decides it from a small request record, and its answer is rendered as HTTP
without the DynamoDB headers and without the data plane's
``Access-Control-Allow-Origin: *`` (the console is for its own origin only).
The live feed's answer is a head without a length; the connection then
belongs to the stream (``Connection.write_out``).
"""

from __future__ import annotations

from collections.abc import Callable
from email.utils import formatdate

from tallydb.console.routes import Console, ConsoleRequest, ConsoleResponse
from tallydb.server import http
from tallydb.server.auth import Verifier
from tallydb.server.exchange import Exchange

_REASONS = {200: "OK", 302: "Found", 304: "Not Modified", 400: "Bad Request",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
            500: "Internal Server Error"}


def console_request(ex: Exchange) -> ConsoleRequest:
    path, _, query = ex.url.decode("latin-1").partition("?")
    raw = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in ex.headers or ()]
    return ConsoleRequest(ex.method.decode("latin-1"), path, query,
                          {n.lower(): v for n, v in raw}, ex.body, raw)


def verifier_for(verifier: Verifier) -> Callable[[ConsoleRequest], frozenset[str] | None]:
    """The console's check of a signed request: the data plane's own; the
    tables the key may see."""
    def verify(request: ConsoleRequest) -> frozenset[str] | None:
        url = request.path + ("?" + request.query if request.query else "")
        return verifier.verify(request.method, url, request.raw_headers, request.body).tables
    return verify


def answer(console: Console, ex: Exchange) -> None:
    """Decide a console request: ``ex.response`` (and ``ex.stream``)."""
    response = console.handle(console_request(ex))
    ex.response = render(response, ex.extra.replace(http.ALLOW_ANY_ORIGIN, b""))
    if response.stream is not None:
        ex.stream = response.stream
        ex.close = True
        ex.conn.stopped = True  # the connection reads no more requests


def render(response: ConsoleResponse, extra: bytes) -> bytes:
    lines = [f"HTTP/1.1 {response.status} {_REASONS.get(response.status, 'Unknown')}"]
    if response.content_type is not None:
        lines.append(f"Content-Type: {response.content_type}")
    lines.extend(f"{name}: {value}" for name, value in response.headers)
    lines.append("Date: " + formatdate(usegmt=True))
    if response.stream is None:
        lines.append(f"Content-Length: {len(response.body)}")
        head = "\r\n".join(lines).encode("latin-1") + b"\r\n" + extra
    else:
        head = "\r\n".join(lines).encode("latin-1") + b"\r\n" + http.CLOSE
    return head + b"\r\n" + response.body
