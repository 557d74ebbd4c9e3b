"""StartBulkPutItems: put every item of objects in S3 into an existing
table, in the background (``_bulk``). A ClientToken seen before answers the
same operation for the same request, IdempotentParameterMismatchException
for another (its text not on record: ours)."""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api._access import Touch, bucket
from tallydb.engine.api._bulk import BULK, new_bulk
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._shapes import modelled
from tallydb.engine.api.describe_table import find_table, table_named
from tallydb.engine.errors import IdempotentParameterMismatchException
from tallydb.engine.storage import Transaction

TOKEN_REUSED = "The ClientToken {} was used for another bulk operation request"


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): writes the table its TableName
    names, from the S3 bucket of its InputS3Configuration, into the one of
    its OutputS3Configuration."""
    touches = [Touch("StartBulkPutItems", table_named(request.get("TableName")) or "*",
                     write=True)]
    for member, write in (("InputS3Configuration", False), ("OutputS3Configuration", True)):
        where = request.get(member)
        if isinstance(where, dict) and where.get("S3Bucket") is not None:
            touches.append(bucket("StartBulkPutItems", where["S3Bucket"], write=write))
    return tuple(touches)


ACCESS = access


def start_bulk_put_items(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    request = modelled("StartBulkPutItems", request)  # kept as given: the model's members
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
