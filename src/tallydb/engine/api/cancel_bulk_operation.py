"""CancelBulkOperation: ask a running bulk operation to stop (CANCELLING,
then CANCELLED once its job has put its current batch); one that has ended
keeps its status."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import Touch
from tallydb.engine.api._bulk import BULK
from tallydb.engine.api.describe_bulk_operation import NOT_FOUND
from tallydb.engine.errors import ResourceNotFoundException
from tallydb.engine.storage import Transaction


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): the table the bulk operation its
    BulkOperationArn names puts into (its stored record; an ARN of no
    operation names no table, which no key limited to tables may use)."""
    arn = request.get("BulkOperationArn")
    document = txn.document(BULK, arn) if isinstance(arn, str) else None
    return (Touch("CancelBulkOperation", "*" if document is None else document["table"], True),)


ACCESS = access


def cancel_bulk_operation(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    arn = request["BulkOperationArn"]
    document = txn.document(BULK, arn)
    if document is None:
        raise ResourceNotFoundException(NOT_FOUND.format(arn))
    description = document["description"]
    if description["BulkOperationStatus"] == "IN_PROGRESS":
        description["BulkOperationStatus"] = "CANCELLING"
        txn.put_document(BULK, arn, document)
    return {"BulkOperationArn": arn, "BulkOperationStatus": description["BulkOperationStatus"]}
