"""What a parsed request is: an operation for the engine, or an answer now.

The checks run in DynamoDB's order (as dynalite reproduces it): not a JSON
POST -> 404; body not JSON -> SerializationException; unknown target ->
UnknownOperationException; then the signature; then an empty body ->
SerializationException. Only a request that passes all of them reaches the
engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from tallydb import __version__
from tallydb.console.routes import Console
from tallydb.errors import DynamoDBError, SerializationException, UnknownOperationException
from tallydb.server import console_http, http
from tallydb.server.auth import Verifier
from tallydb.server.exchange import Exchange

TARGET_PREFIX = "DynamoDB_20120810."
HEALTHY = b"healthy: tallydb " + __version__.encode() + b" "
_ACCEPTED_TYPES = frozenset({http.JSON, http.JSON_1_0})
# the two errors routing gives most, rendered once
_SERIALIZATION = orjson.dumps(SerializationException().to_wire())
_UNKNOWN_OPERATION = orjson.dumps(UnknownOperationException().to_wire())


class Router:
    """Decides each request; holds the operation table and the verifier."""

    def __init__(self, operations: Iterable[str], verifier: Verifier | None = None,
                 console: Console | None = None) -> None:
        self.targets: dict[bytes, str] = {
            (TARGET_PREFIX + name).encode(): name for name in operations
        }
        self.verifier = verifier
        #: The web console's routes (None with ``--no-console``): asked only
        #: where a request would otherwise be refused, off the data path.
        self.console = console

    def route(self, ex: Exchange) -> None:
        """Set ``ex.operation``/``ex.request``, or ``ex.response``."""
        if ex.origin is not None:
            ex.extra += http.ALLOW_ANY_ORIGIN
        method = ex.method
        if method != b"POST":
            if self.console is not None and ex.url.startswith(b"/console"):
                console_http.answer(self.console, ex)
            elif method == b"OPTIONS" and ex.origin is not None:
                ex.response = http.render(200, b"", None, ex.extra + _preflight_headers(ex))
            elif method in (b"GET", b"HEAD") and ex.url.split(b"?", 1)[0] == b"/":
                body = b"" if method == b"HEAD" else HEALTHY
                ex.response = http.render(200, body, http.TEXT, ex.extra)
            else:
                ex.response = http.render(404, http.UNKNOWN_OPERATION_XML, None, ex.extra)
            return
        content_type = ex.content_type
        if content_type is not None and content_type not in _ACCEPTED_TYPES:
            content_type = content_type.split(b";", 1)[0].strip().lower()
        if ex.body and content_type not in _ACCEPTED_TYPES:
            ex.response = http.render(404, http.UNKNOWN_OPERATION_XML, None, ex.extra)
            return
        ex.response_type = http.JSON_1_0 if content_type == http.JSON_1_0 else http.JSON
        request: Any = None
        if ex.body:
            try:
                request = orjson.loads(ex.body)
            except orjson.JSONDecodeError:
                ex.response = http.render(400, _SERIALIZATION, ex.response_type, ex.extra)
                return
        operation = self.targets.get(ex.target) if ex.target is not None else None
        if operation is None:
            if ex.target is None and self.console is not None and ex.url.startswith(
                    b"/console/"):
                console_http.answer(self.console, ex)
                return
            ex.response = http.render(400, _UNKNOWN_OPERATION, ex.response_type, ex.extra)
            return
        if self.verifier is not None:
            try:
                self.verifier.verify(
                    method.decode(),
                    ex.url.decode("latin-1"),
                    [(n.decode("latin-1"), v.decode("latin-1")) for n, v in ex.headers or ()],
                    ex.body,
                )
            except DynamoDBError as error:
                self.fail(ex, error)
                return
        if type(request) is not dict:
            ex.response = http.render(400, _SERIALIZATION, ex.response_type, ex.extra)
            return
        ex.operation = operation
        ex.request = request

    @staticmethod
    def fail(ex: Exchange, error: DynamoDBError) -> None:
        ex.response = error_response(ex, error)


def error_response(ex: Exchange, error: DynamoDBError) -> bytes:
    """DynamoDB's error body for ``error``, with its status."""
    return http.render(error.status, orjson.dumps(error.to_wire()), ex.response_type, ex.extra)


def _preflight_headers(ex: Exchange) -> bytes:
    """CORS preflight: allow what was asked for, cached two days (as DynamoDB)."""
    lines = b""
    for name, value in ex.headers or ():
        lowered = name.lower()
        if lowered == b"access-control-request-headers":
            lines += b"Access-Control-Allow-Headers: " + value + b"\r\n"
        elif lowered == b"access-control-request-method":
            lines += b"Access-Control-Allow-Methods: " + value + b"\r\n"
    return lines + b"Access-Control-Max-Age: 172800\r\n"
