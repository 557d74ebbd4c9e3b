"""tallydb: a local, DynamoDB-compatible store built for atomic counters.

The toolkit (what ``import tallydb`` gives a Python developer)::

    import tallydb
    db = tallydb.connect()                                   # or connect("http://...")
    videos = db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
    plays = tallydb.Counter(videos, {"PK": "VID#9f3a", "SK": "STATS#TOTAL"}, "play_count")
    plays.add()

Names are imported on first use, so that ``python -m tallydb serve`` does
not pay for boto3 and the toolkit it does not use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from tallydb.attributes import (
        AtomicCounter,
        Attribute,
        HashKey,
        RangeKey,
        TTLAttribute,
        VersionAttribute,
    )
    from tallydb.conditions import Condition, Path
    from tallydb.counters import Counter, ShardedCounter
    from tallydb.database import Database, connect
    from tallydb.errors import (
        ConditionalCheckFailedException,
        DynamoDBError,
        ResourceInUseException,
        ResourceNotFoundException,
        TransactionCanceledException,
        ValidationException,
    )
    from tallydb.exceptions import (
        BatchIncompleteError,
        ContentionError,
        CounterLimitError,
        IdempotencyKeyMismatchError,
        ItemNotFoundError,
        OutcomeUnknown,
        SchemaMismatchError,
        TableNotFoundError,
        TallyError,
        TransactionCancelled,
        TransportError,
        VersionConflictError,
    )
    from tallydb.extensions import Extension, WriteModification
    from tallydb.indexes import GlobalIndex, LocalIndex
    from tallydb.model import Model
    from tallydb.table import Table
    from tallydb.update import Update, if_not_exists, list_append

    ConditionalCheckFailed = ConditionalCheckFailedException

_EXPORTS: dict[str, str] = {
    "connect": "tallydb.database",
    "Database": "tallydb.database",
    "Table": "tallydb.table",
    "Update": "tallydb.update",
    "if_not_exists": "tallydb.update",
    "list_append": "tallydb.update",
    "Path": "tallydb.conditions",
    "Condition": "tallydb.conditions",
    "Counter": "tallydb.counters",
    "ShardedCounter": "tallydb.counters",
    "Model": "tallydb.model",
    "Attribute": "tallydb.attributes",
    "HashKey": "tallydb.attributes",
    "RangeKey": "tallydb.attributes",
    "AtomicCounter": "tallydb.attributes",
    "VersionAttribute": "tallydb.attributes",
    "TTLAttribute": "tallydb.attributes",
    "GlobalIndex": "tallydb.indexes",
    "LocalIndex": "tallydb.indexes",
    "Extension": "tallydb.extensions",
    "WriteModification": "tallydb.extensions",
    "BatchIncompleteError": "tallydb.exceptions",
    "SchemaMismatchError": "tallydb.exceptions",
    "TransactionCancelled": "tallydb.exceptions",
    "DynamoDBError": "tallydb.errors",
    "ConditionalCheckFailedException": "tallydb.errors",
    "ValidationException": "tallydb.errors",
    "TransactionCanceledException": "tallydb.errors",
    "ResourceNotFoundException": "tallydb.errors",
    "ResourceInUseException": "tallydb.errors",
    "TallyError": "tallydb.exceptions",
    "CounterLimitError": "tallydb.exceptions",
    "VersionConflictError": "tallydb.exceptions",
    "ItemNotFoundError": "tallydb.exceptions",
    "ContentionError": "tallydb.exceptions",
    "IdempotencyKeyMismatchError": "tallydb.exceptions",
    "TransportError": "tallydb.exceptions",
    "OutcomeUnknown": "tallydb.exceptions",
    "TableNotFoundError": "tallydb.exceptions",
}
_ALIASES: dict[str, str] = {"ConditionalCheckFailed": "ConditionalCheckFailedException"}

__all__ = [
    "AtomicCounter",
    "Attribute",
    "BatchIncompleteError",
    "Condition",
    "ConditionalCheckFailed",
    "ConditionalCheckFailedException",
    "ContentionError",
    "Counter",
    "CounterLimitError",
    "Database",
    "DynamoDBError",
    "Extension",
    "GlobalIndex",
    "HashKey",
    "IdempotencyKeyMismatchError",
    "ItemNotFoundError",
    "LocalIndex",
    "Model",
    "OutcomeUnknown",
    "Path",
    "RangeKey",
    "ResourceInUseException",
    "ResourceNotFoundException",
    "SchemaMismatchError",
    "ShardedCounter",
    "TTLAttribute",
    "Table",
    "TableNotFoundError",
    "TallyError",
    "TransactionCanceledException",
    "TransactionCancelled",
    "TransportError",
    "Update",
    "ValidationException",
    "VersionAttribute",
    "VersionConflictError",
    "WriteModification",
    "__version__",
    "connect",
    "if_not_exists",
    "list_append",
]


def __getattr__(name: str) -> Any:
    target = _ALIASES.get(name, name)
    module = _EXPORTS.get(target)
    if module is None:
        raise AttributeError(f"module 'tallydb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), target)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
