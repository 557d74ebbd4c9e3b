"""What the three PartiQL operations share: a statement planned against its
table and run through an existing operation's own function, and what a
statement touches."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson

from tallydb.engine.api import delete_item, get_item, put_item, query, scan, update_item
from tallydb.engine.api._access import Touch
from tallydb.engine.api._pipeline import Operation, direct, steps_of
from tallydb.engine.api._tables import get_table
from tallydb.engine.errors import (
    ConditionalCheckFailedException,
    DuplicateItemException,
    DynamoDBError,
    ValidationException,
)
from tallydb.engine.partiql import (
    Delete,
    Exists,
    Insert,
    Planned,
    Select,
    Update,
    parse_counted,
    plan_with,
)
from tallydb.engine.partiql.messages import (
    DUPLICATE_ITEM,
    EXISTS_OUTSIDE_TRANSACTION,
    PARAMETER_COUNT,
)
from tallydb.engine.storage import Transaction
from tallydb.engine.values import validate_value

#: The operations a statement runs as, each with its table-free checks
#: first (``_pipeline.direct``).
OPERATIONS: dict[str, Operation] = {
    name: direct(steps_of(module, module.__name__.rsplit(".", 1)[1]))
    for name, module in (("UpdateItem", update_item), ("PutItem", put_item),
                         ("DeleteItem", delete_item), ("GetItem", get_item),
                         ("Query", query), ("Scan", scan))
}
INVALID_TOKEN = "Invalid NextToken"
#: The IAM action of each kind of statement, and whether it writes.
_ACTIONS: dict[type[Any], tuple[str, bool]] = {
    Select: ("PartiQLSelect", False), Exists: ("PartiQLSelect", False),
    Insert: ("PartiQLInsert", True), Update: ("PartiQLUpdate", True),
    Delete: ("PartiQLDelete", True),
}


def statement_touches(entries: Any) -> tuple[Touch, ...]:
    """What statement entries touch (``_access``): the table, and index, of
    each ``Statement`` as the parser that plans it reads it (one that does
    not parse touches nothing: the operation refuses it, or answers its
    error in its slot, before reading anything)."""
    touches = []
    for entry in entries:
        text = entry.get("Statement") if isinstance(entry, dict) else None
        if not isinstance(text, str):
            continue
        try:
            statement = parse_counted(text)[0]
        except DynamoDBError:
            continue
        action, write = _ACTIONS[type(statement)]
        select = statement.select if isinstance(statement, Exists) else statement
        index = select.index if isinstance(select, Select) else None
        touches.append(Touch(action, statement.table, write,
                             "" if index is None else f"/index/{index}"))
    return tuple(touches)


def planned(txn: Transaction, entry: dict[str, Any], *, keyed: bool = False,
            checks: bool = False) -> Planned:
    """The request an entry's ``Statement`` (with its ``Parameters``) runs as;
    ``keyed``: a SELECT must name a whole key (a GetItem), as in batches
    and transactions; ``checks``: EXISTS is a condition check (transactions
    only)."""
    statement, count = parse_counted(entry["Statement"])
    if isinstance(statement, Exists) and not checks:
        raise ValidationException(EXISTS_OUTSIDE_TRANSACTION)
    parameters = [validate_value(p) for p in entry.get("Parameters") or ()]
    if len(parameters) < count:  # DynamoDB ignores extra parameters
        raise ValidationException(PARAMETER_COUNT)
    table = get_table(txn, statement.table)
    keys = table.keys.attributes
    if isinstance(statement, Select) and statement.index is not None:
        index = table.index(statement.index)
        if index is not None:
            keys = list(index.hash_key + index.range_key)
    if keyed and isinstance(statement, Select):
        result = plan_with(statement, parameters, keys, get=True)
        if entry.get("ConsistentRead") is not None:
            result.request["ConsistentRead"] = entry["ConsistentRead"]
        return result
    result = plan_with(statement, parameters, keys)
    if isinstance(statement, Insert):
        table.keys.check_item_key(result.request["Item"])
    wanted = entry.get("ReturnValuesOnConditionCheckFailure")
    if wanted is not None and result.operation in (
            "UpdateItem", "PutItem", "DeleteItem", "ConditionCheck"):
        result.request["ReturnValuesOnConditionCheckFailure"] = wanted
    return result


def run_planned(txn: Transaction, result: Planned) -> dict[str, Any]:
    """Run a planned write or read; an INSERT of an existing key is
    DuplicateItemException, as DynamoDB answers it."""
    try:
        return OPERATIONS[result.operation](txn, result.request)
    except ConditionalCheckFailedException:
        if result.operation == "PutItem":
            raise DuplicateItemException(DUPLICATE_ITEM) from None
        raise


def next_token(last_key: dict[str, Any]) -> str:
    return base64.b64encode(orjson.dumps(last_key)).decode()


def start_key(token: str) -> dict[str, Any]:
    try:
        key = orjson.loads(base64.b64decode(token, validate=True))
    except (binascii.Error, orjson.JSONDecodeError, ValueError):
        raise ValidationException(INVALID_TOKEN) from None
    if type(key) is not dict:
        raise ValidationException(INVALID_TOKEN)
    return key
