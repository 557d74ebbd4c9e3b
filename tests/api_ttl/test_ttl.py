"""Time to Live: UpdateTimeToLive / DescribeTimeToLive with DynamoDB's
answers, and the sweeper deleting expired items (with their index entries).

Messages and statuses: architect/dynalite's test/updateTimeToLive.js and
describeTimeToLive.js, and the ack-api-quirks catalogue (2026, recorded
against DynamoDB: DDB-TABLE-143, -144, -146, -147). The sweeper is called directly
with a chosen ``now`` (``Engine.sweep_expired``); the server calls it every
second.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import error_of, unique_name

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

NOW = 1_800_000_000  # a fixed "now", in epoch seconds
FIVE_YEARS = 5 * 365 * 24 * 3600


def _ttl(ddb: Any, table: str, enabled: bool, name: str = "expires") -> dict[str, Any]:
    return ddb.update_time_to_live(  # type: ignore[no-any-return]
        TableName=table, TimeToLiveSpecification={"AttributeName": name, "Enabled": enabled})


def _refused(ddb: Any, table: str, enabled: bool, name: str = "expires") -> tuple[str, str, int]:
    with pytest.raises(ClientError) as excinfo:
        _ttl(ddb, table, enabled, name)
    return error_of(excinfo)


OTHER = ("ValidationException",
         "TimeToLive is active on a different AttributeName: current AttributeName is expires",
         400)
TOO_SOON = ("ValidationException",
            "Time to live has been modified multiple times within a fixed interval", 400)


def test_update_and_describe(ddb: Any, make_table: Any) -> None:
    table = make_table("ttl")
    assert ddb.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "DISABLED"}
    assert _refused(ddb, table, False) == (
        "ValidationException", "TimeToLive is already disabled", 400)
    assert _ttl(ddb, table, True)["TimeToLiveSpecification"] == {
        "AttributeName": "expires", "Enabled": True}
    assert ddb.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
    # What the request asks is judged before how soon it comes (DDB-TABLE-143).
    assert _refused(ddb, table, True) == (
        "ValidationException", "TimeToLive is already enabled", 400)
    assert _refused(ddb, table, True, "other") == OTHER
    assert _refused(ddb, table, False, "other") == OTHER
    # The TTL setting is not part of DescribeTable.
    assert "TimeToLive" not in str(ddb.describe_table(TableName=table)["Table"])


def test_a_second_change_within_the_interval_is_refused(ddb: Any, make_table: Any) -> None:
    # DynamoDB's API reference: "Any additional UpdateTimeToLive calls for
    # the same table during this one hour duration result in a
    # ValidationException"; its message: DDB-TABLE-143. The refusal changes
    # nothing.
    table = make_table("ttlsoon")
    _ttl(ddb, table, True)
    assert _refused(ddb, table, False) == TOO_SOON
    assert ddb.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
    assert _refused(ddb, table, False) == TOO_SOON
    # Another table is its own.
    other = make_table("ttlother")
    _ttl(ddb, other, True)


def test_the_interval_starts_at_each_change_and_not_at_a_refusal() -> None:
    interval = 2.0
    engine = Engine(Store(None), ttl_change_interval=interval)
    with contextlib.closing(engine):
        client = inprocess.client(engine)
        table = _create(client, "interval")
        _ttl(client, table, True)
        assert _refused(client, table, False) == TOO_SOON
        deadline = time.monotonic() + interval + 60
        while True:  # refused until the interval has passed, however often asked
            try:
                _ttl(client, table, False)
                break
            except ClientError as error:
                assert error.response["Error"]["Message"] == TOO_SOON[1]
                assert time.monotonic() < deadline, "still refused long after the interval"
                time.sleep(0.05)
        assert _refused(client, table, False) == (
            "ValidationException", "TimeToLive is already disabled", 400)
        assert _refused(client, table, True) == TOO_SOON  # the disabling started another
        assert client.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {
            "TimeToLiveStatus": "DISABLED"}


def test_a_server_given_no_interval_lets_ttl_change_at_once(
    tallydb_server_factory: Any,
) -> None:
    server = tallydb_server_factory(in_memory=True, extra_args=("--ttl-change-interval", "0"))
    client = server.client()
    table = _create(client, "toggled")
    for enabled in (True, False, True, False):
        _ttl(client, table, enabled)
    _ttl(client, table, True, "renamed")
    assert client.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "renamed"}


def test_a_missing_table(ddb: Any) -> None:
    name = unique_name("nothere")
    for call in (lambda: ddb.describe_time_to_live(TableName=name),
                 lambda: _ttl(ddb, name, True)):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_of(excinfo) == (
            "ResourceNotFoundException", f"Requested resource not found: Table: {name} not found",
            400)


def test_a_filter_hides_expired_items(ddb: Any, make_table: Any) -> None:
    # Until the sweeper runs, expired items are still read, as on DynamoDB;
    # DynamoDB's guide: filter with #ttl > :now.
    table = make_table("ttlf")
    _ttl(ddb, table, True)
    for name, expires in [("old", NOW - 10), ("new", NOW + 10)]:
        ddb.put_item(TableName=table, Item={"PK": {"S": name}, "expires": {"N": str(expires)}})
    everything = ddb.scan(TableName=table)["Items"]
    assert sorted(i["PK"]["S"] for i in everything) == ["new", "old"]
    live = ddb.scan(TableName=table, FilterExpression="#ttl > :now",
                    ExpressionAttributeNames={"#ttl": "expires"},
                    ExpressionAttributeValues={":now": {"N": str(NOW)}})["Items"]
    assert [i["PK"]["S"] for i in live] == ["new"]


@pytest.fixture
def engine(tmp_path: Any) -> Iterator[Engine]:
    # (these tests turn TTL on and off at once: no interval between changes)
    engine = Engine(Store(tmp_path), ttl_change_interval=0)
    yield engine
    engine.close()


@pytest.fixture
def client(engine: Engine) -> Any:
    return inprocess.client(engine)


def _create(client: Any, name: str) -> str:
    client.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"},
                              {"AttributeName": "kind", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_kind", "KeySchema": [{"AttributeName": "kind", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}],
    )
    return name


def _put(client: Any, table: str, sk: str, expires: Any = None) -> None:
    item: dict[str, Any] = {"PK": {"S": "p"}, "SK": {"S": sk}, "kind": {"S": "session"}}
    if expires is not None:
        item["expires"] = expires
    client.put_item(TableName=table, Item=item)


def _left(client: Any, table: str) -> tuple[list[str], list[str]]:
    items = client.scan(TableName=table)["Items"]
    entries = client.scan(TableName=table, IndexName="by_kind")["Items"]
    return sorted(i["SK"]["S"] for i in items), sorted(i["SK"]["S"] for i in entries)


def test_the_sweeper_deletes_expired_items_and_their_index_entries(
    engine: Engine, client: Any
) -> None:
    table = _create(client, "sessions")
    _put(client, table, "before-ttl-on", {"N": str(NOW - 100)})  # backfilled when enabled
    _ttl(client, table, True)
    _put(client, table, "expired", {"N": str(NOW - 1)})
    _put(client, table, "fraction", {"N": f"{NOW - 1}.5"})
    _put(client, table, "now", {"N": str(NOW)})  # not before now: kept
    _put(client, table, "future", {"N": str(NOW + 60)})
    _put(client, table, "ancient", {"N": str(NOW - FIVE_YEARS - 10)})  # ignored, as DynamoDB
    _put(client, table, "text", {"S": str(NOW - 100)})  # not a Number: ignored
    _put(client, table, "none")
    # An update moves an item's expiry; a later sweep judges the new value.
    _put(client, table, "renewed", {"N": str(NOW - 50)})
    client.update_item(TableName=table, Key={"PK": {"S": "p"}, "SK": {"S": "renewed"}},
                       UpdateExpression="SET expires = :e",
                       ExpressionAttributeValues={":e": {"N": str(NOW + 3600)}})

    assert engine.sweep_expired(NOW) == 3
    kept = ["ancient", "future", "none", "now", "renewed", "text"]
    assert _left(client, table) == (kept, kept)
    assert engine.sweep_expired(NOW) == 0
    # Time passes: "now" and "future" expire.
    assert engine.sweep_expired(NOW + 61) == 2
    kept = ["ancient", "none", "renewed", "text"]
    assert _left(client, table) == (kept, kept)
    # The index's ItemCount follows.
    described = client.describe_table(TableName=table)["Table"]
    assert described["GlobalSecondaryIndexes"][0]["ItemCount"] == len(kept)


def test_sweeps_are_bounded_and_ttl_off_stops_them(engine: Engine, client: Any) -> None:
    table = _create(client, "bounded")
    _ttl(client, table, True)
    for n in range(25):
        _put(client, table, f"s{n:02d}", {"N": str(NOW - n - 1)})
    assert engine.sweep_expired(NOW, limit=10) == 10
    assert engine.sweep_expired(NOW, limit=10) == 10
    assert engine.sweep_expired(NOW, limit=10) == 5
    for n in range(3):
        _put(client, table, f"t{n}", {"N": str(NOW - n - 1)})
    _ttl(client, table, False)
    assert engine.sweep_expired(NOW) == 0
    assert len(client.scan(TableName=table)["Items"]) == 3


def test_ttl_survives_a_restart(tmp_path: Any) -> None:
    engine = Engine(Store(tmp_path))
    client = inprocess.client(engine)
    table = _create(client, "durable")
    _ttl(client, table, True)
    _put(client, table, "expired", {"N": str(NOW - 1)})
    engine.close()
    engine = Engine(Store(tmp_path))
    with contextlib.closing(engine):
        client = inprocess.client(engine)
        assert client.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {
            "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
        assert engine.sweep_expired(NOW) == 1
        assert _left(client, table) == ([], [])
