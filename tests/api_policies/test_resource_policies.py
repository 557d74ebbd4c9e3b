"""Put/Get/DeleteResourcePolicy and CreateTable's ResourcePolicy, through
boto3 against a real ``tallydb serve`` and in-process."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from botocore.exceptions import ClientError
from tallytest import Backend, unique_name

PRINCIPAL = "arn:aws:iam::000000000000:user/reader"


def _policy(arn: str, effect: str = "Allow", action: str = "dynamodb:GetItem") -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": effect, "Principal": {"AWS": PRINCIPAL}, "Action": action,
        "Resource": arn}]})


def _code(info: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = info.value.response["Error"]
    return error["Code"], error.get("Message", "")


def test_a_policy_is_kept_exactly_with_its_revision(
    backend: Backend, make_table: Callable[..., str],
) -> None:
    ddb = backend.client()
    table = make_table("policed")
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    with pytest.raises(ClientError) as info:
        ddb.get_resource_policy(ResourceArn=arn)
    assert _code(info) == ("PolicyNotFoundException",
                           f"Resource-based policy not found for the provided ResourceArn: {arn}")
    text = _policy(arn) + "  "  # kept exactly, spaces and all
    first = ddb.put_resource_policy(ResourceArn=arn, Policy=text)["RevisionId"]
    got = ddb.get_resource_policy(ResourceArn=arn)
    assert (got["Policy"], got["RevisionId"]) == (text, first)
    again = ddb.put_resource_policy(ResourceArn=arn, Policy=text)["RevisionId"]
    assert again == first  # the same policy keeps its revision
    with pytest.raises(ClientError) as info:
        ddb.put_resource_policy(ResourceArn=arn, Policy=_policy(arn, "Deny"),
                                ExpectedRevisionId="NO_POLICY")
    assert _code(info)[0] == "PolicyNotFoundException"
    with pytest.raises(ClientError) as info:
        ddb.put_resource_policy(ResourceArn=arn, Policy=_policy(arn, "Deny"),
                                ExpectedRevisionId="123")
    assert _code(info)[0] == "PolicyNotFoundException"
    second = ddb.put_resource_policy(ResourceArn=arn, Policy=_policy(arn, "Deny"),
                                     ExpectedRevisionId=first)["RevisionId"]
    assert second != first
    with pytest.raises(ClientError) as info:
        ddb.delete_resource_policy(ResourceArn=arn, ExpectedRevisionId=first)
    assert _code(info)[0] == "PolicyNotFoundException"
    assert ddb.delete_resource_policy(ResourceArn=arn, ExpectedRevisionId=second)["RevisionId"]
    with pytest.raises(ClientError) as info:
        ddb.delete_resource_policy(ResourceArn=arn)
    assert _code(info)[0] == "PolicyNotFoundException"


def test_bad_policies_are_refused_with_dynamodbs_error(
    backend: Backend, make_table: Callable[..., str],
) -> None:
    ddb = backend.client()
    table = make_table("refused")
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    for text in ("not json", "{}", _policy(arn, "Maybe"), _policy(arn, action="s3:GetObject"),
                 json.dumps({"Statement": [{"Effect": "Allow", "Action": "dynamodb:*"}]}),
                 _policy(arn)[:-1] + " " * 21_000 + "}"):
        with pytest.raises(ClientError) as info:
            ddb.put_resource_policy(ResourceArn=arn, Policy=text)
        code, message = _code(info)
        assert code == "ValidationException"
        assert message.startswith(
            "One or more parameter values were invalid: Invalid policy document: ")
    assert ddb.put_resource_policy(ResourceArn=arn, Policy=_policy(arn, action="dynamodb:Get*"))
    missing = arn.rpartition("/")[0] + "/" + unique_name("missing")
    with pytest.raises(ClientError) as info:
        ddb.put_resource_policy(ResourceArn=missing, Policy=_policy(missing))
    assert _code(info)[0] == "ResourceNotFoundException"


def test_create_table_keeps_its_resource_policy(backend: Backend) -> None:
    ddb = backend.client()
    name = unique_name("born-policed")
    arn = f"arn:aws:dynamodb:us-east-1:000000000000:table/{name}"
    text = _policy(arn)
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                     ResourcePolicy=text)
    try:
        assert ddb.get_resource_policy(ResourceArn=arn)["Policy"] == text
    finally:
        ddb.delete_table(TableName=name)
    with pytest.raises(ClientError) as info:
        ddb.create_table(TableName=unique_name("bad"), BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                         ResourcePolicy="[]")
    assert _code(info)[0] == "ValidationException"


def test_a_streams_policy_is_its_own(backend: Backend, make_table: Callable[..., str]) -> None:
    ddb = backend.client()
    table = make_table("streamed")
    described = ddb.update_table(TableName=table, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})["TableDescription"]
    stream = described["LatestStreamArn"]
    text = _policy(stream, action="dynamodb:GetRecords")
    ddb.put_resource_policy(ResourceArn=stream, Policy=text)
    assert ddb.get_resource_policy(ResourceArn=stream)["Policy"] == text
    with pytest.raises(ClientError) as info:
        ddb.get_resource_policy(ResourceArn=described["TableArn"])
    assert _code(info)[0] == "PolicyNotFoundException"


@pytest.mark.parametrize("operation", ["GetResourcePolicy", "DeleteResourcePolicy",
                                       "PutResourcePolicy"])
def test_a_resource_arn_that_is_no_arn_or_an_index_is_refused_in_dynamodbs_words(
        backend: Backend, make_table: Callable[..., str], operation: str) -> None:
    # DynamoDB's current words: a bare table name (recorded against DynamoDB
    # in 2026 for the three operations) and an index's ARN (its wording for
    # the tag operations, quoted in ScyllaDB's Alternator tests in 2026).
    table = make_table("policed")
    arn = backend.client().describe_table(TableName=table)["Table"]["TableArn"]
    index_arn = arn + "/index/by_k"
    invalid = "One or more parameter values were invalid: "
    for resource, message in [
        (table, invalid + f"ARNs must start with 'arn:': {table}"),
        (index_arn, invalid + "Invalid resource arn provided, only table or stream is "
                              f"accepted. Provided resource arn: {index_arn}"),
    ]:
        body = {"ResourceArn": resource}
        if operation == "PutResourcePolicy":
            body["Policy"] = _policy(arn)
        answer = backend.raw(operation, body)
        assert (answer.status, answer.error_code, answer.message) == (
            400, "ValidationException", message), resource
