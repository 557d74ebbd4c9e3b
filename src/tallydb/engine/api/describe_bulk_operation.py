"""DescribeBulkOperation: a bulk operation's description, as its job last
left it; ResourceNotFoundException for an ARN no operation has."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._bulk import bulk_operation, on_bulk_operation
from tallydb.engine.storage import Transaction

ACCESS = on_bulk_operation("DescribeBulkOperation")


def describe_bulk_operation(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    document = bulk_operation(txn, request["BulkOperationArn"])
    return {"BulkOperationDescription": document["description"]}
