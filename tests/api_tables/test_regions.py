"""Regions: ARNs name the region a request was signed for; tables are shared
by every region by default (DynamoDB Local's -sharedDb) and each region's own
with --separate-regions (DynamoDB: a table lives in one region).

Each case runs through boto3 against ``tallydb serve`` (clients signed for
two regions) and in-process (``inprocess.client(engine, region_name=...)``).
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.exceptions import ClientError
from tallytest import ACCESS_KEY, CLIENT_CONFIG, SECRET_KEY, error_of, session_client

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store
from tallydb.toolkit import inprocess

EAST, WEST = "us-east-1", "eu-west-1"
Clients = Callable[..., Any]


def _arn(region: str, rest: str) -> str:
    return f"arn:aws:dynamodb:{region}:000000000000:{rest}"


def _table(ddb: Any, name: str, *, stream: bool = False, index: bool = False) -> dict[str, Any]:
    request: dict[str, Any] = {
        "TableName": name,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    if stream:
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    if index:
        request["SSESpecification"] = {"Enabled": True, "SSEType": "KMS"}
        request["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        request["GlobalSecondaryIndexes"] = [{
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]
    description: dict[str, Any] = ddb.create_table(**request)["TableDescription"]
    return description


@pytest.fixture(params=["server", "inprocess"])
def regions(
    request: pytest.FixtureRequest, tallydb_server_factory: Callable[..., Any]
) -> Iterator[Callable[[bool], Clients]]:
    """``regions(separate)``: a function giving a client of a region (of
    DynamoDB, or with ``"dynamodbstreams"`` of its Streams), over a fresh
    server (or engine) with shared or separate regions."""
    engines: list[Engine] = []

    def make(separate: bool) -> Clients:
        if request.param == "server":
            args = ("--separate-regions",) if separate else ()
            server = tallydb_server_factory(in_memory=True, extra_args=args)
            return lambda region, service="dynamodb": session_client(
                service, endpoint_url=server.url, region_name=region,
                aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
                config=CLIENT_CONFIG)
        engine = Engine(Store(None), separate_regions=separate)
        engines.append(engine)
        return lambda region, service="dynamodb": (
            inprocess.client if service == "dynamodb" else inprocess.streams_client)(
                engine, region_name=region, config=CLIENT_CONFIG)

    yield make
    for engine in engines:
        engine.close()


def test_arns_name_the_region_each_request_was_signed_for(
    regions: Callable[[bool], Clients],
) -> None:
    client = regions(False)
    east, west = client(EAST), client(WEST)
    created = _table(east, "plays", stream=True, index=True)
    assert created["TableArn"] == _arn(EAST, "table/plays")
    assert created["GlobalSecondaryIndexes"][0]["IndexArn"] == _arn(EAST, "table/plays/index/by_g")
    label = created["LatestStreamLabel"]
    assert created["LatestStreamArn"] == _arn(EAST, f"table/plays/stream/{label}")
    seen = west.describe_table(TableName="plays")["Table"]
    assert seen["TableArn"] == _arn(WEST, "table/plays")
    assert seen["GlobalSecondaryIndexes"][0]["IndexArn"] == _arn(WEST, "table/plays/index/by_g")
    assert seen["LatestStreamArn"] == _arn(WEST, f"table/plays/stream/{label}")
    assert seen["SSEDescription"]["KMSMasterKeyArn"].startswith(
        "arn:aws:kms:eu-west-1:000000000000:")
    west_streams = client(WEST, "dynamodbstreams")
    streams = west_streams.list_streams(TableName="plays")["Streams"]
    assert [s["StreamArn"] for s in streams] == [seen["LatestStreamArn"]]
    stream = west_streams.describe_stream(StreamArn=seen["LatestStreamArn"])["StreamDescription"]
    assert stream["StreamArn"] == seen["LatestStreamArn"]


def test_a_table_is_named_by_its_arn_in_the_callers_region(
    regions: Callable[[bool], Clients],
) -> None:
    client = regions(False)
    east, west = client(EAST), client(WEST)
    _table(east, "plays")
    arn = west.describe_table(TableName="plays")["Table"]["TableArn"]
    west.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "audio"}])
    assert west.list_tags_of_resource(ResourceArn=arn)["Tags"] == [
        {"Key": "team", "Value": "audio"}]
    assert west.describe_table(TableName=arn)["Table"]["TableName"] == "plays"
    backup = west.create_backup(TableName="plays", BackupName="fixture")["BackupDetails"]
    assert backup["BackupArn"].startswith(_arn(WEST, "table/plays/backup/"))
    described = west.describe_backup(BackupArn=backup["BackupArn"])["BackupDescription"]
    assert described["SourceTableDetails"]["TableArn"] == _arn(WEST, "table/plays")
    restored = west.restore_table_from_backup(
        TargetTableName="plays2", BackupArn=backup["BackupArn"])["TableDescription"]
    assert restored["TableArn"] == _arn(WEST, "table/plays2")


def test_shared_regions_see_the_same_tables(regions: Callable[[bool], Clients]) -> None:
    client = regions(False)
    east, west = client(EAST), client(WEST)
    _table(east, "plays")
    west.update_item(TableName="plays", Key={"pk": {"S": "a"}},
                     UpdateExpression="ADD n :one", ExpressionAttributeValues={":one": {"N": "1"}})
    assert east.get_item(TableName="plays", Key={"pk": {"S": "a"}})["Item"]["n"] == {"N": "1"}
    assert west.list_tables()["TableNames"] == ["plays"]
    with pytest.raises(ClientError) as excinfo:
        _table(west, "plays")
    assert error_of(excinfo)[0] == "ResourceInUseException"


def test_separate_regions_keep_their_own_tables(regions: Callable[[bool], Clients]) -> None:
    client = regions(True)
    east, west = client(EAST), client(WEST)
    _table(east, "plays")
    _table(west, "plays")  # another table, of the same name
    _table(west, "only_west")
    east.put_item(TableName="plays", Item={"pk": {"S": "a"}, "v": {"S": "east"}})
    west.put_item(TableName="plays", Item={"pk": {"S": "a"}, "v": {"S": "west"}})
    assert east.get_item(TableName="plays", Key={"pk": {"S": "a"}})["Item"]["v"] == {"S": "east"}
    assert west.get_item(TableName="plays", Key={"pk": {"S": "a"}})["Item"]["v"] == {"S": "west"}
    assert east.list_tables()["TableNames"] == ["plays"]
    assert west.list_tables()["TableNames"] == ["only_west", "plays"]
    # DynamoDB: a table of another region is not found (DescribeTable's message)
    with pytest.raises(ClientError) as excinfo:
        east.describe_table(TableName="only_west")
    assert error_of(excinfo) == (
        "ResourceNotFoundException", "Requested resource not found: Table: only_west not found",
        400)
    with pytest.raises(ClientError) as excinfo:
        east.get_item(TableName="only_west", Key={"pk": {"S": "a"}})
    assert error_of(excinfo) == ("ResourceNotFoundException", "Requested resource not found", 400)
    west_arn = _arn(WEST, "table/plays")
    with pytest.raises(ClientError) as excinfo:  # another region's table, by its ARN
        east.describe_table(TableName=west_arn)
    # (DynamoDB's words for this are not on record: DescribeTable's not-found)
    assert error_of(excinfo) == (
        "ResourceNotFoundException", f"Requested resource not found: Table: {west_arn} not found",
        400)
    east.delete_table(TableName="plays")
    assert west.describe_table(TableName="plays")["Table"]["TableArn"] == west_arn


def test_separate_regions_survive_a_restart(
    tallydb_server_factory: Callable[..., Any],
) -> None:
    server = tallydb_server_factory(extra_args=("--separate-regions",))

    def client(region: str) -> Any:
        return _client(server.url, region)

    _table(client(EAST), "plays")
    _table(client(WEST), "plays")
    client(WEST).put_item(TableName="plays", Item={"pk": {"S": "a"}})
    server.restart()
    assert client(WEST).scan(TableName="plays")["Count"] == 1
    assert client(EAST).scan(TableName="plays")["Count"] == 0
    assert client("ap-south-1").list_tables()["TableNames"] == []


def test_tables_kept_with_shared_regions_open_in_us_east_1(
    tallydb_server_factory: Callable[..., Any],
) -> None:
    shared = tallydb_server_factory()
    _table(_client(shared.url, WEST), "plays")
    shared.stop()
    separate = tallydb_server_factory(data=shared.data, extra_args=("--separate-regions",))
    assert _client(separate.url, EAST).list_tables()["TableNames"] == ["plays"]
    assert _client(separate.url, WEST).list_tables()["TableNames"] == []


def _client(url: str, region: str) -> Any:
    return session_client(
        "dynamodb", endpoint_url=url, region_name=region, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY, config=CLIENT_CONFIG)


def _describe(url: str, headers: dict[str, str]) -> tuple[int, Any]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("POST", "/", body=json.dumps({"TableName": "plays"}), headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810.DescribeTable", **headers})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "AWS4-HMAC-SHA256 Credential=x/20260101/EU WEST!/dynamodb/aws4_request"},
    {"Authorization": "Bearer token"},
], ids=["unsigned", "unreadable-region", "no-scope"])
def test_a_request_without_a_region_runs_in_us_east_1(
    tallydb_server_factory: Callable[..., Any], headers: dict[str, str],
) -> None:
    server = tallydb_server_factory(in_memory=True, extra_args=("--separate-regions",))
    _table(_client(server.url, EAST), "plays")
    status, body = _describe(server.url, headers)
    assert status == 200
    assert body["Table"]["TableArn"] == _arn(EAST, "table/plays")


@pytest.mark.parametrize("separate", [False, True], ids=["shared", "separate"])
def test_stream_records_carry_the_tables_region(
    regions: Callable[[bool], Clients], separate: bool,
) -> None:
    # DynamoDB writes the table's region in each record's awsRegion (the
    # Streams API reference, Record); DynamoDB Local writes "ddblocal".
    client = regions(separate)
    west = client(WEST)
    arn = _table(west, "plays", stream=True)["LatestStreamArn"]
    west.put_item(TableName="plays", Item={"pk": {"S": "a"}})
    streams = client(WEST, "dynamodbstreams")
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = streams.get_records(ShardIterator=iterator)["Records"]
    assert [r["awsRegion"] for r in records] == [WEST]
