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
``GET /console/api/contributor-insights``  a table's (or index's) busiest keys
``GET /console/api/replication``      global tables' replicas, pending changes, lag
====================================  ==========================================

``/console/api/contributor-insights?TableName=T[&IndexName=I][&Limit=N]``
answers, for a table (or index) with contributor insights enabled, its
busiest keys of the last minute, busiest first, as JSON: ``{"TableName",
"IndexName", "ContributorInsightsStatus", "ContributorInsightsMode",
"TopKeys": [{"keys", "accesses", "rate", "spark", "throttled"}]}`` (the
same sketch the console's panel shows); DynamoDB's ResourceNotFoundException
for a table or index there is not.

``/console/api/replication`` answers every replica of a global table the
key may see (tables of every region): ``{"Replicas": [{"TableName",
"RegionName", "Replicas": [the group's regions], "Consistency",
"PendingChanges", "LagSeconds"}]}``, the lag being the age of the oldest
change the replica has not yet sent. DynamoDB reports replication lag only
to CloudWatch (ReplicationLatency), so the API cannot give it; a replica's
items and the group itself the page reads through the API (GetItem signed
for each region, DescribeTable's Replicas).

With credentials, the two endpoints that carry data or run the parser
need a SigV4-signed request, as ``POST /`` does (``verify``). Without
credentials, the server's origin rule (``server/origin.py``, applied to
every request before it is routed) refuses what a browser sends from
another site or to a foreign ``Host``, so a web page the user happens to
visit cannot read the feed, not even by DNS rebinding.

Nothing here knows HTTP beyond these small request and response records:
the server turns them into bytes (``server/console_http.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import orjson

from tallydb.console.live import LiveHub, LiveStream
from tallydb.console.parse import parse
from tallydb.console.static_files import StaticFile, load_static
from tallydb.engine.errors import DynamoDBError
from tallydb.engine.version import __version__

PREFIX = "/console"
CSP = ("default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
       "base-uri 'none'; form-action 'none'")


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


#: Checks a signed request; returns the tables its key may see (None: all).
Verify = Callable[[ConsoleRequest], frozenset[str] | None]
#: A table's (or index's) contributor insights and busiest keys: (table, index, limit).
TopKeys = Callable[[str, str | None, int], dict[str, Any]]
#: Every global table replica's replication (``Engine.replication_status``).
Replication = Callable[[], list[dict[str, Any]]]


def _json(status: int, body: Any) -> ConsoleResponse:
    return ConsoleResponse(status, orjson.dumps(body), "application/json")


def _error(error: DynamoDBError) -> ConsoleResponse:
    return _json(error.status, error.to_wire())


NOT_FOUND = _json(404, {"message": "Not found"})
NOT_ALLOWED = _json(405, {"message": "Method not allowed"})


class Console:
    """The console's routes over one engine's change feed."""

    def __init__(self, hub: LiveHub, *, verify: Verify | None = None,
                 emulate_limits: bool = False, top_keys: TopKeys | None = None,
                 replication: Replication | None = None) -> None:
        self.hub = hub
        self.top_keys = top_keys
        self.replication = replication
        self.verify = verify
        self.emulate_limits = emulate_limits
        self.files: dict[str, StaticFile] = load_static()

    def handle(self, request: ConsoleRequest) -> ConsoleResponse:
        path = request.path
        if path == PREFIX:
            return ConsoleResponse(302, headers=[("Location", PREFIX + "/")])
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
            try:
                visible = self._visible(request)
            except DynamoDBError as error:
                return _error(error)
            return self._events(request, visible)
        if rest == "/api/parse":
            if request.method != "POST":
                return NOT_ALLOWED
            try:
                self._visible(request)
            except DynamoDBError as error:
                return _error(error)
            try:
                body = orjson.loads(request.body or b"{}")
            except orjson.JSONDecodeError:
                return _json(400, {"__type": "com.amazon.coral.service#SerializationException"})
            return _json(*parse(body))
        if rest == "/api/contributor-insights" and self.top_keys is not None:
            if request.method != "GET":
                return NOT_ALLOWED
            return self._insights(request)
        if rest == "/api/replication" and self.replication is not None:
            if request.method != "GET":
                return NOT_ALLOWED
            try:
                visible = self._visible(request)
            except DynamoDBError as error:
                return _error(error)
            return _json(200, {"Replicas": [
                replica for replica in self.replication()
                if visible is None or replica["TableName"] in visible]})
        return NOT_FOUND

    def _insights(self, request: ConsoleRequest) -> ConsoleResponse:
        assert self.top_keys is not None
        query = parse_qs(request.query)
        table = "".join(query.get("TableName", ()))
        index = "".join(query.get("IndexName", ())) or None
        limit = "".join(query.get("Limit", ()))
        try:
            visible = self._visible(request)
            if visible is not None and table not in visible:
                from tallydb.engine.api.describe_table import table_not_found

                raise table_not_found(table)
            return _json(200, self.top_keys(table, index, int(limit) if limit.isdigit() else 10))
        except DynamoDBError as error:
            return _error(error)

    def _visible(self, request: ConsoleRequest) -> frozenset[str] | None:
        """The tables the request's key may see (None: all); DynamoDB's
        error for a request that is not signed by a known key."""
        return None if self.verify is None else self.verify(request)

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

    def _events(self, request: ConsoleRequest, visible: frozenset[str] | None
                ) -> ConsoleResponse:
        """The live feed of the tables asked for (all by default), never of
        a table the key may not see."""
        query = parse_qs(request.query)
        tables = visible
        if query.get("tables"):
            tables = frozenset(t for t in ",".join(query["tables"]).split(",") if t)
            if visible is not None:
                tables &= visible
        last = request.headers.get("last-event-id") or "".join(query.get("lastEventId", ()))
        last_seen = int(last) if last.isdigit() else None
        stream = self.hub.open(tables, last_seen)
        return ConsoleResponse(200, content_type="text/event-stream", headers=[
            ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no"),
            ("X-Content-Type-Options", "nosniff")], stream=stream)

    def close(self) -> None:
        self.hub.close()
