"""What the three PartiQL operations share: a statement planned against its
table and run through an existing operation's own function, and what a
statement touches."""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

import orjson

from tallydb.engine.api import delete_item, get_item, put_item, query, scan, update_item
from tallydb.engine.api._access import Touch
from tallydb.engine.api._params import UpdateRequest, update_request
from tallydb.engine.api._pipeline import Operation, direct, steps_of
from tallydb.engine.api._tables import Table, get_table
from tallydb.engine.api.update_item import updated
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
    KeyAttributes,
    Planned,
    Select,
    Statement,
    Update,
    fill,
    parse_counted,
    plan_with,
    template,
)
from tallydb.engine.partiql.cache import CachedPlan, PlanCache
from tallydb.engine.partiql.messages import (
    DUPLICATE_ITEM,
    EXISTS_OUTSIDE_TRANSACTION,
    PARAMETER_COUNT,
)
from tallydb.engine.storage import Transaction
from tallydb.engine.values import validate_value

#: The operations a statement runs as, each with its table-free checks
#: first (``_pipeline.direct``).
OPERATIONS: Final[dict[str, Operation]] = {
    name: direct(steps_of(module, module.__name__.rsplit(".", 1)[1]))
    for name, module in (("UpdateItem", update_item), ("PutItem", put_item),
                         ("DeleteItem", delete_item), ("GetItem", get_item),
                         ("Query", query), ("Scan", scan))
}
INVALID_TOKEN: Final = "Invalid NextToken"
#: The IAM action of each kind of statement, and whether it writes.
_ACTIONS: Final[dict[type[Any], tuple[str, bool]]] = {
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


#: Statements parsed and planned (``partiql.cache``), by text and how they
#: run: a statement sent again is neither parsed nor planned again. At most
#: 2,048 statements and 4 MB of their text (a statement is at most 8,192
#: characters).
PLANS: Final = PlanCache(statements=2048, chars=4_000_000)


def planned(txn: Transaction, entry: dict[str, Any], *, keyed: bool = False,
            checks: bool = False) -> Planned:
    """The request an entry's ``Statement`` (with its ``Parameters``) runs as;
    ``keyed``: a SELECT must name a whole key (a GetItem), as in batches
    and transactions; ``checks``: EXISTS is a condition check, and an
    UPDATE's request carries its condition that the item exists
    (transactions only)."""
    return plan_of(txn, entry, keyed=keyed, checks=checks)[0]


def plan_of(txn: Transaction, entry: dict[str, Any], *, keyed: bool = False,
            checks: bool = False) -> tuple[Planned, CachedPlan | None]:
    """``planned``, and the cached plan it came from when that plan's
    request is the same every time (a statement without parameters: what
    its runner decides once holds for as long as the plan does).

    Every check, in DynamoDB's order: the statement parses (a cached one
    did), EXISTS only in a transaction, the parameters' values, their
    number, the table (a cached plan serves only while the table's catalog
    record is the one it was made against: a table deleted, recreated or
    changed is looked up, and planned, again), the plan's own (the whole
    key named), an INSERT's key attributes."""
    text = entry["Statement"]
    mode = keyed + 2 * checks
    cached = PLANS.get(text)
    sent = entry.get("Parameters")
    if cached is not None and not sent and not cached.count:
        plan = cached.plans[mode].get(())
        if plan is not None and plan.passed and len(entry) == 1:
            # the everyday hit: a statement without parameters, which passed
            # every check here before, against the very same table
            scope: Table = plan.scope
            if txn.table(scope.record.name) is scope.record and not scope.pending:
                return _filled_plan(plan), plan
    if cached is None:
        statement, count = parse_counted(text)
    else:
        statement, count = cached.statement, cached.count
    if isinstance(statement, Exists) and not checks:
        raise ValidationException(EXISTS_OUTSIDE_TRANSACTION)
    parameters = [validate_value(p) for p in sent] if sent else []
    if len(parameters) < count:  # DynamoDB ignores extra parameters
        raise ValidationException(PARAMETER_COUNT)
    if cached is None:
        cached = PLANS.add(text, statement, count)
    kinds = tuple([next(iter(p)) for p in parameters]) if parameters else ()
    plan = cached.plans[mode].get(kinds)
    table: Table | None = plan.scope if plan is not None else None
    get = keyed and isinstance(statement, Select)
    if table is None or txn.table(statement.table) is not table.record or table.pending:
        table = get_table(txn, statement.table)
        made = template(statement, count, _keys(table, statement), get=get,
                        exists_in_condition=checks)
        plan = CachedPlan(table, made)
        PLANS.keep_plan(cached, mode, kinds, plan)
    assert plan is not None
    if plan.template is not None:
        result = fill(plan.template, parameters)
    else:  # (planned with the values, which it needs, or refused with them)
        result = plan_with(statement, parameters, _keys(table, statement), get=get,
                           exists_in_condition=checks)
    if get and entry.get("ConsistentRead") is not None:
        result.request["ConsistentRead"] = entry["ConsistentRead"]
    if isinstance(statement, Insert):
        table.keys.check_item_key(result.request["Item"])
    wanted = entry.get("ReturnValuesOnConditionCheckFailure")
    if wanted is not None and result.operation in (
            "UpdateItem", "PutItem", "DeleteItem", "ConditionCheck"):
        result.request["ReturnValuesOnConditionCheckFailure"] = wanted
    if count or plan.template is None:
        return result, None
    plan.passed = True
    return result, plan


def _filled_plan(plan: CachedPlan) -> Planned:
    """The request of a plan without parameters, for a request that adds
    nothing to it: an UpdateItem's template itself (it runs by ``updated``
    or ``update_request``, which only read it), anything else's a copy (the
    operations it runs as are not held to that)."""
    made = plan.template
    assert made is not None
    return made if made.operation == "UpdateItem" else fill(made, [])


def _keys(table: Table, statement: Statement) -> KeyAttributes:
    """The key attributes a statement names items by: its table's, or those
    of the index a SELECT reads."""
    if isinstance(statement, Select) and statement.index is not None:
        index = table.index(statement.index)
        if index is not None:
            return list(index.hash_key + index.range_key)
    return table.keys.attributes


def run_planned(txn: Transaction, result: Planned, fixed: CachedPlan | None = None
                ) -> dict[str, Any]:
    """Run a planned write or read; an INSERT of an existing key is
    DuplicateItemException, as DynamoDB answers it. An UpdateItem planned
    from ``fixed`` (``plan_of``) is checked once, its decision kept with
    the plan and applied to the next request of the statement."""
    request = result.request
    try:
        if result.operation == "UpdateItem":
            kept: DecidedUpdate | None = fixed.decided if fixed is not None else None
            if kept is not None:
                return updated(txn, request, kept.update, result.must_exist)
            decided = update_request(txn, request)
            if fixed is not None:
                fixed.decided = DecidedUpdate(decided, fixed.scope, request, result.must_exist)
            return updated(txn, request, decided, result.must_exist)
        return OPERATIONS[result.operation](txn, request)
    except ConditionalCheckFailedException:
        if result.operation == "PutItem":
            raise DuplicateItemException(DUPLICATE_ITEM) from None
        raise


def updated_at_once(txn: Transaction, request: Any) -> dict[str, Any] | None:
    """What UpdateItem answers to a request that is a ``Statement`` alone
    whose plan (run alone) is an UPDATE without parameters that passed every
    check before and whose UpdateItem decision is kept (``run_planned``),
    made against the very table the name finds now: that decision applied,
    and nothing checked twice. None for any other request."""
    if type(request) is not dict or len(request) != 1:
        return None
    text = request.get("Statement")
    cached = PLANS.get(text) if type(text) is str else None
    if cached is None:
        return None
    plan = cached.plans[0].get(())
    if plan is None:
        return None
    kept: DecidedUpdate | None = plan.decided  # (only a plan that passed has one)
    if kept is None:
        return None
    scope = kept.scope
    if txn.table(scope.record.name) is not scope.record or scope.pending:
        return None
    return updated(txn, kept.request, kept.update, kept.must_exist)


class DecidedUpdate:
    """An UPDATE's plan (a statement without parameters) as its UpdateItem
    was decided, once, from the plan's request: kept as the plan's
    ``decided`` while the plan holds, and applied to each request of the
    statement from here, read as a compiled object's fields (a plan's own
    are a pure module's dataclass's, read by name)."""

    def __init__(self, update: UpdateRequest, scope: Table, request: dict[str, Any],
                 must_exist: bool) -> None:
        self.update = update
        self.scope = scope
        self.request = request
        self.must_exist = must_exist


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
