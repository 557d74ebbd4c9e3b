"""What a parsed request is: an operation for the engine, or an answer now.

First the origin rule (origin.py): on a server on loopback without
credentials, a request whose Host is not this machine's gets 403 (DNS
rebinding); without credentials a browser page of another origin, and with
them one of another site asking the console, gets 403. Then the checks run in
DynamoDB's order (as dynalite reproduces it): not a JSON POST to ``/`` ->
404; body not decodable (Content-Encoding) or not JSON ->
SerializationException (a body its Content-Encoding cannot decode: DynamoDB's
500 InternalFailure, ``encoding``); unknown target -> UnknownOperationException; then
the signature; then an empty body -> SerializationException. A request that
passes them all goes to the engine with what its signing key may do
(``ex.access``): the engine decides AccessDeniedException itself, on what
its own reading of the request will touch (``engine/api/_access``). Anything
that is not the data plane goes to ``route_other``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import orjson

from tallydb.console.routes import Console
from tallydb.engine.api import (
    DYNAMODB_SERVICE,
    NAMES_NO_ARN,
    Access,
    target_of,
    unknown_operation,
)
from tallydb.engine.api.describe_endpoints import endpoints
from tallydb.engine.errors import (
    AccessDeniedException,
    DynamoDBError,
    SerializationException,
    UnknownOperationException,
    ValidationException,
)
from tallydb.server import console_http, http
from tallydb.server.auth import Verifier
from tallydb.server.encoding import BadCoding, TooLarge, decode_body, known_coding
from tallydb.server.exchange import Exchange
from tallydb.server.origin import (
    HostGuard,
    OriginPolicy,
    cross_origin_refusal,
    cross_site_refusal,
)
from tallydb.server.region import region_of

#: DynamoDB's health check answers ``GET /`` with ``healthy: `` and the name
#: it was reached by, then a space ("healthy: dynamodb.us-east-1.amazonaws.com ",
#: as dynalite records it; ScyllaDB Alternator's test_health.py, run against
#: DynamoDB, reads the name from the request's Host).
HEALTHY: Final = b"healthy: "
_ACCEPTED_TYPES: Final = frozenset({http.JSON, http.JSON_1_0})
_JSON: Final = http.JSON
_JSON_1_0: Final = http.JSON_1_0
# the two errors routing gives most, rendered once
#: orjson's parse bound once: a C static read, not a lookup of the
#: module's attribute by name at each request (this module is compiled).
_loads: Final = orjson.loads
_SERIALIZATION: Final = orjson.dumps(SerializationException().to_wire())
_UNKNOWN_OPERATION: Final = orjson.dumps(UnknownOperationException().to_wire())
MAX_BODY: Final = 16 * 1024 * 1024  # DynamoDB's request size limit
# DynamoDB's exact words for a request over 16 MB are not documented; this
# names the documented limit, in the shape SDKs read.
TOO_LARGE: Final = ValidationException(f"Request size exceeds the limit of {MAX_BODY} bytes")
TOO_LARGE_BODY: Final = orjson.dumps(TOO_LARGE.to_wire())


#: The operations whose requests nothing changes from routing to their
#: answer (the engine reads them; the limits, the console's view and the
#: access log copy or only read them), so that requests of the same bytes
#: may share one parsed dict (``Router.route``): a hot counter's ``ADD``
#: (or PartiQL's ``UPDATE``) is parsed once, not once a request. (PartiQL
#: builds a request of its own from the statement, and changes only that.)
SHARED_REQUESTS: Final = frozenset({"UpdateItem", "GetItem", "ExecuteStatement"})
SHARED_BODY: Final = 1024  # bytes: a longer body is parsed for itself

#: What a worker found of a large body before it is parsed here
#: (screening.py): None (it may be valid), NOT_JSON, NOT_AN_OBJECT, or a
#: request no table could make valid: its error's status and body.
NOT_JSON: Final = "not JSON"
NOT_AN_OBJECT: Final = "not an object"
Verdict = str | tuple[int, bytes] | None


class Router:
    """Decides each request; holds the operation table and the verifier."""

    def __init__(
        self,
        operations: Iterable[str],
        verifier: Verifier | None = None,
        console: Console | None = None,
        origins: OriginPolicy | None = None,
        regional: bool = False,
        log_requests: bool = False,
    ) -> None:
        self.targets: dict[bytes, str] = {
            target_of(name).encode(): name for name in operations
        }
        self.verifier = verifier
        #: The web console's routes (None with ``--no-console``): asked for
        #: paths under /console, off the data path (``route_other``).
        self.console = console
        self.origins = origins or OriginPolicy(open=verifier is not None)
        #: Every request's Host, checked on a server on loopback without
        #: credentials (DNS rebinding); None where only a browser's is.
        self.host_guard = (HostGuard(self.origins)
                           if not self.origins.open and self.origins.every_host else None)
        #: Whether every request's region matters (separate regions, or
        #: throttles naming ARNs); otherwise only an operation naming ARNs
        #: reads it, and a hot UpdateItem never parses its credential scope.
        self.regional = regional
        #: The access log names what each request touched: the engine resolves
        #: every request's resources for it, not only a limited key's.
        self.log_requests = log_requests
        #: ``host:port`` the server listens on (``Server.listen`` sets it):
        #: DescribeEndpoints' answer to a request without a Host header.
        self.address = "localhost:8000"
        #: The last body of ``SHARED_REQUESTS`` parsed, and what it parsed
        #: into: a request of the same bytes gets the same dict (never
        #: changed by what runs it), not a parse of its own.
        self._parsed_body = b""
        self._parsed: dict[str, Any] | None = None

    def route(self, ex: Exchange, verdict: Verdict = None) -> None:
        """Set ``ex.operation``/``ex.request``, or ``ex.response``. A large
        request comes with what a worker found of its body (``verdict``,
        screening.py): then the body is parsed here only if it may be valid."""
        guard = self.host_guard
        if guard is not None and ex.host not in guard.allowed:
            refusal = guard.refusal(ex.host)
            if refusal is not None:
                self.refuse(ex, refusal)
                return
        if ex.origin is not None or ex.fetch_site is not None:
            # (an SDK sends neither: only a browser's request can be cross-origin)
            self.cross_origin(ex)
            if ex.response is not None:
                return
        if ex.method != b"POST" or (ex.url != b"/" and ex.url.split(b"?", 1)[0] != b"/"):
            self.route_other(ex)
            return
        content_type = ex.content_type
        body = ex.body
        if content_type == _JSON_1_0:  # (every SDK's)
            ex.response_type = _JSON_1_0
        else:
            if content_type != _JSON:
                content_type = _content_type(ex)
                if body and content_type not in _ACCEPTED_TYPES:
                    ex.response = http.render(404, http.UNKNOWN_OPERATION_XML, None, ex.extra)
                    return
            ex.response_type = _JSON_1_0 if content_type == _JSON_1_0 else _JSON
        if ex.content_encoding is not None:
            try:
                body = decode_body(ex.content_encoding, body)
            except BadCoding as bad_coding:
                self.fail(ex, bad_coding)
                return
            except TooLarge:
                too_large(ex)
                return
        request: Any = None
        if verdict is None:
            if body:
                if body == self._parsed_body:  # (the hot counter's same request again)
                    request = self._parsed
                else:
                    try:
                        request = _loads(body)
                    except orjson.JSONDecodeError:
                        ex.response = http.render(400, _SERIALIZATION, ex.response_type,
                                                  ex.extra)
                        return
        elif verdict == NOT_JSON:
            ex.response = http.render(400, _SERIALIZATION, ex.response_type, ex.extra)
            return
        operation = self.targets.get(ex.target) if ex.target is not None else None
        if operation is None:
            ex.response = http.render(400, _unknown_target(ex.target), ex.response_type, ex.extra)
            return
        access: Access | None = None
        if self.verifier is not None:
            try:
                access = self.verifier.verify(
                    "POST",
                    ex.url.decode("latin-1"),
                    [(n.decode("latin-1"), v.decode("latin-1")) for n, v in ex.headers or ()],
                    ex.body,
                )
            except DynamoDBError as auth_error:
                self.fail(ex, auth_error)
                return
        if verdict is not None and isinstance(verdict, tuple):  # no table could make it valid
            if access is None or not access.limited:
                status, wire = verdict
                ex.response = http.render(status, wire, ex.response_type, ex.extra, ex.coding)
                return
            request = orjson.loads(body)  # (a limited key's access is decided first)
        if type(request) is not dict:
            ex.response = http.render(400, _SERIALIZATION, ex.response_type, ex.extra)
            return
        if operation in SHARED_REQUESTS:
            if request is not self._parsed and len(body) <= SHARED_BODY:
                self._parsed_body, self._parsed = body, request
        elif request is self._parsed:  # another operation's: a dict of its own
            request = orjson.loads(body)
        ex.request = request
        if ex.authorization is not None and (self.regional or operation not in NAMES_NO_ARN):
            ex.region = region_of(ex.authorization)
        if access is not None:
            access.record = self.log_requests
            ex.access = access
        elif self.log_requests:
            ex.access = Access(None, ex.region, record=True)
        if operation == "DescribeEndpoints":  # the address this request reached
            address = _text(ex.host) or self.address
            ex.response = http.render(200, orjson.dumps(endpoints(address)), ex.response_type,
                                      ex.extra, ex.coding)
            return
        ex.operation = operation

    def screened(self, ex: Exchange) -> str | None:
        """The operation of a data-plane request (a POST to ``/`` naming a
        served target), whose large body a worker may judge; else None."""
        if ex.method != b"POST" or ex.target is None or ex.url.split(b"?", 1)[0] != b"/":
            return None
        return self.targets.get(ex.target)

    def refuse_head(self, ex: Exchange, method: bytes) -> bytes | None:
        """For a request with a large body, once its head is complete: the
        answer (closing the connection) that its head alone decides, so its
        body is never read; None when the body may matter.

        The checks are ``route``'s, in its order, short of the ones that
        need the body; the one difference is that a body that is not JSON
        would have been named first (SerializationException), which only
        its bytes could tell."""
        if method != b"POST" or ex.url.split(b"?", 1)[0] != b"/":
            return None  # the console's, the health check's: judged whole
        extra = ex.extra + http.CLOSE
        if ex.origin is not None or ex.fetch_site is not None:
            origins = self.origins
            if origins.open:
                return None  # (then every answer carries CORS headers: judged whole)
            refusal = cross_origin_refusal(
                origins, _text(ex.origin), _text(ex.fetch_site), _text(ex.host))
            if refusal is None:
                return None
            return http.render(403, orjson.dumps(AccessDeniedException(refusal).to_wire()),
                               http.JSON_1_0, http.CLOSE)
        content_type = _content_type(ex)
        if content_type not in _ACCEPTED_TYPES:
            return http.render(404, http.UNKNOWN_OPERATION_XML, None, extra)
        response_type = http.JSON_1_0 if content_type == http.JSON_1_0 else http.JSON
        if ex.content_encoding is not None:
            coding = ex.content_encoding.decode("latin-1").split(",")[-1].strip().lower()
            if not known_coding(coding):  # undone first
                bad_coding = BadCoding()
                return http.render(bad_coding.status, orjson.dumps(bad_coding.to_wire()),
                                   response_type, extra)
        if ex.target is None or ex.target not in self.targets:
            return http.render(400, _unknown_target(ex.target), response_type, extra)
        if self.verifier is not None:
            try:
                self.verifier.check_head(
                    [(n.decode("latin-1"), v.decode("latin-1")) for n, v in ex.headers or ()])
            except DynamoDBError as auth_error:
                return http.render(auth_error.status, orjson.dumps(auth_error.to_wire()),
                                   response_type, extra)
        return None

    def cross_origin(self, ex: Exchange) -> None:
        """A browser's request: 403 for a page of another origin (unless
        allowed); else the CORS headers every response to it carries."""
        refusal, headers = self._cross_origin(ex)
        if refusal is not None:
            self.refuse(ex, refusal)
        else:
            ex.extra += headers

    def cors_headers(self, ex: Exchange) -> bytes:
        """The CORS headers of an answer made before ``route`` sees ``ex``
        (its body too large, or past the server's body budget): those
        ``route`` would add, so that the page can read why; none where it
        would refuse the request."""
        if ex.origin is None:
            return b""
        guard = self.host_guard
        if guard is not None and ex.host not in guard.allowed and guard.refusal(ex.host):
            return b""
        refusal, headers = self._cross_origin(ex)
        return b"" if refusal is not None else headers

    def _cross_origin(self, ex: Exchange) -> tuple[str | None, bytes]:
        """Why a browser's request is refused (or None), and the CORS
        headers of the answers to it when it is not."""
        origins = self.origins
        refusal = None
        if not origins.open:
            refusal = cross_origin_refusal(
                origins, _text(ex.origin), _text(ex.fetch_site), _text(ex.host)
            )
        elif ex.url.startswith(b"/console"):  # the console is for its own origin
            refusal = cross_site_refusal(
                origins, _text(ex.origin), _text(ex.fetch_site), _text(ex.host)
            )
        if refusal is not None or ex.origin is None:
            return refusal, b""
        return None, (
            http.ALLOW_ANY_ORIGIN if origins.open
            else b"Access-Control-Allow-Origin: " + ex.origin + b"\r\nVary: Origin\r\n"
            + http.EXPOSE_HEADERS
        )

    def route_other(self, ex: Exchange) -> None:
        """Anything but a POST to ``/``: the console's routes, CORS preflight,
        the health check, 404."""
        method = ex.method
        if self.console is not None and ex.url.startswith(b"/console"):
            console_http.answer(self.console, ex)
        elif ex.url.split(b"?", 1)[0] != b"/":
            ex.response = http.render(404, http.UNKNOWN_OPERATION_XML, None, ex.extra)
        elif method == b"OPTIONS" and ex.origin is not None:
            ex.response = http.render(200, b"", None, ex.extra + _preflight_headers(ex))
        elif method in (b"GET", b"HEAD"):
            body = b"" if method == b"HEAD" else (
                HEALTHY + (ex.host or self.address.encode()) + b" ")
            # no Content-Type, as DynamoDB's (curl -i of dynamodb.us-west-2)
            ex.response = http.render(200, body, None, ex.extra)
        else:
            ex.response = http.render(404, http.UNKNOWN_OPERATION_XML, None, ex.extra)

    @staticmethod
    def refuse(ex: Exchange, refusal: str) -> None:
        """403 for a request the origin rule refuses: it changes nothing."""
        ex.response = http.render(
            403, orjson.dumps(AccessDeniedException(refusal).to_wire()), http.JSON_1_0
        )

    @staticmethod
    def fail(ex: Exchange, error: DynamoDBError) -> None:
        ex.response = error_response(ex, error)


def error_response(ex: Exchange, error: DynamoDBError) -> bytes:
    """DynamoDB's error body for ``error``, with its status."""
    return http.render(
        error.status, orjson.dumps(error.to_wire()), ex.response_type, ex.extra, ex.coding
    )


def too_large(ex: Exchange) -> None:
    """A request over 16 MB: 413 with DynamoDB's error shape, then close."""
    ex.response = http.render(413, TOO_LARGE_BODY, http.JSON_1_0, ex.extra + http.CLOSE)
    ex.close = True


def _content_type(ex: Exchange) -> bytes | None:
    """The request's media type, without parameters (as sent when it is one we take)."""
    content_type = ex.content_type
    if content_type is not None and content_type not in _ACCEPTED_TYPES:
        content_type = content_type.split(b";", 1)[0].strip().lower()
    return content_type


def _unknown_target(target: bytes | None) -> bytes:
    """The body of the answer to a target no operation is served under."""
    if target is not None and target.startswith(DYNAMODB_SERVICE.encode()):
        name = target[len(DYNAMODB_SERVICE):].decode("latin-1")
        return orjson.dumps(unknown_operation(name).to_wire())  # names DynamoDB's own
    return _UNKNOWN_OPERATION


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("latin-1")


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
