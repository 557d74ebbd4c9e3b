"""Every operation the engine serves, for every kind of key, on a table the
key may use and on one it may not, with and without decoy members: the
answer is AccessDeniedException exactly when the engine's own resolution
of the request names something the key may not do.

The operations come from the registry: one without an ``ACCESS``
declaration, or without a template here, fails ``test_every_operation_*``.
Each template also says which tables its request is about, so a resolution
that names another table (a decoy's, or none) fails too. The requests go
through the real server code (HTTP, SigV4, routing, the batcher) in front
of a real engine, and straight into ``Engine.call`` in-process.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from serverkit import TIMEOUT, StubServer

from tallydb.engine.api import ACCESS, OPERATIONS, Access, Engine, target_of
from tallydb.engine.api._shapes import model_members
from tallydb.engine.errors import AccessDeniedException, DynamoDBError
from tallydb.engine.storage import Store
from tallydb.server.credentials import Key

ALLOWED, FORBIDDEN = "allowed", "forbidden"
SIDES = (ALLOWED, FORBIDDEN)
#: Each kind of key: (read-only, tables it is limited to; None: all).
KINDS: dict[str, tuple[bool, frozenset[str] | None]] = {
    "full": (False, None),
    "read-only": (True, None),
    "limited": (False, frozenset({ALLOWED, ALLOWED + "_new"})),
    "read-only-limited": (True, frozenset({ALLOWED, ALLOWED + "_new"})),
}
KEYS = {f"AKID{kind.upper().replace('-', '')}": Key(f"{kind}-secret", *rule)
        for kind, rule in KINDS.items()}
ID = {"id": {"S": "v1"}}
REGION = "us-east-1"


class World:
    """Two tables alike (``allowed``, ``forbidden``): a GSI, a stream, an
    item, tags and a backup each; made again before each operation's cases."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.stream: dict[str, str] = {}
        self.backup: dict[str, str] = {}
        self.iterator: dict[str, str] = {}
        self.shard: dict[str, str] = {}
        self.export: dict[str, str] = {}
        self.import_: dict[str, str] = {}
        self.bulk: dict[str, str] = {}

    def call(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        return self.engine.call(operation, request)

    def reset(self) -> None:
        for name in self.call("ListTables", {})["TableNames"]:
            self.call("DeleteTable", {"TableName": name})
        for summary in self.call("ListBackups", {})["BackupSummaries"]:
            self.call("DeleteBackup", {"BackupArn": summary["BackupArn"]})
        for side in SIDES:
            table = self.call("CreateTable", {
                "TableName": side, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                                         {"AttributeName": "plays", "AttributeType": "N"}],
                "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
                "GlobalSecondaryIndexes": [{
                    "IndexName": "byplays", "Projection": {"ProjectionType": "ALL"},
                    "KeySchema": [{"AttributeName": "plays", "KeyType": "HASH"}]}],
                "StreamSpecification": {"StreamEnabled": True,
                                        "StreamViewType": "NEW_AND_OLD_IMAGES"},
                "Tags": [{"Key": "team", "Value": side}],
            })["TableDescription"]
            self.call("PutItem", {"TableName": side, "Item": {**ID, "plays": {"N": "5"}}})
            self.stream[side] = table["LatestStreamArn"]
            shards = self.call("DescribeStream", {"StreamArn": self.stream[side]})
            self.shard[side] = shards["StreamDescription"]["Shards"][0]["ShardId"]
            self.iterator[side] = self.call("GetShardIterator", {
                "StreamArn": self.stream[side], "ShardId": self.shard[side],
                "ShardIteratorType": "TRIM_HORIZON"})["ShardIterator"]
            self.backup[side] = self.call("CreateBackup", {
                "TableName": side, "BackupName": f"{side}-backup"})["BackupDetails"]["BackupArn"]
            self.call("UpdateContinuousBackups", {
                "TableName": side,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
            self.export[side] = self.call("ExportTableToPointInTime", {
                "TableArn": table["TableArn"], "S3Bucket": EXPORTS})["ExportDescription"][
                "ExportArn"]
            self.import_[side] = self.call("ImportTable", imported(side + "_new"))[
                "ImportTableDescription"]["ImportArn"]
            self.call("DeleteTable", {"TableName": side + "_new"})
            self.bulk[side] = self.call("StartBulkPutItems", bulk(side))[
                "BulkOperationDescription"]["BulkOperationArn"]

    @staticmethod
    def arn(table: str) -> str:
        return f"arn:aws:dynamodb:{REGION}:000000000000:table/{table}"


@dataclass(frozen=True)
class Case:
    """One operation's request about one side, and the tables it is about."""

    request: dict[str, Any]
    tables: tuple[str, ...]


def imported(table: str) -> dict[str, Any]:
    """An ImportTable request creating ``table`` (from an empty bucket)."""
    return {"S3BucketSource": {"S3Bucket": "matrix"}, "InputFormat": "DYNAMODB_JSON",
            "TableCreationParameters": {
                "TableName": table, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}


def bulk(table: str) -> dict[str, Any]:
    """A StartBulkPutItems request into ``table`` (from an empty bucket)."""
    return {"TableName": table,
            "InputS3Configuration": {"S3Bucket": "matrix", "InputFormat": "DYNAMODB_JSON"},
            "OutputS3Configuration": {"S3Bucket": EXPORTS, "OutputType": ["ERROR"]}}


#: Exports (and bulk puts' errors) go here, never to the bucket imports and
#: bulk puts read ("matrix", always empty): else each job would read every
#: export made before it, and the jobs would pile up.
EXPORTS = "matrix-exports"
KINESIS = "arn:aws:kinesis:us-east-1:000000000000:stream/matrix"
POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:root"},
    "Action": "dynamodb:GetItem", "Resource": "*"}]})


def _select(t: str) -> str:
    return f"SELECT * FROM \"{t}\" WHERE id = 'v1'"


def _update(t: str) -> str:
    return f"UPDATE \"{t}\" SET plays = 7 WHERE id = 'v1'"


#: Each served operation: its request about table ``t`` of the world ``w``.
TEMPLATES: dict[str, Callable[[World, str], Case]] = {
    "BatchExecuteStatement": lambda w, t: Case({"Statements": [{"Statement": _select(t)}]},
                                               (t,)),
    "BatchGetItem": lambda w, t: Case({"RequestItems": {t: {"Keys": [ID]}}}, (t,)),
    "BatchWriteItem": lambda w, t: Case(
        {"RequestItems": {t: [{"PutRequest": {"Item": {"id": {"S": "v2"}}}}]}}, (t,)),
    "CreateBackup": lambda w, t: Case({"TableName": t, "BackupName": "matrix"}, (t,)),
    "CreateTable": lambda w, t: Case({
        "TableName": t + "_new", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}, (t + "_new",)),
    "DeleteBackup": lambda w, t: Case({"BackupArn": w.backup[t]}, (t,)),
    "DeleteItem": lambda w, t: Case({"TableName": t, "Key": ID}, (t,)),
    "DeleteTable": lambda w, t: Case({"TableName": t}, (t,)),
    "DescribeBackup": lambda w, t: Case({"BackupArn": w.backup[t]}, (t,)),
    "DescribeContinuousBackups": lambda w, t: Case({"TableName": t}, (t,)),
    "CancelBulkOperation": lambda w, t: Case({"BulkOperationArn": w.bulk[t]}, (t,)),
    "DeleteResourcePolicy": lambda w, t: Case({"ResourceArn": w.arn(t)}, (t,)),
    "DescribeBulkOperation": lambda w, t: Case({"BulkOperationArn": w.bulk[t]}, (t,)),
    "DescribeContributorInsights": lambda w, t: Case(
        {"TableName": t, "IndexName": "byplays"}, (t,)),
    "DescribeKinesisStreamingDestination": lambda w, t: Case({"TableName": t}, (t,)),
    "DisableKinesisStreamingDestination": lambda w, t: Case(
        {"TableName": t, "StreamArn": KINESIS}, (t,)),
    "EnableKinesisStreamingDestination": lambda w, t: Case(
        {"TableName": t, "StreamArn": KINESIS}, (t,)),
    "GetResourcePolicy": lambda w, t: Case({"ResourceArn": w.stream[t]}, (t,)),
    "ListBulkOperations": lambda w, t: Case({}, ()),
    "ListContributorInsights": lambda w, t: Case({"TableName": t}, (t,)),
    "PutResourcePolicy": lambda w, t: Case({"ResourceArn": w.arn(t), "Policy": POLICY}, (t,)),
    "RestoreTableToPointInTime": lambda w, t: Case(
        {"SourceTableName": t, "TargetTableName": t + "_new", "UseLatestRestorableTime": True},
        (t, t + "_new")),
    "StartBulkPutItems": lambda w, t: Case(bulk(t), (t,)),
    "UpdateContributorInsights": lambda w, t: Case(
        {"TableName": t, "ContributorInsightsAction": "ENABLE"}, (t,)),
    "UpdateKinesisStreamingDestination": lambda w, t: Case(
        {"TableName": t, "StreamArn": KINESIS, "UpdateKinesisStreamingConfiguration": {
            "ApproximateCreationDateTimePrecision": "MICROSECOND"}}, (t,)),
    "CreateGlobalTable": lambda w, t: Case(
        {"GlobalTableName": t, "ReplicationGroup": [{"RegionName": REGION}]}, (t,)),
    "DescribeGlobalTable": lambda w, t: Case({"GlobalTableName": t}, (t,)),
    "DescribeGlobalTableSettings": lambda w, t: Case({"GlobalTableName": t}, (t,)),
    "UpdateGlobalTable": lambda w, t: Case(
        {"GlobalTableName": t, "ReplicaUpdates": [{"Create": {"RegionName": "eu-west-1"}}]},
        (t,)),
    "UpdateGlobalTableSettings": lambda w, t: Case(
        {"GlobalTableName": t, "GlobalTableBillingMode": "PAY_PER_REQUEST"}, (t,)),
    "ListGlobalTables": lambda w, t: Case({}, ()),
    "DescribeTableReplicaAutoScaling": lambda w, t: Case({"TableName": t}, (t,)),
    "UpdateTableReplicaAutoScaling": lambda w, t: Case(
        {"TableName": t, "ProvisionedWriteCapacityAutoScalingUpdate": {
            "AutoScalingDisabled": True}}, (t,)),
    "DescribeEndpoints": lambda w, t: Case({}, ()),
    "DescribeExport": lambda w, t: Case({"ExportArn": w.export[t]}, (t,)),
    "DescribeImport": lambda w, t: Case({"ImportArn": w.import_[t]}, (t + "_new",)),
    "DescribeLimits": lambda w, t: Case({}, ()),
    "DescribeStream": lambda w, t: Case({"StreamArn": w.stream[t]}, (t,)),
    "DescribeTable": lambda w, t: Case({"TableName": w.arn(t)}, (t,)),
    "DescribeTimeToLive": lambda w, t: Case({"TableName": t}, (t,)),
    "ExecuteStatement": lambda w, t: Case({"Statement": _update(t)}, (t,)),
    "ExportTableToPointInTime": lambda w, t: Case(
        {"TableArn": w.arn(t), "S3Bucket": EXPORTS}, (t,)),
    "ImportTable": lambda w, t: Case(imported(t + "_new"), (t + "_new",)),
    "ListExports": lambda w, t: Case({"TableArn": w.arn(t)}, (t,)),
    "ListImports": lambda w, t: Case({"TableArn": w.arn(t)}, (t,)),
    "ExecuteTransaction": lambda w, t: Case(
        {"TransactStatements": [{"Statement": _update(t)}]}, (t,)),
    "GetItem": lambda w, t: Case({"TableName": t, "Key": ID}, (t,)),
    "GetRecords": lambda w, t: Case({"ShardIterator": w.iterator[t]}, (t,)),
    "GetShardIterator": lambda w, t: Case({
        "StreamArn": w.stream[t], "ShardId": w.shard[t], "ShardIteratorType": "LATEST"}, (t,)),
    "ListBackups": lambda w, t: Case({"TableName": t}, (t,)),
    "ListStreams": lambda w, t: Case({"TableName": t}, (t,)),
    "ListTables": lambda w, t: Case({}, ()),
    "ListTagsOfResource": lambda w, t: Case({"ResourceArn": w.arn(t)}, (t,)),
    "PutItem": lambda w, t: Case({"TableName": t, "Item": {"id": {"S": "v3"}}}, (t,)),
    "Query": lambda w, t: Case({
        "TableName": t, "IndexName": "byplays", "KeyConditionExpression": "plays = :p",
        "ExpressionAttributeValues": {":p": {"N": "5"}}}, (t,)),
    "RestoreTableFromBackup": lambda w, t: Case(
        {"BackupArn": w.backup[t], "TargetTableName": t + "_new"}, (t, t + "_new")),
    "Scan": lambda w, t: Case({"TableName": t, "IndexName": "byplays"}, (t,)),
    "TagResource": lambda w, t: Case(
        {"ResourceArn": w.arn(t), "Tags": [{"Key": "k", "Value": "v"}]}, (t,)),
    "TransactGetItems": lambda w, t: Case(
        {"TransactItems": [{"Get": {"TableName": t, "Key": ID}}]}, (t,)),
    "TransactWriteItems": lambda w, t: Case({"TransactItems": [
        {"Update": {"TableName": t, "Key": ID, "UpdateExpression": "ADD plays :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}}}]}, (t,)),
    "UntagResource": lambda w, t: Case({"ResourceArn": w.arn(t), "TagKeys": ["team"]}, (t,)),
    "UpdateContinuousBackups": lambda w, t: Case({
        "TableName": t,
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}}, (t,)),
    "UpdateItem": lambda w, t: Case({
        "TableName": t, "Key": ID, "UpdateExpression": "ADD plays :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}}}, (t,)),
    "UpdateTable": lambda w, t: Case({"TableName": t, "BillingMode": "PAY_PER_REQUEST"}, (t,)),
    "UpdateTimeToLive": lambda w, t: Case({
        "TableName": t,
        "TimeToLiveSpecification": {"Enabled": True, "AttributeName": "ttl"}}, (t,)),
}


def decoys(world: World, operation: str, other: str) -> dict[str, Any]:
    """Every member that names a resource somewhere in DynamoDB's API, about
    the ``other`` side, that ``operation`` does not have: a reading of the
    request other than the operation's would find them."""
    every = {
        "TableName": other, "TargetTableName": other + "_new", "ResourceArn": world.arn(other),
        "RequestItems": {other: {"Keys": [ID]}},
        "TransactItems": [{"Put": {"TableName": other, "Item": ID}}],
        "Statement": _update(other), "Statements": [{"Statement": _update(other)}],
        "TransactStatements": [{"Statement": _update(other)}],
        "StreamArn": world.stream[other], "ShardIterator": world.iterator[other],
        "BackupArn": world.backup[other], "IndexName": "byplays", "TableArn": world.arn(other),
        "ExportArn": world.export[other], "ImportArn": world.import_[other],
        "TableCreationParameters": imported(other + "_new")["TableCreationParameters"],
        "BulkOperationArn": world.bulk[other], "SourceTableName": other,
        "SourceTableArn": world.arn(other), "GlobalTableName": other,
    }
    have = set(model_members(operation))
    return {name: value for name, value in every.items() if name not in have}


def allowed_by(kind: str, touches: tuple[Any, ...]) -> bool:
    read_only, tables = KINDS[kind]
    access = Access("AKID", REGION, read_only, tables)
    return all(access.allows(touch) for touch in touches)


# --- the registry ---------------------------------------------------------------------


def test_every_operation_declares_what_it_touches() -> None:
    assert set(OPERATIONS) - set(ACCESS) == set(), "operations without an ACCESS declaration"


def test_every_operation_has_a_case_here() -> None:
    assert set(OPERATIONS) - set(TEMPLATES) == set(), "operations the matrix does not cover"
    assert set(TEMPLATES) - set(OPERATIONS) == set()


# --- the matrix -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StubServer, World]]:
    engine = Engine(Store(tmp_path_factory.mktemp("matrix")))
    server = StubServer(credentials=KEYS, engine=engine)
    world = World(engine)
    yield server, world
    for name in engine.call("ListTables", {})["TableNames"]:  # (their jobs and destinations)
        engine.call("DeleteTable", {"TableName": name})
    server.stop(timeout=120)  # background jobs end first


def send(url: str, operation: str, body: dict[str, Any], key: str) -> tuple[int, dict[str, Any]]:
    data = json.dumps(body).encode()
    request = AWSRequest(method="POST", url=url + "/", data=data, headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target_of(operation)})
    SigV4Auth(Credentials(key, KEYS[key].secret), "dynamodb", REGION).add_auth(request)
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    try:
        conn.request("POST", "/", body=data, headers=dict(request.headers.items()))
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read() or b"{}")
    finally:
        conn.close()


@pytest.mark.parametrize("via", ["http", "engine"])
@pytest.mark.parametrize("operation", sorted(TEMPLATES))
def test_the_decision_is_the_engines_resolution(
        served: tuple[StubServer, World], operation: str, via: str) -> None:
    server, world = served
    world.reset()
    seen: list[tuple[str, str, bool, bool]] = []
    for side in SIDES:
        other = FORBIDDEN if side == ALLOWED else ALLOWED
        case = TEMPLATES[operation](world, side)
        touches = world.engine.resolve(operation, case.request, REGION)
        assert {t.table for t in touches if t.table is not None} == set(case.tables), (
            operation, side, touches)
        decoyed = {**case.request, **decoys(world, operation, other)}
        assert world.engine.resolve(operation, decoyed, REGION) == touches, (
            "a decoy member changed what the engine resolves", operation)
        for kind in KINDS:
            expected = allowed_by(kind, touches)
            for request in (case.request, decoyed):
                key = f"AKID{kind.upper().replace('-', '')}"
                if via == "http":
                    status, body = send(server.url, operation, request, key)
                    refused = str(body.get("__type", "")).endswith("#AccessDeniedException")
                    assert status != 500, body
                else:
                    read_only, tables = KINDS[kind]
                    try:
                        world.engine.call(operation, request, REGION,
                                          Access(key, REGION, read_only, tables))
                        refused = False
                    except AccessDeniedException:
                        refused = True
                    except DynamoDBError:
                        refused = False
                assert refused is not expected, (operation, side, kind, request is decoyed)
                seen.append((side, kind, request is decoyed, refused))
    # the matrix is not empty on either side: a full key is never refused, and
    # a limited key is refused on the forbidden side of anything about a table
    assert not any(refused for side, kind, _, refused in seen if kind == "full")
    if TEMPLATES[operation](world, FORBIDDEN).tables:
        assert all(refused for side, kind, _, refused in seen
                   if side == FORBIDDEN and kind == "limited")


def test_the_registry_is_what_the_server_serves(served: tuple[StubServer, World]) -> None:
    server, _ = served
    assert set(server.server.router.targets.values()) == set(OPERATIONS)

