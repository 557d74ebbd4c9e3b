"""`tallydb serve --emulate-limits` and the TTL sweeper, end to end through boto3.

The throttling rules themselves are pinned in tests/api_limits (in-process, on a
fake clock); here only that the server wires them in, and that without the
flag nothing is throttled.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import TallyServer

KEY = {"PK": {"S": "VID#9f3a"}}


def _provisioned_table(ddb: Any, name: str, units: int) -> None:
    ddb.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        ProvisionedThroughput={"ReadCapacityUnits": units, "WriteCapacityUnits": units},
    )
    ddb.get_waiter("table_exists").wait(TableName=name)


def _hammer(ddb: Any, name: str, calls: int) -> tuple[int, int, set[str]]:
    """``calls`` ADDs from 8 threads: (admitted, throttled, other error codes)."""

    def one(_: int) -> str:
        try:
            ddb.update_item(TableName=name, Key=KEY, UpdateExpression="ADD n :one",
                            ExpressionAttributeValues={":one": {"N": "1"}})
            return "ok"
        except ClientError as e:
            return str(e.response["Error"]["Code"])

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(one, range(calls)))
    admitted = codes.count("ok")
    throttled = codes.count("ProvisionedThroughputExceededException")
    return admitted, throttled, set(codes) - {"ok", "ProvisionedThroughputExceededException"}


@pytest.mark.parametrize("emulate", [True, False], ids=["emulate-limits", "default"])
def test_a_provisioned_table_throttles_only_with_the_flag(
    tallydb_server_factory: Callable[..., TallyServer], emulate: bool
) -> None:
    # DynamoDB: a PROVISIONED table's writes beyond its WriteCapacityUnits (plus
    # burst) are refused with ProvisionedThroughputExceededException, changing nothing.
    server = tallydb_server_factory(
        in_memory=True, extra_args=("--emulate-limits",) if emulate else ())
    ddb = server.client()  # the suite's clients make one attempt: no retry hides a throttle
    _provisioned_table(ddb, "hot", units=1)
    admitted, throttled, others = _hammer(ddb, "hot", 400)
    assert not others
    stored = int(ddb.get_item(TableName="hot", Key=KEY, ConsistentRead=True)["Item"]["n"]["N"])
    assert stored == admitted  # a throttled request changed nothing
    if emulate:
        assert throttled > 0 and admitted < 400
    else:
        assert (admitted, throttled) == (400, 0)


def test_the_sweeper_deletes_expired_items(
    tallydb_server_factory: Callable[..., TallyServer],
) -> None:
    # DynamoDB deletes items whose TTL attribute (epoch seconds) has passed; the
    # server sweeps every second through its single writer.
    server = tallydb_server_factory(in_memory=True)
    ddb = server.client()
    ddb.create_table(
        TableName="sessions", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
    )
    ddb.update_time_to_live(TableName="sessions", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires_at"})
    now = int(time.time())
    ddb.put_item(TableName="sessions", Item={"PK": {"S": "old"},
                                             "expires_at": {"N": str(now - 60)}})
    ddb.put_item(TableName="sessions", Item={"PK": {"S": "new"},
                                             "expires_at": {"N": str(now + 3600)}})
    deadline = time.monotonic() + 15
    while "Item" in ddb.get_item(TableName="sessions", Key={"PK": {"S": "old"}}):
        assert time.monotonic() < deadline, "the expired item was never swept"
        time.sleep(0.2)
    assert "Item" in ddb.get_item(TableName="sessions", Key={"PK": {"S": "new"}})
