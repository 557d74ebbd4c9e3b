"""ExecuteStatement: one PartiQL statement, run as the JSON operation it
plans onto (``tallydb.engine.partiql.plan``)."""

from __future__ import annotations

from typing import Any, Final

from tallydb.engine.api._access import Touch
from tallydb.engine.api._statements import (
    next_token,
    plan_of,
    run_planned,
    start_key,
    statement_touches,
    updated_at_once,
)
from tallydb.engine.storage import Transaction


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): what its Statement does, on its table."""
    return statement_touches([request])


ACCESS: Final = access


def quick(txn: Transaction, request: dict[str, Any]) -> dict[str, Any] | None:
    """A request that is only a Statement, an UPDATE without parameters
    whose plan and UpdateItem decision are kept (``_statements``), run
    without the pipeline's steps before it: its shape, its parse and its
    plan passed every check before and could only pass them again
    (``api.run``); None for any other."""
    answer = updated_at_once(txn, request)
    if answer is None:
        return None
    return {"Items": [answer["Attributes"]] if answer.get("Attributes") else []}


def execute_statement(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    result, fixed = plan_of(txn, request)
    sent = result.request
    if result.operation in ("Query", "Scan"):
        for member in ("Limit", "ConsistentRead", "ReturnConsumedCapacity"):
            if member in request:
                sent[member] = request[member]
        if request.get("NextToken") is not None:
            sent["ExclusiveStartKey"] = start_key(request["NextToken"])
        answer = run_planned(txn, result)
        response: dict[str, Any] = {"Items": answer["Items"]}
        if "LastEvaluatedKey" in answer:
            response["NextToken"] = next_token(answer["LastEvaluatedKey"])
        if "ConsumedCapacity" in answer:
            response["ConsumedCapacity"] = answer["ConsumedCapacity"]
        return response
    if "ReturnConsumedCapacity" in request:
        sent["ReturnConsumedCapacity"] = request["ReturnConsumedCapacity"]
    answer = run_planned(txn, result, fixed)
    response = {"Items": [answer["Attributes"]] if answer.get("Attributes") else []}
    if "ConsumedCapacity" in answer:
        response["ConsumedCapacity"] = answer["ConsumedCapacity"]
    return response
