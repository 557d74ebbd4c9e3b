"""Point-in-time recovery: UpdateContinuousBackups keeps a history,
DescribeContinuousBackups tells its window truthfully, and
RestoreTableToPointInTime rebuilds a table as it was at a second of it,
through boto3 against ``tallydb serve`` and in-process.

Restore times count to the second (DynamoDB's granularity): a restore to
``T`` gives the table as it was when the second ``T`` falls in began. The
tests wait for second boundaries where a case needs writes in different
seconds. Error codes are the operation's own (botocore's model); the
messages of PointInTimeRecoveryUnavailableException and of a request naming
no time are not on record (see the operation's module).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import assert_error, unique_name

from tallydb.engine.api import Engine
from tallydb.engine.api import _history as history
from tallydb.engine.api.restore_table_to_point_in_time import INVALID_TIME, NO_TIME
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess


def _next_second() -> float:
    """Sleep until a new second has begun; its start."""
    start = math.floor(time.time()) + 1
    time.sleep(max(0.0, start - time.time()) + 0.01)
    return float(start)


def _pitr(ddb: Any, table: str, days: int | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"PointInTimeRecoveryEnabled": True}
    if days is not None:
        spec["RecoveryPeriodInDays"] = days
    answer = ddb.update_continuous_backups(TableName=table,
                                           PointInTimeRecoverySpecification=spec)
    return dict(answer["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"])


def _at(second: float) -> datetime:
    return datetime.fromtimestamp(second, UTC)


def _items(ddb: Any, table: str, key: str = "PK") -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    request: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = ddb.scan(**request)
        found.update((item[key]["S"], item) for item in page["Items"])
        if "LastEvaluatedKey" not in page:
            return found
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


@pytest.fixture
def restored(ddb: Any) -> Any:
    """``restored(**request)``: RestoreTableToPointInTime to a fresh target
    name (deleted afterwards); the target's name."""
    made: list[str] = []

    def restore(**request: Any) -> str:
        target = request.setdefault("TargetTableName", unique_name("restored"))
        made.append(target)
        ddb.restore_table_to_point_in_time(**request)
        return str(target)

    yield restore
    for name in made:
        with contextlib.suppress(ClientError):
            ddb.delete_table(TableName=name)


def test_the_window_is_what_a_restore_can_reach(ddb: Any, make_table: Callable[..., str]) -> None:
    table = make_table("pitr")
    off = ddb.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]
    assert off["PointInTimeRecoveryDescription"] == {"PointInTimeRecoveryStatus": "DISABLED"}
    before = time.time()
    on = _pitr(ddb, table, days=7)
    after = time.time()
    assert on["PointInTimeRecoveryStatus"] == "ENABLED" and on["RecoveryPeriodInDays"] == 7
    # the first whole second from when recovery was switched on (nothing before it is
    # kept): the switch happened between ``before`` and ``after``
    _next_second()
    _next_second()
    described = ddb.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]
    window = described["PointInTimeRecoveryDescription"]
    earliest = window["EarliestRestorableDateTime"].timestamp()
    latest = window["LatestRestorableDateTime"].timestamp()
    assert earliest == math.ceil(earliest)
    assert math.ceil(before) <= earliest <= math.ceil(after)
    assert earliest < latest <= time.time()
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_to_point_in_time(SourceTableName=table, TargetTableName=unique_name(
            "r"), RestoreDateTime=_at(earliest - 1))
    assert_error(caught, "InvalidRestoreTimeException", INVALID_TIME)
    off = ddb.update_continuous_backups(TableName=table, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": False})["ContinuousBackupsDescription"]
    assert off["PointInTimeRecoveryDescription"] == {"PointInTimeRecoveryStatus": "DISABLED"}


def test_a_restore_gives_the_items_and_indexes_as_they_were(
        ddb: Any, make_table: Callable[..., str], restored: Any) -> None:
    table = make_table("pitr")
    ddb.update_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": "owner", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "byOwner", "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}])
    _pitr(ddb, table)
    _next_second()
    for n in range(20):
        ddb.put_item(TableName=table, Item={"PK": {"S": f"k{n:02d}"}, "owner": {"S": f"o{n % 2}"},
                                            "n": {"N": str(n)}})
    then = _next_second()
    expected = _items(ddb, table)
    for n in range(0, 20, 3):
        ddb.update_item(TableName=table, Key={"PK": {"S": f"k{n:02d}"}},
                        UpdateExpression="SET #o = :o ADD n :one",
                        ExpressionAttributeNames={"#o": "owner"},
                        ExpressionAttributeValues={":o": {"S": "o9"}, ":one": {"N": "100"}})
    ddb.delete_item(TableName=table, Key={"PK": {"S": "k01"}})
    ddb.put_item(TableName=table, Item={"PK": {"S": "late"}, "owner": {"S": "o0"}})

    target = restored(SourceTableName=table, RestoreDateTime=_at(then))
    assert _items(ddb, target) == expected
    for owner, count in (("o0", 10), ("o1", 10), ("o9", 0)):
        found = ddb.query(TableName=target, IndexName="byOwner",
                          KeyConditionExpression="#o = :o", ExpressionAttributeNames={
                              "#o": "owner"}, ExpressionAttributeValues={":o": {"S": owner}})
        assert found["Count"] == count, owner
    described = ddb.describe_table(TableName=target)["Table"]
    assert described["TableStatus"] == "ACTIVE" and described["ItemCount"] == 20
    assert described["RestoreSummary"]["RestoreInProgress"] is False
    assert described["RestoreSummary"]["SourceTableArn"].endswith(f":table/{table}")
    assert "StreamSpecification" not in described
    recovery = ddb.describe_continuous_backups(TableName=target)["ContinuousBackupsDescription"]
    assert recovery["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "DISABLED"

    latest = restored(SourceTableArn=described["RestoreSummary"]["SourceTableArn"],
                      UseLatestRestorableTime=True)
    assert _items(ddb, latest) == _items(ddb, table)


def test_a_double_counting_loop_is_undone_to_the_second_before_it(
        ddb: Any, make_table: Callable[..., str], restored: Any) -> None:
    table = make_table("plays")
    _pitr(ddb, table)
    key = {"PK": {"S": "VID#9f3a"}}
    for _ in range(10):
        ddb.update_item(TableName=table, Key=key, UpdateExpression="ADD play_count :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})
    deploy = _next_second()  # the bad deploy starts: every play counted twice
    for _ in range(30):
        ddb.update_item(TableName=table, Key=key, UpdateExpression="ADD play_count :two",
                        ExpressionAttributeValues={":two": {"N": "2"}})
    assert ddb.get_item(TableName=table, Key=key)["Item"]["play_count"] == {"N": "70"}

    repaired = restored(SourceTableName=table, RestoreDateTime=_at(deploy))
    answer = ddb.get_item(TableName=repaired, Key=key, ConsistentRead=True)
    assert answer["Item"]["play_count"] == {"N": "10"}


def test_a_restore_while_four_writers_write_is_the_table_at_that_second(
        ddb: Any, make_table: Callable[..., str], restored: Any) -> None:
    table = make_table("busy")
    _pitr(ddb, table)
    accounts = 8
    for n in range(accounts):
        ddb.put_item(TableName=table, Item={"PK": {"S": f"acct{n}"}, "balance": {"N": "100"}})
    stop = threading.Event()
    sent: list[list[float]] = [[] for _ in range(4)]  # when each increment was sent
    acked: list[list[float]] = [[] for _ in range(4)]  # when each was acknowledged
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        n = 0
        try:
            while not stop.is_set():
                n += 1
                a, b = (worker + n) % accounts, (worker + 2 * n + 1) % accounts
                sent[worker].append(time.time())
                ddb.transact_write_items(TransactItems=[
                    {"Update": {"TableName": table, "Key": {"PK": {"S": f"worker{worker}"}},
                                "UpdateExpression": "ADD done :one",
                                "ExpressionAttributeValues": {":one": {"N": "1"}}}},
                    {"Update": {"TableName": table, "Key": {"PK": {"S": f"acct{a}"}},
                                "UpdateExpression": "ADD balance :m",
                                "ExpressionAttributeValues": {":m": {"N": "-1"}}}},
                    {"Update": {"TableName": table, "Key": {"PK": {"S": f"acct{b}"}},
                                "UpdateExpression": "ADD balance :p",
                                "ExpressionAttributeValues": {":p": {"N": "1"}}}}]
                    if a != b else [
                    {"Update": {"TableName": table, "Key": {"PK": {"S": f"worker{worker}"}},
                                "UpdateExpression": "ADD done :one",
                                "ExpressionAttributeValues": {":one": {"N": "1"}}}}])
                acked[worker].append(time.time())
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 30
        while min(len(a) for a in acked) < 5 and time.monotonic() < deadline and not errors:
            time.sleep(0.01)
        moment = _next_second()
        while min(len(a) for a in acked) < 10 and time.monotonic() < deadline and not errors:
            time.sleep(0.01)
        now = restored(SourceTableName=table, UseLatestRestorableTime=True)
        then = restored(SourceTableName=table, RestoreDateTime=_at(moment))
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert not errors, errors
    for target, bound in ((then, moment), (now, None)):
        items = _items(ddb, target)
        assert sum(int(items[f"acct{n}"]["balance"]["N"]) for n in range(accounts)) == 800
        if bound is None:
            continue
        for worker in range(4):
            done = int(items[f"worker{worker}"]["done"]["N"]) if f"worker{worker}" in items else 0
            assert sum(1 for t in acked[worker] if t < bound) <= done
            assert done <= sum(1 for t in sent[worker] if t < bound)


def test_restore_errors(ddb: Any, make_table: Callable[..., str], restored: Any) -> None:
    table = make_table("pitr")
    other = make_table("plain")
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_to_point_in_time(SourceTableName="no-such-table",
                                           TargetTableName="anything", UseLatestRestorableTime=True)
    assert_error(caught, "TableNotFoundException", "Table not found: no-such-table")
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_to_point_in_time(SourceTableName=other, TargetTableName=unique_name(
            "r"), UseLatestRestorableTime=True)
    assert_error(caught, "PointInTimeRecoveryUnavailableException", None)
    _pitr(ddb, table)
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_to_point_in_time(SourceTableName=table, TargetTableName=other,
                                           UseLatestRestorableTime=True)
    assert_error(caught, "TableAlreadyExistsException", f"Table already exists: {other}")
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_to_point_in_time(SourceTableName=table, TargetTableName=unique_name("r"))
    assert_error(caught, "ValidationException", NO_TIME)
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_to_point_in_time(SourceTableName=table, TargetTableName=unique_name(
            "r"), RestoreDateTime=_at(time.time() + 3600))
    assert_error(caught, "InvalidRestoreTimeException", INVALID_TIME)
    names = ddb.list_tables()["TableNames"]
    assert not [name for name in names if name.startswith("r-")]


def test_overrides(ddb: Any, make_table: Callable[..., str], restored: Any) -> None:
    table = make_table("pitr")
    ddb.update_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": "colour", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "byColour",
            "KeySchema": [{"AttributeName": "colour", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}])
    _pitr(ddb, table)
    for n in range(6):
        ddb.put_item(TableName=table, Item={"PK": {"S": f"k{n}"}, "colour": {"S": f"c{n % 3}"},
                                            "size": {"N": str(n)}})
    target = restored(
        SourceTableName=table, UseLatestRestorableTime=True, BillingModeOverride="PROVISIONED",
        ProvisionedThroughputOverride={"ReadCapacityUnits": 3, "WriteCapacityUnits": 4},
        GlobalSecondaryIndexOverride=[{
            "IndexName": "byColour", "KeySchema": [{"AttributeName": "colour", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}])
    described = ddb.describe_table(TableName=target)["Table"]
    assert described["ProvisionedThroughput"]["WriteCapacityUnits"] == 4
    assert described.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED") == \
        "PROVISIONED"
    found = ddb.query(TableName=target, IndexName="byColour", KeyConditionExpression="colour = :c",
                      ExpressionAttributeValues={":c": {"S": "c1"}})
    assert sorted(item["PK"]["S"] for item in found["Items"]) == ["k1", "k4"]
    assert all("size" not in item for item in found["Items"])  # filled as KEYS_ONLY


def test_history_is_trimmed_past_the_recovery_period(tmp_path: Any) -> None:
    engine = Engine(Store(tmp_path))
    try:
        client = inprocess.client(engine)
        client.create_table(TableName="trimmed", KeySchema=[{"AttributeName": "PK",
                                                               "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        _pitr(client, "trimmed", days=1)
        for n in range(5):
            client.put_item(TableName="trimmed", Item={"PK": {"S": f"k{n}"}})
        with engine.store.transaction() as txn:
            record = txn.table("trimmed")
            assert record is not None
            assert len(list(txn.items(record, index=history.HISTORY_SOURCE))) == 5
        assert engine.sweep_expired(time.time() + 3600) == 0  # within the day: kept
        assert engine.sweep_expired(time.time() + 2 * 86400) == 5
        with engine.store.transaction() as txn:
            assert list(txn.items(record, index=history.HISTORY_SOURCE)) == []
    finally:
        engine.close()


def test_changes_between_two_seconds(tmp_path: Any) -> None:
    """What an incremental export reads: the items changed between two
    seconds, with what they were at each."""
    engine = Engine(Store(tmp_path))
    try:
        client = inprocess.client(engine)
        client.create_table(TableName="changes", KeySchema=[{"AttributeName": "PK",
                                                               "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        _pitr(client, "changes")
        _next_second()
        client.put_item(TableName="changes", Item={"PK": {"S": "kept"}, "v": {"N": "1"}})
        client.put_item(TableName="changes", Item={"PK": {"S": "gone"}, "v": {"N": "1"}})
        start = _next_second()
        client.put_item(TableName="changes", Item={"PK": {"S": "kept"}, "v": {"N": "2"}})
        client.put_item(TableName="changes", Item={"PK": {"S": "new"}, "v": {"N": "1"}})
        client.delete_item(TableName="changes", Key={"PK": {"S": "gone"}})
        end = _next_second()
        client.put_item(TableName="changes", Item={"PK": {"S": "kept"}, "v": {"N": "3"}})
        with engine.store.transaction() as txn:
            record = txn.table("changes")
            assert record is not None
            changes = {hk: (old, new) for hk, _, old, new in
                       history.changes_between(txn, record, int(start), int(end))}
        by_name = {new["PK"]["S"] if new else old["PK"]["S"]: (old, new)
                   for old, new in changes.values()}
        assert by_name["kept"] == ({"PK": {"S": "kept"}, "v": {"N": "1"}},
                                   {"PK": {"S": "kept"}, "v": {"N": "2"}})
        assert by_name["new"] == (None, {"PK": {"S": "new"}, "v": {"N": "1"}})
        assert by_name["gone"] == ({"PK": {"S": "gone"}, "v": {"N": "1"}}, None)
    finally:
        engine.close()


def test_history_survives_kill_9(tallydb_server_factory: Callable[..., Any]) -> None:
    server = tallydb_server_factory()
    ddb = server.client()
    table = unique_name("crash")
    ddb.create_table(TableName=table, KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    _pitr(ddb, table)
    key = {"PK": {"S": "plays"}}
    for _ in range(25):
        ddb.update_item(TableName=table, Key=key, UpdateExpression="ADD n :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})
    moment = _next_second()
    for _ in range(25):
        ddb.update_item(TableName=table, Key=key, UpdateExpression="ADD n :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})
    server.kill()
    server.start()
    ddb = server.client()
    ddb.update_item(TableName=table, Key=key, UpdateExpression="ADD n :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    for target, at, expected in (("before-crash", {"RestoreDateTime": _at(moment)}, "25"),
                                 ("after-crash", {"UseLatestRestorableTime": True}, "51")):
        ddb.restore_table_to_point_in_time(SourceTableName=table, TargetTableName=target, **at)
        item = ddb.get_item(TableName=target, Key=key, ConsistentRead=True)["Item"]
        assert item["n"] == {"N": expected}, target


def test_a_rolled_back_write_leaves_the_history_whole(tmp_path: Any) -> None:
    """A write rolled back within a second, then the same item changed again
    in that second: the history still holds what the item was when the
    second began (the recorder looks rows up after a rollback)."""
    engine = Engine(Store(tmp_path))
    try:
        client = inprocess.client(engine)
        client.create_table(TableName="rolled", KeySchema=[{"AttributeName": "PK",
                                                              "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        _pitr(client, "rolled")
        client.put_item(TableName="rolled", Item={"PK": {"S": "k"}, "v": {"N": "0"}})
        for _ in range(5):  # until both writes fall in one second
            second = _next_second()
            with pytest.raises(RuntimeError), engine.batch() as call:
                call("PutItem", {"TableName": "rolled",
                                 "Item": {"PK": {"S": "k"}, "v": {"N": "99"}}})
                raise RuntimeError("the batch fails after its write")
            client.put_item(TableName="rolled", Item={"PK": {"S": "k"}, "v": {"N": "1"}})
            if time.time() < second + 1:
                break
        target = unique_name("r")
        client.restore_table_to_point_in_time(SourceTableName="rolled", TargetTableName=target,
                                              RestoreDateTime=_at(second))
        item = client.get_item(TableName=target, Key={"PK": {"S": "k"}})["Item"]
        assert item["v"] == {"N": "0"}
    finally:
        engine.close()
