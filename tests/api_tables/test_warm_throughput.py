"""A table's and a GSI's WarmThroughput: the baseline, raises, and the requests DynamoDB
refuses, through a real boto3 client (the suite's ``ddb``: the server and
in-process).

DynamoDB's behaviour and texts: the conformance catalogue of 2026 (captures
against DynamoDB), Terraform's AWS provider (the decrease text), ScyllaDB's
Alternator tests (test_warm_throughput.py, written against DynamoDB).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from table_requests import hash_table

INVALID = "One or more parameter values were invalid: "
ON_DEMAND_GUIDE = ("https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
                   "on-demand-capacity-mode.html#on-demand-capacity-mode-initial")


@pytest.fixture
def name(ddb: Any) -> Iterator[str]:
    table = f"warm-{uuid.uuid4().hex[:10]}"
    yield table
    with contextlib.suppress(ddb.exceptions.ResourceNotFoundException):
        ddb.delete_table(TableName=table)


def warm_of(ddb: Any, table: str) -> dict[str, Any]:
    return ddb.describe_table(TableName=table)["Table"]["WarmThroughput"]


def refusal(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


def test_an_on_demand_table_starts_at_the_on_demand_baseline(ddb: Any, name: str) -> None:
    created = ddb.create_table(**hash_table(name))["TableDescription"]
    baseline = {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}
    assert created["WarmThroughput"] == baseline
    assert warm_of(ddb, name) == baseline


def test_a_provisioned_table_starts_at_its_capacity(ddb: Any, name: str) -> None:
    ddb.create_table(**hash_table(name, BillingMode="PROVISIONED",
                                  ProvisionedThroughput={"ReadCapacityUnits": 5,
                                                         "WriteCapacityUnits": 3}))
    assert warm_of(ddb, name) == {
        "ReadUnitsPerSecond": 5, "WriteUnitsPerSecond": 3, "Status": "ACTIVE"}


def test_one_unit_asked_keeps_the_baseline_of_the_other(ddb: Any, name: str) -> None:
    ddb.create_table(**hash_table(name, WarmThroughput={"ReadUnitsPerSecond": 12240}))
    assert warm_of(ddb, name) == {
        "ReadUnitsPerSecond": 12240, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}


def test_a_new_on_demand_table_below_the_baseline_is_refused(ddb: Any, name: str) -> None:
    for warm, unit in (({"ReadUnitsPerSecond": 11999, "WriteUnitsPerSecond": 4000},
                        "ReadUnitsPerSecond"),
                       ({"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 3999},
                        "WriteUnitsPerSecond")):
        with pytest.raises(ClientError) as excinfo:
            ddb.create_table(**hash_table(name, WarmThroughput=warm))
        assert refusal(excinfo) == ("ValidationException", (
            f"{INVALID}Requested {unit} for WarmThroughput for table is lower than initial "
            f"throughput for OnDemand. See: {ON_DEMAND_GUIDE}"))
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.describe_table(TableName=name)


def test_a_new_provisioned_table_below_its_capacity_is_refused(ddb: Any, name: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.create_table(**hash_table(
            name, BillingMode="PROVISIONED",
            ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
            WarmThroughput={"ReadUnitsPerSecond": 4, "WriteUnitsPerSecond": 5}))
    assert refusal(excinfo) == ("ValidationException", (
        f"{INVALID}Requested ReadUnitsPerSecond for WarmThroughput for table is lower than "
        "ReadCapacityUnits of ProvisionedThroughput"))


def test_warm_throughput_is_raised_but_never_lowered(ddb: Any, name: str) -> None:
    ddb.create_table(**hash_table(name, WarmThroughput={"ReadUnitsPerSecond": 12240,
                                                        "WriteUnitsPerSecond": 4080}))
    ddb.update_table(TableName=name, WarmThroughput={"WriteUnitsPerSecond": 4200})
    assert warm_of(ddb, name) == {
        "ReadUnitsPerSecond": 12240, "WriteUnitsPerSecond": 4200, "Status": "ACTIVE"}
    ddb.update_table(TableName=name, WarmThroughput={"ReadUnitsPerSecond": 12240})  # the same: fine
    for lower, unit in (({"ReadUnitsPerSecond": 12120}, "ReadUnitsPerSecond"),
                        ({"ReadUnitsPerSecond": 12240, "WriteUnitsPerSecond": 4040},
                         "WriteUnitsPerSecond")):
        with pytest.raises(ClientError) as excinfo:
            ddb.update_table(TableName=name, WarmThroughput=lower)
        assert refusal(excinfo) == ("ValidationException", (
            f"{INVALID}Requested {unit} for WarmThroughput for table is lower than current "
            "WarmThroughput, decreasing WarmThroughput is not supported"))
    assert warm_of(ddb, name) == {
        "ReadUnitsPerSecond": 12240, "WriteUnitsPerSecond": 4200, "Status": "ACTIVE"}


def test_capacity_raises_warm_throughput_and_a_lower_capacity_keeps_it(
        ddb: Any, name: str) -> None:
    ddb.create_table(**hash_table(name, BillingMode="PROVISIONED",
                                  ProvisionedThroughput={"ReadCapacityUnits": 2,
                                                         "WriteCapacityUnits": 2}))
    ddb.update_table(TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 3,
                                                            "WriteCapacityUnits": 3})
    ddb.update_table(TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 1,
                                                            "WriteCapacityUnits": 1})
    assert warm_of(ddb, name) == {
        "ReadUnitsPerSecond": 3, "WriteUnitsPerSecond": 3, "Status": "ACTIVE"}
    ddb.update_table(TableName=name, BillingMode="PAY_PER_REQUEST")
    assert warm_of(ddb, name) == {
        "ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}


# --- a GSI's warm throughput ---------------------------------------------------------------


def with_index(name: str, **index: Any) -> dict[str, Any]:
    return hash_table(
        name, AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"},
                                    {"AttributeName": "owner", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_owner", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
                                 **index}])


def index_warm_of(ddb: Any, table: str) -> dict[str, Any]:
    (index,) = ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"]
    return dict(index["WarmThroughput"])


def update_index(ddb: Any, table: str, warm: dict[str, Any]) -> Any:
    return ddb.update_table(TableName=table, GlobalSecondaryIndexUpdates=[
        {"Update": {"IndexName": "by_owner", "WarmThroughput": warm}}])


def test_a_gsi_has_its_own_warm_throughput_raised_but_never_lowered(ddb: Any, name: str) -> None:
    ddb.create_table(**with_index(name))
    assert index_warm_of(ddb, name) == {
        "ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}
    update_index(ddb, name, {"ReadUnitsPerSecond": 12240})
    assert index_warm_of(ddb, name) == {
        "ReadUnitsPerSecond": 12240, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}
    with pytest.raises(ClientError) as excinfo:
        update_index(ddb, name, {"WriteUnitsPerSecond": 3999})
    assert refusal(excinfo) == ("ValidationException", (
        f"{INVALID}Requested WriteUnitsPerSecond for WarmThroughput for index by_owner is lower "
        "than current WarmThroughput, decreasing WarmThroughput is not supported"))
    assert warm_of(ddb, name)["ReadUnitsPerSecond"] == 12000  # the table's own is apart


def test_a_gsi_update_naming_no_unit_is_refused_before_the_table_is_looked_up(
        ddb: Any, name: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        update_index(ddb, name, {})  # no such table either
    assert refusal(excinfo) == ("ValidationException", (
        f"{INVALID}WarmThroughput must have at least one of ReadUnitsPerSecond or "
        "WriteUnitsPerSecond specified for index: by_owner"))


def test_a_new_gsi_below_the_baseline_is_refused(ddb: Any, name: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.create_table(**with_index(name, WarmThroughput={"ReadUnitsPerSecond": 100}))
    assert refusal(excinfo) == ("ValidationException", (
        f"{INVALID}Requested ReadUnitsPerSecond for WarmThroughput for index by_owner is lower "
        f"than initial throughput for OnDemand. See: {ON_DEMAND_GUIDE}"))


# --- empty throughput members ----------------------------------------------------------------


def test_an_on_demand_gsi_update_must_change_its_on_demand_or_warm_throughput(
        ddb: Any, name: str) -> None:
    ddb.create_table(**with_index(name))
    for update in ({"IndexName": "by_owner"}, {"IndexName": "by_owner", "OnDemandThroughput": {}}):
        with pytest.raises(ClientError) as excinfo:
            ddb.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Update": update}])
        assert refusal(excinfo) == ("ValidationException", (
            f"{INVALID}The only Updates for index: by_owner when TableThroughputMode is "
            "PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput"))


def test_an_empty_warm_throughput_beside_another_change_is_ignored(ddb: Any, name: str) -> None:
    ddb.create_table(**hash_table(name))
    ddb.update_table(TableName=name, WarmThroughput={}, DeletionProtectionEnabled=False)
    ddb.update_table(TableName=name, OnDemandThroughput={}, BillingMode="PAY_PER_REQUEST")
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["WarmThroughput"] == {
        "ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}
    assert "OnDemandThroughput" not in table
