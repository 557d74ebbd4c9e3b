"""The console's route table: its page, its files and its two endpoints.

The page is a DynamoDB client: it reads and writes through ``POST /`` like
any SDK. Only what the API cannot give has a route here:

====================================  ==========================================
``GET /console``                      redirect to ``/console/``
``GET /console/``                     the page (``static/index.html``)
``GET /console/static/<path>``        the page's files (ETag, 304)
``GET /console/api/info``             version, whether keys are required, limits
``GET /console/events``               the live feed (server-sent events)
``POST /console/api/parse``           expressions checked, not run
====================================  ==========================================

With credentials, the two endpoints that carry data or run the parser
need a SigV4-signed request, as ``POST /`` does (``verify``). Whatever the
credentials, a request that a browser sent from another site is refused
(the ``Sec-Fetch-Site`` / ``Origin`` rule), so a web page the user happens
to visit cannot read the feed; and without credentials the ``Host`` must be
one this server answers to, so DNS rebinding cannot either.

Nothing here knows HTTP beyond these small request and response records:
the server turns them into bytes (``server/console_http.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import orjson

from tallydb import __version__
from tallydb.console.live import LiveHub, LiveStream
from tallydb.console.parse import parse
from tallydb.console.static_files import StaticFile, load_static
from tallydb.errors import DynamoDBError

PREFIX = "/console"
CSP = ("default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
       "base-uri 'none'; form-action 'none'")
_SAFE_SITES = frozenset({"same-origin", "none"})
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
_EVERY_ADDRESS = frozenset({"0.0.0.0", "::", ""})


@dataclass
class ConsoleRequest:
    method: str
    path: str
    query: str
    headers: dict[str, str]  # names lowercased; the last value of a repeated name
    body: bytes = b""
    raw_headers: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class ConsoleResponse:
    status: int
    body: bytes = b""
    content_type: str | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    #: set for the live feed: the server streams it after the head
    stream: LiveStream | None = None


Verify = Callable[[ConsoleRequest], None]


def _json(status: int, body: Any) -> ConsoleResponse:
    return ConsoleResponse(status, orjson.dumps(body), "application/json")


def _error(error: DynamoDBError) -> ConsoleResponse:
    return _json(error.status, error.to_wire())


FORBIDDEN = _json(403, {"__type": "com.amazonaws.dynamodb.v20120810#AccessDeniedException",
                        "message": "Cross-site requests to the console are refused"})
NOT_FOUND = _json(404, {"message": "Not found"})
NOT_ALLOWED = _json(405, {"message": "Method not allowed"})


class Console:
    """The console's routes over one engine's change feed."""

    def __init__(self, hub: LiveHub, *, verify: Verify | None = None,
                 hosts: frozenset[str] = frozenset(), emulate_limits: bool = False) -> None:
        self.hub = hub
        self.verify = verify
        #: Host names the server answers to without credentials (besides loopback).
        self.hosts = hosts
        self.emulate_limits = emulate_limits
        self.files: dict[str, StaticFile] = load_static()

    def handle(self, request: ConsoleRequest) -> ConsoleResponse:
        path = request.path
        if path == PREFIX:
            return ConsoleResponse(302, headers=[("Location", PREFIX + "/")])
        if not self._same_site(request):
            return FORBIDDEN
        rest = path[len(PREFIX):]
        if rest == "/" or rest.startswith("/static/"):
            if request.method not in ("GET", "HEAD"):
                return NOT_ALLOWED
            return self._file("index.html" if rest == "/" else rest[len("/static/"):], request)
        if rest == "/api/info":
            return _json(200, {"version": __version__, "auth": self.verify is not None,
                               "emulateLimits": self.emulate_limits})
        if rest == "/events":
            if request.method != "GET":
                return NOT_ALLOWED
            return self._authorized(request) or self._events(request)
        if rest == "/api/parse":
            if request.method != "POST":
                return NOT_ALLOWED
            denied = self._authorized(request)
            if denied is not None:
                return denied
            try:
                body = orjson.loads(request.body or b"{}")
            except orjson.JSONDecodeError:
                return _json(400, {"__type": "com.amazon.coral.service#SerializationException"})
            return _json(*parse(body))
        return NOT_FOUND

    def _same_site(self, request: ConsoleRequest) -> bool:
        """Refuse what a browser sent from another site, and (without
        credentials) a Host this server does not answer to."""
        headers = request.headers
        site = headers.get("sec-fetch-site")
        host = headers.get("host", "")
        if site is not None and site not in _SAFE_SITES:
            return False
        origin = headers.get("origin")
        if origin is not None and origin.partition("://")[2] != host:
            return False
        if self.verify is None and not self.hosts & _EVERY_ADDRESS:
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name and name not in _LOOPBACK_NAMES and name not in self.hosts:
                return False
        return True

    def _authorized(self, request: ConsoleRequest) -> ConsoleResponse | None:
        if self.verify is None:
            return None
        try:
            self.verify(request)
        except DynamoDBError as error:
            return _error(error)
        return None

    def _file(self, name: str, request: ConsoleRequest) -> ConsoleResponse:
        found = self.files.get(name)
        if found is None:
            return NOT_FOUND
        headers = [("ETag", found.etag.decode()), ("Cache-Control", "no-cache"),
                   ("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", CSP),
                   ("Referrer-Policy", "no-referrer")]
        if request.headers.get("if-none-match") == found.etag.decode():
            return ConsoleResponse(304, headers=headers)
        body = b"" if request.method == "HEAD" else found.body
        return ConsoleResponse(200, body, found.content_type.decode(), headers)

    def _events(self, request: ConsoleRequest) -> ConsoleResponse:
        query = parse_qs(request.query)
        tables = None
        if query.get("tables"):
            tables = frozenset(t for t in ",".join(query["tables"]).split(",") if t)
        last = request.headers.get("last-event-id") or "".join(query.get("lastEventId", ()))
        last_seen = int(last) if last.isdigit() else None
        stream = self.hub.open(tables or None, last_seen)
        return ConsoleResponse(200, content_type="text/event-stream", headers=[
            ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no"),
            ("X-Content-Type-Options", "nosniff")], stream=stream)

    def close(self) -> None:
        self.hub.close()
