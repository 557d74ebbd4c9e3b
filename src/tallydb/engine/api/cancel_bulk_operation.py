"""CancelBulkOperation: ask a running bulk operation to stop (CANCELLING,
then CANCELLED once its job has put its current batch); one that has ended
keeps its status."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._bulk import BULK
from tallydb.engine.api.describe_bulk_operation import NOT_FOUND
from tallydb.engine.errors import ResourceNotFoundException
from tallydb.engine.storage import Transaction


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
