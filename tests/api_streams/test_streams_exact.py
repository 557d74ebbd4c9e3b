"""DynamoDB Streams' request checks and answers where tallydb used to differ.

Sources of the texts: DynamoDB Streams' own words for these checks are on
no record found (SDK fixtures, issue threads, emulators tested against it);
DynamoDB Local 1.25 (Amazon's, built on DynamoDB's code) words them as
below, and tallydb takes its wording. A malformed stream ARN's text is
ours (see ``_stream_api.INVALID_STREAM_ARN``).
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from streamkit import shard_of, table_with_stream
from tallytest import Backend, error_of

STREAMS = "DynamoDBStreams_20120810."
INVALID = "One or more parameter values were invalid: "


def test_list_streams_limit_is_at_most_100(backend: Backend) -> None:
    for limit in (101, 100000):
        answer = backend.raw(STREAMS + "ListStreams", {"Limit": limit})
        assert (answer.status, answer.error_code, answer.message) == (
            400, "ValidationException",
            INVALID + "Limit cannot be greater than the maximum allowed size: 100")
    assert backend.raw(STREAMS + "ListStreams", {"Limit": 100}).status == 200


def test_describe_stream_limit_is_at_most_100(ddb: Any, streams: Any) -> None:
    _, arn = table_with_stream(ddb)
    with pytest.raises(ClientError) as excinfo:
        streams.describe_stream(StreamArn=arn, Limit=101)
    assert error_of(excinfo) == (
        "ValidationException", INVALID + "Limit cannot be greater than the maximum: 100", 400)


@pytest.mark.parametrize("arn", [
    "this-is-not-an-arn-at-all-but-it-is-long-enough",
    "arn:aws:dynamodb:us-east-1:000000000000:table/plays/no-stream-here",
    "arn:aws:s3:us-east-1:000000000000:table/plays/stream/2026-01-01T00:00:00.000",
])
def test_a_malformed_stream_arn_is_a_validation_error(backend: Backend, arn: str) -> None:
    # DynamoDB: ValidationException (a stream ARN it cannot read names
    # nothing that could be missing); the text is ours.
    for operation, body in [
        ("DescribeStream", {"StreamArn": arn}),
        ("GetShardIterator", {"StreamArn": arn, "ShardId": "shardId-00000000000000000000-0000",
                              "ShardIteratorType": "TRIM_HORIZON"}),
        ("ListStreams", {"ExclusiveStartStreamArn": arn}),
    ]:
        answer = backend.raw(STREAMS + operation, body)
        assert (answer.status, answer.error_code, answer.message) == (
            400, "ValidationException", f"Invalid StreamArn: {arn}"), operation


def test_a_well_formed_arn_of_no_stream_is_not_found(backend: Backend) -> None:
    arn = ("arn:aws:dynamodb:us-east-1:000000000000:table/no-such-table/stream/"
           "2026-01-01T00:00:00.000")
    answer = backend.raw(STREAMS + "DescribeStream", {"StreamArn": arn})
    assert (answer.status, answer.error_code, answer.message) == (
        400, "ResourceNotFoundException", f"Requested resource not found: Stream: {arn} not found")


@pytest.mark.parametrize("kind", ["TRIM_HORIZON", "LATEST"])
def test_a_position_iterator_takes_no_sequence_number(
        ddb: Any, streams: Any, kind: str) -> None:
    _, arn = table_with_stream(ddb)
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard_of(streams, arn),
                                   ShardIteratorType=kind, SequenceNumber="0" * 21)
    assert error_of(excinfo) == (
        "ValidationException",
        INVALID + "SequenceNumber should not be passed for this iterator type", 400)


def test_a_sequence_iterator_needs_its_number(ddb: Any, streams: Any) -> None:
    _, arn = table_with_stream(ddb)
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard_of(streams, arn),
                                   ShardIteratorType="AT_SEQUENCE_NUMBER")
    assert error_of(excinfo) == ("ValidationException", INVALID + "Invalid SequenceNumber", 400)


def test_request_checks_come_before_the_stream_is_looked_up(backend: Backend) -> None:
    # a malformed request about a stream that does not exist is refused as
    # malformed (the pipeline's rule: validation before existence)
    arn = ("arn:aws:dynamodb:us-east-1:000000000000:table/no-such-table/stream/"
           "2026-01-01T00:00:00.000")
    answer = backend.raw(STREAMS + "GetShardIterator", {
        "StreamArn": arn, "ShardId": "shardId-00000000000000000000-0000",
        "ShardIteratorType": "LATEST", "SequenceNumber": "0" * 21})
    assert (answer.error_code, answer.message) == (
        "ValidationException",
        INVALID + "SequenceNumber should not be passed for this iterator type")
    answer = backend.raw(STREAMS + "DescribeStream", {"StreamArn": arn, "Limit": 101})
    assert (answer.error_code, answer.message) == (
        "ValidationException", INVALID + "Limit cannot be greater than the maximum: 100")


def test_child_shards_of_a_stream_shard_are_none(ddb: Any, streams: Any) -> None:
    # A stream's one shard is never split here, so it has no child shards
    # (DescribeStream's ShardFilter CHILD_SHARDS: the shards whose parent it is).
    _, arn = table_with_stream(ddb)
    shard = shard_of(streams, arn)
    described = streams.describe_stream(
        StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": shard})
    assert described["StreamDescription"]["Shards"] == []


def test_list_streams_pages_past_a_deleted_tables_stream(ddb: Any, streams: Any) -> None:
    # A page goes on after the ARN it ended on, even when that stream's
    # table was deleted meanwhile: no stream after it is skipped.
    made = [table_with_stream(ddb, prefix="lsd") for _ in range(4)]
    arns = sorted(arn for _, arn in made)
    ours = set(arns)
    seen: list[str] = []
    page = streams.list_streams(Limit=1)
    while True:
        seen += [s["StreamArn"] for s in page["Streams"]]
        last = page.get("LastEvaluatedStreamArn")
        if last is None:
            break
        if last == arns[1]:  # delete the table whose stream ended the page
            ddb.delete_table(TableName=next(name for name, arn in made if arn == last))
        page = streams.list_streams(Limit=1, ExclusiveStartStreamArn=last)
    assert [a for a in seen if a in ours] == arns


def test_describe_stream_lists_the_shards_after_exclusive_start_shard_id(
        ddb: Any, streams: Any) -> None:
    # DynamoDB lists the shards whose IDs follow ExclusiveStartShardId, an ID
    # of no shard included: one past every shard ID answers no shard
    # (ScyllaDB's Alternator tests, run against DynamoDB, test_streams.py).
    _, arn = table_with_stream(ddb)
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    shard_id = shard["ShardId"]
    for start, expected in [
        (shard_id, []),
        ("zzzzzzzzzzzzzzzzzzzzzzzzsfasdgagadfadfgagkjsdfsfsdjfjks", []),
        ("shardId-00000000000000000000-00000000", [shard]),
    ]:
        described = streams.describe_stream(StreamArn=arn, ExclusiveStartShardId=start)
        assert described["StreamDescription"]["Shards"] == expected, start
