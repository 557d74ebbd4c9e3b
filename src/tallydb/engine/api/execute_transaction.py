"""ExecuteTransaction: up to 100 PartiQL statements, all applied or none.

Writes plan onto one TransactWriteItems (so cancellation reasons, the
ClientRequestToken's idempotency and capacity are its own), an
``EXISTS(SELECT ...)`` onto one of its ConditionChecks; reads, which must
each name a whole key of the table, onto one TransactGetItems. A
transaction mixes neither, and takes no RETURNING, as DynamoDB's does not.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.api import transact_get_items as gets_module
from tallydb.engine.api import transact_write_items as writes_module
from tallydb.engine.api._access import Touch
from tallydb.engine.api._pipeline import direct, steps_of
from tallydb.engine.api._statements import planned, statement_touches
from tallydb.engine.errors import TransactionCanceledException, ValidationException
from tallydb.engine.partiql import Delete, Planned, Select, Update, parse
from tallydb.engine.partiql.messages import (
    DUPLICATE_ITEM,
    INDEX_READ_IN_TRANSACTION,
    MIXED_TRANSACTION,
    RETURNING_IN_TRANSACTION,
)
from tallydb.engine.storage import Transaction

transact_get_items = direct(steps_of(gets_module, "transact_get_items"))
transact_write_items = direct(steps_of(writes_module, "transact_write_items"))
_ACTIONS = {"PutItem": "Put", "UpdateItem": "Update", "DeleteItem": "Delete",
            "ConditionCheck": "ConditionCheck"}


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): what each of its
    TransactStatements does."""
    return statement_touches(request.get("TransactStatements") or ())


ACCESS = access


def execute_transaction(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    plans = [_planned(txn, number, entry)
             for number, entry in enumerate(request.get("TransactStatements") or ())]
    reads = [p for p in plans if p.operation == "GetItem"]
    if reads and len(reads) != len(plans):
        raise ValidationException(MIXED_TRANSACTION)
    if reads:
        gets = [{"Get": p.request} for p in plans]
        answer = transact_get_items(txn, {**_passed(request), "TransactItems": gets})
        return {"Responses": answer["Responses"],
                **({"ConsumedCapacity": answer["ConsumedCapacity"]}
                   if "ConsumedCapacity" in answer else {})}
    items = [{_ACTIONS[p.operation]: p.request} for p in plans]
    try:
        return transact_write_items(txn, {**_passed(request), "TransactItems": items})
    except TransactionCanceledException as error:
        reasons = error.reasons
        for plan, reason in zip(plans, reasons, strict=True):
            if plan.operation == "PutItem" and reason.get("Code") == "ConditionalCheckFailed":
                reason.clear()
                reason.update({"Code": "DuplicateItem", "Message": DUPLICATE_ITEM})
        raise TransactionCanceledException(reasons) from None


def _planned(txn: Transaction, number: int, entry: dict[str, Any]) -> Planned:
    """Statement ``number`` (from 0) planned, refused as DynamoDB refuses it
    in a transaction."""
    statement = parse(entry["Statement"])
    if isinstance(statement, Select) and statement.index is not None:
        raise ValidationException(INDEX_READ_IN_TRANSACTION.format(number))
    if isinstance(statement, Update | Delete) and statement.returning is not None:
        raise ValidationException(RETURNING_IN_TRANSACTION.format(number))
    return planned(txn, entry, keyed=True, checks=True)


def _passed(request: dict[str, Any]) -> dict[str, Any]:
    return {name: request[name] for name in ("ClientRequestToken", "ReturnConsumedCapacity")
            if name in request}
