"""DeleteTable: the table and its items go at once.

The answer is the table's description with TableStatus DELETING, as
DynamoDB's is; the table is already gone when it arrives, so a following
DescribeTable answers ResourceNotFoundException and botocore's
``table_not_exists`` waiter succeeds on its first look. DynamoDB's answer
leaves out the key schema, attribute definitions, creation time and indexes.
The table's streams stay readable, disabled, for 24 hours (``_streams.retire``).
A replica of a global table leaves its group (what it has not sent yet is
sent first); a strongly consistent group's cannot be deleted alone.

With table lifecycle delays (``_lifecycle``) the table is DELETING until its
deadline instead: DescribeTable shows it, its items are out of reach, and
DeleteTable of it answers again; a table still CREATING or UPDATING is
ResourceInUseException.
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api import _lifecycle as lifecycle
from tallydb.engine.api._access import on_table
from tallydb.engine.api._global import STRONG
from tallydb.engine.api._replica_updates import STRONG_ONE_DELETE
from tallydb.engine.api._replicate import leave
from tallydb.engine.api._streams import retire
from tallydb.engine.api.describe_table import (
    GLOBAL,
    find_table,
    index_counts,
    public_description,
    table_named,
)
from tallydb.engine.errors import ValidationException
from tallydb.engine.storage import Transaction

#: DeleteTable of a table with DeletionProtectionEnabled (conformance catalogue 2026).
DELETION_PROTECTED = (
    "Resource cannot be deleted as it is currently protected against deletion. "
    "Disable deletion protection first."
)


#: What DynamoDB's DeleteTable description leaves out (dynalite, recorded;
#: the conformance captures of 2026).
_LEFT_OUT = ("CreationDateTime", "KeySchema", "AttributeDefinitions",
             "GlobalSecondaryIndexes", "LocalSecondaryIndexes")


#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("DeleteTable", write=True, read=table_named)


def delete_table(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = find_table(txn, request["TableName"])
    lifecycle.check_changeable(record)
    deleting = lifecycle.status_of(record.description) == lifecycle.DELETING
    if not deleting and record.description.get("DeletionProtectionEnabled"):
        raise ValidationException(DELETION_PROTECTED)
    group = record.description.get(GLOBAL)
    if group is not None and group["Consistency"] == STRONG:
        raise ValidationException(STRONG_ONE_DELETE)
    deleted = public_description(
        record.description, status="DELETING", counts=txn.count_items(record),
        indexes=index_counts(txn, record),
    )
    for member in _LEFT_OUT:
        deleted.pop(member, None)
    if deleting:
        return {"TableDescription": deleted}  # DeleteTable again: no error (API reference)
    if group is not None:
        leave(txn, record)
    description = dict(record.description)
    if lifecycle.begin(txn, description, lifecycle.DELETING, time.time()):
        txn.update_table(record.with_description(description))
    else:
        retire(txn, record)
    return {"TableDescription": deleted}
