"""ImportTable: a new table, filled in the background from objects in an
S3 bucket (``_imports``).

The table is created in this request, with CreateTable's checks and errors
(ResourceInUseException for a name in use); a ClientToken seen before
answers the same import for the same request, and ImportConflictException
(not on record: ours) for another. InputFormatOptions are for CSV only.
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api._access import Touch, bucket, named
from tallydb.engine.api._imports import IMPORT, new_import
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._shapes import modelled
from tallydb.engine.api.create_table import create_table
from tallydb.engine.errors import ImportConflictException, ValidationException
from tallydb.engine.storage import Transaction

#: Not on record: ours.
TOKEN_REUSED = "The ClientToken {} was used for another import request"
OPTIONS_FOR_CSV = "InputFormatOptions are only for InputFormat CSV"
NO_VECTORS = "tallydb does not serve vector indexes"


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): creates the table its
    TableCreationParameters name, from the S3 bucket its S3BucketSource names."""
    params = request.get("TableCreationParameters")
    name = named(params.get("TableName")) if isinstance(params, dict) else None
    source = request.get("S3BucketSource")
    return (Touch("ImportTable", name or "*", write=True),
            bucket("ImportTable", source.get("S3Bucket") if isinstance(source, dict) else None,
                   write=False))


ACCESS = access


def validate(request: dict[str, Any]) -> None:
    """The checks before anything is looked up (``_pipeline``); the new
    table's own are CreateTable's, made before it looks its name up."""
    if request.get("InputFormatOptions") and request["InputFormat"] != "CSV":
        raise ValidationException(OPTIONS_FOR_CSV)
    if request["TableCreationParameters"].get("VectorIndexes"):
        raise ValidationException(NO_VECTORS)


def import_table(txn: Transaction, request: dict[str, Any], checked: None) -> dict[str, Any]:
    request = modelled("ImportTable", request)  # kept as given: the model's members
    token = request.get("ClientToken")
    if token is not None:
        for _, document in txn.documents(IMPORT):
            if document["description"].get("ClientToken") == token:
                if document["request"] != request:
                    raise ImportConflictException(TOKEN_REUSED.format(token))
                return {"ImportTableDescription": document["description"]}
    params = request["TableCreationParameters"]
    create_table(txn, params)
    record = txn.table(params["TableName"])
    assert record is not None
    document = new_import(record.description, request, time.time(), record.catalog,
                          integrations(txn).region)
    arn = document["description"]["ImportArn"]
    txn.put_document(IMPORT, arn, document)
    integrations(txn).jobs.start(IMPORT, arn)
    return {"ImportTableDescription": document["description"]}
