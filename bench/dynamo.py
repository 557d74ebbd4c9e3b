"""A tiny DynamoDB JSON 1.0 client over http.client, and the boto3 exact-count check.

The raw client sends exactly the headers wrk.lua sends (a static, SigV4-shaped
Authorization header that no local peer verifies), so a probe that passes here
means wrk's requests are well formed for that server.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

TARGET_PREFIX = "DynamoDB_20120810."
COUNTERS = "bench_counters"
SHARDS = "bench_shards"
SHARD_COUNT = 10


def auth_headers(target: str) -> dict[str, str]:
    now = time.gmtime()
    date = time.strftime("%Y%m%dT%H%M%SZ", now)
    return {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": TARGET_PREFIX + target,
        "X-Amz-Date": date,
        "Authorization": (
            f"AWS4-HMAC-SHA256 Credential=bench/{date[:8]}/us-east-1/dynamodb/aws4_request, "
            "SignedHeaders=host;x-amz-date;x-amz-target, Signature=" + "0" * 64
        ),
    }


def signed_headers(url: str, target: str, body: str, key: tuple[str, str]) -> dict[str, str]:
    """The headers of a request to ``url`` signed (SigV4) by ``key`` (access
    key, secret), as botocore signs it: Content-Type, Host, X-Amz-Date and
    X-Amz-Target covered."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(method="POST", url=url.rstrip("/") + "/", data=body.encode(), headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": TARGET_PREFIX + target})
    SigV4Auth(Credentials(*key), "dynamodb", "us-east-1").add_auth(request)
    return dict(request.headers.items())


class DynamoError(Exception):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}: {body[:300]}")
        self.status = status
        self.body = body


@dataclass
class RawClient:
    """One keep-alive connection to a DynamoDB-compatible endpoint."""

    url: str
    timeout: float = 30.0
    #: (access key, secret) to sign with, for a server that checks signatures
    key: tuple[str, str] | None = None
    _conn: http.client.HTTPConnection | None = field(default=None, repr=False)

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            parts = urlsplit(self.url)
            self._conn = http.client.HTTPConnection(
                parts.hostname or "127.0.0.1", parts.port or 80, timeout=self.timeout
            )
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def raw(self, target: str, body: dict[str, Any] | str) -> tuple[int, str]:
        data = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))
        for attempt in (1, 2):
            conn = self._connection()
            try:
                headers = (auth_headers(target) if self.key is None
                           else signed_headers(self.url, target, data, self.key))
                conn.request("POST", "/", body=data.encode(), headers=headers)
                resp = conn.getresponse()
                text = resp.read().decode("utf-8", "replace")
                if resp.getheader("Connection", "").lower() == "close":
                    self.close()
                return resp.status, text
            except (http.client.HTTPException, ConnectionError):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def call(self, target: str, body: dict[str, Any] | str) -> dict[str, Any]:
        status, text = self.raw(target, body)
        if status != 200:
            raise DynamoError(status, text)
        parsed = json.loads(text) if text.strip() else {}
        if not isinstance(parsed, dict):
            raise DynamoError(status, text)
        return parsed


def _create_table(client: RawClient, name: str, keys: list[tuple[str, str, str]]) -> None:
    """Create a table (keys: name, type, HASH|RANGE) and wait until it is ACTIVE."""
    request: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": [{"AttributeName": k, "AttributeType": t} for k, t, _ in keys],
        "KeySchema": [{"AttributeName": k, "KeyType": r} for k, _, r in keys],
        "BillingMode": "PAY_PER_REQUEST",
    }
    try:
        client.call("CreateTable", request)
    except DynamoError as e:
        if "ResourceInUse" in e.body:
            pass  # an external server that already has it: reuse
        elif "BillingMode" in e.body or "ProvisionedThroughput" in e.body:
            del request["BillingMode"]
            request["ProvisionedThroughput"] = {
                "ReadCapacityUnits": 1000,
                "WriteCapacityUnits": 1000,
            }
            client.call("CreateTable", request)
        else:
            raise
    deadline = time.monotonic() + 60
    while True:
        table = client.call("DescribeTable", {"TableName": name}).get("Table", {})
        if table.get("TableStatus") == "ACTIVE":
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"table {name} not ACTIVE after 60 s: {table.get('TableStatus')}")
        time.sleep(0.05)


def _batch_put(client: RawClient, table: str, items: list[dict[str, Any]]) -> None:
    for start in range(0, len(items), 25):
        pending: list[dict[str, Any]] = [
            {"PutRequest": {"Item": item}} for item in items[start : start + 25]
        ]
        for _ in range(50):
            out = client.call("BatchWriteItem", {"RequestItems": {table: pending}})
            pending = out.get("UnprocessedItems", {}).get(table, [])
            if not pending:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError(f"BatchWriteItem left {len(pending)} items unprocessed")


def setup_tables(url: str, keys: int, key: tuple[str, str] | None = None) -> None:
    """Create and seed what the scenarios use.

    bench_counters (pk S): `hot` (A), `k0`..`k{keys-1}` (B, C), `cas` (D), each
    with a number attribute at 0; bench_shards (pk S, sk N): `total`/0..9 (E).
    """
    client = RawClient(url, timeout=60, key=key)
    try:
        _create_table(client, COUNTERS, [("pk", "S", "HASH")])
        _create_table(client, SHARDS, [("pk", "S", "HASH"), ("sk", "N", "RANGE")])
        items: list[dict[str, Any]] = [
            {"pk": {"S": "hot"}, "play_count": {"N": "0"}},
            {"pk": {"S": "cas"}, "v": {"N": "0"}},
        ]
        items += [{"pk": {"S": f"k{i}"}, "play_count": {"N": "0"}} for i in range(keys)]
        _batch_put(client, COUNTERS, items)
        _batch_put(
            client,
            SHARDS,
            [
                {"pk": {"S": "total"}, "sk": {"N": str(i)}, "hits": {"N": "0"}}
                for i in range(SHARD_COUNT)
            ],
        )
    finally:
        client.close()


def read_number(url: str, table: str, key: dict[str, Any], attribute: str) -> int | None:
    client = RawClient(url)
    try:
        request = {"TableName": table, "Key": key, "ConsistentRead": True}
        item = client.call("GetItem", request).get("Item")
    finally:
        client.close()
    if not item or attribute not in item:
        return None
    return int(item[attribute]["N"])


def exact_count(
    url: str, threads: int, per_thread: int, time_limit: float = 180.0
) -> dict[str, Any]:
    """`threads` boto3 clients each send `per_thread` `ADD play_count :one` to one
    fresh item at once; a server that keeps every acknowledged update ends at
    exactly threads * per_thread. botocore's retries are off: a retried ADD
    could count twice. A server too slow to finish within `time_limit` seconds
    is stopped early and judged on the updates it acknowledged."""
    import boto3
    from botocore.config import Config

    key = {"pk": {"S": f"exact-{uuid.uuid4().hex[:12]}"}}
    config = Config(
        retries={"total_max_attempts": 1},
        connect_timeout=10,
        read_timeout=60,
        max_pool_connections=2,
    )
    session = boto3.session.Session()
    clients = [
        session.client(
            "dynamodb",
            endpoint_url=url,
            region_name="us-east-1",
            aws_access_key_id="bench",
            aws_secret_access_key="bench",
            config=config,
        )
        for _ in range(threads)
    ]
    acknowledged = [0] * threads
    errors = [0] * threads
    first_error: list[str] = []
    barrier = threading.Barrier(threads)

    def worker(i: int) -> None:
        client = clients[i]
        barrier.wait()
        for _ in range(per_thread):
            if time.monotonic() > deadline:
                return
            try:
                client.update_item(
                    TableName=COUNTERS,
                    Key=key,
                    UpdateExpression="ADD play_count :one",
                    ExpressionAttributeValues={":one": {"N": "1"}},
                )
                acknowledged[i] += 1
            except Exception as e:  # any failure is counted and reported
                errors[i] += 1
                if not first_error:
                    first_error.append(f"{type(e).__name__}: {e}"[:300])

    started = time.monotonic()
    deadline = started + time_limit
    workers = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=max(0.0, deadline + 120 - time.monotonic()))
    seconds = time.monotonic() - started
    hung = sum(w.is_alive() for w in workers)
    final = read_number(url, COUNTERS, key, "play_count")
    sent = sum(acknowledged) + sum(errors)
    complete = sent == threads * per_thread
    # stopped early: every acknowledged ADD must be there, and no more than were sent
    expected = threads * per_thread if complete else sum(acknowledged)
    ok = hung == 0 and (
        final == expected if complete else final is not None and expected <= final <= sent
    )
    return {
        "threads": threads,
        "per_thread": per_thread,
        "expected": expected,
        "complete": complete,
        "sent": sent,
        "final": final,
        "acknowledged": sum(acknowledged),
        "errors": sum(errors),
        "first_error": first_error[0] if first_error else None,
        "hung_threads": hung,
        "seconds": round(seconds, 2),
        "ok": ok,
    }
