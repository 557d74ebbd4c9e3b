"""Secondary-index key schemas DynamoDB refuses, with its reasons."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from tallytest import assert_error, unique_name


def _create(ddb: Any, names: tuple[str, ...] = ("pk", "sk", "a", "b"), **indexes: Any) -> None:
    ddb.create_table(
        TableName=unique_name("keys"), BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in names],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}], **indexes)


def test_local_index_with_three_key_elements(ddb: Any) -> None:
    # An LSI key is one HASH and one RANGE element: the model's length
    # constraint, as DynamoDB words the table's own KeySchema.
    with pytest.raises(ClientError) as excinfo:
        _create(ddb, LocalSecondaryIndexes=[{
            "IndexName": "lsi", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "a", "KeyType": "RANGE"},
                          {"AttributeName": "b", "KeyType": "RANGE"}]}])
    assert_error(excinfo, "ValidationException",
                 "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, "
                 "keyType=HASH), KeySchemaElement(attributeName=a, keyType=RANGE), "
                 "KeySchemaElement(attributeName=b, keyType=RANGE)]' at "
                 "'localSecondaryIndexes.1.member.keySchema' failed to satisfy constraint: "
                 "Member must have length less than or equal to 2")


@pytest.mark.parametrize(("schema", "message"), [
    ([("a", "HASH"), ("a", "RANGE")],
     "Both the Hash Key and the Range Key element in the KeySchema have the same name"),
    ([("a", "HASH"), ("b", "HASH"), ("a", "RANGE")],
     "Both the Hash Key and the Range Key element in the KeySchema have the same name"),
    ([("a", "HASH"), ("a", "HASH")], "Attribute Name is duplicated: a"),
    ([("a", "HASH"), ("b", "RANGE"), ("b", "RANGE")], "Attribute Name is duplicated: b"),
])
def test_global_index_naming_an_attribute_twice(
        ddb: Any, schema: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        _create(ddb, ("pk", "sk", *sorted({n for n, _ in schema})), GlobalSecondaryIndexes=[{
            "IndexName": "gsi", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": n, "KeyType": k} for n, k in schema]}])
    assert_error(excinfo, "ValidationException", message)


def test_unused_definitions_list_each_key_once(ddb: Any) -> None:
    # The message's "keys used" names each key attribute once, as DynamoDB's does.
    with pytest.raises(ClientError) as excinfo:
        _create(ddb, ("pk", "sk", "a", "b"), GlobalSecondaryIndexes=[{
            "IndexName": "gsi", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"},
                          {"AttributeName": "a", "KeyType": "HASH"}]}])
    assert_error(excinfo, "ValidationException",
                 "One or more parameter values were invalid: Some AttributeDefinitions are not "
                 "used. AttributeDefinitions: [pk, sk, a, b], keys used: [pk, sk, a]")
