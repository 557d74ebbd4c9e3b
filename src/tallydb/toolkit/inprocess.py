"""Real boto3 clients that talk to an in-process :class:`~tallydb.engine.api.Engine`.

``client(engine)`` is an ordinary ``boto3.client("dynamodb")``: botocore
serializes each call to DynamoDB's JSON 1.0 wire form, signs it, and is about
to send it when a ``before-send`` handler takes the prepared request, runs it
through ``engine.call`` and hands back an HTTP response built exactly as the
server builds one (JSON body, ``x-amz-crc32``, DynamoDB's error shape and
status). botocore then parses, checks the CRC32, applies its retry rules,
runs waiters, paginators and the resource API, all without a socket.

Errors a client can cause come back as DynamoDB errors (``ClientError``);
a bug in tallydb itself is not dressed up as a 500 but raised as the Python
exception it is, with its traceback.

Requests are not signed (``signature_version=UNSIGNED``) unless the given
config asks otherwise: nothing leaves the process, and SigV4 would cost
about a millisecond a call.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import boto3
import orjson
from botocore import UNSIGNED
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.config import Config

from tallydb.engine.api import (
    DEFAULT_REGION,
    DYNAMODB_SERVICE,
    NO_OUTPUT,
    TARGETS,
    unknown_operation,
)
from tallydb.engine.errors import DynamoDBError, SerializationException, UnknownOperationException

if TYPE_CHECKING:
    from tallydb.engine.api import Engine

__all__ = ["ENDPOINT", "InProcessTransport", "client", "resource", "streams_client"]

#: The endpoint in-process clients name; ``.invalid`` can never resolve, so a
#: request that escaped the handler would fail rather than reach a network.
ENDPOINT = "http://tallydb.invalid"
CONTENT_TYPE = "application/x-amz-json-1.0"

_CLIENT_ARGS: dict[str, str] = {
    "aws_access_key_id": "local",
    "aws_secret_access_key": "local",
    "endpoint_url": ENDPOINT,
}


class _Body:
    """The ``raw`` of an :class:`AWSResponse`: a body already in memory."""

    __slots__ = ("_data",)

    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self._data

    def read(self, amt: int | None = None) -> bytes:
        data, self._data = self._data, b""
        return data

    def close(self) -> None:
        self._data = b""


def _body_of(request: AWSPreparedRequest) -> bytes:
    body: Any = request.body
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode()
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    data = body.read()  # a file-like body
    return data.encode() if isinstance(data, str) else bytes(data)


def _header(request: AWSPreparedRequest, name: str) -> str:
    value: Any = request.headers.get(name, "")
    return value.decode() if isinstance(value, bytes) else str(value)


class InProcessTransport:
    """Answers botocore's prepared DynamoDB requests from an engine.

    ``respond`` is the pure part (wire request in, status/headers/body out),
    shared with anything else that speaks DynamoDB JSON without a socket;
    ``__call__`` is the ``before-send`` event handler.
    """

    def __init__(self, engine: Engine, region: str = DEFAULT_REGION) -> None:
        self.engine = engine
        #: The client's region: the one its requests run in (``api._regions``).
        self.region = region

    def respond(self, target: str, body: bytes, region: str | None = None) -> tuple[int, bytes]:
        """Run one wire request; (HTTP status, JSON body) as DynamoDB answers."""
        try:
            operation = TARGETS.get(target)
            if operation is None:
                if target.startswith(DYNAMODB_SERVICE):
                    raise unknown_operation(target[len(DYNAMODB_SERVICE):])
                raise UnknownOperationException()
            try:
                request = orjson.loads(body or b"{}")
            except orjson.JSONDecodeError as e:
                raise SerializationException() from e
            if not isinstance(request, dict):
                raise SerializationException()
            response = self.engine.call(operation, request, region or self.region)
        except DynamoDBError as e:
            return e.status, orjson.dumps(e.to_wire())
        return 200, b"" if operation in NO_OUTPUT else orjson.dumps(response)

    def __call__(
        self, request: AWSPreparedRequest, region: str | None = None, **_: Any
    ) -> AWSResponse:
        """Answer ``request`` in ``region`` (by default, the transport's)."""
        status, body = self.respond(
            _header(request, "X-Amz-Target"), _body_of(request), region)
        return self.response(request.url, status, body)

    @staticmethod
    def response(url: str, status: int, body: bytes) -> AWSResponse:
        """The HTTP response of an answer, as the server sends it."""
        headers = {
            "Content-Type": CONTENT_TYPE,
            "Content-Length": str(len(body)),
            "x-amzn-RequestId": os.urandom(16).hex().upper(),  # (uuid4's cost, a third)
            "x-amz-crc32": str(zlib.crc32(body)),
        }
        return AWSResponse(url, status, headers, _Body(body))


def _config(config: Config | None) -> Config:
    unsigned = Config(signature_version=UNSIGNED)
    return unsigned if config is None else unsigned.merge(config)


def _session(session: boto3.session.Session | None) -> boto3.session.Session:
    # A fresh session per client: boto3's default session is not thread-safe.
    return session if session is not None else boto3.session.Session()


def client(
    engine: Engine,
    *,
    config: Config | None = None,
    session: boto3.session.Session | None = None,
    region_name: str = DEFAULT_REGION,
) -> Any:
    """A ``boto3.client("dynamodb")`` whose requests ``engine`` answers, in
    ``region_name`` (its ARNs; its own tables on an engine with separate regions)."""
    ddb = _session(session).client(
        "dynamodb", config=_config(config), region_name=region_name, **_CLIENT_ARGS)
    ddb.meta.events.register("before-send.dynamodb", InProcessTransport(engine, region_name))
    return ddb


def streams_client(
    engine: Engine,
    *,
    config: Config | None = None,
    session: boto3.session.Session | None = None,
    region_name: str = DEFAULT_REGION,
) -> Any:
    """A ``boto3.client("dynamodbstreams")`` whose requests ``engine`` answers."""
    streams = _session(session).client(
        "dynamodbstreams", config=_config(config), region_name=region_name, **_CLIENT_ARGS)
    streams.meta.events.register(
        "before-send.dynamodb-streams", InProcessTransport(engine, region_name))
    return streams


def resource(
    engine: Engine,
    *,
    config: Config | None = None,
    session: boto3.session.Session | None = None,
    region_name: str = DEFAULT_REGION,
) -> Any:
    """A ``boto3.resource("dynamodb")`` whose requests ``engine`` answers."""
    ddb = _session(session).resource(
        "dynamodb", config=_config(config), region_name=region_name, **_CLIENT_ARGS)
    ddb.meta.client.meta.events.register(
        "before-send.dynamodb", InProcessTransport(engine, region_name))
    return ddb
