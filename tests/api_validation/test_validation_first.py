"""Validation before existence: for every operation, a request both
malformed and aimed at something missing gets the ValidationException, never
ResourceNotFoundException (the request pipeline, ``api/_pipeline.py``).

DynamoDB validates a request completely before it looks up what it names
(architect/dynalite runs every validations/<operation>.js, recorded against
DynamoDB, before its action reads a table; its tests send malformed
requests to tables that do not exist and expect the ValidationException).
Each case names the source of its text; a new operation fails
``test_every_operation_has_a_case`` until it has one.
"""

from __future__ import annotations

from typing import Any

import pytest
from tallytest import Backend

from tallydb.engine.api import TARGETS

M = "no-such-table"
ARN = f"arn:aws:dynamodb:us-east-1:000000000000:table/{M}"
STREAM = f"{ARN}/stream/2026-01-01T00:00:00.000"
BACKUP = f"{ARN}/backup/01700000000000-abcdefgh"
SQS = "arn:aws:sqs:us-east-1:000000000000:queue-abc"
KINESIS = "arn:aws:kinesis:us-east-1:000000000000:stream/abcdefghijkl"
BOTH_TYPES = {"pk": {"S": "a", "N": "1"}}
INVALID = "One or more parameter values were invalid: "
ONE = "1 validation error detected: "
# dynalite's validateAttributeValue (recorded against DynamoDB)
TWO_TYPES = ("Supplied AttributeValue has more than one datatypes set, must contain exactly "
             "one of the supported datatypes")
def _constraint(value: str, member: str, rule: str) -> str:
    """DynamoDB's message for a member outside its model's constraint."""
    return ONE + f"Value '{value}' at '{member}' failed to satisfy constraint: Member must {rule}"


def too_short(value: str, member: str, least: int) -> str:
    return _constraint(value, member, f"have length greater than or equal to {least}")


def too_long(value: str, member: str, most: int) -> str:
    return _constraint(value, member, f"have length less than or equal to {most}")


def too_small(value: str, member: str, least: int) -> str:
    return _constraint(value, member, f"have value greater than or equal to {least}")


def too_large(value: str, member: str, most: int) -> str:
    return _constraint(value, member, f"have value less than or equal to {most}")


def not_one_of(value: str, member: str, values: str) -> str:
    return _constraint(value, member, f"satisfy enum value set: [{values}]")


def not_like(value: str, member: str, pattern: str) -> str:
    return _constraint(value, member, f"satisfy regular expression pattern: {pattern}")


#: Operations whose request has no member: nothing in it can be malformed.
NO_REQUEST = frozenset({"DescribeLimits", "DescribeEndpoints"})

CASES: dict[str, tuple[dict[str, Any], str]] = {
    # the Key's values before the table (dynalite validations/getItem.js)
    "GetItem": ({"TableName": M, "Key": BOTH_TYPES}, TWO_TYPES),
    # PutItem and DeleteItem take only NONE and ALL_OLD (dynalite; 2026 captures)
    "PutItem": ({"TableName": M, "Item": {"pk": {"S": "a"}}, "ReturnValues": "ALL_NEW"},
                "ReturnValues can only be ALL_OLD or NONE"),
    # dynalite's checkNum (recorded)
    "DeleteItem": ({"TableName": M, "Key": {"pk": {"N": "x1"}}},
                   "The parameter cannot be converted to a numeric value: x1"),
    "UpdateItem": ({"TableName": M, "Key": BOTH_TYPES, "UpdateExpression": "SET a = :a",
                    "ExpressionAttributeValues": {":a": {"S": "b"}}}, TWO_TYPES),
    "BatchGetItem": ({"RequestItems": {M: {"Keys": [BOTH_TYPES]}}}, TWO_TYPES),
    # BatchWriteItem words an empty set the older way (dynalite test/batchWriteItem.js)
    "BatchWriteItem": ({"RequestItems": {M: [{"PutRequest": {"Item": {"pk": {"SS": []}}}}]}},
                       INVALID + "An string set  may not be empty"),
    # dynalite test/query.js
    "Query": ({"TableName": M, "KeyConditionExpression": "pk = :a"},
              "Invalid KeyConditionExpression: An expression attribute value used in "
              "expression is not defined; attribute value: :a"),
    # dynalite test/scan.js
    "Scan": ({"TableName": M, "Segment": 1},
             "The TotalSegments parameter is required but was not present in the request when "
             "Segment parameter is present"),
    "TransactGetItems": ({"TransactItems": [{"Get": {"TableName": M, "Key": BOTH_TYPES}}]},
                         TWO_TYPES),
    # the expression parser's syntax error (dynalite's wording, captured 2026)
    "TransactWriteItems": (
        {"TransactItems": [{"ConditionCheck": {"TableName": M, "Key": {"pk": {"S": "a"}},
                                               "ConditionExpression": "a = "}}]},
        'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "= "'),
    # PartiQL: parameters counted before the table (AWS docs' error list;
    # tests/api_partiql)
    "ExecuteStatement": ({"Statement": f'SELECT * FROM "{M}" WHERE pk = ?'},
                         "Number of parameters in request and statement don't match."),
    "ExecuteTransaction": ({"TransactStatements": [
        {"Statement": f'SELECT * FROM "{M}" WHERE pk = ?'}]},
        "Number of parameters in request and statement don't match."),
    # botocore's model (its enum, in DynamoDB's order: dynalite)
    "BatchExecuteStatement": (
        {"Statements": [{"Statement": f'SELECT * FROM "{M}"'}], "ReturnConsumedCapacity": "ALL"},
        not_one_of("ALL", "returnConsumedCapacity", "INDEXES, TOTAL, NONE")),
    # CreateTable's billing refusal (the AWS catalogue of 2026); the only
    # lookup CreateTable makes is of the name it would take
    "CreateTable": ({"TableName": M, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                     "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                     "BillingMode": "PAY_PER_REQUEST",
                     "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}},
                    INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
                    "when BillingMode is PAY_PER_REQUEST"),
    # the AWS catalogue of 2026 (UpdateTable's billing refusals)
    "UpdateTable": ({"TableName": M, "BillingMode": "PROVISIONED"},
                    INVALID + "ProvisionedThroughput must be specified when BillingMode is "
                    "PROVISIONED"),
    # the shape's constraints (botocore's model; dynalite's wording, recorded)
    "DescribeTable": ({"TableName": "no such table"},
                      not_like("no such table", "tableName", "[a-zA-Z0-9_.-]+")),
    "DeleteTable": ({"TableName": "no such table"},
                    not_like("no such table", "tableName", "[a-zA-Z0-9_.-]+")),
    "DescribeTimeToLive": ({"TableName": "no such table"},
                           not_like("no such table", "tableName", "[a-zA-Z0-9_.-]+")),
    "UpdateTimeToLive": (
        {"TableName": M, "TimeToLiveSpecification": {"Enabled": True, "AttributeName": ""}},
        too_short("", "timeToLiveSpecification.attributeName", 1)),
    "DescribeContinuousBackups": (
        {"TableName": ""}, too_short("", "tableName", 1)),
    "UpdateContinuousBackups": (
        {"TableName": M, "PointInTimeRecoverySpecification": {
            "PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": 36}},
        too_large("36", "pointInTimeRecoverySpecification.recoveryPeriodInDays", 35)),
    "CreateBackup": ({"TableName": M, "BackupName": "no good"},
                     not_like("no good", "backupName", "[a-zA-Z0-9_.-]+")),
    "DescribeBackup": ({"BackupArn": "arn:aws:dynamodb:us-east-1:0:x"},
                       too_short("arn:aws:dynamodb:us-east-1:0:x", "backupArn", 37)),
    "DeleteBackup": ({"BackupArn": "arn:aws:dynamodb:us-east-1:0:x"},
                     too_short("arn:aws:dynamodb:us-east-1:0:x", "backupArn", 37)),
    "ListBackups": ({"TableName": M, "Limit": 101},
                    too_large("101", "limit", 100)),
    "RestoreTableFromBackup": ({"TargetTableName": "x", "BackupArn": BACKUP},
                               too_short("x", "targetTableName", 3)),
    # tags: characters before the table (api/_tags.py; the text is ours)
    "TagResource": ({"ResourceArn": ARN, "Tags": [{"Key": "a*b", "Value": "v"}]},
                    INVALID + "The tag key a*b has characters other than letters, white space, "
                    "numbers and + - = . _ : /"),
    # a ResourceArn that is no ARN: DynamoDB's current words (api/_resource_arns.py)
    "UntagResource": ({"ResourceArn": "not-an-arn", "TagKeys": ["k"]},
                      INVALID + "ARNs must start with 'arn:': not-an-arn"),
    "ListTagsOfResource": ({"ResourceArn": "not-an-arn"},
                           INVALID + "ARNs must start with 'arn:': not-an-arn"),
    "ListTables": ({"ExclusiveStartTableName": M, "Limit": 101},
                   too_large("101", "limit", 100)),
    "ExportTableToPointInTime": (
        {"TableArn": ARN, "S3Bucket": "bucket", "ExportFormat": "XML"},
        not_one_of("XML", "exportFormat", "DYNAMODB_JSON, ION")),
    "DescribeExport": ({"ExportArn": "arn:aws:dynamodb:us-east-1:0"},
                       too_short("arn:aws:dynamodb:us-east-1:0", "exportArn", 37)),
    "ListExports": ({"TableArn": ARN, "MaxResults": 26},
                    too_large("26", "maxResults", 25)),
    "ImportTable": (
        {"S3BucketSource": {"S3Bucket": "bucket"}, "InputFormat": "XML",
         "TableCreationParameters": {
             "TableName": M, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
             "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
             "BillingMode": "PAY_PER_REQUEST"}},
        not_one_of("XML", "inputFormat", "DYNAMODB_JSON, ION, CSV")),
    "DescribeImport": ({"ImportArn": "arn:aws:dynamodb:us-east-1:0"},
                       too_short("arn:aws:dynamodb:us-east-1:0", "importArn", 37)),
    "ListImports": ({"TableArn": ARN, "PageSize": 26},
                    too_large("26", "pageSize", 25)),
    # DynamoDB Streams (DynamoDB Local 1.25's wording; tests/api_streams)
    "DescribeStream": ({"StreamArn": STREAM, "Limit": 101},
                       INVALID + "Limit cannot be greater than the maximum: 100"),
    "GetShardIterator": (
        {"StreamArn": STREAM, "ShardId": "shardId-00000000000000000000-00000000",
         "ShardIteratorType": "LATEST", "SequenceNumber": "0" * 21},
        INVALID + "SequenceNumber should not be passed for this iterator type"),
    # the API reference's 1,000 (tests/api_streams/test_streams.py)
    "GetRecords": ({"ShardIterator": "not-an-iterator", "Limit": 1001},
                   too_large("1001", "limit", 1000)),
    "ListStreams": ({"TableName": M, "Limit": 101},
                    INVALID + "Limit cannot be greater than the maximum allowed size: 100"),
    # the model's constraints, worded as DynamoDB words them (botocore's model)
    "CancelBulkOperation": ({"BulkOperationArn": "arn:x"},
                            too_short("arn:x", "bulkOperationArn", 37)),
    "DescribeBulkOperation": ({"BulkOperationArn": "arn:x"},
                              too_short("arn:x", "bulkOperationArn", 37)),
    "ListBulkOperations": ({"MaxResults": 0},
                           too_small("0", "maxResults", 1)),
    "StartBulkPutItems": (
        {"TableName": M, "MaxWriteRequestUnits": 1,
         "InputS3Configuration": {"S3Bucket": "bucket", "InputFormat": "DYNAMODB_JSON"},
         "OutputS3Configuration": {"OutputType": []}},
        too_small("1", "maxWriteRequestUnits", 1024)),
    "DescribeContributorInsights": (
        {"TableName": M, "IndexName": "x"},
        too_short("x", "indexName", 3)),
    "UpdateContributorInsights": (
        {"TableName": M, "ContributorInsightsAction": "MAYBE"},
        not_one_of("MAYBE", "contributorInsightsAction", "ENABLE, DISABLE")),
    "ListContributorInsights": (
        {"TableName": M, "MaxResults": 101},
        too_large("101", "maxResults", 100)),
    "DescribeKinesisStreamingDestination": (
        {"TableName": "x" * 256},
        too_long("x" * 256, "tableName", 255)),
    # a stream ARN that is not Kinesis's, before the table: not on record, tallydb's text
    # (api/_kinesis_destinations.py)
    "EnableKinesisStreamingDestination": (
        {"TableName": M, "StreamArn": SQS},
        f"StreamArn must be the ARN of a Kinesis data stream: {SQS}"),
    "DisableKinesisStreamingDestination": (
        {"TableName": M, "StreamArn": SQS},
        f"StreamArn must be the ARN of a Kinesis data stream: {SQS}"),
    # nothing to update: not on record, tallydb's text
    "UpdateKinesisStreamingDestination": (
        {"TableName": M, "StreamArn": KINESIS},
        "UpdateKinesisStreamingConfiguration must name an ApproximateCreationDateTimePrecision"),
    # DynamoDB's invalid-policy-document error (its wording: api/_policies.py)
    "PutResourcePolicy": ({"ResourceArn": ARN, "Policy": "{not json"},
                          INVALID + "Invalid policy document: The policy is not valid JSON"),
    # an index's ARN has no policy: DynamoDB's words (api/_resource_arns.py)
    "GetResourcePolicy": ({"ResourceArn": f"{ARN}/index/x"},
                          INVALID + "Invalid resource arn provided, only table or stream is "
                          f"accepted. Provided resource arn: {ARN}/index/x"),
    "DeleteResourcePolicy": ({"ResourceArn": f"{ARN}/index/x"},
                             INVALID + "Invalid resource arn provided, only table or stream is "
                             f"accepted. Provided resource arn: {ARN}/index/x"),
    # the legacy global tables' operations: the model's constraints (botocore's model)
    **{operation: ({"GlobalTableName": "ab", **extra}, too_short("ab", "globalTableName", 3))
       for operation, extra in {
           "CreateGlobalTable": {"ReplicationGroup": [{"RegionName": "us-east-1"}]},
           "UpdateGlobalTable": {"ReplicaUpdates": [{"Create": {"RegionName": "eu-west-1"}}]},
           "UpdateGlobalTableSettings": {},
           "DescribeGlobalTable": {},
           "DescribeGlobalTableSettings": {}}.items()},
    "ListGlobalTables": ({"Limit": 0},
                         too_small("0", "limit", 1)),
    "DescribeTableReplicaAutoScaling": (
        {"TableName": "x" * 256},
        too_long("x" * 256, "tableName", 255)),
    "UpdateTableReplicaAutoScaling": (
        {"TableName": M, "ProvisionedWriteCapacityAutoScalingUpdate": {"MinimumUnits": 0}},
        too_small("0", "provisionedWriteCapacityAutoScalingUpdate.minimumUnits", 1)),
    # no time given: not on record, tallydb's text (api/restore_table_to_point_in_time.py)
    "RestoreTableToPointInTime": ({"SourceTableName": M, "TargetTableName": "target"},
                                  "One of RestoreDateTime or UseLatestRestorableTime must be "
                                  "specified"),
}


def test_every_operation_has_a_case() -> None:
    assert set(CASES) | NO_REQUEST == set(TARGETS.values())


@pytest.mark.parametrize("operation", sorted(CASES))
def test_a_malformed_request_about_something_missing_is_a_validation_error(
        backend: Backend, operation: str) -> None:
    body, message = CASES[operation]
    target = next(target for target, name in TARGETS.items() if name == operation)
    answer = backend.raw(target, body)
    assert (answer.status, answer.error_code, answer.message) == (
        400, "ValidationException", message)
