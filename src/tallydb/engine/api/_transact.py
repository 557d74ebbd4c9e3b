"""What TransactWriteItems and TransactGetItems share.

DynamoDB splits a transaction's problems in two (paritysuite/dynamodb-conformance
captures, 2026): what is wrong with the request as sent (a malformed
expression, an unused placeholder, an empty key value, a missing table, two
actions on one item) is a top-level ValidationException, checked for every
action before any table is read; what is wrong with one action against its
table (a key of the wrong type, a failed condition, an update the item
refuses) cancels the transaction with a reason in that action's slot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tallydb.engine.api._tables import KeySchema
from tallydb.engine.errors import ValidationException
from tallydb.engine.values import Item, messages, validate_item_key

INVALID_ACTION = (
    "The action or operation requested is invalid. Verify that the action is typed correctly."
)
MULTIPLE_OPERATIONS = "Transaction request cannot include multiple operations on one item"
CONDITION_FAILED = "The conditional request failed"

#: Key problems DynamoDB answers at the top level, not as a cancellation reason.
_TOP_LEVEL_KEY_PREFIXES = (
    messages.EMPTY_STRING_KEY.split("{}")[0],
    messages.EMPTY_BINARY_KEY.split("{}")[0],
)


def none_reason() -> dict[str, Any]:
    return {"Code": "None"}


def validation_reason(message: str | None) -> dict[str, Any]:
    return {"Code": "ValidationError", "Message": message}


def condition_reason(item: Item | None) -> dict[str, Any]:
    reason: dict[str, Any] = {"Code": "ConditionalCheckFailed", "Message": CONDITION_FAILED}
    if item is not None:
        reason["Item"] = item
    return reason


def _top_level(error: ValidationException) -> bool:
    return (error.message or "").startswith(_TOP_LEVEL_KEY_PREFIXES)


@dataclass
class Target:
    """An action's item, or the reason its key does not fit the table."""

    key: Item | None = None
    encoded: tuple[bytes, bytes] | None = None
    reason: dict[str, Any] | None = None


def target_of_key(keys: KeySchema, key: Item) -> Target:
    """A ``Key`` (Update, Delete, ConditionCheck, Get) against the schema."""
    try:
        checked = keys.validate_key(key)
    except ValidationException as e:
        if _top_level(e):
            raise
        return Target(reason=validation_reason(e.message))
    return Target(key=checked, encoded=keys.encode(checked))


def target_of_item(keys: KeySchema, item: Item) -> Target:
    """A Put's ``Item``: PutItem's words for a missing or mistyped key."""
    try:
        validate_item_key(item, keys.attributes)
    except ValidationException as e:
        if _top_level(e):
            raise
        return Target(reason=validation_reason(e.message))
    key = keys.key_of(item)
    return Target(key=key, encoded=keys.encode(key))


def refuse_duplicates(targets: list[tuple[str, Target]]) -> None:
    seen: set[tuple[str, bytes, bytes]] = set()
    for table, target in targets:
        if target.encoded is None:
            continue
        marker = (table, *target.encoded)
        if marker in seen:
            raise ValidationException(MULTIPLE_OPERATIONS)
        seen.add(marker)


def the_action(entry: Any, kinds: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """The one action an entry of TransactItems holds."""
    present = [kind for kind in kinds if isinstance(entry, dict) and entry.get(kind) is not None]
    if len(present) != 1:
        raise ValidationException(INVALID_ACTION)
    return present[0], entry[present[0]]
