"""The ceiling for a Python DynamoDB server: answers ``{}`` to every request.

A raw asyncio Protocol on uvloop with httptools' parser, HTTP/1.1 keep-alive
and pipelining, DynamoDB's JSON 1.0 headers (content type, request id, CRC32).
It does no DynamoDB work at all, so whatever a real server measures below it
is the cost of that server's own per-request work.

    python -m bench.noop_server --port 8000
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import zlib
from collections.abc import Callable
from typing import cast

import httptools

try:
    import uvloop
except ImportError:  # pragma: no cover - uvloop is a tallydb dependency on POSIX
    uvloop = None

BODY = b"{}"
RESPONSE = (
    b"HTTP/1.1 200 OK\r\n"
    b"Content-Type: application/x-amz-json-1.0\r\n"
    b"x-amzn-RequestId: 00000000-0000-0000-0000-000000000000\r\n"
    b"x-amz-crc32: " + str(zlib.crc32(BODY)).encode() + b"\r\n"
    b"Content-Length: " + str(len(BODY)).encode() + b"\r\n"
    b"\r\n" + BODY
)


class NoopProtocol(asyncio.Protocol):
    """One connection: parse requests, answer each with RESPONSE."""

    __slots__ = ("parser", "transport")

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpRequestParser(self)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            if self.transport is not None:
                self.transport.write(
                    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
                self.transport.close()

    def on_message_complete(self) -> None:
        transport = self.transport
        if transport is None:
            return
        transport.write(RESPONSE)
        if not self.parser.should_keep_alive():
            transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None


async def serve(factory: Callable[[], asyncio.Protocol], name: str, host: str, port: int,
                backlog: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(factory, host, port, backlog=backlog)
    bound = server.sockets[0].getsockname()
    print(f"{name} listening on http://{bound[0]}:{bound[1]}", flush=True)
    async with server:
        await server.serve_forever()


def run(factory: Callable[[], asyncio.Protocol], name: str, description: str, port: int,
        backlog: int, argv: list[str] | None) -> None:
    """Serve ``factory``'s protocol on ``--host``/``--port`` (uvloop where
    there is one) until interrupted: this server's, and the benches' other
    raw servers' (``bench.kinesis_sink``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=port)
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        if uvloop is not None:
            uvloop.run(serve(factory, name, args.host, args.port, backlog))
        else:
            asyncio.run(serve(factory, name, args.host, args.port, backlog))


def main(argv: list[str] | None = None) -> None:
    run(NoopProtocol, "noop server", __doc__.splitlines()[0], 8000, 1024, argv)


if __name__ == "__main__":
    main()
