"""What BatchGetItem and BatchWriteItem share: their own limits and messages
(the model's min/max constraints are ``_shapes``' business), and the key check
that fits a batch."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._tables import KeySchema
from tallydb.engine.errors import ValidationException
from tallydb.engine.values import Item, messages, validate_item_key

DUPLICATE_KEYS = "Provided list of item keys contains duplicates"
BATCH_WRITE_REQUIRED = "The requestItems parameter is required for BatchWriteItem"
TOO_MANY_GETS = "Too many items requested for the BatchGetItem call"
MAX_GETS = 100
TOO_MANY_WRITES = "Too many items requested for the BatchWriteItem call"
MAX_WRITES = 25


def check_get_total(request_items: Any) -> None:
    """100 keys in all (each table's own 1..100 is a model constraint, checked
    before the operation runs)."""
    if sum(len(wanted.get("Keys") or ()) for wanted in request_items.values()) > MAX_GETS:
        raise ValidationException(TOO_MANY_GETS)


def check_write_total(request_items: Any) -> None:
    """25 PutRequests and DeleteRequests in all, over every table (each
    table's own 1..25 is a model constraint, checked before the operation
    runs); counted before any entry is read."""
    if sum(len(requests) for requests in request_items.values()) > MAX_WRITES:
        raise ValidationException(TOO_MANY_WRITES)


def check_put_key(item: Item, keys: KeySchema) -> None:
    """A batch PutRequest's item carries the key: a missing or mistyped key
    attribute is the schema mismatch here (not PutItem's "Missing the key")."""
    for name, kind in keys.attributes:
        value = item.get(name)
        if value is None or kind not in value:
            raise ValidationException(messages.KEY_SCHEMA_MISMATCH)
    validate_item_key(item, keys.attributes)
