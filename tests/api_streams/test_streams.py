"""DynamoDB Streams through boto3's ``dynamodbstreams`` client, against
``tallydb serve`` and in-process.

Record shape as DynamoDB writes it (the DynamoDB Streams API reference,
StreamRecord and Record): eventName INSERT/MODIFY/REMOVE, eventVersion
"1.1", eventSource "aws:dynamodb", Keys, NewImage/OldImage by view type,
SequenceNumber, SizeBytes, StreamViewType. A write that leaves the item as it
was writes no record; a transaction or a batch writes one per item changed;
TTL's deletions carry ``userIdentity`` {Type Service, PrincipalId
dynamodb.amazonaws.com}. UpdateTable's refusals are the 2026 catalogue's
("Table already has an enabled stream: TableName: T", "Table has no stream
to disable: TableName: T").
"""

from __future__ import annotations

import base64
import time
from typing import Any

import orjson
import pytest
from botocore.exceptions import ClientError
from streamkit import (
    KEY,
    check_counter_records,
    data_directory,
    increment,
    read_all,
    shard_of,
    signed_iterator,
    table_with_stream,
)
from tallytest import error_of


def test_100_increments_are_1_insert_and_99_modify(ddb: Any, streams: Any) -> None:
    table, arn = table_with_stream(ddb)
    increment(ddb, table, 100)
    records = read_all(streams, arn)
    check_counter_records(records, 100)
    first = records[0]
    assert first["eventSource"] == "aws:dynamodb" and first["eventVersion"] == "1.1"
    assert first["dynamodb"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert first["dynamodb"]["SizeBytes"] > 0 and len(first["eventID"]) == 32
    assert read_all(streams, arn, limit=7) == records  # paged by Limit, same records


def test_a_records_images_hold_the_items_strings_as_written(ddb: Any, streams: Any) -> None:
    """An item's string that looks like an ARN of tallydb's stored form
    (DynamoDB Local's region) is the user's: GetRecords shows it as
    written, as GetItem does (it is not rewritten to the request's region)."""
    table, arn = table_with_stream(ddb)
    ref = "arn:aws:dynamodb:ddblocal:000000000000:table/elsewhere"
    ddb.put_item(TableName=table, Item={**KEY, "ref": {"S": ref}})
    assert ddb.get_item(TableName=table, Key=KEY)["Item"]["ref"] == {"S": ref}
    shard = shard_of(streams, arn)
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    page = streams.get_records(ShardIterator=iterator)
    assert page["Records"][0]["dynamodb"]["NewImage"]["ref"] == {"S": ref}


def test_a_write_that_changes_nothing_has_no_record(ddb: Any, streams: Any) -> None:
    table, arn = table_with_stream(ddb)
    item = {**KEY, "n": {"N": "1"}}
    ddb.put_item(TableName=table, Item=item)
    ddb.put_item(TableName=table, Item=item)
    ddb.update_item(TableName=table, Key=KEY, UpdateExpression="SET n = :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    ddb.delete_item(TableName=table, Key={"PK": {"S": "absent"}, "SK": {"S": "x"}})
    assert [r["eventName"] for r in read_all(streams, arn)] == ["INSERT"]


def test_an_update_of_one_attribute_has_a_record_only_when_it_changes(
        ddb: Any, streams: Any) -> None:
    table, arn = table_with_stream(ddb)
    ddb.put_item(TableName=table, Item={**KEY, "n": {"N": "1"}, "s": {"S": "a"}})
    values = {":zero": {"N": "0"}, ":one": {"N": "1"}, ":a": {"S": "a"}}
    for expression in ("ADD n :zero", "REMOVE absent", "SET n = n + :zero", "SET s = :a",
                       "ADD n :one", "ADD n :zero", "SET s = :a"):
        used = {name: value for name, value in values.items() if name in expression}
        ddb.update_item(TableName=table, Key=KEY, UpdateExpression=expression,
                        **({"ExpressionAttributeValues": used} if used else {}))
    records = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY"]
    assert records[1]["dynamodb"]["NewImage"]["n"] == {"N": "2"}


@pytest.mark.parametrize(("view", "old", "new"), [
    ("KEYS_ONLY", False, False), ("NEW_IMAGE", False, True),
    ("OLD_IMAGE", True, False), ("NEW_AND_OLD_IMAGES", True, True),
])
def test_view_types(ddb: Any, streams: Any, view: str, old: bool, new: bool) -> None:
    table, arn = table_with_stream(ddb, view)
    increment(ddb, table, 2)
    ddb.delete_item(TableName=table, Key=KEY)
    records = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    modify = records[1]["dynamodb"]
    assert modify["Keys"] == KEY and modify["StreamViewType"] == view
    assert ("OldImage" in modify) is old and ("NewImage" in modify) is new


def test_transaction_and_batch_give_one_record_per_item(ddb: Any, streams: Any) -> None:
    table, arn = table_with_stream(ddb)
    a = {"PK": {"S": "stock"}, "SK": {"S": "A"}}
    b = {"PK": {"S": "stock"}, "SK": {"S": "B"}}
    ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {**a, "qty": {"N": "10"}}}},
        {"PutRequest": {"Item": {**b, "qty": {"N": "0"}}}}]})
    ddb.transact_write_items(TransactItems=[
        {"Update": {"TableName": table, "Key": a, "UpdateExpression": "ADD qty :m",
                    "ExpressionAttributeValues": {":m": {"N": "-3"}}}},
        {"Update": {"TableName": table, "Key": b, "UpdateExpression": "ADD qty :p",
                    "ExpressionAttributeValues": {":p": {"N": "3"}}}}])
    records = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "INSERT", "MODIFY", "MODIFY"]
    moved = {r["dynamodb"]["Keys"]["SK"]["S"]: (r["dynamodb"]["OldImage"]["qty"]["N"],
                                                 r["dynamodb"]["NewImage"]["qty"]["N"])
             for r in records[2:]}
    assert moved == {"A": ("10", "7"), "B": ("0", "3")}


def test_describe_table_and_update_table(ddb: Any, streams: Any) -> None:
    table, arn = table_with_stream(ddb)
    described = ddb.describe_table(TableName=table)["Table"]
    assert described["LatestStreamArn"] == arn
    assert described["StreamSpecification"] == {"StreamEnabled": True,
                                                 "StreamViewType": "NEW_AND_OLD_IMAGES"}
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(TableName=table, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    assert error_of(excinfo) == ("ValidationException",
                                 f"Table already has an enabled stream: TableName: {table}", 400)
    increment(ddb, table, 1)
    ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    # a disabled stream: no StreamSpecification, the closed stream still named
    described = ddb.describe_table(TableName=table)["Table"]
    assert "StreamSpecification" not in described
    assert described["LatestStreamArn"] == arn
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    assert error_of(excinfo) == ("ValidationException",
                                 f"Table has no stream to disable: TableName: {table}", 400)
    increment(ddb, table, 1)  # no stream: no record
    closed = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert closed["StreamStatus"] == "DISABLED"
    assert "EndingSequenceNumber" in closed["Shards"][0]["SequenceNumberRange"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_of(streams, arn),
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    page = streams.get_records(ShardIterator=iterator)
    assert len(page["Records"]) == 1 and "NextShardIterator" not in page  # read to its end

    again = ddb.update_table(TableName=table, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["TableDescription"]
    new_arn = again["LatestStreamArn"]
    assert new_arn != arn and again["LatestStreamLabel"] != closed["StreamLabel"]
    increment(ddb, table, 1)
    assert [r["eventName"] for r in read_all(streams, new_arn)] == ["MODIFY"]
    assert [s["StreamArn"] for s in streams.list_streams(TableName=table)["Streams"]] == [
        arn, new_arn]


def test_iterator_positions(ddb: Any, streams: Any) -> None:
    table, arn = table_with_stream(ddb)
    increment(ddb, table, 5)
    records = read_all(streams, arn)
    third = records[2]["dynamodb"]["SequenceNumber"]
    at = read_all(streams, arn, "AT_SEQUENCE_NUMBER", SequenceNumber=third)
    assert at == records[2:]
    after = read_all(streams, arn, "AFTER_SEQUENCE_NUMBER", SequenceNumber=third)
    assert after == records[3:]
    latest = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_of(streams, arn),
                                        ShardIteratorType="LATEST")["ShardIterator"]
    assert streams.get_records(ShardIterator=latest)["Records"] == []
    increment(ddb, table, 1)
    assert [r["eventName"] for r in streams.get_records(ShardIterator=latest)["Records"]] == [
        "MODIFY"]


def test_list_streams_pages(ddb: Any, streams: Any) -> None:
    arns = [table_with_stream(ddb, prefix="lst")[1] for _ in range(3)]
    seen: list[str] = []
    kwargs: dict[str, Any] = {"Limit": 2}
    while True:
        page = streams.list_streams(**kwargs)
        seen += [s["StreamArn"] for s in page["Streams"]]
        if "LastEvaluatedStreamArn" not in page:
            break
        kwargs["ExclusiveStartStreamArn"] = page["LastEvaluatedStreamArn"]
    assert sorted(a for a in seen if a in arns) == sorted(arns)
    assert len(seen) == len(set(seen))  # each once


def test_errors(ddb: Any, streams: Any, backend: Any) -> None:
    _, arn = table_with_stream(ddb)
    missing = arn.rsplit("/", 1)[0] + "/2000-01-01T00:00:00.000"
    with pytest.raises(ClientError) as excinfo:
        streams.describe_stream(StreamArn=missing)
    assert error_of(excinfo) == (
        "ResourceNotFoundException", f"Requested resource not found: Stream: {missing} not found",
        400)
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(StreamArn=arn, ShardId="shardId-00000000000000000000-0000",
                                   ShardIteratorType="TRIM_HORIZON")
    assert error_of(excinfo)[0] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator="not-an-iterator")
    assert error_of(excinfo) == ("ValidationException", "Invalid ShardIterator", 400)
    # an iterator issued 16 minutes ago (iterators are stateless, signed tokens)
    shard = shard_of(streams, arn)
    # (the server makes its signing key with its first iterator: issue one)
    streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    data = data_directory(backend)
    stale = signed_iterator(data, arn, shard, 0, time.time() - 16 * 60)
    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator=stale)
    # DynamoDB Streams' message, as an AWS SDK error quotes the service
    assert error_of(excinfo) == ("ExpiredIteratorException", "Shard iterator has expired", 400)
    # nor does one "issued" in the future live forever
    future = signed_iterator(data, arn, shard, 0, time.time() + 365 * 86400)
    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator=future)
    assert error_of(excinfo)[0] == "ExpiredIteratorException"


def test_a_forged_or_altered_iterator_is_refused(ddb: Any, streams: Any) -> None:
    """An iterator is the server's own: one made by hand (the fields without
    the server's MAC) or changed after it was issued reads nothing."""
    _, arn = table_with_stream(ddb)
    shard = shard_of(streams, arn)
    unsigned = base64.urlsafe_b64encode(orjson.dumps([arn, shard, 0, time.time()])).decode()
    issued = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    raw = bytearray(base64.urlsafe_b64decode(issued))
    raw[raw.index(b",0,") + 1] = ord("5")  # the position, moved
    altered = base64.urlsafe_b64encode(bytes(raw)).decode()
    for iterator in (unsigned, altered, issued[:-4], issued + "AAAA"):
        with pytest.raises(ClientError) as excinfo:
            streams.get_records(ShardIterator=iterator)
        assert error_of(excinfo) == ("ValidationException", "Invalid ShardIterator", 400)
    assert streams.get_records(ShardIterator=issued)["Records"] == []


def test_a_sequence_number_past_every_record_is_refused(ddb: Any, streams: Any) -> None:
    _, arn = table_with_stream(ddb)
    shard = shard_of(streams, arn)
    for number in (str(2**63).zfill(21), "9" * 40):
        with pytest.raises(ClientError) as excinfo:
            streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                       ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                                       SequenceNumber=number)
        assert error_of(excinfo) == (
            "ValidationException",
            "One or more parameter values were invalid: Invalid SequenceNumber", 400)


def test_streams_operations_are_not_dynamodb_operations(backend: Any) -> None:
    answer = backend.raw("DynamoDB_20120810.GetRecords", {"ShardIterator": "x"})
    assert answer.status == 400
    assert orjson.loads(answer.body)["__type"].endswith("#UnknownOperationException")


def test_request_checks(streams: Any) -> None:
    """DynamoDB Streams' constraint messages (botocore's dynamodbstreams model;
    GetRecords' Limit at most 1,000 as the API reference states)."""
    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator="x", Limit=1001)
    assert error_of(excinfo) == (
        "ValidationException", "1 validation error detected: Value '1001' at 'limit' failed to "
        "satisfy constraint: Member must have value less than or equal to 1000", 400)


def test_request_checks_the_sdk_would_not_send(backend: Any) -> None:
    answer = backend.raw("DynamoDBStreams_20120810.DescribeStream", {})
    assert answer.status == 400
    assert orjson.loads(answer.body)["message"] == (
        "1 validation error detected: Value null at 'streamArn' failed to satisfy constraint: "
        "Member must not be null")


def test_a_batch_write_is_a_record_per_put_and_delete(ddb: Any, streams: Any) -> None:
    # Each put and delete of a BatchWriteItem is a record, with what the
    # item was: a put over an item is a MODIFY, a delete a REMOVE.
    table, arn = table_with_stream(ddb)
    put = [{"PutRequest": {"Item": {"PK": {"S": pk}, "SK": {"S": "1"}, "n": {"N": n}}}}
           for pk, n in (("a", "1"), ("b", "1"))]
    ddb.batch_write_item(RequestItems={table: put})
    ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "1"}, "n": {"N": "2"}}}},
        {"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}}}]})
    events = [(r["eventName"], r["dynamodb"]["Keys"]["PK"]["S"],
               r["dynamodb"].get("OldImage", {}).get("n"))
              for r in read_all(streams, arn)]
    assert events == [("INSERT", "a", None), ("INSERT", "b", None),
                      ("MODIFY", "b", {"N": "1"}), ("REMOVE", "a", {"N": "1"})]
