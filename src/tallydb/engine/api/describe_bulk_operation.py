"""DescribeBulkOperation: a bulk operation's description, as its job last
left it; ResourceNotFoundException for an ARN no operation has."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import Touch
from tallydb.engine.api._bulk import BULK
from tallydb.engine.errors import ResourceNotFoundException
from tallydb.engine.storage import Transaction

#: Not on record: ours.
NOT_FOUND = "Requested resource not found: Bulk operation: {} not found"


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): the table the bulk operation its
    BulkOperationArn names puts into (its stored record; an ARN of no
    operation names no table, which no key limited to tables may use)."""
    arn = request.get("BulkOperationArn")
    document = txn.document(BULK, arn) if isinstance(arn, str) else None
    return (Touch("DescribeBulkOperation", "*" if document is None else document["table"], False),)


ACCESS = access


def describe_bulk_operation(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    arn = request["BulkOperationArn"]
    document = txn.document(BULK, arn)
    if document is None:
        raise ResourceNotFoundException(NOT_FOUND.format(arn))
    return {"BulkOperationDescription": document["description"]}
