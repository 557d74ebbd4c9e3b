"""Crash harness: SIGKILL `tallydb serve` under load, again and again, and
check that nothing acknowledged was lost and nothing half-done was kept.

    .venv/bin/python -m bench.crash                       # 12 kills, --sync normal
    .venv/bin/python -m bench.crash --sync full --kills 20 --seed 7
    .venv/bin/python -m bench.crash --global              # the counters replicated
    .venv/bin/python -m bench.crash --plain               # the counters a table of items alone
    .venv/bin/python -m bench.crash --keys 5000 --counters-only   # kills while an overlay is frozen

Load, over raw sockets (each request sent once, so every acknowledgement is
counted): counter clients (UpdateItem ADD on keys of their own), a transfer
client (TransactWriteItems moving 1 between ten accounts), a batch client
(BatchWriteItem of 10 items sharing a batch number) and a table client
(CreateTable then DeleteTable). The server is killed at a random moment
every --min-gap..--max-gap seconds and restarted on the same data and port.

Checked at the end (after a last restart, then a clean stop): for every
counter, acknowledged <= stored <= sent; the accounts' sum is unchanged;
every batch is all there or not at all, and every acknowledged one is
there; a table whose creation was acknowledged and whose deletion was never
sent exists; every change of a counter has its record, in order, in the
counters table's stream (NEW_AND_OLD_IMAGES) and in its Kinesis
destination's outbox (the server has no Kinesis endpoint, so every record
waits there): each counter's records count 1, 2, ... up to what is
stored; every items table's kept ItemCount and bytes (``item_counts``)
equal its rows'; `PRAGMA integrity_check` says ok; every restart answered within
--max-restart seconds. Prints the figures; exits 1 if a check failed.

With ``--global`` the server runs with separate regions and the counters'
table is a global table with a replica in eu-west-1 (eventual consistency,
``--replication-delay`` 0.5 s): the kills land while changes wait to be
sent, and at the end eu-west-1's counters must equal us-east-1's once
replication has settled (every acknowledged change reaches every replica).

With ``--keys`` each counter client spreads its increments over that many
keys (20 by default: hot counters), so that the overlay fills and is
frozen (written into SQLite a chunk after each commit); with
``--counters-only`` the counter clients run alone, as a transfer or a
table's change writes every overlay into SQLite at once.
``kills_while_frozen`` counts the kills that found an overlay frozen.

With ``--plain`` the counters' table has no stream and no Kinesis
destination (the everyday counter table, whose UpdateItem stores the item
without write_item's upkeep): the change-record checks are left out.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness import Client, Server
from tallydb.engine.storage.sqlite import FROZEN_LOG

ACCOUNTS = 10
START_BALANCE = 100
BATCH = 10
KEY = [{"AttributeName": "id", "AttributeType": "S"}]
SCHEMA = [{"AttributeName": "id", "KeyType": "HASH"}]


def _table(name: str) -> dict[str, Any]:
    return {"TableName": name, "AttributeDefinitions": KEY, "KeySchema": SCHEMA,
            "BillingMode": "PAY_PER_REQUEST"}


@dataclass
class Tally:
    """What the clients sent and had acknowledged (each list/counter one client's)."""

    sent: Counter[str] = field(default_factory=Counter)
    acked: Counter[str] = field(default_factory=Counter)
    transfers_acked: int = 0
    batches_sent: list[int] = field(default_factory=list)
    batches_acked: list[int] = field(default_factory=list)
    tables_created: list[str] = field(default_factory=list)  # acknowledged
    tables_delete_sent: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # answers no kill explains


class Load:
    def __init__(self, port: int, clients: int, seed: int, keys: int = 20,
                 counters_only: bool = False) -> None:
        self.port = port
        self.clients = clients
        self.keys = keys
        self.counters_only = counters_only
        self.rng = random.Random(seed)
        self.tally = Tally()
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []

    def start(self) -> None:
        for worker in range(self.clients):
            self.threads.append(threading.Thread(target=self._counters, args=(worker,)))
        if not self.counters_only:
            self.threads += [threading.Thread(target=self._transfers),
                             threading.Thread(target=self._batches),
                             threading.Thread(target=self._tables)]
        for thread in self.threads:
            thread.daemon = True
            thread.start()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(30)

    def _send(self, client: Client, operation: str, request: Any) -> int | None:
        """The status, or None when the outcome is unknown (the server died)."""
        try:
            status, body = client.call(operation, request)
        except (OSError, http.client.HTTPException):
            time.sleep(0.02)
            return None
        if status != 200 and not (status == 400 and operation in ("CreateTable", "DeleteTable")):
            self.tally.errors.append(f"{operation}: {status} {body}")
        return status

    def _counters(self, worker: int) -> None:
        client = Client(self.port)
        rng = random.Random(worker)
        tally = self.tally
        while not self.stop.is_set():
            key = f"c{worker}-{rng.randrange(self.keys)}"
            tally.sent[key] += 1
            status = self._send(client, "UpdateItem", {
                "TableName": "counters", "Key": {"id": {"S": key}},
                "UpdateExpression": "ADD n :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}}})
            if status == 200:
                tally.acked[key] += 1

    def _transfers(self) -> None:
        client = Client(self.port)
        rng = random.Random(1001)
        while not self.stop.is_set():
            a, b = rng.sample(range(ACCOUNTS), 2)

            def move(account: int, amount: str) -> dict[str, Any]:
                return {"Update": {
                    "TableName": "accounts", "Key": {"id": {"S": f"a{account}"}},
                    "UpdateExpression": "ADD balance :d",
                    "ExpressionAttributeValues": {":d": {"N": amount}}}}

            status = self._send(client, "TransactWriteItems",
                                {"TransactItems": [move(a, "-1"), move(b, "1")]})
            if status == 200:
                self.tally.transfers_acked += 1

    def _batches(self) -> None:
        client = Client(self.port)
        number = 0
        while not self.stop.is_set():
            number += 1
            self.tally.batches_sent.append(number)
            items = [{"PutRequest": {"Item": {"id": {"S": f"b{number}-{j}"},
                                              "batch": {"N": str(number)}}}}
                     for j in range(BATCH)]
            status = self._send(client, "BatchWriteItem", {"RequestItems": {"batches": items}})
            if status == 200:
                self.tally.batches_acked.append(number)

    def _tables(self) -> None:
        client = Client(self.port)
        number = 0
        while not self.stop.is_set():
            number += 1
            name = f"t{number}"
            if self._send(client, "CreateTable", _table(name)) == 200:
                self.tally.tables_created.append(name)
            time.sleep(0.05)
            if number % 2 == 0:  # keep every other table
                self.tally.tables_delete_sent.append(name)
                self._send(client, "DeleteTable", {"TableName": name})
            time.sleep(0.05)


#: The counters' Kinesis destination (no endpoint: its records stay in the outbox).
KINESIS_ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/crash"
OUTBOX = b"kinesis-outbox"

REPLICA = "eu-west-1"
#: How long the replica may take to catch up after the last restart, at most.
SETTLE_TIMEOUT = 120.0


def setup(port: int, replicated: bool = False, plain: bool = False) -> None:
    client = Client(port)
    for name in ("counters", "accounts", "batches"):
        status, body = client.call("CreateTable", _table(name))
        assert status == 200, body
    if replicated:
        status, body = client.call("UpdateTable", {
            "TableName": "counters", "ReplicaUpdates": [{"Create": {"RegionName": REPLICA}}]})
        assert status == 200, body
    elif not plain:  # the counters' change records: a stream and a Kinesis destination's outbox
        status, body = client.call("UpdateTable", {
            "TableName": "counters", "StreamSpecification": {
                "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}})
        assert status == 200, body
        status, body = client.call("EnableKinesisStreamingDestination", {
            "TableName": "counters", "StreamArn": KINESIS_ARN})
        assert status == 200, body
        while client.call("DescribeTable", {"TableName": "counters"})[1]["Table"][
                "TableStatus"] != "ACTIVE":
            time.sleep(0.05)
    for account in range(ACCOUNTS):
        status, body = client.call("PutItem", {"TableName": "accounts", "Item": {
            "id": {"S": f"a{account}"}, "balance": {"N": str(START_BALANCE)}}})
        assert status == 200, body
    client.close()


def scan(client: Client, table: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    request: dict[str, Any] = {"TableName": table}
    while True:
        status, body = client.call("Scan", request)
        assert status == 200, body
        items += body["Items"]
        if "LastEvaluatedKey" not in body:
            return items
        request["ExclusiveStartKey"] = body["LastEvaluatedKey"]


def verify(port: int, tally: Tally) -> dict[str, Any]:
    """The figures and the failed checks (``problems``)."""
    client = Client(port)
    problems: list[str] = []
    stored = {item["id"]["S"]: int(item["n"]["N"]) for item in scan(client, "counters")}
    lost = 0
    for key, sent in tally.sent.items():
        have, acked = stored.get(key, 0), tally.acked[key]
        if have < acked:
            lost += acked - have
            problems.append(f"counter {key}: {have} stored < {acked} acknowledged")
        if have > sent:
            problems.append(f"counter {key}: {have} stored > {sent} sent")
    total = sum(int(item["balance"]["N"]) for item in scan(client, "accounts"))
    if total != ACCOUNTS * START_BALANCE:
        problems.append(f"accounts sum to {total}, not {ACCOUNTS * START_BALANCE}")
    by_batch = Counter(int(item["batch"]["N"]) for item in scan(client, "batches"))
    partial = {n: c for n, c in by_batch.items() if c != BATCH}
    if partial:
        problems.append(f"partial batches: {sorted(partial.items())[:5]}")
    missing = [n for n in tally.batches_acked if by_batch.get(n) != BATCH]
    if missing:
        problems.append(f"acknowledged batches missing: {missing[:5]}")
    status, body = client.call("ListTables", {"Limit": 100})
    names: set[str] = set()
    request: dict[str, Any] = {}
    while True:
        status, body = client.call("ListTables", request)
        assert status == 200, body
        names.update(body["TableNames"])
        if "LastEvaluatedTableName" not in body:
            break
        request = {"ExclusiveStartTableName": body["LastEvaluatedTableName"]}
    gone = [n for n in tally.tables_created
            if n not in tally.tables_delete_sent and n not in names]
    if gone:
        problems.append(f"acknowledged tables missing: {gone[:5]}")
    for name in sorted(names - {"counters", "accounts", "batches"})[:20]:
        status, body = client.call("DescribeTable", {"TableName": name})
        if status != 200:
            problems.append(f"DescribeTable {name}: {status} {body}")
    client.close()
    return {
        "acknowledged": sum(tally.acked.values()),
        "sent": sum(tally.sent.values()),
        "stored": sum(stored.values()),
        "lost": lost,
        "transfers_acknowledged": tally.transfers_acked,
        "batches_acknowledged": len(tally.batches_acked),
        "tables_created": len(tally.tables_created),
        "problems": problems,
    }


def replica_problems(port: int) -> list[str]:
    """Wait until eu-west-1's counters equal us-east-1's; what still differs
    after SETTLE_TIMEOUT seconds."""
    import boto3

    west = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}",
                        region_name=REPLICA, aws_access_key_id="x", aws_secret_access_key="y")
    client = Client(port)
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        east = {item["id"]["S"]: item["n"]["N"] for item in scan(client, "counters")}
        there: dict[str, str] = {}
        for page in west.get_paginator("scan").paginate(TableName="counters",
                                                        ConsistentRead=True):
            there.update((item["id"]["S"], item["n"]["N"]) for item in page["Items"])
        if there == east or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    client.close()
    differ = sorted(k for k in east.keys() | there.keys() if east.get(k) != there.get(k))
    return [f"replica {REPLICA} differs on {len(differ)} counters: {differ[:5]}"] if differ else []


def _runs(counts: dict[str, list[int]], stored: dict[str, int], where: str) -> list[str]:
    """Each counter's records, as the counts their new images hold, must be
    1, 2, ... up to what is stored: none lost, none twice, in order."""
    problems = []
    for key in sorted(stored.keys() | counts.keys()):
        have = counts.get(key, [])
        if have != list(range(1, stored.get(key, 0) + 1)):
            shown = have if len(have) < 8 else [*have[:3], "...", *have[-3:]]
            problems.append(f"{where}: counter {key} (stored {stored.get(key, 0)}) has the "
                            f"records of counts {shown}")
    return problems[:5]


def stream_problems(port: int) -> list[str]:
    """The counters' changes as their stream's GetRecords gives them."""
    client = Client(port)
    status, body = client.call("DescribeTable", {"TableName": "counters"})
    assert status == 200, body
    arn = body["Table"]["LatestStreamArn"]
    status, body = client.call("DescribeStream", {"StreamArn": arn})
    assert status == 200, body
    counts: dict[str, list[int]] = {}
    for shard in body["StreamDescription"]["Shards"]:
        status, body = client.call("GetShardIterator", {
            "StreamArn": arn, "ShardId": shard["ShardId"], "ShardIteratorType": "TRIM_HORIZON"})
        assert status == 200, body
        iterator = body["ShardIterator"]
        while iterator:
            status, body = client.call("GetRecords", {"ShardIterator": iterator, "Limit": 1000})
            assert status == 200, body
            for record in body["Records"]:
                image = record["dynamodb"]["NewImage"]
                counts.setdefault(image["id"]["S"], []).append(int(image["n"]["N"]))
            iterator = body.get("NextShardIterator") if body["Records"] else None
    stored = {item["id"]["S"]: int(item["n"]["N"]) for item in scan(client, "counters")}
    client.close()
    return _runs(counts, stored, "stream")


def outbox_problems(data: Path) -> list[str]:
    """The counters' changes as the Kinesis outbox holds them (read from the
    database of a stopped server)."""
    conn = sqlite3.connect(f"file:{data / 'tallydb.sqlite3'}?mode=ro", uri=True)
    try:
        (table_id,) = conn.execute("SELECT id FROM catalog WHERE name = 'counters'").fetchone()
        (index_id,) = conn.execute("SELECT id FROM index_catalog WHERE table_id = ? AND "
                                   "name = '$stream'", (table_id,)).fetchone()
        rows = conn.execute(f"SELECT item FROM items_{table_id}_{index_id} WHERE hk = ? "
                            "ORDER BY rk", (OUTBOX,)).fetchall()
        stored = {json.loads(item)["id"]["S"]: int(json.loads(item)["n"]["N"])
                  for (item,) in conn.execute(f"SELECT item FROM items_{table_id}")}
    finally:
        conn.close()
    counts: dict[str, list[int]] = {}
    for (row,) in rows:
        for _seq, _event, _keys, new, _old, _by_service in json.loads(row):
            counts.setdefault(new["id"]["S"], []).append(int(new["n"]["N"]))
    return _runs(counts, stored, "Kinesis outbox")


def integrity(data: Path) -> str:
    conn = sqlite3.connect(f"file:{data / 'tallydb.sqlite3'}?mode=ro", uri=True)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def count_problems(data: Path) -> list[str]:
    """Each items table whose kept count or bytes (DescribeTable's
    ItemCount and TableSizeBytes) differ from its rows' (after a clean
    stop, SQLite holds every row)."""
    conn = sqlite3.connect(f"file:{data / 'tallydb.sqlite3'}?mode=ro", uri=True)
    try:
        problems = []
        for source, items, size in conn.execute(
                "SELECT source, items, bytes FROM item_counts").fetchall():
            rows = tuple(conn.execute(
                f"SELECT count(*), coalesce(sum(length(item)), 0) FROM {source}").fetchone())
            if rows != (items, size):
                problems.append(f"{source}: kept {items} items of {size} bytes, "
                                f"holds {rows[0]} of {rows[1]}")
        return problems
    finally:
        conn.close()


def run(sync: str, kills: int, clients: int, seed: int, min_gap: float, max_gap: float,
        max_restart: float, data: Path, replicated: bool = False,
        plain: bool = False, keys: int = 20, counters_only: bool = False) -> dict[str, Any]:
    rng = random.Random(seed)
    regions = ("--separate-regions", "--replication-delay", "0.5") if replicated else ()
    server = Server("--data", str(data), "--sync", sync, *regions, log=data.parent / "server.log")
    server.start()
    setup(server.port, replicated, plain)
    load = Load(server.port, clients, seed, keys, counters_only)
    load.start()
    restarts: list[float] = []
    frozen = 0  # kills that found an overlay frozen, part of it in SQLite
    try:
        for _ in range(kills):
            time.sleep(rng.uniform(min_gap, max_gap))
            server.kill()
            frozen += (data / FROZEN_LOG).exists()
            time.sleep(rng.uniform(0.0, 0.2))  # clients find it gone
            restarts.append(server.start())
        time.sleep(rng.uniform(min_gap, max_gap))
    finally:
        load.finish()
    server.kill()
    restarts.append(server.start())
    figures = verify(server.port, load.tally)
    if replicated:
        figures["problems"] += replica_problems(server.port)
    elif not plain:
        figures["problems"] += stream_problems(server.port)
    code = server.stop()
    figures["integrity_check"] = integrity(data)
    figures["problems"] += count_problems(data)
    if not replicated and not plain:
        figures["problems"] += outbox_problems(data)
    figures.update(sync=sync, kills=kills, kills_while_frozen=frozen, seed=seed,
                   replicated=replicated, plain=plain,
                   restart_max_s=round(max(restarts), 3),
                   restart_median_s=round(sorted(restarts)[len(restarts) // 2], 3),
                   clean_exit=code == 0, unexplained=load.tally.errors[:5])
    problems = figures["problems"]
    if figures["integrity_check"] != "ok":
        problems.append(f"integrity_check: {figures['integrity_check']}")
    if max(restarts) > max_restart:
        problems.append(f"a restart took {max(restarts):.2f} s (limit {max_restart} s)")
    if load.tally.errors:
        problems.append(f"{len(load.tally.errors)} unexpected answers: {load.tally.errors[:3]}")
    return figures


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.crash", description=__doc__.split("\n")[0])
    p.add_argument("--sync", default="normal", choices=["off", "normal", "full"])
    p.add_argument("--kills", type=int, default=12)
    p.add_argument("--clients", type=int, default=6, help="counter clients (6)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--min-gap", type=float, default=0.5, help="seconds between kills, at least")
    p.add_argument("--max-gap", type=float, default=2.0, help="seconds between kills, at most")
    p.add_argument("--max-restart", type=float, default=2.0,
                   help="seconds a restart may take to answer (2)")
    p.add_argument("--global", dest="replicated", action="store_true",
                   help="make the counters a global table with a replica in eu-west-1 and "
                        "check it catches up")
    p.add_argument("--plain", action="store_true",
                   help="give the counters no stream and no Kinesis destination: a table of "
                        "items alone, whose UpdateItem writes the item straight to the store")
    p.add_argument("--keys", type=int, default=20,
                   help="keys each counter client increments (20: hot counters)")
    p.add_argument("--counters-only", action="store_true",
                   help="run the counter clients alone (no transfers, batches or tables)")
    args = p.parse_args(argv)
    if args.plain and args.replicated:
        p.error("--plain and --global exclude each other")
    with tempfile.TemporaryDirectory(prefix="tallydb-crash-") as tmp:
        figures = run(args.sync, args.kills, args.clients, args.seed, args.min_gap,
                      args.max_gap, args.max_restart, Path(tmp) / "data", args.replicated,
                      args.plain, args.keys, args.counters_only)
    for name, value in figures.items():
        print(f"{name}: {value}")
    return 1 if figures["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
