"""The server's own Python cost per request, sockets excluded.

64 ``Connection``s of a real ``Server`` (router, batcher, engine on a temp
data directory) are each fed one hot-key ``UpdateItem`` request, then the
batcher flushes, as one event-loop turn does under 64 connections. Prints
CPU µs per request (best of 7) and the garbage collector's pauses, with and
without ``gc.freeze()`` of what start-up loaded (``--freeze``).

    .venv/bin/python -m bench.server_path [--freeze] [--turns N]
    .venv/bin/python -m bench.server_path --scenario B [--keys 1000000]  # random keys
    .venv/bin/python -m bench.server_path --scenario I   # an import's BatchWriteItems
    .venv/bin/python -m bench.server_path --scenario E   # sharded counter: 1 in 10 a Query
    .venv/bin/python -m bench.server_path --conns 1 --freeze  # a group commit of one

``--conns`` sets how many connections are fed a request a turn (64): with
few, each request carries more of its group commit's cost (the transaction,
the item log's append).

Scenario I is what ``tallydb import`` sends a server: BatchWriteItems of 25
new items of ``bench.transfer``'s shape, from 4 connections (its writers) a
turn; its figures are per item.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import random
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import orjson
import uvloop

from bench.transfer import stats_item
from tallydb.engine.api import Engine
from tallydb.engine.storage import Store
from tallydb.server.app import Server
from tallydb.server.protocol import Connection

BODY = (b'{"TableName":"counters","Key":{"pk":{"S":"%s"}},"UpdateExpression":'
        b'"ADD play_count :one","ExpressionAttributeValues":{":one":{"N":"1"}}}')
#: Scenario E: ``ADD hits :one`` on one of ten shards (items of one
#: partition), every tenth request a consistent Query summing them.
SHARD_ADD = (b'{"TableName":"shards","Key":{"pk":{"S":"total"},"sk":{"N":"%d"}},'
             b'"UpdateExpression":"ADD hits :one","ExpressionAttributeValues":'
             b'{":one":{"N":"1"}}}')
SHARD_SUM = (b'{"TableName":"shards","KeyConditionExpression":"pk = :p",'
             b'"ExpressionAttributeValues":{":p":{"S":"total"}},"ConsistentRead":true}')
#: PartiQL's increment of the hot key (scenario P).
STATEMENT = (b'{"Statement":"UPDATE \\"counters\\" SET play_count = play_count + 1 '
             b'WHERE pk = \'hot\'"}')
HEAD = (
    b"POST / HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Type: application/x-amz-json-1.0\r\n"
    b"X-Amz-Target: DynamoDB_20120810.%s\r\nX-Amz-Date: 20260101T000000Z\r\n"
    b"Authorization: AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request, "
    b"SignedHeaders=host, Signature=00\r\nContent-Length: %d\r\n\r\n%s"
)


def request(key: str, operation: bytes = b"UpdateItem", body: bytes | None = None) -> bytes:
    """The UpdateItem ``ADD play_count :one`` on ``key`` (or ``body``), as wrk sends it."""
    body = BODY % key.encode() if body is None else body
    return HEAD % (operation, len(body), body)
CONNECTIONS = 64
#: An import's writers and batch size (tallydb.transfer.items).
WRITERS, BATCH = 4, 25


class _Sink:
    """A transport that drops what is written (the sockets are not measured)."""

    def write(self, data: bytes) -> None:
        pass

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


def _sharded_counter(engine: Engine) -> list[bytes]:
    """Scenario E's table, its ten shards, and its requests: nine ADDs to a
    Query (one shard's ADD, at random, in each place)."""
    engine.call("CreateTable", {
        "TableName": "shards", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                      {"AttributeName": "sk", "KeyType": "RANGE"}]})
    for shard in range(10):
        engine.call("PutItem", {"TableName": "shards", "Item": {
            "pk": {"S": "total"}, "sk": {"N": str(shard)}, "hits": {"N": "0"}}})
    adds = [request("", body=SHARD_ADD % shard) for shard in range(10)]
    return [*(adds * 9), *([request("", b"Query", SHARD_SUM)] * 10)]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.server_path")
    parser.add_argument("--freeze", action="store_true", help="gc.freeze() before measuring")
    parser.add_argument("--turns", type=int, default=200, help="turns per timed run")
    parser.add_argument("--scenario", default="A", choices=["A", "B", "P", "S", "I", "E"],
                        help="A: the hot key (default); B: a key at random over --keys items; "
                             "P: A as PartiQL's UPDATE; S: A with a NEW_AND_OLD_IMAGES stream; "
                             "I: an import's BatchWriteItems of 25 new items (per item); "
                             "E: a sharded counter, every tenth request a Query of its shards")
    parser.add_argument("--keys", type=int, default=10_000, help="items for B (10,000)")
    parser.add_argument("--conns", type=int, default=CONNECTIONS,
                        help="connections fed a request each turn: one group commit's size (64)")
    args = parser.parse_args()
    rng = random.Random(1)

    with tempfile.TemporaryDirectory() as data:
        engine = Engine(Store(data))
        engine.call("CreateTable", {
            "TableName": "counters", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            **({"StreamSpecification": {"StreamEnabled": True,
                                        "StreamViewType": "NEW_AND_OLD_IMAGES"}}
               if args.scenario == "S" else {})})
        if args.scenario == "B":
            _seed(engine, args.keys)
        keys = [f"k{i}" for i in range(args.keys)] if args.scenario == "B" else ["hot"]
        requests = [request(key) for key in keys]
        if args.scenario == "P":  # (an UPDATE needs the item to exist)
            engine.call("PutItem", {"TableName": "counters", "Item": {
                "pk": {"S": "hot"}, "play_count": {"N": "0"}}})
            requests = [request("", b"ExecuteStatement", STATEMENT)]
        if args.scenario == "I":
            _import_table(engine)
        if args.scenario == "E":
            requests = _sharded_counter(engine)
        server = Server(engine, uvloop.new_event_loop())
        connections = []
        per_turn = WRITERS if args.scenario == "I" else args.conns
        for _ in range(per_turn):
            connection = Connection(server)
            connection.connection_made(_Sink())  # type: ignore[arg-type]
            connections.append(connection)

        # made beforehand: the bench's own cost is not measured
        batches = (iter(list(itertools.islice(_import_batches(), (50 + 7 * args.turns) * WRITERS)))
                   if args.scenario == "I" else None)

        def turn() -> None:
            for connection in connections:
                connection.data_received(
                    next(batches) if batches else requests[rng.randrange(len(requests))])
            server.batcher.flush()

        for _ in range(50):
            turn()  # the request shape is learnt, the model loaded
        if args.freeze:
            gc.collect()
            gc.freeze()

        pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        started = [0.0]

        def timed(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                pauses[info["generation"]].append((time.perf_counter() - started[0]) * 1000)

        gc.callbacks.append(timed)
        runs = []
        process = []
        for _ in range(7):
            begin = time.thread_time()
            begin_process = time.process_time()
            for _ in range(args.turns):
                turn()
            each = args.turns * per_turn * (BATCH if args.scenario == "I" else 1)
            runs.append((time.thread_time() - begin) / each * 1e6)
            process.append((time.process_time() - begin_process) / each * 1e6)
        gc.callbacks.remove(timed)
        engine.close()

    what = "item" if args.scenario == "I" else "request"
    print(f"scenario {args.scenario}: CPU µs per {what}, best of 7: {min(runs):.1f} "
          f"(the process, checkpoints included: {min(process):.1f}; freeze: {args.freeze})")
    for generation, times in pauses.items():
        worst = max(times) if times else 0.0
        print(f"gc generation {generation}: {len(times)} collections, longest {worst:.2f} ms")


def _import_table(engine: Engine) -> None:
    engine.call("CreateTable", {
        "TableName": "bench", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                                 {"AttributeName": "SK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                      {"AttributeName": "SK", "KeyType": "RANGE"}]})


def _import_batches() -> Iterator[bytes]:
    """BatchWriteItems of 25 new items each, as ``tallydb import`` sends them."""
    for start in itertools.count(0, BATCH):
        puts = b'},{"PutRequest":'.join(
            orjson.dumps({"Item": stats_item(n)}) for n in range(start, start + BATCH))
        body = b'{"RequestItems":{"bench":[{"PutRequest":' + puts + b"}]}}"
        yield request("", b"BatchWriteItem", body)


def _seed(engine: Engine, count: int) -> None:
    """Put ``k0``..``k{count-1}`` (``play_count`` 0), 25 a BatchWriteItem."""
    for start in range(0, count, 25):
        engine.call("BatchWriteItem", {"RequestItems": {"counters": [
            {"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "play_count": {"N": "0"}}}}
            for i in range(start, min(start + 25, count))]}})


if __name__ == "__main__":
    main()
