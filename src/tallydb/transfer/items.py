"""A table's items in DynamoDB's JSON, read a page at a time (paged Scan)
and written 25 at a time (BatchWriteItem), on any store.

On the embedded engine pages and batches go by ``call_wire``: the engine
speaks DynamoDB's JSON itself. To a server they go as JSON bytes over HTTP
(:mod:`~tallydb.transfer.wire`). Either way items go to and from files with
no copy into boto3's shape and back; only another kind of store (an
in-process one) takes boto3's.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any

import orjson

from tallydb.toolkit.convert import json_shape, python_shape
from tallydb.transfer.errors import Progress
from tallydb.transfer.wire import WireClient, wire_client

if TYPE_CHECKING:
    from tallydb.toolkit.database import Database

__all__ = ["BATCH", "WRITERS", "batch_body", "pages", "put_all", "speaks_wire", "write_batch",
           "write_unprocessed"]

#: BatchWriteItem takes at most 25 puts.
BATCH = 25
#: BatchWriteItem requests in flight at once during an import into a store
#: that is not a server answering directly (which takes them pipelined).
WRITERS = 4


def pages(db: Database, table: str) -> Iterator[list[dict[str, Any]]]:
    """Every item of ``table`` in DynamoDB's JSON (binary as base64 text), a
    page at a time."""
    transport = db.transport
    in_wire_shape = speaks_wire(db)
    direct = None if in_wire_shape else wire_client(transport)
    start: dict[str, Any] | None = None
    while True:
        request: dict[str, Any] = {"TableName": table}
        if start:
            request["ExclusiveStartKey"] = start
        if direct is not None:
            response = direct.call("Scan", orjson.dumps(request))
            yield response.get("Items", [])
            start = response.get("LastEvaluatedKey")
        elif in_wire_shape:  # the engine's own answer, read once and let go
            response = transport.call_wire("Scan", request, request)
            yield response.get("Items", [])
            start = response.get("LastEvaluatedKey")
        else:
            response = transport.call("Scan", request)
            yield json_shape(response.get("Items", []))
            start = response.get("LastEvaluatedKey")
        if not start:
            return


def speaks_wire(db: Database) -> bool:
    """Whether the store answers ``call_wire`` in DynamoDB's JSON (the
    embedded engine does; a boto3 client answers in boto3's shape): then
    items go to and from files with no copy into boto3's shape and back."""
    return db.transport.speaks_wire


def write_batch(db: Database, table: str, puts: list[bytes]) -> None:
    """One BatchWriteItem of up to 25 puts (each a PutRequest's JSON,
    ``{"Item":{...}}``) through the store's transport, sending what comes
    back unprocessed again (after a short pause) until none is left."""
    in_wire_shape = speaks_wire(db)
    requests: list[dict[str, Any]] = []
    for put in puts:
        item = orjson.loads(put)["Item"]
        requests.append({"PutRequest": {"Item": item if in_wire_shape else python_shape(item)}})
    pause = 0.01
    while True:
        request = {"RequestItems": {table: requests}}
        if in_wire_shape:
            # The wire shape stands in for boto3's too: botocore's own check,
            # run only on a refused request, takes base64 text for a Binary.
            response = db.transport.call_wire("BatchWriteItem", request, request)
        else:
            response = db.transport.call("BatchWriteItem", request)
        requests = response.get("UnprocessedItems", {}).get(table, [])
        if not requests:
            return
        time.sleep(pause)
        pause = min(pause * 2, 1.0)


def batch_body(table: str, puts: list[bytes]) -> bytes:
    """A BatchWriteItem's body putting ``puts`` (PutRequests' JSON) into ``table``."""
    return b"".join((b'{"RequestItems":{', orjson.dumps(table), b':[{"PutRequest":',
                     b'},{"PutRequest":'.join(puts), b"}]}}"))


def write_unprocessed(table: str, answer: dict[str, Any], direct: WireClient) -> None:
    """Send what a BatchWriteItem's ``answer`` left unprocessed again (after
    a short pause) until none is left."""
    pause = 0.01
    requests = answer.get("UnprocessedItems", {}).get(table)
    while requests:
        time.sleep(pause)
        pause = min(pause * 2, 1.0)
        answer = direct.call("BatchWriteItem", orjson.dumps({"RequestItems": {table: requests}}))
        requests = answer.get("UnprocessedItems", {}).get(table)


class _Batches:
    """The puts in batches of ``BATCH``, counted as each is handed out to be
    written; ``progress`` told the count every 40 batches, and by ``done``."""

    def __init__(self, puts: Iterable[bytes], progress: Progress) -> None:
        self._puts = puts
        self._progress = progress
        self.written = 0

    def __iter__(self) -> Iterator[list[bytes]]:
        batch: list[bytes] = []
        for put in self._puts:
            batch.append(put)
            if len(batch) == BATCH:
                yield self._counted(batch)
                batch = []
        if batch:
            yield self._counted(batch)

    def _counted(self, batch: list[bytes]) -> list[bytes]:
        self.written += len(batch)
        if self.written % (BATCH * 40) == 0:
            self._progress(self.written)
        return batch

    def done(self) -> int:
        """How many were handed out (all of them written by now), told to ``progress``."""
        self._progress(self.written)
        return self.written


def put_all(db: Database, table: str, puts: Iterable[bytes], progress: Progress) -> int:
    """Write every item (each a PutRequest's JSON, ``{"Item":{...}}``) to
    ``table``; how many were written. To a server directly, the batches go
    pipelined on one connection (``WireClient.pipeline``); into the embedded
    engine one after another in this thread (it has nothing to wait on that
    threads could overlap: 4 writers cost twice the CPU an item, their
    interpreter shared); otherwise ``WRITERS`` at a time."""
    batches = _Batches(puts, progress)
    if speaks_wire(db):
        for batch in batches:
            write_batch(db, table, batch)
        return batches.done()
    direct = wire_client(db.transport)
    if direct is not None:
        bodies = (batch_body(table, batch) for batch in batches)
        for answer in direct.pipeline("BatchWriteItem", bodies):
            if answer.get("UnprocessedItems"):
                write_unprocessed(table, answer, direct)
        return batches.done()
    with ThreadPoolExecutor(WRITERS) as pool:
        pending: set[Future[None]] = set()
        for batch in batches:
            if len(pending) >= WRITERS * 2:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    future.result()
            pending.add(pool.submit(write_batch, db, table, batch))
        for future in pending:
            future.result()
    return batches.done()
