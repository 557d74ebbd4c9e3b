"""Global tables (version 2019.11.21): UpdateTable's ReplicaUpdates and
witnesses, DescribeTable's Replicas, replication with DynamoDB's conflict
rules, through boto3 against ``tallydb serve --separate-regions`` and
in-process (an Engine with separate regions).

Rules and texts are DynamoDB's as a 2026 survey of it records them (see
``_replica_updates``); texts not on record are tallydb's and the module
that answers them says so. Replication runs after ``--replication-delay``
seconds (small here); tests wait for conditions, never for a time.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import (
    ACCESS_KEY,
    CLIENT_CONFIG,
    SECRET_KEY,
    assert_error,
    session_client,
    unique_name,
)

import tallydb
from tallydb.engine.api import Engine
from tallydb.engine.api import _legacy_global as legacy
from tallydb.engine.api import _replica_auto_scaling as scaling
from tallydb.engine.api import _replica_updates as rules
from tallydb.engine.api.update_table import GLOBAL_STREAM
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

EAST, WEST, OHIO = "us-east-1", "eu-west-1", "us-east-2"
TIMEOUT = 60.0
Clients = Callable[..., Any]


def wait_for(check: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> Any:
    """Poll ``check`` until it answers something true; that answer."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout}s: {what}")
        time.sleep(0.05)


@pytest.fixture(params=["server", "inprocess"])
def regions(request: pytest.FixtureRequest, tallydb_server_factory: Callable[..., Any]
            ) -> Iterator[Callable[..., Clients]]:
    """``regions(delay=0.05, separate=True)``: a function giving a client of a
    region, over a fresh server (or engine)."""
    engines: list[Engine] = []

    def make(delay: float = 0.05, separate: bool = True) -> Clients:
        if request.param == "server":
            args = ["--replication-delay", str(delay)]
            if separate:
                args.append("--separate-regions")
            server = tallydb_server_factory(in_memory=True, extra_args=tuple(args))
            return lambda region, service="dynamodb": session_client(
                service, endpoint_url=server.url, region_name=region,
                aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
                config=CLIENT_CONFIG)
        engine = Engine(Store(None), separate_regions=separate, replication_delay=delay)
        engines.append(engine)
        return lambda region, service="dynamodb": (
            inprocess.client if service == "dynamodb" else inprocess.streams_client)(
                engine, region_name=region, config=CLIENT_CONFIG)

    yield make
    for engine in engines:
        engine.close()


def _table(ddb: Any, name: str, **extra: Any) -> None:
    request: dict[str, Any] = {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], **extra}
    ddb.create_table(**request)


def _replica_status(ddb: Any, name: str, region: str) -> str | None:
    for replica in ddb.describe_table(TableName=name)["Table"].get("Replicas", ()):
        if replica["RegionName"] == region:
            return str(replica["ReplicaStatus"])
    return None


def _add_replica(ddb: Any, name: str, region: str) -> None:
    ddb.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": region}}])
    wait_for(lambda: _replica_status(ddb, name, region) == "ACTIVE", f"{region} ACTIVE")
    ddb.get_waiter("table_exists").wait(TableName=name,
                                         WaiterConfig={"Delay": 1, "MaxAttempts": 60})


def _value(ddb: Any, name: str, key: str = "plays") -> int | None:
    item = ddb.get_item(TableName=name, Key={"pk": {"S": key}}, ConsistentRead=True).get("Item")
    return None if item is None else int(item["n"]["N"])


def _settled(clients: list[Any], name: str, key: str = "plays", quiet: float = 0.5) -> int:
    """The value every region ends with once replication has settled: the
    same in all, and unchanged over a quiet while."""
    def same() -> int | None:
        values = {_value(c, name, key) for c in clients}
        if len(values) != 1:
            return None
        time.sleep(quiet)
        again = {_value(c, name, key) for c in clients}
        return again.pop() if again == values and None not in values else None
    return int(wait_for(same, "the regions agree"))


# --- the Terraform-style life of a replica -------------------------------------------


def test_add_write_read_and_remove_a_replica(regions: Callable[..., Clients]) -> None:
    client = regions()
    east, west = client(EAST), client(WEST)
    name = unique_name("tf")
    _table(east, name)
    east.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1})
    answer = east.update_table(TableName=name, ReplicaUpdates=[
        {"Create": {"RegionName": WEST}}])["TableDescription"]
    assert answer["TableStatus"] == "UPDATING"
    assert answer["GlobalTableVersion"] == "2019.11.21" and answer["Replicas"] == []
    assert answer["StreamSpecification"] == {"StreamEnabled": True,
                                             "StreamViewType": "NEW_AND_OLD_IMAGES"}
    # As Terraform and CDK do: boto3's waiter alone (the table is UPDATING
    # until its new replica is ACTIVE).
    east.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1})
    described = east.describe_table(TableName=name)["Table"]
    assert described["Replicas"] == [{"RegionName": WEST, "ReplicaStatus": "ACTIVE"}]
    assert described["GlobalTableSettingsReplicationMode"] == "ENABLED_WITH_OVERRIDES"
    assert "MultiRegionConsistency" not in described
    there = west.describe_table(TableName=name)["Table"]
    assert there["TableArn"] == f"arn:aws:dynamodb:{WEST}:000000000000:table/{name}"
    assert there["Replicas"] == [{"RegionName": EAST, "ReplicaStatus": "ACTIVE"}]

    east.put_item(TableName=name, Item={"pk": {"S": "plays"}, "n": {"N": "7"}})
    assert wait_for(lambda: _value(west, name) == 7, "the write reaches eu-west-1")
    west.update_item(TableName=name, Key={"pk": {"S": "plays"}}, UpdateExpression="ADD n :one",
                     ExpressionAttributeValues={":one": {"N": "1"}})
    assert wait_for(lambda: _value(east, name) == 8, "and back")

    east.update_table(TableName=name, ReplicaUpdates=[{"Delete": {"RegionName": WEST}}])
    east.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1})
    alone = east.describe_table(TableName=name)["Table"]
    for member in ("GlobalTableVersion", "Replicas", "GlobalTableSettingsReplicationMode"):
        assert member not in alone
    assert alone["StreamSpecification"]["StreamEnabled"]  # the stream DynamoDB enabled stays
    with pytest.raises(ClientError) as caught:
        west.describe_table(TableName=name)
    assert_error(caught, "ResourceNotFoundException", None)


def test_a_new_replica_is_filled_with_items_and_indexes(regions: Callable[..., Clients]) -> None:
    client = regions()
    east, west = client(EAST), client(WEST)
    name = unique_name("fill")
    _table(east, name, AttributeDefinitions=[
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "owner", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "byOwner", "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}])
    for n in range(40):
        east.put_item(TableName=name, Item={"pk": {"S": f"k{n}"}, "owner": {"S": f"o{n % 4}"}})
    _add_replica(east, name, WEST)
    assert west.describe_table(TableName=name)["Table"]["ItemCount"] == 40
    found = west.query(TableName=name, IndexName="byOwner", KeyConditionExpression="#o = :o",
                       ExpressionAttributeNames={"#o": "owner"},
                       ExpressionAttributeValues={":o": {"S": "o2"}})
    assert found["Count"] == 10


# --- the conflict rules ----------------------------------------------------------------


def _hammer(clients: list[Any], name: str, times: int, retry_conflicts: bool = False
            ) -> tuple[list[int], list[BaseException]]:
    """Each client ADDs 1 ``times`` times to one item, all at once; the
    conflicts each one retried, and any error."""
    conflicts = [0] * len(clients)
    errors: list[BaseException] = []
    start = threading.Barrier(len(clients))

    def add(i: int) -> None:
        try:
            start.wait()
            done = 0
            while done < times:
                try:
                    clients[i].update_item(
                        TableName=name, Key={"pk": {"S": "plays"}},
                        UpdateExpression="ADD n :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})
                    done += 1
                except ClientError as error:
                    code = error.response["Error"]["Code"]
                    if not (retry_conflicts and code == "ReplicatedWriteConflictException"):
                        raise
                    conflicts[i] += 1
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=add, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return conflicts, errors


def test_eventual_last_writer_wins_and_loses_increments(regions: Callable[..., Clients]
                                                       ) -> None:
    client = regions(delay=0.2)
    east, west = client(EAST), client(WEST)
    name = unique_name("mrec")
    _table(east, name)
    _add_replica(east, name, WEST)
    _, errors = _hammer([east, west], name, 1000)
    assert not errors, errors
    final = _settled([east, west], name)
    assert 0 < final < 2000  # the later image of the item won: increments were lost


def test_the_regional_counter_loses_nothing_under_eventual_consistency(
        regions: Callable[..., Clients]) -> None:
    client = regions(delay=0.2)
    east, west = client(EAST), client(WEST)
    name = unique_name("regional")
    _table(east, name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                  {"AttributeName": "sk", "KeyType": "RANGE"}],
           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "S"}])
    _add_replica(east, name, WEST)
    counters = [tallydb.RegionalCounter(tallydb.connect(client=c).table(name),
                                        {"pk": "VID#9f3a"}, "PLAYS#", "play_count")
                for c in (east, west)]
    assert [c.region for c in counters] == [EAST, WEST]
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def add(counter: Any) -> None:
        try:
            start.wait()
            for _ in range(1000):
                counter.add()
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=add, args=(c,)) for c in counters]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    wait_for(lambda: all(c.value() == 2000 for c in counters), "2,000 in both regions")
    assert counters[1].by_region() == {EAST: 1000, WEST: 1000}


def test_strong_consistency_counts_every_increment(regions: Callable[..., Clients]) -> None:
    client = regions(delay=0.05)
    east, west = client(EAST), client(WEST)
    name = unique_name("mrsc")
    _table(east, name)
    answer = east.update_table(
        TableName=name, MultiRegionConsistency="STRONG",
        ReplicaUpdates=[{"Create": {"RegionName": WEST}}],
        GlobalTableWitnessUpdates=[{"Create": {"RegionName": OHIO}}])["TableDescription"]
    assert answer["MultiRegionConsistency"] == "STRONG"
    wait_for(lambda: _replica_status(east, name, WEST) == "ACTIVE", "the replica ACTIVE")
    east.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1})
    described = east.describe_table(TableName=name)["Table"]
    assert described["GlobalTableWitnesses"] == [{"RegionName": OHIO, "WitnessStatus": "ACTIVE"}]
    conflicts, errors = _hammer([east, west], name, 1000, retry_conflicts=True)
    assert not errors, errors
    assert _value(east, name) == 2000 and _value(west, name) == 2000
    assert sum(conflicts) > 0, "no write conflicted: the regions never overlapped"


def test_a_strong_conflict_is_dynamodbs_409(regions: Callable[..., Clients]) -> None:
    client = regions(delay=30.0)  # the item stays claimed for the whole test
    east, west = client(EAST), client(WEST)
    name = unique_name("mrsc")
    _table(east, name)
    east.update_table(TableName=name, MultiRegionConsistency="STRONG", ReplicaUpdates=[
        {"Create": {"RegionName": WEST}}, {"Create": {"RegionName": OHIO}}])
    wait_for(lambda: _replica_status(east, name, OHIO) == "ACTIVE", "the replicas ACTIVE")
    east.put_item(TableName=name, Item={"pk": {"S": "plays"}, "n": {"N": "1"}})
    assert _value(west, name) == 1  # written everywhere before the answer
    with pytest.raises(ClientError) as caught:
        west.put_item(TableName=name, Item={"pk": {"S": "plays"}, "n": {"N": "2"}})
    assert_error(caught, "ReplicatedWriteConflictException", None, status=409)
    east.put_item(TableName=name, Item={"pk": {"S": "plays"}, "n": {"N": "3"}})  # its own region
    west.put_item(TableName=name, Item={"pk": {"S": "other"}, "n": {"N": "1"}})  # another item
    with pytest.raises(ClientError) as caught:
        west.transact_write_items(TransactItems=[{"Put": {
            "TableName": name, "Item": {"pk": {"S": "t"}}}}])
    assert_error(caught, "ValidationException", None)
    with pytest.raises(ClientError) as caught:
        east.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "ttl"})
    assert_error(caught, "ValidationException", None)
    with pytest.raises(ClientError) as caught:
        west.delete_table(TableName=name)
    assert_error(caught, "ValidationException", rules.STRONG_ONE_DELETE)


def test_a_strong_conflict_in_a_batch_write_writes_none_of_it(
        regions: Callable[..., Clients]) -> None:
    """An item another region holds refuses the whole BatchWriteItem before
    any of its items is written (one free item comes first in the batch)."""
    client = regions(delay=30.0)  # the item stays claimed for the whole test
    east, west = client(EAST), client(WEST)
    name = unique_name("mrsc")
    _table(east, name)
    east.update_table(TableName=name, MultiRegionConsistency="STRONG", ReplicaUpdates=[
        {"Create": {"RegionName": WEST}}, {"Create": {"RegionName": OHIO}}])
    wait_for(lambda: _replica_status(east, name, OHIO) == "ACTIVE", "the replicas ACTIVE")
    east.put_item(TableName=name, Item={"pk": {"S": "plays"}, "n": {"N": "1"}})
    with pytest.raises(ClientError) as caught:
        west.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {"pk": {"S": "free"}, "n": {"N": "1"}}}},
            {"PutRequest": {"Item": {"pk": {"S": "plays"}, "n": {"N": "2"}}}}]})
    assert_error(caught, "ReplicatedWriteConflictException", None, status=409)
    assert _value(west, name, "free") is None and _value(east, name, "free") is None
    assert _value(west, name) == 1
    west.batch_write_item(RequestItems={name: [
        {"PutRequest": {"Item": {"pk": {"S": "free"}, "n": {"N": "1"}}}}]})
    assert _value(east, name, "free") == 1


# --- the rules of ReplicaUpdates ---------------------------------------------------------


def test_replica_update_errors(regions: Callable[..., Clients]) -> None:
    client = regions()
    east, west = client(EAST), client(WEST)
    name = unique_name("rules")
    _table(east, name)

    def refused(request: dict[str, Any], message: str, code: str = "ValidationException",
                ddb: Any = east) -> None:
        with pytest.raises(ClientError) as caught:
            ddb.update_table(TableName=name, **request)
        assert_error(caught, code, message)

    create = {"Create": {"RegionName": WEST}}
    refused({"ReplicaUpdates": [create], "DeletionProtectionEnabled": True}, rules.ONLY_CHANGE)
    refused({"ReplicaUpdates": [{"Create": {"RegionName": WEST}},
                                {"Create": {"RegionName": OHIO}}]}, rules.MANY_ACTIONS)
    refused({"ReplicaUpdates": [{"Create": {"RegionName": EAST}}]}, rules.LOCAL_REGION)
    refused({"ReplicaUpdates": [{"Delete": {"RegionName": WEST}}]},
            rules.NOT_MEMBER.format(WEST))
    with pytest.raises(ClientError) as caught:
        east.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": "us-fake-1"}}])
    assert_error(caught, "ValidationException", None)
    assert error_message(caught).startswith("Region us-fake-1 is not supported.")
    refused({"ReplicaUpdates": [create], "MultiRegionConsistency": "STRONG"},
            rules.STRONG_COUNT)
    refused({"ReplicaUpdates": [create], "GlobalTableWitnessUpdates": [
        {"Create": {"RegionName": OHIO}}]}, rules.WITNESS_NEEDS_STRONG)
    refused({"ReplicaUpdates": [create], "MultiRegionConsistency": "STRONG",
             "GlobalTableWitnessUpdates": [{"Create": {"RegionName": WEST}}]},
            rules.SAME_REGION)
    refused({"ReplicaUpdates": [{"Create": {"RegionName": "us-west-1"}}],
             "MultiRegionConsistency": "STRONG",
             "GlobalTableWitnessUpdates": [{"Create": {"RegionName": OHIO}}]},
            rules.STRONG_REGIONS.format("us-west-1"))
    _table(west, name)  # a table of that name in the region already
    refused({"ReplicaUpdates": [create]}, rules.EXISTS.format(name))
    west.delete_table(TableName=name)
    provisioned = unique_name("prov")
    east.create_table(
        TableName=provisioned, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    with pytest.raises(ClientError) as caught:
        east.update_table(TableName=provisioned, ReplicaUpdates=[create])
    assert_error(caught, "ValidationException", rules.PROVISIONED)
    _add_replica(east, name, WEST)
    with pytest.raises(ClientError) as caught:
        east.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    assert_error(caught, "ValidationException", GLOBAL_STREAM)
    with pytest.raises(ClientError) as caught:  # a replica's stream is on: enabling it is refused
        east.update_table(TableName=name, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    assert_error(caught, "ValidationException",
                 f"Table already has an enabled stream: TableName: {name}")
    refused({"ReplicaUpdates": [{"Delete": {"RegionName": EAST}}]}, rules.LOCAL_REGION,
            ddb=east)


def error_message(caught: pytest.ExceptionInfo[ClientError]) -> str:
    return str(caught.value.response["Error"].get("Message", ""))


def test_shared_regions_refuse_a_replica_naming_the_option(regions: Callable[..., Clients]
                                                          ) -> None:
    client = regions(separate=False)
    east = client(EAST)
    name = unique_name("shared")
    _table(east, name)
    with pytest.raises(ClientError) as caught:
        east.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": WEST}}])
    assert_error(caught, "ValidationException", rules.SHARED_REGIONS)
    assert "--separate-regions" in rules.SHARED_REGIONS


def test_replicated_writes_are_in_each_replicas_stream(regions: Callable[..., Clients]) -> None:
    client = regions()
    east, west = client(EAST), client(WEST)
    name = unique_name("streamed")
    _table(east, name)
    _add_replica(east, name, WEST)
    east.put_item(TableName=name, Item={"pk": {"S": "plays"}, "n": {"N": "1"}})
    east.update_item(TableName=name, Key={"pk": {"S": "plays"}}, UpdateExpression="ADD n :one",
                     ExpressionAttributeValues={":one": {"N": "1"}})
    wait_for(lambda: _value(west, name) == 2, "replicated")
    streams = client(WEST, "dynamodbstreams")
    arn = west.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    assert f":{WEST}:" in arn
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = streams.get_records(ShardIterator=iterator)["Records"]
    events = [(r["eventName"], r["dynamodb"].get("NewImage", {}).get("n")) for r in records]
    assert events[-1] == ("MODIFY", {"N": "2"}) and events[0][0] == "INSERT"
    # a record's awsRegion is its table's region (the Streams API reference,
    # Record): the replica's, though the writes were made in another region
    assert {r["awsRegion"] for r in records} == {WEST}


def test_replication_survives_kill_9(tallydb_server_factory: Callable[..., Any]) -> None:
    """Changes acknowledged in us-east-1 and still waiting to be sent when the
    server is killed reach eu-west-1 after the restart."""
    server = tallydb_server_factory(extra_args=("--separate-regions", "--replication-delay",
                                                "600"))

    def client(region: str) -> Any:
        return session_client(
            "dynamodb", endpoint_url=server.url, region_name=region,
            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY, config=CLIENT_CONFIG)

    east = client(EAST)
    name = unique_name("crash")
    _table(east, name)
    _add_replica(east, name, WEST)
    for n in range(100):
        east.put_item(TableName=name, Item={"pk": {"S": f"k{n}"}, "n": {"N": str(n)}})
    east.update_item(TableName=name, Key={"pk": {"S": "k7"}}, UpdateExpression="ADD n :one",
                     ExpressionAttributeValues={":one": {"N": "1"}})
    west = client(WEST)
    assert west.scan(TableName=name, Select="COUNT")["Count"] == 0  # all waiting: 600 s
    server.kill()
    server.extra_args = ("--separate-regions", "--replication-delay", "0")
    server.start()
    west = client(WEST)
    wait_for(lambda: west.scan(TableName=name, Select="COUNT", ConsistentRead=True)["Count"]
             == 100, "every acknowledged change in eu-west-1")
    assert _value(west, name, "k7") == 8


# --- the legacy version, 2017.11.29 ------------------------------------------------------


def test_legacy_global_tables(regions: Callable[..., Clients]) -> None:
    client = regions()
    east, west = client(EAST), client(WEST)
    name = unique_name("legacy")
    stream = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    for ddb in (east, west):
        _table(ddb, name, StreamSpecification=stream)
    with pytest.raises(ClientError) as caught:
        east.describe_global_table(GlobalTableName=name)
    assert_error(caught, "GlobalTableNotFoundException", legacy.NOT_FOUND.format(name))
    created = east.create_global_table(GlobalTableName=name, ReplicationGroup=[
        {"RegionName": EAST}, {"RegionName": WEST}])["GlobalTableDescription"]
    assert created["GlobalTableArn"] == f"arn:aws:dynamodb::000000000000:global-table/{name}"
    with pytest.raises(ClientError) as caught:
        east.create_global_table(GlobalTableName=name, ReplicationGroup=[{"RegionName": EAST}])
    assert_error(caught, "GlobalTableAlreadyExistsException", None)
    described = west.describe_global_table(GlobalTableName=name)["GlobalTableDescription"]
    assert described["GlobalTableStatus"] == "ACTIVE"
    assert described["ReplicationGroup"] == [{"RegionName": EAST}, {"RegionName": WEST}]
    assert "GlobalTableVersion" not in east.describe_table(TableName=name)["Table"]
    listed = east.list_global_tables()["GlobalTables"]
    assert {"GlobalTableName": name, "ReplicationGroup": [
        {"RegionName": EAST}, {"RegionName": WEST}]} in listed

    east.put_item(TableName=name, Item={"pk": {"S": "plays"}, "n": {"N": "3"}})
    item = wait_for(lambda: west.get_item(TableName=name, Key={"pk": {"S": "plays"}}).get(
        "Item"), "replicated to eu-west-1")
    assert item["n"] == {"N": "3"} and item["aws:rep:updateregion"] == {"S": EAST}
    assert item["aws:rep:deleting"] == {"BOOL": False} and "aws:rep:updatetime" in item

    settings = east.describe_global_table_settings(GlobalTableName=name)
    assert [r["RegionName"] for r in settings["ReplicaSettings"]] == [EAST, WEST]
    updated = east.update_global_table_settings(
        GlobalTableName=name, GlobalTableBillingMode="PROVISIONED",
        GlobalTableProvisionedWriteCapacityUnits=7,
        ReplicaSettingsUpdate=[{"RegionName": WEST, "ReplicaProvisionedReadCapacityUnits": 3}])
    assert {r["RegionName"]: (r["ReplicaProvisionedReadCapacityUnits"],
                              r["ReplicaProvisionedWriteCapacityUnits"])
            for r in updated["ReplicaSettings"]}[WEST] == (3, 7)

    with pytest.raises(ClientError) as caught:
        east.update_global_table(GlobalTableName=name, ReplicaUpdates=[
            {"Create": {"RegionName": WEST}}])
    assert_error(caught, "ReplicaAlreadyExistsException", None)
    east.update_global_table(GlobalTableName=name, ReplicaUpdates=[
        {"Delete": {"RegionName": WEST}}])
    assert west.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"  # it stays
    with pytest.raises(ClientError) as caught:
        east.describe_global_table(GlobalTableName=name)
    assert_error(caught, "GlobalTableNotFoundException", None)  # a group of one is none
    with pytest.raises(ClientError) as caught:  # a 2019.11.21 group is not a legacy one
        east.describe_global_table_settings(GlobalTableName="no-such-group")
    assert_error(caught, "GlobalTableNotFoundException",
                 legacy.SETTINGS_NOT_FOUND.format("no-such-group"))


def test_legacy_tables_must_be_empty_and_streamed(regions: Callable[..., Clients]) -> None:
    client = regions()
    east, west = client(EAST), client(WEST)
    name = unique_name("legacy")
    _table(east, name, StreamSpecification={"StreamEnabled": True,
                                            "StreamViewType": "NEW_AND_OLD_IMAGES"})
    _table(west, name)
    group = [{"RegionName": EAST}, {"RegionName": WEST}]
    with pytest.raises(ClientError) as caught:
        east.create_global_table(GlobalTableName=name, ReplicationGroup=group)
    assert_error(caught, "ValidationException", legacy.NO_STREAM.format(name, WEST))
    west.update_table(TableName=name, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    west.put_item(TableName=name, Item={"pk": {"S": "x"}})
    with pytest.raises(ClientError) as caught:
        east.create_global_table(GlobalTableName=name, ReplicationGroup=group)
    assert_error(caught, "ValidationException", legacy.NOT_EMPTY.format(name, WEST))
    with pytest.raises(ClientError) as caught:
        east.create_global_table(GlobalTableName=name, ReplicationGroup=[
            {"RegionName": EAST}, {"RegionName": OHIO}])
    assert_error(caught, "TableNotFoundException", legacy.TABLE_MISSING.format(name, OHIO))


def test_replica_auto_scaling(regions: Callable[..., Clients]) -> None:
    client = regions()
    east = client(EAST)
    name = unique_name("scaling")
    _table(east, name)
    with pytest.raises(ClientError) as caught:
        east.describe_table_replica_auto_scaling(TableName=name)
    assert_error(caught, "ResourceNotFoundException", scaling.NOT_GLOBAL.format(name))
    _add_replica(east, name, WEST)
    described = east.describe_table_replica_auto_scaling(TableName=name)[
        "TableAutoScalingDescription"]
    assert [(r["RegionName"], r["ReplicaStatus"]) for r in described["Replicas"]] == [
        (EAST, "ACTIVE"), (WEST, "ACTIVE")]
    east.update_table_replica_auto_scaling(
        TableName=name, ProvisionedWriteCapacityAutoScalingUpdate={"AutoScalingDisabled": True})
    with pytest.raises(ClientError) as caught:
        east.update_table_replica_auto_scaling(
            TableName=name, ProvisionedWriteCapacityAutoScalingUpdate={
                "MinimumUnits": 1, "MaximumUnits": 10})
    assert_error(caught, "ValidationException", None)
    assert "BillingMode is PayPerRequest" in caught.value.response["Error"]["Message"]


def test_the_console_reads_the_replication_lag(tallydb_server_factory: Callable[..., Any]
                                               ) -> None:
    """What DynamoDB's API cannot give a console (the replication lag, which
    DynamoDB reports to CloudWatch): /console/api/replication."""
    server = tallydb_server_factory(in_memory=True, extra_args=(
        "--separate-regions", "--replication-delay", "600"))
    east = session_client(
        "dynamodb", endpoint_url=server.url, region_name=EAST, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY, config=CLIENT_CONFIG)
    name = unique_name("lag")
    _table(east, name)
    _add_replica(east, name, WEST)
    for n in range(3):
        east.put_item(TableName=name, Item={"pk": {"S": f"k{n}"}})

    def replicas() -> list[dict[str, Any]]:
        with urllib.request.urlopen(f"{server.url}/console/api/replication", timeout=30) as got:
            return list(json.load(got)["Replicas"])

    shown = {(r["TableName"], r["RegionName"]): r for r in replicas()}
    east_side, west_side = shown[name, EAST], shown[name, WEST]
    assert east_side["Replicas"] == [EAST, WEST] and east_side["Consistency"] == "EVENTUAL"
    assert east_side["PendingChanges"] == 3 and east_side["LagSeconds"] > 0
    assert west_side["PendingChanges"] == 0 and west_side["LagSeconds"] == 0


def test_time_to_live_is_the_groups(regions: Callable[..., Clients]) -> None:
    client = regions()
    east, west = client(EAST), client(WEST)
    name = unique_name("ttl")
    _table(east, name)
    _add_replica(east, name, WEST)
    west.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    for ddb in (east, west):
        described = ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
        assert described == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
    # The interval before another change is the group's too.
    with pytest.raises(ClientError) as caught:
        east.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": False, "AttributeName": "expires"})
    assert_error(caught, "ValidationException",
                 "Time to live has been modified multiple times within a fixed interval")


def test_an_index_is_the_groups(regions: Callable[..., Clients]) -> None:
    client = regions()
    east, west = client(EAST), client(WEST)
    name = unique_name("gsi")
    _table(east, name)
    _add_replica(east, name, WEST)
    for n in range(6):
        east.put_item(TableName=name, Item={"pk": {"S": f"k{n}"}, "colour": {"S": f"c{n % 2}"}})
    wait_for(lambda: west.scan(TableName=name, Select="COUNT")["Count"] == 6, "replicated")
    west.update_table(
        TableName=name, AttributeDefinitions=[{"AttributeName": "colour", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "byColour", "KeySchema": [{"AttributeName": "colour", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    for ddb in (east, west):
        found = ddb.query(TableName=name, IndexName="byColour",
                          KeyConditionExpression="colour = :c",
                          ExpressionAttributeValues={":c": {"S": "c1"}})
        assert found["Count"] == 3


def test_strong_consistency_refuses_a_table_with_an_lsi_or_ttl(
        regions: Callable[..., Clients]) -> None:
    client = regions()
    east = client(EAST)
    strong = {"MultiRegionConsistency": "STRONG",
              "ReplicaUpdates": [{"Create": {"RegionName": WEST}}],
              "GlobalTableWitnessUpdates": [{"Create": {"RegionName": OHIO}}]}
    indexed = unique_name("lsi")
    _table(east, indexed, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                     {"AttributeName": "sk", "KeyType": "RANGE"}],
           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "S"},
                                 {"AttributeName": "at", "AttributeType": "N"}],
           LocalSecondaryIndexes=[{
               "IndexName": "byAt", "Projection": {"ProjectionType": "KEYS_ONLY"},
               "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                             {"AttributeName": "at", "KeyType": "RANGE"}]}])
    with pytest.raises(ClientError) as caught:
        east.update_table(TableName=indexed, **strong)
    assert_error(caught, "ValidationException", rules.STRONG_LSI)
    expiring = unique_name("ttl")
    _table(east, expiring)
    east.update_time_to_live(TableName=expiring, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    with pytest.raises(ClientError) as caught:
        east.update_table(TableName=expiring, **strong)
    assert_error(caught, "ValidationException", rules.STRONG_TTL)
    for name in (indexed, expiring):
        assert "Replicas" not in east.describe_table(TableName=name)["Table"]
