"""StartBulkPutItems: put every item of objects in S3 into an existing
table, in the background (``_bulk``). A ClientToken seen before answers the
same operation for the same request, IdempotentParameterMismatchException
for another (its text not on record: ours)."""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api._bulk import BULK, new_bulk
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api.describe_table import find_table
from tallydb.engine.errors import IdempotentParameterMismatchException
from tallydb.engine.storage import Transaction

TOKEN_REUSED = "The ClientToken {} was used for another bulk operation request"


def start_bulk_put_items(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    token = request.get("ClientToken")
    if token is not None:
        for _, document in txn.documents(BULK):
            if document["description"].get("ClientToken") == token:
                if document["request"] != request:
                    raise IdempotentParameterMismatchException(TOKEN_REUSED.format(token))
                return {"BulkOperationDescription": document["description"]}
    record = find_table(txn, request["TableName"])
    document = new_bulk(record.description, request, time.time(), record.catalog,
                        integrations(txn).region)
    arn = document["description"]["BulkOperationArn"]
    txn.put_document(BULK, arn, document)
    integrations(txn).jobs.start(BULK, arn)
    return {"BulkOperationDescription": document["description"]}
