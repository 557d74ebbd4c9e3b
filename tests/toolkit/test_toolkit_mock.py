"""tallydb.testing.mock_dynamodb(): boto3 with no endpoint, answered in-process.

(The whole toolkit suite also runs on it: the ``mock`` store in conftest.py.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

import tallydb
from tallydb.testing import mock_dynamodb

KEY_SCHEMA = {
    "AttributeDefinitions": [
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "S"},
    ],
    "KeySchema": [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ],
}


@pytest.fixture(autouse=True)
def no_aws_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a developer's machine with no AWS set-up at all."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_DEFAULT_REGION", "AWS_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")


def _readme_example() -> dict[str, Any]:
    """The README's boto3 example, with no endpoint_url, region or credentials."""
    ddb = boto3.client("dynamodb")
    ddb.create_table(TableName="videos", BillingMode="PAY_PER_REQUEST", **KEY_SCHEMA)
    response: dict[str, Any] = ddb.update_item(
        TableName="videos",
        Key={"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}},
        UpdateExpression="ADD play_count :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return response


def test_readme_example_as_a_context_manager() -> None:
    with mock_dynamodb() as mock:
        assert _readme_example()["Attributes"] == {"play_count": {"N": "1"}}
        assert mock.engine is not None


def test_every_entry_starts_empty() -> None:
    with mock_dynamodb():
        _readme_example()
    with mock_dynamodb():
        assert boto3.client("dynamodb").list_tables()["TableNames"] == []


@mock_dynamodb()
def test_as_a_decorator() -> None:
    assert _readme_example()["Attributes"] == {"play_count": {"N": "1"}}


@mock_dynamodb()
class TestAsAClassDecorator:
    def test_one(self) -> None:
        _readme_example()

    def test_two_starts_empty(self) -> None:
        _readme_example()  # "videos" again: a fresh engine, no ResourceInUseException


def test_a_coroutine_function() -> None:
    @mock_dynamodb()
    async def main() -> list[str]:
        _readme_example()
        names: list[str] = boto3.client("dynamodb").list_tables()["TableNames"]
        return names

    assert asyncio.run(main()) == ["videos"]


def test_clients_made_before_the_mock_are_answered_by_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "a")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "b")
    early = boto3.session.Session().client("dynamodb")
    with mock_dynamodb():
        early.create_table(TableName="early", BillingMode="PAY_PER_REQUEST", **KEY_SCHEMA)
        assert early.list_tables()["TableNames"] == ["early"]


def test_the_resource_api_waiters_and_paginators() -> None:
    with mock_dynamodb():
        resource = boto3.resource("dynamodb")
        table = resource.create_table(
            TableName="videos", BillingMode="PAY_PER_REQUEST", **KEY_SCHEMA
        )
        table.wait_until_exists()
        with table.batch_writer() as batch:
            for i in range(30):
                batch.put_item(Item={"PK": "v", "SK": f"{i:02}", "n": i})
        pages = boto3.client("dynamodb").get_paginator("query").paginate(
            TableName="videos",
            KeyConditionExpression="PK = :v",
            ExpressionAttributeValues={":v": {"S": "v"}},
            Limit=7,
        )
        assert sum(page["Count"] for page in pages) == 30


def test_dynamodb_errors_are_dynamodbs() -> None:
    with mock_dynamodb():
        ddb = boto3.client("dynamodb")
        with pytest.raises(ddb.exceptions.ResourceNotFoundException) as caught:
            ddb.get_item(TableName="missing", Key={"PK": {"S": "x"}})
        assert caught.value.response["Error"]["Message"] == "Requested resource not found"


def test_a_client_with_its_own_endpoint_is_left_alone(tallydb_server: Any) -> None:
    with mock_dynamodb():
        _readme_example()
        served = tallydb_server.client()
        assert "videos" not in served.list_tables()["TableNames"]


def test_nested_mocks_answer_from_the_innermost() -> None:
    with mock_dynamodb():
        _readme_example()
        with mock_dynamodb():
            assert boto3.client("dynamodb").list_tables()["TableNames"] == []
        assert boto3.client("dynamodb").list_tables()["TableNames"] == ["videos"]


def test_the_environment_is_restored() -> None:
    import os

    with mock_dynamodb():
        assert os.environ["AWS_ACCESS_KEY_ID"] == "tallydb-mock"
    assert "AWS_ACCESS_KEY_ID" not in os.environ
    assert "AWS_DEFAULT_REGION" not in os.environ


def test_the_toolkit_on_a_mocked_client() -> None:
    with mock_dynamodb(), tallydb.connect(client=boto3.client("dynamodb")) as db:
        videos = db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
        plays = tallydb.Counter(videos, {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}, "play_count")
        assert plays.add() == 1
        assert plays.add(1, idempotency_key="k") == 2
        assert plays.add(1, idempotency_key="k") == 2


def test_arns_name_each_clients_region() -> None:
    # DynamoDB: a table's ARN names the region its endpoint serves; the mock
    # shares its tables between regions, as `tallydb serve` does by default.
    with mock_dynamodb():
        east = boto3.client("dynamodb", region_name="us-east-1")
        west = boto3.client("dynamodb", region_name="eu-west-1")
        created = east.create_table(TableName="videos", BillingMode="PAY_PER_REQUEST",
                                    **KEY_SCHEMA)["TableDescription"]
        assert created["TableArn"] == "arn:aws:dynamodb:us-east-1:000000000000:table/videos"
        seen = west.describe_table(TableName="videos")["Table"]
        assert seen["TableArn"] == "arn:aws:dynamodb:eu-west-1:000000000000:table/videos"


def test_answers_are_botocores_own_parse_and_each_request_runs_once() -> None:
    """A success is parsed by botocore's parser for the operation (bytes,
    metadata); an error takes botocore's whole path, events included, with
    the answer already made: the engine runs each request once."""
    with mock_dynamodb() as mock:
        ddb = boto3.client("dynamodb")
        runs: list[str] = []
        respond = mock.transport.respond

        def counted(target: str, body: bytes, region: str | None = None) -> tuple[int, bytes]:
            runs.append(target.rpartition(".")[2])
            return respond(target, body, region)

        mock.transport.respond = counted  # type: ignore[method-assign]
        sent: list[str] = []
        ddb.meta.events.register("before-send.dynamodb", lambda request, **_: sent.append(
            request.headers["X-Amz-Target"].decode().rpartition(".")[2]))
        ddb.create_table(TableName="tbl", BillingMode="PAY_PER_REQUEST", **KEY_SCHEMA)
        key = {"PK": {"S": "a"}, "SK": {"S": "b"}}
        ddb.put_item(TableName="tbl", Item={**key, "blob": {"B": b"\x00\xff"}})
        got = ddb.get_item(TableName="tbl", Key=key)
        assert got["Item"]["blob"] == {"B": b"\x00\xff"}
        metadata = got["ResponseMetadata"]
        assert metadata["HTTPStatusCode"] == 200 and metadata["RetryAttempts"] == 0
        assert metadata["RequestId"] == metadata["HTTPHeaders"]["x-amzn-requestid"]
        with pytest.raises(ddb.exceptions.ConditionalCheckFailedException) as caught:
            ddb.put_item(TableName="tbl", Item=key, ConditionExpression="attribute_not_exists(PK)",
                         ReturnValuesOnConditionCheckFailure="ALL_OLD")
        assert caught.value.response["Item"]["blob"] == {"B": b"\x00\xff"}
        assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        assert runs == ["CreateTable", "PutItem", "GetItem", "PutItem"]
        assert sent == ["PutItem"]  # the error's way, through botocore's events


def _toggle_ttl_twice() -> None:
    ddb = boto3.client("dynamodb")
    ddb.create_table(TableName="sessions", BillingMode="PAY_PER_REQUEST", **KEY_SCHEMA)
    for enabled in (True, False):
        ddb.update_time_to_live(TableName="sessions", TimeToLiveSpecification={
            "Enabled": enabled, "AttributeName": "expires_at"})


def test_ttl_changes_once_an_hour_unless_the_mock_is_given_another_interval() -> None:
    with mock_dynamodb(), pytest.raises(ClientError) as refused:
        _toggle_ttl_twice()
    assert refused.value.response["Error"] == {
        "Code": "ValidationException",
        "Message": "Time to live has been modified multiple times within a fixed interval"}
    with mock_dynamodb(ttl_change_interval=0):
        _toggle_ttl_twice()
        described = boto3.client("dynamodb").describe_time_to_live(TableName="sessions")
        assert described["TimeToLiveDescription"]["TimeToLiveStatus"] in ("DISABLING", "DISABLED")
