"""BatchExecuteStatement: up to 25 PartiQL statements, each run on its own.

Reads must name a whole key (each is a GetItem). A statement that fails
answers an ``Error`` in its slot (the code without ``Exception``, as
BatchStatementError spells it) and leaves the others' writes standing.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import Touch
from tallydb.engine.api._statements import plan_of, run_planned, statement_touches
from tallydb.engine.errors import ConditionalCheckFailedException, DynamoDBError
from tallydb.engine.storage import Transaction

#: BatchStatementError's codes for the exceptions a statement can raise.
_CODES = {"ValidationException": "ValidationError",
          "ResourceNotFoundException": "ResourceNotFound",
          "ConditionalCheckFailedException": "ConditionalCheckFailed",
          "DuplicateItemException": "DuplicateItem"}


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): what each of its Statements does."""
    return statement_touches(request.get("Statements") or ())


ACCESS = access


def batch_execute_statement(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    responses = []
    for entry in request.get("Statements") or ():
        responses.append(_one(txn, entry))
    return {"Responses": responses}


def _one(txn: Transaction, entry: dict[str, Any]) -> dict[str, Any]:
    table = None
    try:
        with txn.savepoint():
            result, fixed = plan_of(txn, entry, keyed=True)
            table = result.request["TableName"]
            answer = run_planned(txn, result, fixed)
    except DynamoDBError as error:
        failed: dict[str, Any] = {"Code": _CODES.get(error.code(), error.code()),
                                  "Message": error.message or ""}
        if isinstance(error, ConditionalCheckFailedException) and error.item is not None:
            failed["Item"] = error.item
        response: dict[str, Any] = {"Error": failed}
        if table is not None:
            response["TableName"] = table
        return response
    response = {"TableName": table}
    if answer.get("Item") is not None:
        response["Item"] = answer["Item"]
    return response
