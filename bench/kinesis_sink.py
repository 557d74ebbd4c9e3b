"""A Kinesis endpoint that takes every record and keeps none: the far end
of a Kinesis destination in the benches, costing the server only what its
real client costs (the sink is a process of its own, its CPU not counted).

It answers the two calls a destination makes: ``DescribeStreamSummary``
(every stream exists and is ACTIVE) and ``PutRecords`` (every record taken;
the records are counted by their ``PartitionKey`` members, and the count is
kept for ``GET /count``). A raw asyncio Protocol with httptools' parser, as
``bench.noop_server``.

    python -m bench.kinesis_sink --port 4567
"""

from __future__ import annotations

import asyncio
from typing import cast

import httptools

from bench.noop_server import run

_SUMMARY = (b'{"StreamDescriptionSummary":{"StreamName":"bench","StreamARN":'
            b'"arn:aws:kinesis:us-east-1:000000000000:stream/bench","StreamStatus":"ACTIVE",'
            b'"RetentionPeriodHours":24,"StreamCreationTimestamp":1700000000,'
            b'"EnhancedMonitoring":[],"OpenShardCount":1}}')
_TAKEN = b'{"SequenceNumber":"1","ShardId":"shardId-000000000000"}'
_counted = [0]


def _response(body: bytes, content_type: bytes = b"application/x-amz-json-1.1") -> bytes:
    return (b"HTTP/1.1 200 OK\r\nContent-Type: " + content_type
            + b"\r\nx-amzn-RequestId: 00000000-0000-0000-0000-000000000000\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


class SinkProtocol(asyncio.Protocol):
    """One connection: parse requests, answer each as Kinesis would."""

    __slots__ = ("body", "parser", "target", "transport", "url")

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpRequestParser(self)
        self.body: list[bytes] = []
        self.target = b""
        self.url = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            if self.transport is not None:
                self.transport.close()

    def on_message_begin(self) -> None:
        self.body = []
        self.target = b""

    def on_url(self, url: bytes) -> None:
        self.url = url

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() == b"x-amz-target":
            self.target = value

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        transport = self.transport
        if transport is None:
            return
        if self.target.endswith(b".PutRecords"):
            count = b"".join(self.body).count(b'"PartitionKey"')
            _counted[0] += count
            answer = _response(b'{"FailedRecordCount":0,"Records":['
                               + b",".join([_TAKEN] * count) + b"]}")
        elif self.target.endswith(b".DescribeStreamSummary"):
            answer = _response(_SUMMARY)
        elif self.url == b"/count":
            answer = _response(str(_counted[0]).encode(), b"text/plain")
        else:
            answer = _response(b'{"__type":"UnknownOperationException"}')
        transport.write(answer)
        if not self.parser.should_keep_alive():
            transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None


def main(argv: list[str] | None = None) -> None:
    run(SinkProtocol, "Kinesis sink", __doc__.splitlines()[0], 4567, 128, argv)


if __name__ == "__main__":
    main()
