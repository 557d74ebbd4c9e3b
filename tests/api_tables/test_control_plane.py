"""The control-plane calls SDKs and tools expect: tags, endpoints, limits,
point-in-time recovery status, DeleteTable's answer, and the answer for an
operation tallydb does not serve."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import botocore.session
import pytest
from botocore.exceptions import ClientError
from tallytest import Backend, ServerBackend, assert_error

VALIDATION = "ValidationException"


@pytest.fixture
def tagged(ddb: Any, make_table: Callable[..., str]) -> tuple[str, str]:
    name = make_table("tags", hash=("pk", "S"))
    return name, ddb.describe_table(TableName=name)["Table"]["TableArn"]


def test_tags_are_added_replaced_listed_and_removed(ddb: Any, tagged: tuple[str, str]) -> None:
    _, arn = tagged
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "a"},
                                            {"Key": "env", "Value": "dev"}])
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "b"}])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [
        {"Key": "team", "Value": "b"}, {"Key": "env", "Value": "dev"}]
    ddb.untag_resource(ResourceArn=arn, TagKeys=["team", "absent"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "dev"}]


def test_create_table_tags_are_listed(ddb: Any, make_table: Callable[..., str]) -> None:
    name = f"tagged-{id(ddb)}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     Tags=[{"Key": "owner", "Value": "me"}])
    try:
        arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
        assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [
            {"Key": "owner", "Value": "me"}]
    finally:
        ddb.delete_table(TableName=name)


def test_more_than_50_tags_are_refused(ddb: Any, tagged: tuple[str, str]) -> None:
    # DynamoDB allows 50 tags per resource; its wording is not on record.
    too_many = ("One or more parameter values were invalid: The number of tags exceeds the "
                "limit of 50")
    _, arn = tagged
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(50)])
    with pytest.raises(ClientError) as excinfo:
        ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "one-more", "Value": "v"}])
    assert_error(excinfo, VALIDATION, too_many)
    assert len(ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]) == 50
    with pytest.raises(ClientError) as excinfo:
        ddb.create_table(TableName="never-tagged", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(51)])
    assert_error(excinfo, VALIDATION, too_many)
    assert "never-tagged" not in ddb.list_tables()["TableNames"]


def test_tags_of_a_missing_or_malformed_arn(ddb: Any, tagged: tuple[str, str]) -> None:
    _, arn = tagged
    missing = arn.rsplit("/", 1)[0] + "/no-such-table"
    with pytest.raises(ClientError) as excinfo:
        ddb.list_tags_of_resource(ResourceArn=missing)
    # DynamoDB's current wording (recorded against it in 2026, for TagResource,
    # UntagResource and ListTagsOfResource); dynalite's older record spelled
    # it "ResourcArn".
    assert_error(excinfo, "ResourceNotFoundException",
                 f"Requested resource not found: ResourceArn: {missing} not found")
    with pytest.raises(ClientError) as excinfo:
        ddb.tag_resource(ResourceArn="not-an-arn", Tags=[{"Key": "k", "Value": "v"}])
    # DynamoDB's current words (recorded against it in 2026; api/_resource_arns.py).
    assert_error(excinfo, VALIDATION,
                 "One or more parameter values were invalid: ARNs must start with 'arn:': "
                 "not-an-arn")


def test_describe_endpoints_and_limits(backend: Backend, ddb: Any) -> None:
    # DynamoDB names the endpoint the request reached (its regional host);
    # a server names the host and port it was reached at, whatever they are,
    # and an engine in process, reached at none, the conventional local one.
    endpoints = ddb.describe_endpoints()["Endpoints"]
    address = "localhost:8000"
    if isinstance(backend, ServerBackend):
        assert backend.server.url is not None
        address = urlsplit(backend.server.url).netloc
    assert endpoints == [{"Address": address, "CachePeriodInMinutes": 1440}]
    limits = ddb.describe_limits()
    assert {k: v for k, v in limits.items() if k != "ResponseMetadata"} == {
        "AccountMaxReadCapacityUnits": 80000, "AccountMaxWriteCapacityUnits": 80000,
        "TableMaxReadCapacityUnits": 40000, "TableMaxWriteCapacityUnits": 40000}


def test_point_in_time_recovery_is_switched(ddb: Any, tagged: tuple[str, str]) -> None:
    name, _ = tagged
    described = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    assert described == {"ContinuousBackupsStatus": "ENABLED",
                         "PointInTimeRecoveryDescription": {
                             "PointInTimeRecoveryStatus": "DISABLED"}}
    updated = ddb.update_continuous_backups(
        TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True},
    )["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert updated["PointInTimeRecoveryStatus"] == "ENABLED"
    assert updated["RecoveryPeriodInDays"] == 35
    assert updated["EarliestRestorableDateTime"] <= updated["LatestRestorableDateTime"]
    described = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    assert described["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    ddb.update_continuous_backups(
        TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False})
    described = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    assert described["PointInTimeRecoveryDescription"] == {
        "PointInTimeRecoveryStatus": "DISABLED"}


def test_continuous_backups_of_a_missing_table(ddb: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.describe_continuous_backups(TableName="no-such-table")
    assert_error(excinfo, "TableNotFoundException", "Table not found: no-such-table")


def test_delete_table_answer_leaves_out_schema_and_indexes(
        ddb: Any, make_table: Callable[..., str]) -> None:
    # DynamoDB's DeleteTable description has no CreationDateTime, KeySchema,
    # AttributeDefinitions or indexes.
    name = make_table("gone", hash=("pk", "S"))
    deleted = ddb.delete_table(TableName=name)["TableDescription"]
    assert deleted["TableStatus"] == "DELETING"
    for member in ("CreationDateTime", "KeySchema", "AttributeDefinitions",
                   "GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        assert member not in deleted


def _unserved() -> list[str]:
    from tallydb.engine.api import OPERATIONS

    model = botocore.session.get_session().get_service_model("dynamodb")
    return sorted(set(model.operation_names) - set(OPERATIONS))


def test_every_unserved_operation_is_named_in_its_refusal(backend: Backend) -> None:
    unserved = _unserved()
    assert "SearchVectors" in unserved
    for operation in unserved:
        answer = backend.raw(operation, {})
        assert (answer.status, answer.error_code) == (400, "UnknownOperationException")
        assert answer.message == (
            f"{operation} is an operation of DynamoDB that tallydb does not serve")
    # A target that is no operation of DynamoDB's gets DynamoDB's own answer.
    answer = backend.raw("NoSuchOperation", {})
    assert (answer.status, answer.error_code) == (400, "UnknownOperationException")


@pytest.mark.parametrize("operation", ["TagResource", "UntagResource"])
def test_tag_operation_without_a_resource_arn(backend: Backend, operation: str) -> None:
    # DynamoDB's own sentence, not a constraint violation (dynalite, recorded).
    answer = backend.raw(operation, {})
    assert (answer.status, answer.error_code, answer.message) == (
        400, VALIDATION, "Invalid TableArn")
