"""DynamoDB's JSON straight over HTTP: the requests of an import or export
(BatchWriteItem, Scan) sent as bytes to a boto3 client's endpoint, signed
with SigV4 when the client has credentials, answers read with orjson.

botocore would check each request against the service model, convert every
attribute value to Python and back and parse every answer the same way: on
an import or export that is most of the client's CPU per item. Here the
items stay in DynamoDB's JSON from the file to the socket and back. The
client lends its endpoint, region, credentials and TLS verification.

A request is written as bytes on a keep-alive socket and its answer read
by httptools' parser; ``WireClient.pipeline`` keeps several requests in
flight on one connection, so that one thread keeps a server busy (with
``http.client`` and four writer threads, an import's client took 15-21 µs
of CPU an item; this way 4.6-5.4, reading the export's gzip included:
bench/README, "Moving data"). Requests are signed (SigV4) by
:class:`Signer`, which builds the canonical request of a ``POST /`` with
these fixed headers directly and keeps the derived key: botocore's signer
takes about 90 µs a batch, several µs an item.
"""

from __future__ import annotations

import socket
import ssl
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httptools
import orjson

from tallydb.engine.errors import DynamoDBError
from tallydb.toolkit.exceptions import TransportError, error_from_response
from tallydb.toolkit.sigv4 import Signer
from tallydb.toolkit.transport import ClientTransport

__all__ = ["ATTEMPTS", "DEPTH", "Signer", "WireClient", "wire_client"]

#: How many times a throttled, failed (5xx) or unanswered request is sent
#: before its error is raised: botocore's legacy retry mode for DynamoDB.
ATTEMPTS = 10
#: The answers worth sending the same request again for (botocore's own
#: list of throttling codes for DynamoDB, and a server that failed).
_RETRYABLE = frozenset({
    "ProvisionedThroughputExceededException", "ThrottlingException", "Throttling",
    "RequestLimitExceeded", "TransactionInProgressException", "InternalServerError",
    "ServiceUnavailable", "LimitExceededException",
})
_TARGET = "DynamoDB_20120810."


_CONTENT_TYPE = "application/x-amz-json-1.0"
#: Requests of a pipeline sent before their answers are read: the server's
#: own ``max_pipeline`` (it stops reading a connection that has more
#: unanswered), so that it always has the next ones at hand.
DEPTH = 8
#: Bytes read from the socket at a time.
_RECEIVE = 1 << 16
#: What a request that failed to cross, or was not answered, raises.
_NETWORK_ERRORS = (OSError, httptools.HttpParserError)


def _pause(attempt: int) -> float:
    """Seconds to wait before sending a request the ``attempt``-th time
    again: 50 ms, doubled each time, at most 5 s."""
    return float(min(0.05 * 2 ** (attempt - 1), 5.0))


class _Connection:
    """One keep-alive HTTP/1.1 connection: requests written as bytes, the
    answers read in order by httptools' parser."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._parser = httptools.HttpResponseParser(self)
        self._body: list[bytes] = []
        #: Answers read and not yet taken: (status, body).
        self.answers: deque[tuple[int, bytes]] = deque()
        #: The server closes the connection after the last answer read.
        self.closing = False

    def on_body(self, body: bytes) -> None:  # the parser's
        self._body.append(body)

    def on_message_complete(self) -> None:  # the parser's
        body = self._body
        self.answers.append(
            (self._parser.get_status_code(), body[0] if len(body) == 1 else b"".join(body)))
        self._body = []
        if not self._parser.should_keep_alive():
            self.closing = True

    def send(self, request: bytes) -> None:
        self._sock.sendall(request)

    def receive(self) -> tuple[int, bytes]:
        """The next answer, waiting for it."""
        answers = self.answers
        while not answers:
            data = self._sock.recv(_RECEIVE)
            if not data:
                raise ConnectionError("the server closed the connection")
            self._parser.feed_data(data)
        return answers.popleft()

    def close(self) -> None:
        self._sock.close()


class _Link:
    """Where a run of requests keeps its connection (None: to be opened)."""

    __slots__ = ("connection",)

    def __init__(self) -> None:
        self.connection: _Connection | None = None

    def drop(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


class _Request:
    """A request of a run: its body, and how many times it was refused."""

    __slots__ = ("attempt", "body")

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.attempt = 1


class WireClient:
    """Sends DynamoDB requests as JSON bytes where a boto3 client would."""

    def __init__(self, client: Any) -> None:
        meta = client.meta
        parts = urlsplit(meta.endpoint_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "localhost"
        self._port = parts.port or (443 if self._https else 80)
        self._url = f"{parts.scheme}://{parts.netloc}/"
        self._netloc = parts.netloc
        self._region = meta.region_name or "us-east-1"
        # botocore has no public accessor for a client's credentials
        credentials = client._request_signer._credentials
        self._signer = (
            Signer(credentials, meta.service_model.signing_name or "dynamodb", self._region,
                   _CONTENT_TYPE)
            if credentials is not None else None
        )
        verify = getattr(client._endpoint.http_session, "_verify", True)
        self._tls = ssl.create_default_context(
            cafile=verify if isinstance(verify, str) else None)
        if verify is False:
            self._tls.check_hostname = False
            self._tls.verify_mode = ssl.CERT_NONE
        self._timeout = meta.config.read_timeout or 60
        self._local = threading.local()  # each thread's kept connection (``call``)

    def call(self, operation: str, body: bytes) -> dict[str, Any]:
        """Send one request (its JSON body); the answer, parsed. DynamoDB's
        errors are raised as :mod:`tallydb.engine.errors` exceptions (as the
        toolkit's ``call`` raises them), after ``ATTEMPTS`` tries for a
        throttled or failed one; an endpoint that cannot be reached raises
        :class:`~tallydb.toolkit.exceptions.TransportError`. The connection
        is kept for the thread's next call."""
        link: _Link | None = getattr(self._local, "link", None)
        if link is None:
            link = self._local.link = _Link()
        return next(self._exchange(link, operation, iter((body,)), 1))

    def pipeline(self, operation: str, bodies: Iterable[bytes], depth: int = DEPTH
                 ) -> Iterator[dict[str, Any]]:
        """Send a request of ``operation`` for each of ``bodies`` on a
        connection of its own, ``depth`` of them before their answers are
        read (HTTP/1.1 pipelining: the server reads the next while it runs
        these, and one thread keeps it busy); each answer, parsed, as
        ``call`` gives it, in the order they come (a request sent again is
        answered after those sent before it went again). Refusals and
        failures are sent again and raised as ``call``'s are."""
        link = _Link()
        try:
            yield from self._exchange(link, operation, iter(bodies), depth)
        finally:
            link.drop()

    def _exchange(self, link: _Link, operation: str, bodies: Iterator[bytes], depth: int
                  ) -> Iterator[dict[str, Any]]:
        """``pipeline``'s work, on ``link``'s connection (opened as needed).
        A request is signed as it is sent, again each time; those a broken
        connection leaves unanswered are sent again on a new one, in order."""
        unsent: deque[_Request] = deque()  # refused earlier, or lost with a connection
        waiting: deque[_Request] = deque()  # sent, in order, unanswered
        more = True
        failures = 0  # connections broken since the last answer
        while True:
            try:
                connection = link.connection
                if connection is None:
                    connection = link.connection = self._connect()
                while len(waiting) < depth:
                    if unsent:
                        request = unsent.popleft()
                    elif more:
                        body = next(bodies, None)
                        if body is None:
                            more = False
                            continue
                        request = _Request(body)
                    else:
                        break
                    waiting.append(request)
                    connection.send(self._request(operation, request.body))
                if not waiting:
                    return
                status, answer = connection.receive()
            except _NETWORK_ERRORS as error:
                link.drop()
                unsent.extendleft(reversed(waiting))
                waiting.clear()
                failures += 1
                if failures == ATTEMPTS or isinstance(error, ssl.SSLCertVerificationError):
                    raise TransportError(f"{self._url}: {error}") from error
                time.sleep(_pause(failures))
                continue
            failures = 0
            request = waiting.popleft()
            if connection.closing and not connection.answers:  # the rest go on a new one
                link.drop()
                unsent.extendleft(reversed(waiting))
                waiting.clear()
            if status == 200:
                yield orjson.loads(answer) if answer else {}
                continue
            refused = _error(status, answer)
            if (status < 500 and refused.code() not in _RETRYABLE) or request.attempt == ATTEMPTS:
                raise refused
            time.sleep(_pause(request.attempt))
            request.attempt += 1
            unsent.append(request)

    def _request(self, operation: str, body: bytes) -> bytes:
        """The bytes of a ``POST /`` of ``operation`` with ``body``, signed."""
        target = _TARGET + operation
        if self._signer is not None:
            headers = self._signer.headers(self._netloc, target, body)
        else:
            headers = {"Content-Type": _CONTENT_TYPE, "X-Amz-Target": target,
                       "Host": self._netloc}
        head = "".join([f"{name}: {value}\r\n" for name, value in headers.items()])
        return b"".join((b"POST / HTTP/1.1\r\n", head.encode("latin-1"),
                         b"Content-Length: %d\r\n\r\n" % len(body), body))

    def _connect(self) -> _Connection:
        sock = socket.create_connection((self._host, self._port), self._timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._https:
                sock = self._tls.wrap_socket(sock, server_hostname=self._host)
        except BaseException:
            sock.close()
            raise
        return _Connection(sock)


def _error(status: int, answer: bytes) -> DynamoDBError:
    """DynamoDB's error in an answer, as the toolkit raises it."""
    try:
        parsed = orjson.loads(answer)
    except orjson.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict) or "__type" not in parsed:
        text = answer.decode("utf-8", "replace")[:200]
        return error_from_response({"Error": {"Code": str(status), "Message": text}})
    code = str(parsed["__type"]).rpartition("#")[2]
    message = parsed.get("message", parsed.get("Message"))
    return error_from_response({"Error": {"Code": code, "Message": message}, **parsed})


def wire_client(transport: object) -> WireClient | None:
    """A :class:`WireClient` on the transport's boto3 client, when requests
    can go to its endpoint directly: an http(s) endpoint reached without a
    proxy, and no moto ``mock_aws`` answering inside botocore. Anything else
    (the embedded engine, an in-process store) goes the toolkit's way."""
    if not isinstance(transport, ClientTransport) or _moto_mocking():
        return None
    meta = transport.client.meta
    if not str(meta.endpoint_url or "").startswith(("http://", "https://")):
        return None
    if meta.config.proxies:
        return None
    return WireClient(transport.client)


def _moto_mocking() -> bool:
    """Whether moto's ``mock_aws`` is on: it answers boto3's requests from
    inside botocore, so nothing listens at the client's endpoint."""
    models = sys.modules.get("moto.core.models")
    stubber = getattr(models, "botocore_stubber", None)
    return bool(getattr(stubber, "enabled", False))
