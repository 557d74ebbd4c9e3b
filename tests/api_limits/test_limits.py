"""--emulate-limits: DynamoDB's throughput ceilings, driven in-process with a
controllable clock (``Limits(clock=...)``), through boto3.

- One hot counter written 2,000 times a second for 2 s meets the partition
  ceiling of 1,000 write units a second: about half the writes are throttled
  (an on-demand table answers ThrottlingException), and a throttled write
  changes nothing; the same load spread over 10 shards is never throttled;
  without limits nothing is.
- A PROVISIONED table is held to its own throughput, with unused capacity
  banked as burst: ProvisionedThroughputExceededException.
- Batches hand throttled keys back as unprocessed; transactions cancel.

Messages: DynamoDB's, as its users quote them (awslabs/dynein#195 for the
on-demand ThrottlingException; the provisioned message as DynamoDB's API
reference lists it for TransactionCanceledException reasons).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import CLIENT_CONFIG

from tallydb.engine.api import Engine, Limits
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

ON_DEMAND = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically "
    "scaling your table or index so please try again shortly. If exceptions persist, check if "
    "you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
)
PROVISIONED = (
    "The level of configured provisioned throughput for the table was exceeded. Consider "
    "increasing your provisioning level with the UpdateTable API."
)
RATE = 2000.0  # requests a second, on the fake clock
SECONDS = 2.0


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _engine(tmp_path: Any, limits: Limits | None) -> Iterator[Any]:
    engine = Engine(Store(tmp_path), limits=limits)
    yield inprocess.client(engine, config=CLIENT_CONFIG)  # no retries: each refusal shows
    engine.close()


@pytest.fixture
def ddb(tmp_path: Any, clock: Clock) -> Iterator[Any]:
    """A boto3 client of an in-process engine with limits on."""
    yield from _engine(tmp_path, Limits(clock=clock))


@pytest.fixture
def unlimited(tmp_path: Any) -> Iterator[Any]:
    yield from _engine(tmp_path, None)


def _create(ddb: Any, name: str, provisioned: tuple[int, int] | None = None,
            gsi: bool = False) -> str:
    request: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
    }
    if provisioned is None:
        request["BillingMode"] = "PAY_PER_REQUEST"
    else:
        request["ProvisionedThroughput"] = {
            "ReadCapacityUnits": provisioned[0], "WriteCapacityUnits": provisioned[1]}
    if gsi:
        request["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        request["GlobalSecondaryIndexes"] = [{
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 2}}]
    ddb.create_table(**request)
    return name


def _add(ddb: Any, table: str, key: str) -> None:
    ddb.update_item(TableName=table, Key={"PK": {"S": key}}, UpdateExpression="ADD n :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})


def _drive(ddb: Any, clock: Clock | None, table: str, keys: list[str]) -> tuple[int, list[Any]]:
    """RATE writes a second for SECONDS, round-robin over ``keys``: (admitted,
    the errors of the throttled)."""
    admitted, errors = 0, []
    for n in range(int(RATE * SECONDS)):
        if clock is not None:
            clock.advance(1 / RATE)
        try:
            _add(ddb, table, keys[n % len(keys)])
            admitted += 1
        except ClientError as error:
            errors.append(error.response)
    return admitted, errors


def _total(ddb: Any, table: str, keys: list[str]) -> int:
    return sum(int(ddb.get_item(TableName=table, Key={"PK": {"S": k}})
                   .get("Item", {}).get("n", {"N": "0"})["N"]) for k in keys)


def test_a_hot_counter_is_throttled_and_shards_are_not(ddb: Any, clock: Clock) -> None:
    table = _create(ddb, "counters")
    admitted, errors = _drive(ddb, clock, table, ["VID#9f3a"])
    total = int(RATE * SECONDS)
    # 1,000 units a second (and 10 % burst) of 2,000 asked: about half.
    assert 0.4 * total < len(errors) < 0.6 * total
    assert {e["Error"]["Code"] for e in errors} == {"ThrottlingException"}
    assert {e["Error"]["Message"] for e in errors} == {ON_DEMAND}
    assert errors[0]["throttlingReasons"] == [{
        "reason": "TableWriteKeyRangeThroughputExceeded",
        "resource": f"arn:aws:dynamodb:us-east-1:000000000000:table/{table}"}]
    assert errors[0]["ResponseMetadata"]["HTTPStatusCode"] == 400
    # A throttled write changed nothing: the counter is exactly what was admitted.
    assert _total(ddb, table, ["VID#9f3a"]) == admitted

    clock.advance(60)
    shards = [f"VID#9f3a#STATS#{n}" for n in range(10)]
    admitted, errors = _drive(ddb, clock, table, shards)
    assert errors == []
    assert _total(ddb, table, shards) == admitted == total


def test_without_limits_nothing_is_throttled(unlimited: Any) -> None:
    table = _create(unlimited, "counters")
    admitted, errors = _drive(unlimited, None, table, ["VID#9f3a"])
    assert errors == []
    assert _total(unlimited, table, ["VID#9f3a"]) == admitted == int(RATE * SECONDS)


def test_a_provisioned_table_is_held_to_its_throughput(ddb: Any, clock: Clock) -> None:
    table = _create(ddb, "small", provisioned=(10, 5))
    keys = [f"k{n}" for n in range(20)]

    def burst(count: int) -> tuple[int, list[Any]]:
        admitted, errors = 0, []
        for n in range(count):
            try:
                _add(ddb, table, keys[n % len(keys)])
                admitted += 1
            except ClientError as error:
                errors.append(error.response)
        return admitted, errors

    # It starts with one second of capacity (5 units): the sixth write waits.
    admitted, errors = burst(20)
    assert admitted == 5
    assert {e["Error"]["Code"] for e in errors} == {"ProvisionedThroughputExceededException"}
    assert errors[0]["Error"]["Message"] == PROVISIONED
    assert errors[0]["ThrottlingReasons"] == [{
        "reason": "TableWriteProvisionedThroughputExceeded",
        "resource": f"arn:aws:dynamodb:us-east-1:000000000000:table/{table}"}]
    # Unused capacity is banked, up to 300 seconds of it.
    clock.advance(10)
    assert burst(100)[0] == 50
    clock.advance(3600)
    assert burst(2000)[0] == 1500
    # More throughput, more writes.
    ddb.update_table(TableName=table, ProvisionedThroughput={
        "ReadCapacityUnits": 10, "WriteCapacityUnits": 50})
    clock.advance(1)
    assert burst(100)[0] == 50


def test_a_provisioned_table_has_hot_partitions_too(ddb: Any, clock: Clock) -> None:
    table = _create(ddb, "big", provisioned=(40_000, 40_000))
    clock.advance(600)  # plenty of banked table capacity
    _, errors = _drive(ddb, clock, table, ["hot"])
    assert errors
    assert {e["Error"]["Code"] for e in errors} == {"ProvisionedThroughputExceededException"}
    assert errors[0]["ThrottlingReasons"][0]["reason"] == "TableWriteKeyRangeThroughputExceeded"


def test_reads_have_their_own_ceiling(ddb: Any, clock: Clock) -> None:
    table = _create(ddb, "reads")
    _add(ddb, table, "hot")
    refused = 0
    for _ in range(8000):  # 8,000 strongly consistent reads in one second
        clock.advance(1 / 8000)
        try:
            ddb.get_item(TableName=table, Key={"PK": {"S": "hot"}}, ConsistentRead=True)
        except ClientError as error:
            assert error.response["throttlingReasons"][0]["reason"] == (
                "TableReadKeyRangeThroughputExceeded")
            refused += 1
    assert 4500 < refused < 5500  # 3,000 read units a second admitted
    _add(ddb, table, "hot")  # writes throttle apart from reads


def test_batches_return_throttled_keys_unprocessed(ddb: Any, clock: Clock) -> None:
    table = _create(ddb, "batch", provisioned=(1, 3))  # three writes' worth to start with
    requests = [{"PutRequest": {"Item": {"PK": {"S": f"k{n}"}}}} for n in range(5)]
    answer = ddb.batch_write_item(RequestItems={table: requests},
                                  ReturnConsumedCapacity="TOTAL")
    assert answer["UnprocessedItems"] == {table: requests[3:]}
    assert answer["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 3.0}]
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(RequestItems={table: requests[3:]})
    assert excinfo.value.response["Error"]["Code"] == "ProvisionedThroughputExceededException"
    clock.advance(1)
    keys = [{"PK": {"S": f"k{n}"}} for n in range(3)]
    got = ddb.batch_get_item(RequestItems={table: {"Keys": keys, "ConsistentRead": True}})
    assert len(got["Responses"][table]) == 1
    assert got["UnprocessedKeys"] == {table: {"Keys": keys[1:], "ConsistentRead": True}}


def test_transactions_cancel_when_throttled(ddb: Any, clock: Clock) -> None:
    table = _create(ddb, "txn", provisioned=(1, 1))
    put = {"Put": {"TableName": table, "Item": {"PK": {"S": "a"}}}}
    ddb.transact_write_items(TransactItems=[put])  # two units: the bucket dips below zero
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[put])
    response = excinfo.value.response
    assert response["Error"]["Code"] == "TransactionCanceledException"
    assert response["CancellationReasons"] == [
        {"Code": "ProvisionedThroughputExceeded", "Message": PROVISIONED}]


def test_a_provisioned_gsi_is_held_to_its_throughput(ddb: Any, clock: Clock) -> None:
    table = _create(ddb, "indexed", provisioned=(100, 100), gsi=True)  # by_g: 2 WCU
    clock.advance(1)
    refused = []
    for n in range(10):
        try:
            ddb.put_item(TableName=table, Item={"PK": {"S": f"k{n}"}, "g": {"S": "x"}})
        except ClientError as error:
            refused.append(error.response)
    assert len(refused) == 8
    assert refused[0]["Error"]["Message"] == (
        "The level of configured provisioned throughput for one or more global secondary "
        "indexes of the table was exceeded. Consider increasing your provisioning level for "
        "the under-provisioned global secondary indexes with the UpdateTable API.")
    assert refused[0]["ThrottlingReasons"][0]["reason"] == "IndexWriteProvisionedThroughputExceeded"


def test_consumed_capacity_is_answered_as_asked(ddb: Any, clock: Clock) -> None:
    table = _create(ddb, "asked")
    plain = ddb.put_item(TableName=table, Item={"PK": {"S": "a"}})
    assert "ConsumedCapacity" not in plain
    total = ddb.put_item(TableName=table, Item={"PK": {"S": "a"}}, ReturnConsumedCapacity="TOTAL")
    assert total["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 1.0}
    indexes = ddb.put_item(TableName=table, Item={"PK": {"S": "a"}},
                           ReturnConsumedCapacity="INDEXES")
    assert indexes["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 1.0,
                                           "Table": {"CapacityUnits": 1.0}}
    # A bad request is refused as it would be without limits.
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item={"PK": {"N": "1"}})
    assert excinfo.value.response["Error"]["Code"] == "ValidationException"


def test_a_throttled_partition_still_refuses_a_bad_update_as_malformed(
        ddb: Any, clock: Clock) -> None:
    """DynamoDB validates before it throttles: once a hot key's partition is
    out of capacity, an UpdateItem of it that is malformed (an undefined
    placeholder, a ReturnValues outside the enum) is still the
    ValidationException, and a well-formed one is throttled."""
    table = _create(ddb, "hot_bad")
    with pytest.raises(ClientError) as throttled:
        for _ in range(2000):
            _add(ddb, table, "hot")  # (the clock stands still: no refill)
    assert throttled.value.response["Error"]["Code"] == "ThrottlingException"
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(TableName=table, Key={"PK": {"S": "hot"}}, UpdateExpression="ADD n :two",
                        ExpressionAttributeValues={":one": {"N": "1"}})
    assert excinfo.value.response["Error"]["Code"] == "ValidationException"
    assert "An expression attribute value used in expression is not defined" in str(
        excinfo.value)
    with pytest.raises(ClientError) as excinfo:
        ddb.update_item(TableName=table, Key={"PK": {"S": "hot"}}, UpdateExpression="ADD n :one",
                        ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValues="BAD")
    assert excinfo.value.response["Error"]["Code"] == "ValidationException"
    assert "'BAD' at 'returnValues'" in str(excinfo.value)
    with pytest.raises(ClientError) as excinfo:
        _add(ddb, table, "hot")
    assert excinfo.value.response["Error"]["Code"] == "ThrottlingException"
