"""Fuzz harness: seeded random and near-valid requests for every operation,
and raw-HTTP abuse, against a real `tallydb serve`.

    .venv/bin/python -m bench.fuzz --cases 500000 --seed 1     # the long run
    .venv/bin/python -m bench.fuzz --cases 2000                # a quick look
    .venv/bin/python -m bench.fuzz --cases 2000 --credentials  # signed, four kinds of key

Requests start from a valid one per operation (every operation tallydb
serves, Streams and backups included: ``test_bench_smoke`` checks the list
against the registry; operations of botocore's DynamoDB model tallydb does
not serve get random bodies; the item operations also in their legacy
parameters)
and are mutated: a value anywhere replaced by a wrong JSON type, null, a
deep nest or a long string; a member dropped or added; an expression
replaced by a soup of the expression language's tokens. One case in 20 is
raw HTTP instead: truncated bodies, wrong lengths, huge headers,
pipelining, invalid UTF-8, deep JSON, chunked garbage.

With ``--credentials`` the server has keys of every kind (read-write,
read-only, limited to a table, both) and each case is signed by one of
them, so the mutated requests go through the access check too.

Checks: no 500; no answer slower than --hang seconds; every answer
DynamoDB-shaped (JSON with a ``__type``, or DynamoDB's 404 body, or an empty
answer to broken HTTP); the server stays up; a write that is refused
changes nothing (each table's ItemCount and TableSizeBytes after every
refused write, and a full scan before and after one write case in 100).
Prints the figures and the first few failures of each kind; exits 1 on any.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import http.client
import json
import random
import socket
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import botocore.session

from bench.harness import Client, Server
from tallydb.engine.api import NO_OUTPUT

WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
                    "TransactWriteItems", "ExecuteStatement", "BatchExecuteStatement",
                    "ExecuteTransaction"})
TABLES = ("fuzz", "fuzzh")
TOKENS = ["(", ")", "AND", "OR", "NOT", "#n", "#m", ":v", ":w", "a.b[0]", "=", "<>", "<",
          "<=", ">", ">=", "BETWEEN", "IN", "size(", "attribute_exists(", "attribute_type(",
          "begins_with(", "contains(", ",", "SET", "REMOVE", "ADD", "DELETE", "+", "-",
          "if_not_exists(", "list_append(", "pk", "sk", "n", "[", "]", ".", "1", "\u00e9",
          "f(", "#", ":", " "]
KEYS = [{"pk": {"S": f"k{n}"}, "sk": {"N": str(n % 3)}} for n in range(12)]


def _nest(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _strange(rng: random.Random) -> Any:
    return rng.choice([
        None, 0, -1, 1.5, 10**40, "", "x" * rng.choice([1, 300, 70000]), [], {}, True, False,
        {"S": None}, {"N": "abc"}, {"N": "1e999"}, {"M": 5}, {"L": {}}, {"SS": []},
        {"B": "not base64!"}, {"S": "a", "N": "1"}, {"NULL": False}, {"BOOL": "yes"},
        _nest(rng.choice([50, 300, 900])), "\ud800" if rng.random() < 0.01 else "\u2603",
        [None], {"": None}, {"#n": None}, "(" * 300 + "x" + ")" * 300,
    ])


#: The keys of ``--credentials``: (secret, TOML lines of what it may do).
CREDENTIALS = {
    "AKIDFULL": ("full-secret", ""),
    "AKIDREADER": ("reader-secret", 'access = "read-only"'),
    "AKIDLIMITED": ("limited-secret", 'tables = ["fuzz"]'),
    "AKIDBOTH": ("both-secret", 'access = "read-only"\ntables = ["fuzzh"]'),
}
#: Filled in by ``Fuzz.setup`` (a stream, its shard and an iterator, a
#: backup): the templates that name them read it when they are built.
WORLD = {"stream": "arn:aws:dynamodb:ddblocal:000000000000:table/fuzz/stream/x",
         "shard": "shardId-0", "iterator": "x", "backup": "arn:x", "table": "arn:x",
         "export": "arn:x", "import": "arn:x", "bulk": "arn:x"}
KINESIS = "arn:aws:kinesis:us-east-1:000000000000:stream/fuzz"
POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:root"},
    "Action": "dynamodb:GetItem", "Resource": "*"}]})
BULK = {"TableName": "fuzzh",
        "InputS3Configuration": {"S3Bucket": "fuzz-bucket", "S3KeyPrefix": "p",
                                 "InputFormat": "DYNAMODB_JSON"},
        "OutputS3Configuration": {"S3Bucket": "fuzz-bucket", "OutputType": ["ERROR"]}}


def templates() -> dict[str, dict[str, Any]]:
    """A valid request per operation tallydb serves."""
    item = {"pk": {"S": "k1"}, "sk": {"N": "1"}, "n": {"N": "5"}, "l": {"L": [{"N": "1"}]},
            "m": {"M": {"a": {"S": "x"}}}, "gk": {"S": "g"}, "ss": {"SS": ["a", "b"]}}
    key = {"pk": {"S": "k1"}, "sk": {"N": "1"}}
    names, values = {"#n": "n", "#m": "m"}, {":v": {"N": "1"}, ":w": {"S": "x"}}
    arn = "arn:aws:dynamodb:ddblocal:000000000000:table/fuzz"
    return {
        "PutItem": {"TableName": "fuzz", "Item": item, "ReturnValues": "ALL_OLD",
                    "ConditionExpression": "attribute_exists(pk)"},
        "GetItem": {"TableName": "fuzz", "Key": key, "ProjectionExpression": "#n, m.a",
                    "ExpressionAttributeNames": {"#n": "n"}},
        "UpdateItem": {"TableName": "fuzz", "Key": key,
                       "UpdateExpression": "ADD #n :v SET #m.a = :w",
                       "ConditionExpression": "#n < :v OR attribute_not_exists(#n)",
                       "ExpressionAttributeNames": names, "ExpressionAttributeValues": values,
                       "ReturnValues": "UPDATED_NEW"},
        "DeleteItem": {"TableName": "fuzz", "Key": key, "ConditionExpression": "#n = :v",
                       "ExpressionAttributeNames": {"#n": "n"},
                       "ExpressionAttributeValues": {":v": {"N": "1"}}},
        "Query": {"TableName": "fuzz", "KeyConditionExpression": "pk = :v AND sk BETWEEN :a AND :b",
                  "ExpressionAttributeValues": {":v": {"S": "k1"}, ":a": {"N": "0"},
                                                ":b": {"N": "9"}},
                  "FilterExpression": "size(l) > :a", "Limit": 5, "ScanIndexForward": False},
        "Scan": {"TableName": "fuzz", "FilterExpression": "contains(ss, :w)",
                 "ExpressionAttributeValues": {":w": {"S": "a"}}, "Segment": 0,
                 "TotalSegments": 2, "Select": "COUNT"},
        "BatchWriteItem": {"RequestItems": {"fuzz": [{"PutRequest": {"Item": item}},
                                                   {"DeleteRequest": {"Key": KEYS[3]}}]}},
        "BatchGetItem": {"RequestItems": {"fuzz": {"Keys": [key, KEYS[2]],
                                                 "ProjectionExpression": "pk, n"}}},
        "TransactWriteItems": {"TransactItems": [
            {"Update": {"TableName": "fuzz", "Key": key, "UpdateExpression": "ADD n :v",
                        "ExpressionAttributeValues": {":v": {"N": "1"}}}},
            {"ConditionCheck": {"TableName": "fuzzh", "Key": {"id": {"S": "h1"}},
                                "ConditionExpression": "attribute_exists(id)"}}]},
        "TransactGetItems": {"TransactItems": [{"Get": {"TableName": "fuzz", "Key": key}}]},
        "CreateTable": {"TableName": "tmp", "AttributeDefinitions": [
            {"AttributeName": "id", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST"},
        "DeleteTable": {"TableName": "tmp"},
        "DescribeTable": {"TableName": "fuzz"},
        "ListTables": {"Limit": 3},
        "UpdateTable": {"TableName": "fuzz", "BillingMode": "PAY_PER_REQUEST"},
        "UpdateTimeToLive": {"TableName": "fuzzh", "TimeToLiveSpecification": {
            "Enabled": True, "AttributeName": "ttl"}},
        "DescribeTimeToLive": {"TableName": "fuzzh"},
        "ExecuteStatement": {"Statement": "SELECT * FROM fuzz WHERE pk = ? AND sk > ?",
                             "Parameters": [{"S": "k1"}, {"N": "0"}], "Limit": 2},
        "BatchExecuteStatement": {"Statements": [
            {"Statement": "UPDATE fuzz SET n = n + 1 WHERE pk = ? AND sk = 1",
             "Parameters": [{"S": "k1"}]},
            {"Statement": "SELECT n FROM fuzzh WHERE id = 'h1'"}]},
        "ExecuteTransaction": {"TransactStatements": [
            {"Statement": "UPDATE fuzz SET n = n + 1 SET l[0] = 'x' WHERE pk = 'k1' AND sk = 1"}],
            "ClientRequestToken": "fuzz-token"},
        "TagResource": {"ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]},
        "UntagResource": {"ResourceArn": arn, "TagKeys": ["k"]},
        "ListTagsOfResource": {"ResourceArn": arn},
        "ListBackups": {"TableName": "fuzz", "Limit": 2, "TimeRangeLowerBound": 0,
                        "TimeRangeUpperBound": 2e9, "BackupType": "USER"},
        "DescribeBackup": {"BackupArn": arn + "/backup/01700000000000-abcdef12"},
        "DescribeContinuousBackups": {"TableName": "fuzz"},
        "UpdateContinuousBackups": {"TableName": "fuzzh", "PointInTimeRecoverySpecification": {
            "PointInTimeRecoveryEnabled": True}},
        "DescribeLimits": {},
        "DescribeEndpoints": {},
        "CreateBackup": {"TableName": "fuzzh", "BackupName": "fuzz-backup"},
        "DeleteBackup": {"BackupArn": WORLD["backup"]},
        "RestoreTableFromBackup": {"BackupArn": WORLD["backup"], "TargetTableName": "tmp",
                                   "BillingModeOverride": "PAY_PER_REQUEST"},
        "ListStreams": {"TableName": "fuzz", "Limit": 2},
        "DescribeStream": {"StreamArn": WORLD["stream"], "Limit": 1},
        "GetShardIterator": {"StreamArn": WORLD["stream"], "ShardId": WORLD["shard"],
                             "ShardIteratorType": "AFTER_SEQUENCE_NUMBER",
                             "SequenceNumber": "000000000000000000001"},
        "GetRecords": {"ShardIterator": WORLD["iterator"], "Limit": 10},
        "ExportTableToPointInTime": {"TableArn": WORLD["table"], "S3Bucket": "fuzz-bucket",
                                     "S3Prefix": "p", "ExportFormat": "DYNAMODB_JSON"},
        "DescribeExport": {"ExportArn": WORLD["export"]},
        "ListExports": {"TableArn": WORLD["table"], "MaxResults": 5},
        "ImportTable": {"S3BucketSource": {"S3Bucket": "fuzz-bucket", "S3KeyPrefix": "p"},
                        "InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
                        "TableCreationParameters": {
                            "TableName": "tmp2", "BillingMode": "PAY_PER_REQUEST",
                            "AttributeDefinitions": [{"AttributeName": "id",
                                                      "AttributeType": "S"}],
                            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}},
        "DescribeImport": {"ImportArn": WORLD["import"]},
        "ListImports": {"PageSize": 5},
        "StartBulkPutItems": {**BULK, "MaxWriteRequestUnits": 100},
        "DescribeBulkOperation": {"BulkOperationArn": WORLD["bulk"]},
        "CancelBulkOperation": {"BulkOperationArn": WORLD["bulk"]},
        "ListBulkOperations": {"MaxResults": 3},
        "DescribeContributorInsights": {"TableName": "fuzz", "IndexName": "byg"},
        "UpdateContributorInsights": {"TableName": "fuzz", "ContributorInsightsAction": "ENABLE"},
        "ListContributorInsights": {"TableName": "fuzz", "MaxResults": 3},
        "EnableKinesisStreamingDestination": {"TableName": "fuzzh", "StreamArn": KINESIS},
        "DisableKinesisStreamingDestination": {"TableName": "fuzzh", "StreamArn": KINESIS},
        "UpdateKinesisStreamingDestination": {
            "TableName": "fuzzh", "StreamArn": KINESIS, "UpdateKinesisStreamingConfiguration": {
                "ApproximateCreationDateTimePrecision": "MICROSECOND"}},
        "DescribeKinesisStreamingDestination": {"TableName": "fuzzh"},
        "PutResourcePolicy": {"ResourceArn": WORLD["table"], "Policy": POLICY},
        "GetResourcePolicy": {"ResourceArn": WORLD["stream"]},
        "DeleteResourcePolicy": {"ResourceArn": WORLD["table"]},
        "RestoreTableToPointInTime": {"SourceTableName": "fuzz", "TargetTableName": "tmp3",
                                      "UseLatestRestorableTime": True},
        "CreateGlobalTable": {"GlobalTableName": "fuzzh",
                              "ReplicationGroup": [{"RegionName": "us-east-1"}]},
        "DescribeGlobalTable": {"GlobalTableName": "fuzzh"},
        "DescribeGlobalTableSettings": {"GlobalTableName": "fuzzh"},
        "UpdateGlobalTable": {"GlobalTableName": "fuzzh",
                              "ReplicaUpdates": [{"Create": {"RegionName": "eu-west-1"}}]},
        "UpdateGlobalTableSettings": {"GlobalTableName": "fuzzh",
                                      "GlobalTableBillingMode": "PAY_PER_REQUEST"},
        "ListGlobalTables": {"Limit": 3, "RegionName": "us-east-1"},
        "DescribeTableReplicaAutoScaling": {"TableName": "fuzz"},
        "UpdateTableReplicaAutoScaling": {
            "TableName": "fuzz", "ProvisionedWriteCapacityAutoScalingUpdate": {
                "AutoScalingDisabled": True}},
    }


def legacy_templates() -> dict[str, dict[str, Any]]:
    """A valid request in the legacy parameters (Expected, AttributeUpdates,
    KeyConditions, QueryFilter, ScanFilter, AttributesToGet), per operation
    that takes them."""
    key = {"pk": {"S": "k1"}, "sk": {"N": "1"}}
    expected = {"n": {"ComparisonOperator": "BETWEEN",
                      "AttributeValueList": [{"N": "0"}, {"N": "9"}]}, "q": {"Exists": False}}
    return {
        "PutItem": {"TableName": "fuzz", "Item": {**key, "n": {"N": "2"}}, "Expected": expected,
                    "ConditionalOperator": "AND", "ReturnValues": "ALL_OLD"},
        "UpdateItem": {"TableName": "fuzz", "Key": key, "AttributeUpdates": {
            "n": {"Action": "ADD", "Value": {"N": "1"}}, "ss": {"Action": "DELETE",
                                                           "Value": {"SS": ["z"]}},
            "m": {"Action": "PUT", "Value": {"M": {"a": {"L": []}}}}},
            "Expected": {"n": {"Value": {"N": "1"}, "Exists": True}}, "ReturnValues": "ALL_NEW"},
        "DeleteItem": {"TableName": "fuzz", "Key": key, "Expected": {
            "n": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "-1"}]},
            "l": {"ComparisonOperator": "NULL"}}, "ConditionalOperator": "OR"},
        "Query": {"TableName": "fuzz", "KeyConditions": {
            "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "k1"}]},
            "sk": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "0"}]}},
            "QueryFilter": {"n": {"ComparisonOperator": "NOT_NULL"}},
            "AttributesToGet": ["n", "pk"], "Select": "SPECIFIC_ATTRIBUTES",
            "ExclusiveStartKey": key},
        "Scan": {"TableName": "fuzz", "ScanFilter": {
            "n": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "a"}]},
            "ss": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "q"}]}},
            "ConditionalOperator": "OR", "AttributesToGet": ["pk"], "Limit": 3},
    }


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, (*path, i))
    return found


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return value


def mutate(rng: random.Random, request: Any) -> Any:
    request = copy.deepcopy(request)
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        paths = _paths(request)
        path = rng.choice(paths)
        kind = rng.random()
        target: Any = request
        for step in path:
            target = target[step]
        if kind < 0.35:
            request = _set(request, path, _strange(rng))
        elif kind < 0.55 and path:
            parent: Any = request
            for step in path[:-1]:
                parent = parent[step]
            del parent[path[-1]]
        elif kind < 0.7 and isinstance(target, dict):
            target[rng.choice(["ReturnValues", "Limit", "Select", "ExclusiveStartKey",
                               "ConditionalOperator", "Expected", "AttributeUpdates",
                               "ScanFilter", "KeyConditions", "QueryFilter", "AttributesToGet",
                               "IndexName", "ConsistentRead", "x", ""])] = _strange(rng)
        elif isinstance(target, str) or kind < 0.9:
            soup = " ".join(rng.choice(TOKENS) for _ in range(rng.randrange(1, 40)))
            request = _set(request, path, soup)
        else:
            request = _set(request, path, copy.deepcopy(rng.choice(KEYS)))
        if not isinstance(request, dict):
            break
    return request


def raw_case(rng: random.Random) -> bytes:
    """A piece of broken or unusual HTTP."""
    ok = json.dumps({"TableName": "fuzz", "Key": KEYS[0]}).encode()
    head = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0"
            b"\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\n")
    choice = rng.randrange(9)
    if choice == 0:  # truncated body
        return head + b"Content-Length: %d\r\n\r\n" % (len(ok) + 50) + ok
    if choice == 1:  # length shorter than the body: the rest is the next "request"
        return head + b"Content-Length: %d\r\n\r\n" % (len(ok) - 5) + ok
    if choice == 2:  # huge header
        return head + b"X-Pad: " + b"p" * rng.choice([8000, 17000, 70000]) + b"\r\n" + \
            b"Content-Length: %d\r\n\r\n" % len(ok) + ok
    if choice == 3:  # pipelining
        return (head + b"Content-Length: %d\r\n\r\n" % len(ok) + ok) * rng.randrange(2, 20)
    if choice == 4:  # invalid UTF-8
        body = b'{"TableName": "fuzz", "Key": {"pk": {"S": "\xff\xfe\xc3"}}}'
        return head + b"Content-Length: %d\r\n\r\n" % len(body) + body
    if choice == 5:  # deep JSON
        body = b"[" * rng.choice([1000, 100000]) + b"]" * 3
        return head + b"Content-Length: %d\r\n\r\n" % len(body) + body
    if choice == 6:  # chunked garbage
        return head + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
    if choice == 7:  # random bytes
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    return head.replace(b"HTTP/1.1", b"HTTP/1.0") + b"Content-Length: %d\r\n\r\n" % len(ok) + ok


def shaped(status: int, body: Any, operation: str = "") -> bool:
    if status == 200:  # (DynamoDB's model gives some operations no output: no body)
        return isinstance(body, dict) or (body is None and operation in NO_OUTPUT)
    if status == 404:
        return body == b"<UnknownOperationException/>\n"
    return isinstance(body, dict) and isinstance(body.get("__type"), str)


class Fuzz:
    def __init__(self, server: Server, seed: int, hang: float, signed: bool = False) -> None:
        self.server = server
        self.rng = random.Random(seed)
        self.hang = hang
        self.signed = signed
        self.client = Client(server.port, timeout=hang, key=self.key("AKIDFULL"))
        #: a client per key (the admin's first): each case is signed by one
        self.clients = [self.client] + [
            Client(server.port, timeout=hang, key=self.key(name))
            for name in CREDENTIALS if name != "AKIDFULL"] if signed else [self.client]
        self.figures: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = {}
        self.state: dict[str, tuple[Any, Any]] = {}
        self.remaking = False
        model = botocore.session.get_session().get_service_model("dynamodb")
        self.operations = list(model.operation_names)
        self.templates = templates()
        self.legacy = legacy_templates()

    def key(self, name: str) -> tuple[str, str] | None:
        return (name, CREDENTIALS[name][0]) if self.signed else None

    def fail(self, kind: str, what: str) -> None:
        self.figures[kind] += 1
        self.examples.setdefault(kind, [])
        if len(self.examples[kind]) < 5:
            self.examples[kind].append(what[:400])

    def setup(self) -> None:
        client = Client(self.server.port, key=self.key("AKIDFULL"))
        created = client.call("CreateTable", {
            "TableName": "fuzz", "BillingMode": "PAY_PER_REQUEST",
            "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"},
                                     {"AttributeName": "gk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [{"IndexName": "byg", "KeySchema": [
                {"AttributeName": "gk", "KeyType": "HASH"}], "Projection": {
                "ProjectionType": "ALL"}}]})
        created_h = client.call("CreateTable", {
            "TableName": "fuzzh", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
        for status, body in (created, created_h):
            assert status == 200 or "in use" in str(body) or "exists" in str(body), body
        for key in KEYS:
            client.call("PutItem", {"TableName": "fuzz", "Item": {**key, "n": {"N": "1"}}})
        client.call("PutItem", {"TableName": "fuzzh", "Item": {"id": {"S": "h1"}}})
        stream = client.call("DescribeTable", {"TableName": "fuzz"})[1]["Table"][
            "LatestStreamArn"]
        shard = client.call("DescribeStream", {"StreamArn": stream})[1]["StreamDescription"][
            "Shards"][0]["ShardId"]
        iterator = client.call("GetShardIterator", {
            "StreamArn": stream, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"})[1][
            "ShardIterator"]
        backup = client.call("CreateBackup", {"TableName": "fuzzh", "BackupName": "kept"})[1][
            "BackupDetails"]["BackupArn"]
        table = client.call("DescribeTable", {"TableName": "fuzz"})[1]["Table"]["TableArn"]
        client.call("UpdateContinuousBackups", {
            "TableName": "fuzz",
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
        export = client.call("ExportTableToPointInTime", {
            "TableArn": table, "S3Bucket": "fuzz-bucket"})[1]["ExportDescription"]["ExportArn"]
        imported = client.call("ImportTable", {
            "S3BucketSource": {"S3Bucket": "fuzz-bucket"}, "InputFormat": "DYNAMODB_JSON",
            "TableCreationParameters": {
                "TableName": "fuzz-imported", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}})[1]
        started = client.call("StartBulkPutItems", BULK)[1]
        if "BulkOperationDescription" in started:
            WORLD["bulk"] = started["BulkOperationDescription"]["BulkOperationArn"]
        WORLD.update(stream=stream, shard=shard, iterator=iterator, backup=backup, table=table,
                     export=export, **({"import": imported["ImportTableDescription"][
                         "ImportArn"]} if "ImportTableDescription" in imported else {}))
        self.templates = templates()
        client.close()
        self.state = self.describe()

    def describe(self) -> dict[str, tuple[Any, Any]]:
        """Each fuzz table's (ItemCount, TableSizeBytes); a table a fuzzed
        DeleteTable removed is made again."""
        state = {}
        for table in TABLES:
            status, body = self.client.call("DescribeTable", {"TableName": table})
            if status != 200 and not self.remaking:
                self.figures["tables_remade"] += 1
                self.remaking = True
                try:
                    self.setup()
                finally:
                    self.remaking = False
                return self.state
            desc = body.get("Table", {}) if isinstance(body, dict) else {}
            state[table] = (desc.get("ItemCount"), desc.get("TableSizeBytes"))
        return state

    def digest(self) -> str:
        hasher = hashlib.sha256()
        for table in TABLES:
            request: dict[str, Any] = {"TableName": table}
            while True:
                status, body = self.client.call("Scan", request)
                if status != 200:
                    return f"scan failed: {status}"
                for item in sorted(json.dumps(i, sort_keys=True) for i in body["Items"]):
                    hasher.update(item.encode())
                if "LastEvaluatedKey" not in body:
                    break
                request["ExclusiveStartKey"] = body["LastEvaluatedKey"]
        return hasher.hexdigest()

    def one(self) -> None:
        rng = self.rng
        if rng.random() < 0.05:
            self.raw()
            return
        operation = rng.choice(list(self.templates)) if rng.random() < 0.9 else rng.choice(
            self.operations)
        base = self.templates.get(operation) or {"TableName": "fuzz", "x": 1}
        if operation in self.legacy and rng.random() < 0.3:
            base = self.legacy[operation]
        request = mutate(rng, base) if rng.random() < 0.9 else base
        body = json.dumps(request).encode() if rng.random() < 0.98 else json.dumps(
            request).encode()[: rng.randrange(1, 50)]
        write = operation in WRITES
        scan_before = self.digest() if write and rng.random() < 0.01 else None
        started = time.monotonic()
        client = rng.choice(self.clients)
        try:
            status, answer = client.call(operation, body)
        except TimeoutError:
            self.fail("hangs", f"{operation} {body[:300]!r}")
            self.recover()
            return
        except (OSError, http.client.HTTPException) as error:
            self.fail("dropped", f"{operation} {error!r} {body[:300]!r}")
            self.recover()
            return
        took = time.monotonic() - started
        self.figures["cases"] += 1
        self.figures[f"status_{status}"] += 1
        if took > self.hang:
            self.fail("hangs", f"{operation} took {took:.1f} s")
        if status >= 500:
            self.figures[f"500s_in_{operation}"] += 1
            self.fail("500s", f"{operation} {status} {answer!r} <- {body[:300]!r}")
        if not shaped(status, answer, operation):
            self.fail("unshaped", f"{operation} {status} {answer!r}")
        if operation in ("CreateTable", "DeleteTable", "UpdateTable") or (write and status == 200):
            self.state = self.describe()
        elif write:
            now = self.describe()
            if now != self.state:
                self.fail("changed_on_reject", f"{operation} {status} {answer!r} <- "
                          f"{body[:300]!r}: {self.state} -> {now}")
                self.state = now
            if scan_before is not None:
                self.figures["rejected_writes_scanned"] += 1
                if self.digest() != scan_before:
                    self.fail("changed_on_reject", f"{operation} (scan) <- {body[:300]!r}")

    def raw(self) -> None:
        data = raw_case(self.rng)
        self.figures["cases"] += 1
        self.figures["raw_cases"] += 1
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=self.hang) as s:
            try:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)  # all sent: whatever is incomplete stays so
                received = b""
                deadline = time.monotonic() + self.hang
                while time.monotonic() < deadline:
                    chunk = s.recv(1 << 16)
                    if not chunk:
                        break
                    received += chunk
                    if self._complete(received, data):
                        break
                else:
                    self.fail("hangs", f"raw {data[:200]!r}")
            except TimeoutError:
                self.fail("hangs", f"raw {data[:200]!r}")
                return
            except OSError:
                return  # reset by the server: an answer to broken HTTP
        for line in received.split(b"\r\n"):
            if line.startswith(b"HTTP/1.") and line[9:10] == b"5" and b" 503 " not in line:
                self.fail("500s", f"raw {line!r} <- {data[:200]!r}")

    @staticmethod
    def _complete(received: bytes, sent: bytes) -> bool:
        """Every request sent has a whole answer (a pipelined run's last)."""
        expected = max(1, sent.count(b"POST / "))
        return received.count(b"HTTP/1.1 ") >= expected and received.endswith(b"}")

    def recover(self) -> None:
        for client in self.clients:
            client.close()
        if not self.server.alive():
            self.fail("server_died", "the server exited")
            self.server.start()
            self.setup()

    def alive(self) -> bool:
        try:
            status, _ = Client(self.server.port).raw("GET", "/", b"", {})  # (unsigned)
        except OSError:
            return False
        return status == 200


FAILURES = ("500s", "hangs", "unshaped", "changed_on_reject", "server_died")


def run(cases: int, seed: int, hang: float = 5.0, max_seconds: float = 3600.0,
        signed: bool = False) -> tuple[Counter[str], dict[str, list[str]], float]:
    """Fuzz a fresh server: the figures, the first failures of each kind, the seconds."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))  # the harness walks deep nests
    with tempfile.TemporaryDirectory(prefix="tallydb-fuzz-") as tmp:
        args = ["--data", str(Path(tmp) / "data")]
        if signed:
            keys = Path(tmp) / "credentials.toml"
            keys.write_text("".join(f'[keys.{name}]\nsecret = "{secret}"\n{rule}\n'
                                    for name, (secret, rule) in CREDENTIALS.items()))
            args += ["--credentials", str(keys)]
        server = Server(*args, log=Path(tmp) / "server.log")
        server.start()
        fuzz = Fuzz(server, seed, hang, signed)
        started = time.monotonic()
        try:
            fuzz.setup()
            while fuzz.figures["cases"] < cases:
                fuzz.one()
                if fuzz.figures["cases"] % 5000 == 0:
                    if not fuzz.alive():
                        fuzz.fail("server_died", "health check failed")
                        fuzz.recover()
                    if time.monotonic() - started > max_seconds:
                        break
            if not fuzz.alive():
                fuzz.fail("server_died", "health check failed at the end")
        finally:
            server.stop()
        return fuzz.figures, fuzz.examples, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hang", type=float, default=5.0, help="seconds an answer may take (5)")
    p.add_argument("--max-seconds", type=float, default=3600.0, help="stop after this long")
    p.add_argument("--credentials", action="store_true",
                   help="sign every case, by keys of every kind")
    args = p.parse_args(argv)
    figures, examples, elapsed = run(args.cases, args.seed, args.hang, args.max_seconds,
                                     args.credentials)
    print(f"seed: {args.seed}{' (signed)' if args.credentials else ''}")
    print(f"seconds: {elapsed:.0f} ({figures['cases'] / elapsed:.0f} cases/s)")
    for name in ("cases", "raw_cases", *FAILURES, "dropped", "rejected_writes_scanned",
                 "tables_remade"):
        print(f"{name}: {figures[name]}")
    print("statuses: " + ", ".join(f"{k[7:]}: {v}" for k, v in sorted(figures.items())
                                   if k.startswith("status_")))
    print("500s by operation: " + ", ".join(f"{k[8:]}: {v}" for k, v in sorted(figures.items())
                                            if k.startswith("500s_in_")))
    for kind, found in examples.items():
        print(f"-- first {kind}:")
        for example in found:
            print("   " + example)
    return 1 if any(figures[k] for k in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
