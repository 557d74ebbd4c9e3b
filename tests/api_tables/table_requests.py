"""Requests and assertions the table operations' tests share."""

from __future__ import annotations

from typing import Any

from tallydb.engine.errors import DynamoDBError


def hash_table(name: str = "videos", **extra: Any) -> dict[str, Any]:
    """A CreateTable request for an on-demand table keyed by ``id`` (S)."""
    return {
        "TableName": name,
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        **extra,
    }


def range_table(name: str = "videos", **extra: Any) -> dict[str, Any]:
    """A CreateTable request for a provisioned (5/5) table keyed PK (S) / SK (S)."""
    return {
        "TableName": name,
        "AttributeDefinitions": [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        **extra,
    }


def message_of(result: Any, code: str) -> str:
    """The message of an error ``call`` answered, checking its code first."""
    assert isinstance(result, DynamoDBError), f"expected {code}, got {result!r}"
    assert result.code() == code, f"expected {code}, got {result.code()}: {result.message}"
    return result.message or ""
