"""TableClass as DynamoDB reads it, through boto3 against a real ``tallydb serve``
and in-process (the suite's ``ddb``).

DynamoDB refuses a TableClass that names no class, case included, with a
sentence of its own, not the model's enum constraint (ScyllaDB Alternator's
test_tableclass.py, run against DynamoDB; the conformance catalogue of
DynamoDB's messages, 2026). A constraint violation of another member is
still answered first, by the model's check of the whole request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from table_requests import hash_table
from tallytest import Backend, assert_error, unique_name

INVALID_CLASS = ("Invalid table-class parameter provided. Please try again with a valid "
                 "table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS].")


@pytest.mark.parametrize("table_class", ["invalid_tableclass_name", "standard", ""])
def test_create_table_with_no_such_class_is_refused(ddb: Any, table_class: str) -> None:
    name = unique_name("class")
    with pytest.raises(ClientError) as excinfo:
        ddb.create_table(**hash_table(name, TableClass=table_class))
    assert_error(excinfo, "ValidationException", INVALID_CLASS)
    with pytest.raises(ClientError) as missing:
        ddb.describe_table(TableName=name)
    assert_error(missing, "ResourceNotFoundException", None)


def test_another_members_constraint_is_answered_first(backend: Backend) -> None:
    answer = backend.raw("CreateTable", hash_table(
        unique_name("class"), TableClass="junk", BillingMode="FREE"))
    assert (answer.status, answer.error_code) == (400, "ValidationException")
    assert answer.message == (
        "1 validation error detected: Value 'FREE' at 'billingMode' failed to satisfy "
        "constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]")


def test_a_class_that_is_not_a_string_is_a_serialization_error(backend: Backend) -> None:
    answer = backend.raw("CreateTable", hash_table(unique_name("class"), TableClass=1))
    assert (answer.status, answer.error_code) == (400, "SerializationException")
    assert answer.message == "NUMBER_VALUE cannot be converted to String"


def test_update_table_to_no_such_class_changes_nothing(
        ddb: Any, make_table: Callable[..., str]) -> None:
    name = make_table("class")
    before = ddb.describe_table(TableName=name)["Table"]
    assert "TableClassSummary" not in before
    for table_class in ("junk", "standard_infrequent_access"):
        with pytest.raises(ClientError) as excinfo:
            ddb.update_table(TableName=name, TableClass=table_class)
        assert_error(excinfo, "ValidationException", INVALID_CLASS)
    assert ddb.describe_table(TableName=name)["Table"] == before
    ddb.update_table(TableName=name, TableClass="STANDARD_INFREQUENT_ACCESS")
    summary = ddb.describe_table(TableName=name)["Table"]["TableClassSummary"]
    assert summary["TableClass"] == "STANDARD_INFREQUENT_ACCESS"


def test_the_value_is_read_before_the_table_is_looked_up(ddb: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(TableName=unique_name("absent"), TableClass="junk")
    assert_error(excinfo, "ValidationException", INVALID_CLASS)


def test_each_class_creates_its_table(ddb: Any) -> None:
    for table_class in ("STANDARD", "STANDARD_INFREQUENT_ACCESS"):
        name = unique_name("class")
        ddb.create_table(**hash_table(name, TableClass=table_class))
        try:
            table = ddb.describe_table(TableName=name)["Table"]
            assert table["TableClassSummary"] == {"TableClass": table_class}
        finally:
            ddb.delete_table(TableName=name)
