"""Malformed requests that used to reach code assuming another shape (500s,
or a 200 that stored the wrong data): each is DynamoDB's 400 and changes
nothing.

JSON nulls and wrong JSON types inside lists and maps are refused by the
check compiled from botocore's model (``tallydb.engine.api._shapes``). DynamoDB's
JSON layer reads a null structure member as absent, but keeps a null list
element or map value, which no member of its model allows; its exact wording
for those is not on record, so they carry its wording for a missing required
member ("Member must not be null", at the element's path or as the map's
"Map value must satisfy constraint"). Expressions nested past the parser's
depth get the answers DynamoDB gives them (redundant parentheses, unknown
function, too many operators).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from tallytest import Backend

from tallydb.engine.errors import ValidationException

VALIDATION = "ValidationException"
NOT_NULL = "Member must not be null"
MAP_NOT_NULL = f"Map value must satisfy constraint: [{NOT_NULL}]"
ONE = "1 validation error detected: "
KEY = {"pk": {"S": "a"}}
ITEM = {"pk": {"S": "a"}, "l": {"L": [{"N": "1"}]}, "n": {"N": "5"}}


@pytest.fixture
def tbl(backend: Backend, make_table: Callable[..., str]) -> str:
    name = make_table("tbl", hash=("pk", "S"))
    assert backend.raw("PutItem", {"TableName": name, "Item": ITEM}).status == 200
    return name


def contents(backend: Backend, table: str) -> list[Any]:
    answer = backend.raw("Scan", {"TableName": table, "ConsistentRead": True})
    assert answer.status == 200, answer.body
    return sorted(answer.json["Items"], key=repr)


def refused(backend: Backend, table: str, operation: str, body: dict[str, Any],
            message: str, code: str = VALIDATION) -> None:
    before = contents(backend, table)
    answer = backend.raw(operation, body)
    assert (answer.status, answer.error_code, answer.message) == (400, code, message)
    assert contents(backend, table) == before


# -- nulls and wrong JSON types in nested positions --------------------------


def test_attribute_updates_value_of_no_type_is_refused(backend: Backend, tbl: str) -> None:
    # DynamoDB: an AttributeValue with no datatype member.
    refused(backend, tbl, "UpdateItem",
            {"TableName": tbl, "Key": KEY, "AttributeUpdates": {"n": {"Value": {}}}},
            "Supplied AttributeValue is empty, must contain exactly one of the supported "
            "datatypes")


def test_attribute_updates_value_is_checked_as_an_attribute_value(
        backend: Backend, tbl: str) -> None:
    # DynamoDB: the legacy Value is an AttributeValue like any other.
    refused(backend, tbl, "UpdateItem",
            {"TableName": tbl, "Key": KEY, "AttributeUpdates": {"n": {"Value": {"N": "abc"}}}},
            "The parameter cannot be converted to a numeric value: abc")


def test_expected_value_is_checked_as_an_attribute_value(backend: Backend, tbl: str) -> None:
    refused(backend, tbl, "PutItem",
            {"TableName": tbl, "Item": {"pk": {"S": "b"}},
             "Expected": {"n": {"ComparisonOperator": "EQ",
                                "AttributeValueList": [{"N": "1e999"}]}}},
            "Number overflow. Attempting to store a number with magnitude larger than "
            "supported range")


@pytest.mark.parametrize(("operation", "body", "message"), [
    ("UpdateItem", {"Key": KEY, "AttributeUpdates": {"n": None}},
     ONE + "Value '{n=null}' at 'attributeUpdates' failed to satisfy constraint: "
     + MAP_NOT_NULL),
    ("PutItem", {"Item": {"pk": {"S": "c"}}, "Expected": {"v": None}},
     ONE + "Value '{v=null}' at 'expected' failed to satisfy constraint: " + MAP_NOT_NULL),
    ("Scan", {"ScanFilter": {"n": None}},
     ONE + "Value '{n=null}' at 'scanFilter' failed to satisfy constraint: " + MAP_NOT_NULL),
    ("Query", {"KeyConditions": {"pk": None}},
     ONE + "Value '{pk=null}' at 'keyConditions' failed to satisfy constraint: "
     + MAP_NOT_NULL),
    ("UpdateItem", {"Key": KEY, "UpdateExpression": "SET #c = :v",
                    "ExpressionAttributeNames": {"#c": None},
                    "ExpressionAttributeValues": {":v": {"N": "1"}}},
     ONE + "Value '{#c=null}' at 'expressionAttributeNames' failed to satisfy constraint: "
     + MAP_NOT_NULL),
    ("UpdateItem", {"Key": KEY, "UpdateExpression": "SET #c = :v REMOVE l[0]",
                    "ExpressionAttributeNames": {"#c": None},
                    "ExpressionAttributeValues": {":v": {"N": "1"}}},
     ONE + "Value '{#c=null}' at 'expressionAttributeNames' failed to satisfy constraint: "
     + MAP_NOT_NULL),
    ("UpdateItem", {"Key": KEY, "UpdateExpression": "SET a = :v",
                    "ExpressionAttributeValues": {":v": None}},
     ONE + "Value '{:v=null}' at 'expressionAttributeValues' failed to satisfy constraint: "
     + MAP_NOT_NULL),
    ("UpdateTable", {"GlobalSecondaryIndexUpdates": [None]},
     ONE + f"Value null at 'globalSecondaryIndexUpdates.1.member' failed to satisfy "
     f"constraint: {NOT_NULL}"),
])
def test_null_in_a_nested_position_is_refused(
        backend: Backend, tbl: str, operation: str, body: dict[str, Any], message: str) -> None:
    refused(backend, tbl, operation, {"TableName": tbl, **body}, message)


def test_null_item_attribute_is_refused(backend: Backend, tbl: str) -> None:
    # DynamoDB: a null AttributeValue is an empty one.
    refused(backend, tbl, "PutItem", {"TableName": tbl, "Item": {"pk": {"S": "d"}, "a": None}},
            ONE + "Value '{pk=AttributeValue(s=d, n=null, b=null, sS=null, nS=null, bS=null, "
            "m=null, l=null, nULL=null, bOOL=null), a=null}' at 'item' failed to satisfy "
            "constraint: " + MAP_NOT_NULL)


def test_batch_write_requests_of_null_are_refused(backend: Backend, tbl: str) -> None:
    refused(backend, tbl, "BatchWriteItem", {"RequestItems": {tbl: [None]}},
            ONE + f"Value null at 'requestItems.{tbl}.member.1.member' failed to satisfy "
            f"constraint: {NOT_NULL}")
    refused(backend, tbl, "BatchWriteItem", {"RequestItems": {tbl: None}},
            ONE + f"Value '{{{tbl}=null}}' at 'requestItems' failed to satisfy constraint: "
            + MAP_NOT_NULL)
    refused(backend, tbl, "BatchGetItem", {"RequestItems": {tbl: None}},
            ONE + f"Value '{{{tbl}=null}}' at 'requestItems' failed to satisfy constraint: "
            + MAP_NOT_NULL)


def test_batch_write_under_an_empty_table_name_is_refused(backend: Backend, tbl: str) -> None:
    answer = backend.raw("BatchWriteItem", {"RequestItems": {"": None}})
    assert (answer.status, answer.error_code) == (400, VALIDATION)
    assert "Map keys must satisfy constraint: [Member must have length less than or equal " \
        "to 1024, Member must have length greater than or equal to 1]" in answer.message
    answer = backend.raw("BatchWriteItem", {
        "RequestItems": {"": [{"PutRequest": {"Item": {"a": {"M": 5}}}}]}})
    assert (answer.status, answer.error_code) == (400, VALIDATION)
    assert answer.message.startswith(ONE + "Value '{=[WriteRequest(putRequest=PutRequest(item="
                                     "{a=AttributeValue(")
    assert contents(backend, tbl) == [ITEM]


def test_key_schema_of_null_is_refused(backend: Backend) -> None:
    answer = backend.raw("CreateTable", {
        "TableName": "never_made", "KeySchema": [None], "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
    assert (answer.status, answer.error_code, answer.message) == (
        400, VALIDATION,
        ONE + f"Value null at 'keySchema.1.member' failed to satisfy constraint: {NOT_NULL}")
    assert "never_made" not in backend.client().list_tables()["TableNames"]


def test_transact_get_with_an_empty_projection_is_refused(backend: Backend, tbl: str) -> None:
    # Get has no ExpressionAttributeValues member: DynamoDB ignores unknown members.
    refused(backend, tbl, "TransactGetItems", {"TransactItems": [{"Get": {
        "TableName": tbl, "Key": KEY, "ProjectionExpression": "",
        "ExpressionAttributeValues": 1}}]},
        "Invalid ProjectionExpression: The expression can not be empty;")


def test_list_over_its_maximum_is_refused_before_its_entries_are_read(
        backend: Backend, tbl: str) -> None:
    # DynamoDB checks a list's length before it looks inside the entries: a
    # null among 30 WriteRequests is not reported, only the 25-entry limit.
    writes: list[Any] = [{"DeleteRequest": {"Key": {"pk": {"S": f"k{i}"}}}} for i in range(29)]
    writes.insert(3, None)
    answer = backend.raw("BatchWriteItem", {"RequestItems": {tbl: writes}})
    assert (answer.status, answer.error_code) == (400, VALIDATION)
    assert answer.message.startswith(ONE + f"Value '{{{tbl}=[WriteRequest(")
    assert answer.message.endswith(
        "' at 'requestItems' failed to satisfy constraint: Map value must satisfy "
        "constraint: [Member must have length less than or equal to 25, "
        "Member must have length greater than or equal to 1]")
    assert NOT_NULL not in answer.message
    assert contents(backend, tbl) == [ITEM]


def test_batch_write_counts_its_entries_over_all_tables(
        backend: Backend, tbl: str, make_table: Callable[..., str]) -> None:
    # DynamoDB: at most 25 PutRequests and DeleteRequests in one call, however
    # they are spread over tables (each table's list is within its own 25).
    other = make_table("other", hash=("pk", "S"))
    writes = [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}}}} for i in range(13)]
    refused(backend, tbl, "BatchWriteItem", {"RequestItems": {tbl: writes, other: writes}},
            "Too many items requested for the BatchWriteItem call")
    assert contents(backend, other) == []


def test_transaction_with_a_deeply_nested_unknown_member_runs_once_per_token(
        backend: Backend, tbl: str) -> None:
    # DynamoDB ignores members its model does not have, however deep they
    # nest; the ClientRequestToken still makes the retry a replay.
    nest: Any = 1
    for _ in range(400):
        nest = [nest]
    body = {"ClientRequestToken": "deep-nest-token", "TransactItems": [{"Update": {
        "TableName": tbl, "Key": KEY, "UpdateExpression": "ADD n :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}}, "ScanFilter": nest}}]}
    for _ in range(2):
        answer = backend.raw("TransactWriteItems", body)
        assert answer.status == 200, answer.body
    assert contents(backend, tbl) == [{**ITEM, "n": {"N": "6"}}]


@pytest.mark.parametrize(("bound", "message"), [
    ({"S": "x"}, "Start of structure or map found where not expected"),
    ([1], "Unrecognized collection type class java.util.Date"),
    ("yesterday", "STRING_VALUE cannot be converted to Date"),
    (True, "TRUE_VALUE cannot be converted to Date"),
])
def test_timestamp_of_another_json_type_is_refused(
        backend: Backend, bound: Any, message: str) -> None:
    # A timestamp is epoch seconds, a JSON number; DynamoDB's words for
    # another JSON type are not on record: its JSON layer's for the others.
    answer = backend.raw("ListBackups", {"TimeRangeLowerBound": bound})
    assert (answer.status, answer.error_code, answer.message) == (
        400, "SerializationException", message)
    answer = backend.raw("ListBackups", {"TimeRangeLowerBound": 0, "TimeRangeUpperBound": 1.5})
    assert answer.status == 200, answer.body


def test_embedded_caller_strings_and_integers_json_cannot_carry(inprocess_engine: Any) -> None:
    # The embedded engine takes request dicts without JSON: a lone surrogate
    # (UTF-16 counts it as one unit) or an integer past 64 bits is checked
    # like any other value.
    with pytest.raises(ValidationException) as refusal:
        inprocess_engine.call("GetItem", {"TableName": "\ud800", "Key": KEY})
    assert str(refusal.value) == (
        "2 validation errors detected: Value '\ud800' at 'tableName' failed to satisfy "
        "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; "
        "Value '\ud800' at 'tableName' failed to satisfy constraint: Member must have "
        "length greater than or equal to 3")
    table = "embedded_" + uuid.uuid4().hex
    inprocess_engine.call("CreateTable", {
        "TableName": table, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    try:
        body = {"ClientRequestToken": "big-integer-token", "TransactItems": [{"Put": {
            "TableName": table, "Item": KEY, "Ignored": [10**40, "\ud800"]}}]}
        for _ in range(2):
            assert inprocess_engine.call("TransactWriteItems", body) == {}
    finally:
        inprocess_engine.call("DeleteTable", {"TableName": table})


# -- expressions nested deeper than the parser descends ----------------------


DEEP = 241


@pytest.mark.parametrize(("parameter", "text", "detail"), [
    ("ConditionExpression", "(" * DEEP + "attribute_exists(pk)" + ")" * DEEP,
     "The expression has redundant parentheses;"),
    ("ConditionExpression", "NOT " * 961 + "attribute_exists(pk)",
     "The expression contains too many operators; operator count: 301"),
    ("ConditionExpression", "f(" * 400 + "pk" + ")" * 400,
     "Invalid function name; function: f"),
    ("ConditionExpression", "size(" * 400 + "pk" + ")" * 400 + " > :v",
     "The expression contains too many operators; operator count: 301"),
    ("ConditionExpression", "(" * 600 + "pk" + ")" * 599,
     'Syntax error; token: "<EOF>", near: ")"'),
])
def test_deeply_nested_condition_is_refused(
        backend: Backend, tbl: str, parameter: str, text: str, detail: str) -> None:
    body: dict[str, Any] = {"TableName": tbl, "Item": {"pk": {"S": "e"}}, parameter: text}
    if ":v" in text:
        body["ExpressionAttributeValues"] = {":v": {"N": "1"}}
    refused(backend, tbl, "PutItem", body, f"Invalid {parameter}: {detail}")


def test_deeply_nested_filter_and_key_condition_are_refused(
        backend: Backend, tbl: str) -> None:
    nested = "(" * DEEP + "pk = :v" + ")" * DEEP
    values = {":v": {"S": "a"}}
    for operation, parameter in (("Scan", "FilterExpression"),
                                 ("Query", "KeyConditionExpression")):
        refused(backend, tbl, operation,
                {"TableName": tbl, parameter: nested, "ExpressionAttributeValues": values},
                f"Invalid {parameter}: The expression has redundant parentheses;")


def test_deeply_nested_update_functions_are_refused(backend: Backend, tbl: str) -> None:
    refused(backend, tbl, "UpdateItem",
            {"TableName": tbl, "Key": KEY,
             "UpdateExpression": "SET a = " + "f(" * 600 + ":v" + ")" * 600,
             "ExpressionAttributeValues": {":v": {"N": "1"}}},
            "Invalid UpdateExpression: Invalid function name; function: f")


def test_nesting_within_the_bound_still_works(backend: Backend, tbl: str) -> None:
    # 100 levels of NOT (...) around a comparison: 200 operators, no
    # redundant parentheses, a condition DynamoDB accepts.
    text = "NOT (" * 100 + "pk = :v" + ")" * 100
    answer = backend.raw("PutItem", {"TableName": tbl, "Item": {"pk": {"S": "a"}, "x": {"N": "1"}},
                                     "ConditionExpression": text,
                                     "ExpressionAttributeValues": {":v": {"S": "a"}}})
    assert answer.status == 200, answer.body


# -- error bodies are bounded -------------------------------------------------


def test_violation_echoes_at_most_a_bounded_part_of_a_huge_value(
        backend: Backend, tbl: str) -> None:
    # DynamoDB echoes the whole value; for thousands of entries that is an
    # error body of megabytes. tallydb cuts the echo after about 2 KB.
    writes = [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "v": {"S": "x" * 20}}}}
              for i in range(5000)]
    before = contents(backend, tbl)
    answer = backend.raw("BatchWriteItem", {"RequestItems": {tbl: writes}})
    assert (answer.status, answer.error_code) == (400, VALIDATION)
    assert len(answer.body) < 4096
    assert answer.message.startswith(
        ONE + f"Value '{{{tbl}=[WriteRequest(putRequest=PutRequest(item={{")
    assert answer.message.endswith(
        ", ...]}' at 'requestItems' failed to satisfy constraint: Map value must satisfy "
        "constraint: [Member must have length less than or equal to 25, "
        "Member must have length greater than or equal to 1]")
    assert contents(backend, tbl) == before


@pytest.mark.parametrize("units", [2**63, 10**38, -(10**30)])
def test_a_long_member_past_64_bits_is_refused(backend: Backend, tbl: str, units: int) -> None:
    # MaxWriteRequestUnits is a long: a value past 64 bits used to reach the
    # job's stored record and answer 500; it is refused and starts nothing
    bucket = {"S3Bucket": "long-bucket", "S3KeyPrefix": "p"}
    answer = backend.raw("StartBulkPutItems", {
        "TableName": tbl, "InputS3Configuration": {**bucket, "InputFormat": "DYNAMODB_JSON"},
        "OutputS3Configuration": {"S3Bucket": "long-bucket", "OutputType": ["ERROR"]},
        "MaxWriteRequestUnits": units})
    # (a client may send the number as a double: its digits are not checked)
    assert (answer.status, answer.error_code) == (400, "SerializationException"), answer.body
    assert re.fullmatch(r"Numeric value \(-?\d+\) out of range of long "
                        r"\(-9223372036854775808 - 9223372036854775807\)", answer.message)
    listed = backend.raw("ListBulkOperations", {})
    assert listed.status == 200, listed.body
    assert listed.json.get("BulkOperationSummaries", []) == []


@pytest.mark.parametrize("unknown", [10**40, "nest"])
def test_a_job_keeps_only_the_members_the_model_has(
        backend: Backend, tbl: str, unknown: Any) -> None:
    # A bulk put keeps its request (for its ClientToken) and echoes its S3
    # configurations: members the model does not have, at any depth, are
    # ignored as DynamoDB ignores them, not stored (a number past 64 bits
    # or a deep nest is not even storable as JSON)
    if unknown == "nest":
        unknown = 1
        for _ in range(400):
            unknown = [unknown]
    source = {"S3Bucket": "model-bucket", "S3KeyPrefix": "p", "InputFormat": "DYNAMODB_JSON"}
    body = {"TableName": tbl, "ClientToken": f"model-members-{uuid.uuid4()}",
            "InputS3Configuration": {**source, "ReturnValues": unknown},
            "OutputS3Configuration": {"S3Bucket": "model-bucket", "OutputType": ["ERROR"],
                                      "Unknown": {"deeper": unknown}}}
    first = backend.raw("StartBulkPutItems", body)
    assert first.status == 200, first.body
    described = first.json["BulkOperationDescription"]
    assert described["InputS3Configuration"] == source
    assert described["OutputS3Configuration"] == {"S3Bucket": "model-bucket",
                                                  "OutputType": ["ERROR"]}
    again = backend.raw("StartBulkPutItems", body)  # the same request: the same operation
    assert again.status == 200, again.body
    assert again.json["BulkOperationDescription"]["BulkOperationArn"] == \
        described["BulkOperationArn"]


def test_an_import_keeps_only_the_members_the_model_has(backend: Backend) -> None:
    # ImportTable keeps and echoes its S3BucketSource the same way
    source = {"S3Bucket": "model-bucket", "S3KeyPrefix": "p"}
    name = f"imported-{uuid.uuid4().hex[:8]}"
    answer = backend.raw("ImportTable", {
        "S3BucketSource": {**source, "Unknown": 10**40}, "InputFormat": "DYNAMODB_JSON",
        "TableCreationParameters": {
            "TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}})
    assert answer.status == 200, answer.body
    assert answer.json["ImportTableDescription"]["S3BucketSource"] == source


def test_a_null_kinesis_configuration_is_as_if_absent(backend: Backend, tbl: str) -> None:
    """A member sent as JSON null is no member: UpdateKinesisStreamingDestination
    then names no precision (its ValidationException, not a server error)."""
    stream = "arn:aws:kinesis:us-east-1:000000000000:stream/absent"
    refused(backend, tbl, "UpdateKinesisStreamingDestination",
            {"TableName": tbl, "StreamArn": stream, "UpdateKinesisStreamingConfiguration": None},
            "UpdateKinesisStreamingConfiguration must name an "
            "ApproximateCreationDateTimePrecision")
    answer = backend.raw("EnableKinesisStreamingDestination",
                         {"TableName": tbl, "StreamArn": stream,
                          "EnableKinesisStreamingConfiguration": None})
    assert answer.status == 200, answer.body
    assert answer.json["EnableKinesisStreamingConfiguration"] == {
        "ApproximateCreationDateTimePrecision": "MILLISECOND"}
