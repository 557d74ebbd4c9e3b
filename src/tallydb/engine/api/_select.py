"""Select against ProjectionExpression/AttributesToGet, for Query and Scan.

DynamoDB's words, checked against real responses (moto's aws_verified tests;
paritysuite/dynamodb-conformance): Query wraps these in
"1 validation error detected: ", Scan answers them bare.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from tallydb.engine.errors import ValidationException
from tallydb.engine.values import Item
from tallydb.engine.values.messages import ENVELOPE

_DESCRIBED: Final = {
    "ALL_ATTRIBUTES": "ALL_ATTRIBUTES",
    "ALL_PROJECTED_ATTRIBUTES": "ALL_PROJECTED_ATTRIBUTES",
    "COUNT": "only the Count",
}
NEEDS_PROJECTION: Final = (
    "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
    "SPECIFIC_ATTRIBUTES"
)
PROJECTED_NEEDS_INDEX: Final = (
    "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
)


@dataclass(frozen=True)
class Output:
    """What a page returns: only a count, or items (projected or whole)."""

    count_only: bool
    project: Callable[[Item], Item] | None


def plan_output(
    request: dict[str, Any],
    project: Callable[[Item], Item] | None,
    *,
    envelope: bool,
    index: bool = False,
) -> Output:
    """Check Select against the request's projection (``project`` is the bound
    ProjectionExpression or AttributesToGet, or None when there is neither)."""
    prefix = ENVELOPE if envelope else ""
    select = request.get("Select")
    given = (
        "ProjectionExpression" if request.get("ProjectionExpression") is not None
        else "AttributesToGet" if request.get("AttributesToGet") is not None
        else None
    )
    if select in _DESCRIBED and given is not None:
        raise ValidationException(
            f"{prefix}Cannot specify the {given} when choosing to get {_DESCRIBED[select]}")
    if select == "ALL_PROJECTED_ATTRIBUTES" and not index:
        raise ValidationException(prefix + PROJECTED_NEEDS_INDEX)
    if select == "SPECIFIC_ATTRIBUTES" and given is None:
        raise ValidationException(prefix + NEEDS_PROJECTION)
    return Output(count_only=select == "COUNT", project=project)
