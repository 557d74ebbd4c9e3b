"""Request shape checks (placeholder until the botocore-model validator lands)."""

from __future__ import annotations

from typing import Any


def check_request(operation: str, request: dict[str, Any]) -> None:
    """Raise DynamoDB's SerializationException / ValidationException for a
    request whose members have the wrong JSON type or break a constraint."""
