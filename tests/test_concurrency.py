"""No lost update: concurrent increments of one item all land, each exactly once.

The shape of it: 32 threads x 100 ``ADD`` calls on one item end at
exactly 3200; the same with ``SET x = x + :n``; and with 4 processes. The
size is not the point: 32 writers released together by a barrier keep racing
on the one item for all of their 100 calls, so every call meets others in
flight. (The benchmark harness's exact-count check, bench/README.md, sends
8,000 from 16 threads to each server it measures.)

Beyond the final total, every call asks for ``UPDATED_NEW``: DynamoDB applies
updates to one item one at a time, so the 3200 values handed back must be
exactly 1..3200, each once. Two callers seeing the same value would mean two
updates read the same state: a lost update even if the total came out right.
"""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.config import Config

if TYPE_CHECKING:
    from tallytest import Backend, TallyServer

# Only the standard library, boto3 and pytest at import time: the 4-process
# test's workers are spawned and import this module without conftest.

THREADS = 32
CALLS_PER_THREAD = 100
PROCESSES = 4
TOTAL = THREADS * CALLS_PER_THREAD  # 3200
KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}

FORMS: dict[str, dict[str, Any]] = {
    "add": {
        "UpdateExpression": "ADD play_count :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}},
    },
    "set-plus": {  # needs play_count to exist: the test seeds it at 0
        "UpdateExpression": "SET play_count = play_count + :n",
        "ExpressionAttributeValues": {":n": {"N": "1"}},
    },
    "set-if-not-exists": {
        "UpdateExpression": "SET play_count = if_not_exists(play_count, :zero) + :n",
        "ExpressionAttributeValues": {":zero": {"N": "0"}, ":n": {"N": "1"}},
    },
}


def increment(ddb: Any, table: str, form: str, calls: int,
              start: threading.Barrier | None = None) -> list[int]:
    """``calls`` increments; the values DynamoDB handed back (UPDATED_NEW)."""
    if start is not None:
        start.wait(30)
    seen = []
    for _ in range(calls):
        response = ddb.update_item(
            TableName=table, Key=KEY, ReturnValues="UPDATED_NEW", **FORMS[form]
        )
        seen.append(int(response["Attributes"]["play_count"]["N"]))
    return seen


def final_count(ddb: Any, table: str) -> str:
    item = ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]
    return str(item["play_count"]["N"])


def run_threads(ddb: Any, table: str, form: str, threads: int, calls: int) -> list[int]:
    if form == "set-plus":
        ddb.put_item(TableName=table, Item={**KEY, "play_count": {"N": "0"}})
    start = threading.Barrier(threads)
    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(increment, ddb, table, form, calls, start) for _ in range(threads)]
        return [value for future in futures for value in future.result(timeout=200)]


# The 32 x 100 through a real server, for ADD and SET x = x + :n. Each costs
# ~3200 boto3 calls of client CPU (a few ms each here), so the other cases run
# smaller: the property checked is the same.
@pytest.mark.timeout(240)
@pytest.mark.parametrize("form", ["add", "set-plus"])
def test_32_threads_x_100_increments_end_at_3200(tallydb_server: TallyServer, form: str) -> None:
    from tallytest import create_table, unique_name

    ddb = tallydb_server.client()
    table = create_table(ddb, unique_name("videos"), ("PK", "S"), ("SK", "S"))
    seen = run_threads(ddb, table, form, THREADS, CALLS_PER_THREAD)
    assert final_count(ddb, table) == str(TOTAL)
    assert sorted(seen) == list(range(1, TOTAL + 1))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("form", list(FORMS))
def test_16_threads_x_50_increments_every_form_and_backend(
    backend: Backend, videos: str, form: str
) -> None:
    ddb = backend.client()
    seen = run_threads(ddb, videos, form, 16, 50)
    assert final_count(ddb, videos) == "800"
    assert sorted(seen) == list(range(1, 801))


def _process_worker(url: str, table: str, calls: int, start: Any) -> list[int]:
    """One process, its own boto3 session and client (runs in a spawned child)."""
    ddb = boto3.session.Session().client(
        "dynamodb", endpoint_url=url, region_name="us-east-1",
        aws_access_key_id="x", aws_secret_access_key="y",
        config=Config(retries={"total_max_attempts": 1}, read_timeout=60),
    )
    start.wait(60)
    return increment(ddb, table, "add", calls)


@pytest.mark.timeout(240)
def test_4_processes_increments_end_at_3200(tallydb_server: TallyServer) -> None:
    from tallytest import create_table, unique_name

    table = create_table(tallydb_server.client(), unique_name("videos"), ("PK", "S"), ("SK", "S"))
    ctx = multiprocessing.get_context("spawn")
    calls = TOTAL // PROCESSES
    with ctx.Manager() as manager:
        start = manager.Barrier(PROCESSES)
        with ctx.Pool(PROCESSES) as pool:
            results = [
                pool.apply_async(_process_worker, (tallydb_server.url, table, calls, start))
                for _ in range(PROCESSES)
            ]
            seen = [value for result in results for value in result.get(timeout=200)]
    assert final_count(tallydb_server.client(), table) == str(TOTAL)
    assert sorted(seen) == list(range(1, TOTAL + 1))


@pytest.mark.timeout(120)
def test_concurrent_decimal_and_negative_increments_stay_exact(
    backend: Backend, videos: str
) -> None:
    # Numbers are exact decimals (38 significant digits), not floats:
    # 8 threads x 50 x (+0.1) and 8 x 50 x (-0.03) must total exactly 28.
    ddb = backend.client()

    def add(delta: str) -> None:
        for _ in range(50):
            ddb.update_item(
                TableName=videos, Key=KEY, UpdateExpression="ADD cents :d",
                ExpressionAttributeValues={":d": {"N": delta}},
            )

    with ThreadPoolExecutor(16) as pool:
        for future in [pool.submit(add, d) for d in ["0.1"] * 8 + ["-0.03"] * 8]:
            future.result(timeout=100)
    item = ddb.get_item(TableName=videos, Key=KEY, ConsistentRead=True)["Item"]
    assert item["cents"] == {"N": "28"}
    assert Decimal(item["cents"]["N"]) == Decimal("0.1") * 400 - Decimal("0.03") * 400
