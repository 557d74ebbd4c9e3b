"""TransactWriteItems: up to 100 Puts, Updates, Deletes and ConditionChecks,
all applied or none.

Every action is checked against the state before the transaction (no two
actions may touch one item, so no action sees another's write); only when all
of them pass is anything written, in the caller's SQLite transaction. A
failure cancels the whole transaction with one reason per action, in request
order: ``None`` for the actions that were fine, ``ConditionalCheckFailed``
(with the item when ReturnValuesOnConditionCheckFailure is ALL_OLD) or
``ValidationError`` for the others.

ClientRequestToken makes the call idempotent for 10 minutes (``_tokens``): the
same token with the same TransactItems answers success and writes nothing
again, reporting the read capacity of looking the items up; with other
TransactItems it is IdempotentParameterMismatchException.

Capacity is transactional: two write units per item per KB (the larger of
the item before and after), for a ConditionCheck too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tallydb.engine.api import _tokens
from tallydb.engine.api._access import Touch, named
from tallydb.engine.api._global import refuse_strong
from tallydb.engine.api._indexes import (
    IndexUnits,
    check_index_types,
    check_index_values,
    check_update_paths,
    write_item,
)
from tallydb.engine.api._params import placeholders
from tallydb.engine.api._tables import Table, get_table
from tallydb.engine.api._transact import (
    Target,
    condition_reason,
    none_reason,
    refuse_duplicates,
    target_of_item,
    target_of_key,
    the_action,
    validation_reason,
)
from tallydb.engine.api._units import TRANSACTIONAL, Tally, read_units, wants_capacity, write_units
from tallydb.engine.errors import TransactionCanceledException, ValidationException
from tallydb.engine.expressions import BoundCondition, BoundUpdate
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item, check_item_size, item_size, validate_item

KINDS = ("Put", "Update", "Delete", "ConditionCheck")
#: DynamoDB's limit on the aggregate size of a transaction's items.
MAX_TRANSACTION_BYTES = 4 * 1024 * 1024
#: DynamoDB's own wording is not on record; DynamoDB Local 1.25 words it so,
#: with the sum of the items' sizes (checked: eleven 399 KB items give the
#: size DynamoDB's item-size rule gives), and suites run against DynamoDB
#: pin its "size cannot exceed".
TRANSACTION_TOO_BIG = "Transaction payload size cannot exceed 4MB. Payload Size: {}"
_EXPRESSIONS = {
    "Put": ("ConditionExpression",),
    "Update": ("UpdateExpression", "ConditionExpression"),
    "Delete": ("ConditionExpression",),
    "ConditionCheck": ("ConditionExpression",),
}


@dataclass
class Action:
    """One entry of TransactItems, checked as far as it can be without its table."""

    kind: str
    body: dict[str, Any]
    item_or_key: Item
    condition: BoundCondition | None = None
    update: BoundUpdate | None = None
    table: Table | None = None
    target: Target = field(default_factory=Target)
    write: Item | None = None  # what to store (None: delete, or nothing for a check)
    old: Item | None = None  # the item as it stood
    size: int = 0  # the bytes capacity is charged on


def _parse(entry: Any) -> Action:
    kind, body = the_action(entry, KINDS)
    bound = placeholders(body, _EXPRESSIONS[kind], (), wording="older")
    update = condition = None
    if bound is not None:
        if body.get("UpdateExpression") is not None:
            update = bound.update(body["UpdateExpression"])
        if body.get("ConditionExpression") is not None:
            condition = bound.condition(body["ConditionExpression"])
        bound.check_unused()
    if kind == "Put":
        item = validate_item(body.get("Item") or {}, wording="older")
        check_item_size(item)
    else:
        item = validate_item(body.get("Key") or {}, wording="older")
    return Action(kind, body, item, condition=condition, update=update)


def _evaluate(txn: Transaction, action: Action) -> dict[str, Any]:
    """The action's cancellation reason, with what it would write worked out."""
    target = action.target
    if target.reason is not None:
        return target.reason
    assert action.table is not None and target.encoded is not None and target.key is not None
    indexes = action.table.indexes
    old = action.old = txn.get_item(action.table.record, *target.encoded)
    if action.condition is not None and not action.condition.holds(old):
        wants_item = action.body.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"
        return condition_reason(old if wants_item else None)
    old_size = 0 if old is None else item_size(old)
    if action.kind == "Put":
        try:
            check_index_types(indexes, action.item_or_key)
        except ValidationException as e:
            return validation_reason(e.message)
        action.write = action.item_or_key
        action.size = max(old_size, item_size(action.write))
    elif action.kind == "Update":
        assert action.update is not None
        if old is None and action.update.only_removes:
            return none_reason()  # nothing to remove: nothing is created
        written = {str(path[0]) for path in action.update.updated_paths}
        try:
            if indexes:
                check_update_paths(indexes, action.update.nested_heads,
                                   action.update.assigned_type)
            new = action.update.apply(old if old is not None else dict(target.key))
            action.size = max(old_size, check_item_size(new, update=True))
            check_index_types(indexes, new, names=written)
        except ValidationException as e:
            return validation_reason(e.message)
        # An empty index key value is the request's fault, not the item's:
        # DynamoDB answers it at the top level, not as a cancellation reason.
        check_index_values(indexes, new, names=written, update=True)
        action.write = new
    else:
        action.size = old_size
    return none_reason()


#: The IAM action each kind of TransactItems entry is, and whether it writes.
_ACTIONS = {"Put": ("PutItem", True), "Update": ("UpdateItem", True),
            "Delete": ("DeleteItem", True), "ConditionCheck": ("ConditionCheckItem", False)}


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): each entry of its TransactItems,
    on its table (an entry that holds no one action touches nothing: the
    operation refuses it before reading any)."""
    touches = []
    for entry in request.get("TransactItems") or ():
        try:
            kind, body = the_action(entry, KINDS)
        except ValidationException:
            continue
        action, write = _ACTIONS[kind]
        touches.append(Touch(action, named(body.get("TableName")) or "*", write))
    return tuple(touches)


ACCESS = access


def validate(request: dict[str, Any]) -> list[Action]:
    """Each action's own checks, in order, then the payload's size."""
    actions = [_parse(entry) for entry in request.get("TransactItems") or ()]
    payload = sum(item_size(action.item_or_key) for action in actions)
    if payload > MAX_TRANSACTION_BYTES:
        raise ValidationException(TRANSACTION_TOO_BIG.format(payload))
    return actions


def transact_write_items(txn: Transaction, request: dict[str, Any], actions: list[Action]
                         ) -> dict[str, Any]:
    for action in actions:
        action.table = get_table(txn, action.body.get("TableName"))
        refuse_strong(action.table.record, "TransactWriteItems")
    for action in actions:
        assert action.table is not None
        keys = action.table.keys
        if action.update is not None:
            action.update.check_key_unchanged(name for name, _ in keys.attributes)
        action.target = (target_of_item(keys, action.item_or_key) if action.kind == "Put"
                         else target_of_key(keys, action.item_or_key))
    refuse_duplicates([(a.table.name, a.target) for a in actions if a.table is not None])
    for action in actions:
        if action.kind == "Put" and action.table is not None and action.table.indexes:
            check_index_values(action.table.indexes, action.item_or_key)

    token = request.get("ClientRequestToken")
    digest = b""
    if token is not None:
        digest = _tokens.digest(request.get("TransactItems"))
        remembered = _tokens.recall(txn, token, digest)
        if remembered is not None:
            return _replayed(request, remembered)

    reasons = _reasons(txn, actions)
    if any(reason["Code"] != "None" for reason in reasons):
        raise TransactionCanceledException(reasons)

    writes, replay = Tally(), Tally()
    for action in actions:
        assert action.table is not None and action.target.encoded is not None
        table, (hk, rk) = action.table, action.target.encoded
        index_units: IndexUnits | None = None
        if action.kind == "Put" or action.write is not None:
            assert action.write is not None
            index_units = write_item(
                txn, table.record, table.indexes, hk, rk, action.old, action.write)
        elif action.kind == "Delete" and action.old is not None:
            index_units = write_item(txn, table.record, table.indexes, hk, rk, action.old, None)
        writes.add(table.name, TRANSACTIONAL * write_units(action.size), index_units,
                   factor=TRANSACTIONAL)
        replay.add(action.table.name, TRANSACTIONAL * read_units(action.size, consistent=True))
    if token is not None:
        _tokens.remember(txn, token, digest, replay.units)

    response: dict[str, Any] = {}
    if wants_capacity(request):
        response["ConsumedCapacity"] = writes.entries(
            request.get("ReturnConsumedCapacity"), kind="Write")
    return response


def _reasons(txn: Transaction, actions: list[Action]) -> list[dict[str, Any]]:
    """Each action's cancellation reason, in order. DynamoDB stops at the
    first ValidationError: the actions after it are reported as None,
    unexamined."""
    reasons = []
    stopped = False
    for action in actions:
        reason = none_reason() if stopped else _evaluate(txn, action)
        stopped = stopped or reason["Code"] == "ValidationError"
        reasons.append(reason)
    return reasons


def _replayed(request: dict[str, Any], remembered: _tokens.Remembered) -> dict[str, Any]:
    response: dict[str, Any] = {}
    if wants_capacity(request):
        response["ConsumedCapacity"] = Tally(dict(remembered.replay)).entries(
            request.get("ReturnConsumedCapacity"), kind="Read")
    return response
