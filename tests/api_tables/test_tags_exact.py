"""Tags as DynamoDB answers them where tallydb used to differ: the empty
body of TagResource and UntagResource, the characters a tag may hold, an
ARN of another account, and checks before the table is looked up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import Backend, assert_error

INVALID = "One or more parameter values were invalid: "


@pytest.fixture
def arn(ddb: Any, make_table: Callable[..., str]) -> str:
    name = make_table("tags", hash=("pk", "S"))
    return str(ddb.describe_table(TableName=name)["Table"]["TableArn"])


def test_tag_and_untag_answer_an_empty_body(backend: Backend, arn: str) -> None:
    # DynamoDB's model gives TagResource and UntagResource no output: their
    # success is an HTTP 200 without a body (botocore's dynamodb model).
    tagged = backend.raw("TagResource", {"ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]})
    assert (tagged.status, tagged.body) == (200, b"")
    untagged = backend.raw("UntagResource", {"ResourceArn": arn, "TagKeys": ["k"]})
    assert (untagged.status, untagged.body) == (200, b"")
    listed = backend.raw("ListTagsOfResource", {"ResourceArn": arn})
    assert (listed.status, listed.json) == (200, {"Tags": []})


@pytest.mark.parametrize(("tag", "part", "text"), [
    ({"Key": "a*b", "Value": "v"}, "key", "a*b"),
    ({"Key": "k", "Value": "<script>"}, "value", "<script>"),
    ({"Key": "k", "Value": "a{b}"}, "value", "a{b}"),
])
def test_a_tag_with_a_forbidden_character_is_refused(
        ddb: Any, arn: str, tag: dict[str, str], part: str, text: str) -> None:
    # DynamoDB's tagging restrictions: letters, white space, numbers and
    # + - = . _ : / (developer guide, "Tagging restrictions in DynamoDB");
    # its wording for the refusal is not on record (ours).
    with pytest.raises(ClientError) as excinfo:
        ddb.tag_resource(ResourceArn=arn, Tags=[tag])
    assert_error(excinfo, "ValidationException",
                 f"{INVALID}The tag {part} {text} has characters other than letters, white "
                 "space, numbers and + - = . _ : /")
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []


def test_allowed_characters_are_kept(ddb: Any, arn: str) -> None:
    tags = [{"Key": "cost-centre:ünïcode_1", "Value": "a b+c=d.e/f"}]
    ddb.tag_resource(ResourceArn=arn, Tags=tags)
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == tags


@pytest.mark.parametrize("operation", ["TagResource", "UntagResource", "ListTagsOfResource"])
def test_an_arn_of_another_account_is_access_denied(backend: Backend, operation: str) -> None:
    # DynamoDB answers AccessDeniedException for a table ARN of an account
    # not the caller's (nubo-db/dynamodb-conformance, run against DynamoDB
    # in 2026: ListTagsOfResource of account 000000000000's ARN), naming the
    # ARN; worded as IAM words a refusal across accounts.
    foreign = "arn:aws:dynamodb:us-east-1:123456789012:table/someone-elses"
    body: dict[str, Any] = {"ResourceArn": foreign}
    if operation == "TagResource":
        body["Tags"] = [{"Key": "k", "Value": "v"}]
    if operation == "UntagResource":
        body["TagKeys"] = ["k"]
    answer = backend.raw(operation, body)
    assert (answer.status, answer.error_code, answer.message) == (
        400, "AccessDeniedException",
        f"User: arn:aws:iam::000000000000:root is not authorized to perform: "
        f"dynamodb:{operation} on resource: {foreign} because no resource-based policy allows "
        f"the dynamodb:{operation} action")


def test_tags_are_checked_before_the_table_is_looked_up(backend: Backend) -> None:
    missing = "arn:aws:dynamodb:us-east-1:000000000000:table/no-such-table"
    answer = backend.raw("TagResource", {"ResourceArn": missing,
                                         "Tags": [{"Key": "a*b", "Value": "v"}]})
    assert (answer.status, answer.error_code) == (400, "ValidationException")
    answer = backend.raw("TagResource", {"ResourceArn": missing,
                                         "Tags": [{"Key": "k", "Value": "v"}]})
    assert (answer.status, answer.error_code) == (400, "ResourceNotFoundException")


def test_tag_resource_without_a_tag_is_refused(backend: Backend, arn: str) -> None:
    # DynamoDB refuses a TagResource whose Tags list is empty (ScyllaDB's
    # Alternator tests, run against DynamoDB, test_tag.py), a constraint
    # botocore's model does not carry; the wording is the constraint layer's
    # for a list under its minimum length, as other emulators record it.
    backend.raw("TagResource", {"ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]})
    refused = backend.raw("TagResource", {"ResourceArn": arn, "Tags": []})
    assert (refused.status, refused.json) == (400, {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": "1 validation error detected: Value '[]' at 'tags' failed to satisfy "
                   "constraint: Member must have length greater than or equal to 1"})
    listed = backend.raw("ListTagsOfResource", {"ResourceArn": arn})
    assert listed.json == {"Tags": [{"Key": "k", "Value": "v"}]}


@pytest.mark.parametrize("operation", ["TagResource", "UntagResource", "ListTagsOfResource"])
def test_a_resource_arn_that_is_no_arn_or_an_index_is_refused_in_dynamodbs_words(
        backend: Backend, arn: str, operation: str) -> None:
    # DynamoDB's current words: a bare name (recorded against DynamoDB in
    # 2026; ScyllaDB's Alternator tests note the change from an older
    # AccessDeniedException) and an index's ARN (quoted in those tests from
    # DynamoDB in 2026).
    extra: dict[str, Any] = {"TagResource": {"Tags": [{"Key": "k", "Value": "v"}]},
                             "UntagResource": {"TagKeys": ["k"]}}.get(operation, {})
    index_arn = arn + "/index/by_k"
    for resource, message in [
        ("not-an-arn", INVALID + "ARNs must start with 'arn:': not-an-arn"),
        ("tags", INVALID + "ARNs must start with 'arn:': tags"),
        (index_arn, INVALID + "Invalid resource arn provided, only table or stream is "
                              f"accepted. Provided resource arn: {index_arn}"),
    ]:
        answer = backend.raw(operation, {"ResourceArn": resource, **extra})
        assert (answer.status, answer.error_code, answer.message) == (
            400, "ValidationException", message), resource
    assert backend.raw("ListTagsOfResource", {"ResourceArn": arn}).json == {"Tags": []}


@pytest.mark.parametrize("operation", ["TagResource", "UntagResource", "ListTagsOfResource"])
def test_a_stream_arn_is_a_resource_not_found(
        backend: Backend, ddb: Any, make_table: Callable[..., str], operation: str) -> None:
    # DynamoDB takes a stream's ARN for a resource ("only table or stream is
    # accepted", above) but keeps no tags on it: ResourceNotFoundException.
    # Its wording for a stream is not on record; the text is the one
    # DynamoDB gives a ResourceArn naming no table (recorded against it).
    name = make_table("streamed", hash=("pk", "S"))
    table = ddb.update_table(TableName=name, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["TableDescription"]
    stream_arn = table["LatestStreamArn"]
    ddb.tag_resource(ResourceArn=table["TableArn"], Tags=[{"Key": "k", "Value": "v"}])
    extra: dict[str, Any] = {"TagResource": {"Tags": [{"Key": "k", "Value": "w"}]},
                             "UntagResource": {"TagKeys": ["k"]}}.get(operation, {})
    for resource in (stream_arn, stream_arn.replace(name, "no-such-table")):
        answer = backend.raw(operation, {"ResourceArn": resource, **extra})
        assert (answer.status, answer.error_code, answer.message) == (
            400, "ResourceNotFoundException",
            f"Requested resource not found: ResourceArn: {resource} not found"), resource
    assert ddb.list_tags_of_resource(ResourceArn=table["TableArn"])["Tags"] == [
        {"Key": "k", "Value": "v"}]
