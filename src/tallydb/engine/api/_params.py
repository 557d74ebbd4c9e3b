"""Request-level rules for the expression parameters the item operations share.

DynamoDB checks a request's expression parameters as a whole before it
parses any expression (dynalite ``validateExpressionParams`` and
``validateExpressions``, recorded against DynamoDB; the mixed-parameter and
EAV-without-expression texts also captured 2026 by nubo-db/dynamodb-conformance):

1. expression and non-expression (legacy) parameters may not be mixed;
2. ExpressionAttributeNames needs an expression, ExpressionAttributeValues
   an expression that can use values (ProjectionExpression cannot);
3. then, after the operation has checked its key and legacy parameters,
   the maps may not be empty, their keys must be ``#name``/``:value``, and
   every value must be a valid AttributeValue.

``check_expression_params`` is step 1-2, ``bind_placeholders`` step 3,
``placeholders`` both at once for operations with nothing to check between.
``check_return_values`` is the ReturnValues rule of PutItem and DeleteItem
(consumed capacity lives in ``api/_units.py``).

The parameter lists per operation are DynamoDB's, in the order its messages
name them (dynalite validations/*.js).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from tallydb.engine.api._conditions import condition_of
from tallydb.engine.api._indexes import check_update_paths
from tallydb.engine.api._shapes import check_request, model_members
from tallydb.engine.api._tables import Table, get_table
from tallydb.engine.errors import DynamoDBError, ValidationException
from tallydb.engine.expressions import (
    BoundCondition,
    BoundUpdate,
    Placeholders,
    from_attribute_updates,
)
from tallydb.engine.expressions.condition import CompiledCondition, compiled_condition
from tallydb.engine.expressions.messages import ExpressionError
from tallydb.engine.expressions.update import CompiledUpdate, UpdatePlan, compiled_update
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item, messages, validate_key_values, validate_value
from tallydb.engine.values.number import is_canonical
from tallydb.engine.values.types import Wording

__all__ = [
    "EXPRESSION_PARAMETERS",
    "HOT",
    "UpdateRequest",
    "bind_placeholders",
    "check_expression_params",
    "check_return_values",
    "decided_quickly",
    "placeholders",
    "update_checks",
    "update_request",
]

#: operation -> (expression parameters, non-expression parameters)
EXPRESSION_PARAMETERS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "PutItem": (("ConditionExpression",), ("Expected",)),
    "DeleteItem": (("ConditionExpression",), ("Expected",)),
    "UpdateItem": (("UpdateExpression", "ConditionExpression"), ("AttributeUpdates", "Expected")),
    "GetItem": (("ProjectionExpression",), ("AttributesToGet",)),
    "Query": (
        ("ProjectionExpression", "FilterExpression", "KeyConditionExpression"),
        ("AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"),
    ),
    "Scan": (
        ("ProjectionExpression", "FilterExpression"),
        ("AttributesToGet", "ScanFilter", "ConditionalOperator"),
    ),
}

MIXED_PARAMETERS: Final = (
    "Can not use both expression and non-expression parameters in the same request: "
    "Non-expression parameters: {{{legacy}}} Expression parameters: {{{expressions}}}"
)
NAMES_WITHOUT_EXPRESSION: Final = (
    "ExpressionAttributeNames can only be specified when using expressions"
)
VALUES_WITHOUT_EXPRESSION: Final = (
    "ExpressionAttributeValues can only be specified when using expressions: {params} {verb} null"
)
EMPTY_NAMES: Final = "ExpressionAttributeNames must not be empty"
EMPTY_VALUES: Final = "ExpressionAttributeValues must not be empty"
INVALID_NAME_KEY: Final = (
    'ExpressionAttributeNames contains invalid key: Syntax error; key: "{key}"'
)
INVALID_VALUE_KEY: Final = (
    'ExpressionAttributeValues contains invalid key: Syntax error; key: "{key}"'
)
#: PutItem and DeleteItem take only NONE and ALL_OLD (dynalite; 2026 us-east-1
#: captures); the enum itself is checked by ``check_request``.
INVALID_RETURN_VALUES: Final = "ReturnValues can only be ALL_OLD or NONE"

_NAME_KEY: Final = re.compile(r"#[0-9a-zA-Z_]+")
_VALUE_KEY: Final = re.compile(r":[0-9a-zA-Z_]+")
_OLD_ONLY: Final = frozenset({"PutItem", "DeleteItem"})


def check_expression_params(
    request: Mapping[str, Any],
    expression_params: Sequence[str] = ("UpdateExpression", "ConditionExpression"),
    legacy_params: Sequence[str] = ("AttributeUpdates", "Expected"),
) -> bool:
    """Steps 1-2: refuse mixed parameters and placeholder maps without an
    expression. Returns whether the request uses expressions at all."""
    get = request.get
    used = [p for p in expression_params if get(p) is not None]
    if not used and get("ExpressionAttributeNames") is None and (
            get("ExpressionAttributeValues") is None):
        return False  # a request without expressions: nothing to refuse here
    if used and "ProjectionExpression" not in expression_params:
        # The common case: an item write with expressions and nothing to refuse.
        for p in legacy_params:
            if get(p) is not None:
                break
        else:
            return True
    if used:
        legacy = list(legacy_params)
        # Query may pair KeyConditions with a FilterExpression/ProjectionExpression
        # as long as it has no KeyConditionExpression (dynalite).
        if "KeyConditions" in legacy and request.get("KeyConditionExpression") is None:
            legacy.remove("KeyConditions")
        mixed = [p for p in legacy if request.get(p) is not None]
        if mixed:
            raise ValidationException(
                MIXED_PARAMETERS.format(legacy=", ".join(mixed), expressions=", ".join(used))
            )
    if request.get("ExpressionAttributeNames") is not None and not used:
        raise ValidationException(NAMES_WITHOUT_EXPRESSION)
    value_params = [p for p in expression_params if p != "ProjectionExpression"]
    if (
        value_params
        and request.get("ExpressionAttributeValues") is not None
        and all(request.get(p) is None for p in value_params)
    ):
        raise ValidationException(
            VALUES_WITHOUT_EXPRESSION.format(
                params=" and ".join(value_params), verb="are" if len(value_params) > 1 else "is"
            )
        )
    return bool(used)


def bind_placeholders(request: Mapping[str, Any], *, wording: Wording = "current"
                      ) -> Placeholders:
    """Step 3: check ExpressionAttributeNames/Values and bind them.

    Returns ``tallydb.engine.expressions.Placeholders(names, values)`` (values
    canonical, as ``tallydb.engine.values.validate_value`` returns them); ``wording``
    is passed to ``validate_value`` (see ``tallydb.engine.values.messages``).
    """
    names = request.get("ExpressionAttributeNames")
    values = request.get("ExpressionAttributeValues")
    if names is not None:
        if not names:
            raise ValidationException(EMPTY_NAMES)
        for key, name in names.items():
            if key not in _good_names and _good_key(key, _NAME_KEY, _good_names) is None:
                raise ValidationException(INVALID_NAME_KEY.format(key=key))
            if not name:
                raise ValidationException(messages.EMPTY_NAME_PLACEHOLDER.format(key=key))
    if values is not None:
        if not values:
            raise ValidationException(EMPTY_VALUES)
        for key in values:
            if key not in _good_values and _good_key(key, _VALUE_KEY, _good_values) is None:
                raise ValidationException(INVALID_VALUE_KEY.format(key=key))
        checked: dict[str, Any] | None = None
        for key, value in values.items():
            try:
                canonical = validate_value(value, wording=wording)
            except ValidationException as e:
                raise ValidationException(
                    messages.EAV_WRAPPER.format(message=e.message, key=key)
                ) from None
            if canonical is not value:
                if checked is None:
                    checked = dict(values)
                checked[key] = canonical
        if checked is not None:
            values = checked
    return Placeholders(names, values)


#: Placeholder keys seen well-formed (``#name``, ``:value``): the hot path
#: is one set lookup instead of a regular expression.
_good_names: Final[set[str]] = set()
_good_values: Final[set[str]] = set()


def _good_key(key: str, pattern: re.Pattern[str], seen: set[str]) -> str | None:
    if type(key) is not str or pattern.fullmatch(key) is None:
        return None
    if len(seen) >= 4096:
        seen.clear()
    seen.add(key)
    return key


def placeholders(
    request: Mapping[str, Any],
    expression_params: Sequence[str] = ("UpdateExpression", "ConditionExpression"),
    legacy_params: Sequence[str] = ("AttributeUpdates", "Expected"),
    *,
    wording: Wording = "current",
) -> Placeholders | None:
    """Steps 1-3 at once: the request's bound placeholders, or None when it
    uses no expressions (a legacy or a plain request)."""
    if not check_expression_params(request, expression_params, legacy_params):
        return None
    return bind_placeholders(request, wording=wording)


def check_return_values(operation: str, request: Mapping[str, Any]) -> str:
    """The request's ReturnValues ("NONE" when absent), refused when the
    operation does not offer it (PutItem and DeleteItem: NONE or ALL_OLD)."""
    value = request.get("ReturnValues")
    if value is None:
        return "NONE"
    if operation in _OLD_ONLY and value not in ("NONE", "ALL_OLD"):
        raise ValidationException(INVALID_RETURN_VALUES)
    return str(value)


# --- UpdateItem's request half, decided once per request shape ----------------


class UpdateRequest:
    """What UpdateItem decides before it reads the item: its ReturnValues,
    its update and condition bound to the request's placeholders, the
    table, and the key (checked against the schema, and encoded)."""

    __slots__ = ("condition", "hk", "key", "plain", "return_values", "rk", "table", "update")

    def __init__(self, return_values: str, update: BoundUpdate | None,
                 condition: BoundCondition | None, table: Table, key: Item,
                 hk: bytes, rk: bytes) -> None:
        self.return_values = return_values
        self.update = update
        self.condition = condition
        self.table = table
        self.key = key
        self.hk = hk
        self.rk = rk
        #: No item of the update reaches its caller: ReturnValues NONE, and
        #: no condition to return the item with when it fails.
        self.plain = return_values == "NONE" and condition is None

    def for_key(self, key: Item, hk: bytes, rk: bytes) -> UpdateRequest:
        """This decision for another key (checked and encoded) of a request
        otherwise equal."""
        return UpdateRequest(self.return_values, self.update, self.condition, self.table,
                             key, hk, rk)


def update_request(txn: Transaction, request: Mapping[str, Any]) -> UpdateRequest:
    """UpdateItem's request-level checks, in DynamoDB's order, with its
    messages: first the request's shape against the service model
    (``check_request``), then ReturnValues, expression parameters,
    placeholders, the update, the condition, unused placeholders, the
    table, the key, key attributes and index keys the update may not touch.

    A request shaped like one that passed before (same table, expressions,
    attribute names, value placeholders and every other member the model
    checks: what a client sends again and again with other keys and values)
    skips every check its shape decided, the model's included; only its
    values and key are checked. Anything those cannot pass as they are goes
    through the full checks, which alone word refusals.
    """
    shape_key = _update_shape_key(request)
    if shape_key is not None:
        try:
            shape = _update_shapes.get(shape_key)
        except TypeError:  # a name that is not a string (refused below)
            shape = shape_key = None
        if shape is not None:
            decided = shape.decide(txn, request.get("Key"),
                                   request.get("ExpressionAttributeValues"), request)
            if decided is not None:
                return decided
    check_request("UpdateItem", request)  # type: ignore[arg-type]
    decided = _update_request(txn, request)
    if shape_key is not None and _covers_the_model():
        if len(_update_shapes) >= _SHAPES_REMEMBERED:
            _update_shapes.clear()
        _update_shapes[shape_key] = _UpdateShape(request, decided)
    return decided


def decided_quickly(txn: Transaction, request: Any) -> UpdateRequest | None:
    """``update_request``'s answer for a request of a shape that passed
    before, or None (then ``update_request`` decides it): its values and
    key checked (``_UpdateShape.decide``). (The request equal to the last
    one decided this way, a hot counter's next ``ADD``, is compared with
    ``HOT`` first, where it is run: ``update_item.quick``.)
    Members outside the model are not read here, as ``known_members``
    drops them."""
    shape_key = _update_shape_key(request)
    if shape_key is None:
        return None
    try:
        shape = _update_shapes.get(shape_key)
    except TypeError:  # a name that is not a string (refused by the full checks)
        return None
    if shape is None:
        return None
    return shape.decide(txn, request.get("Key"), request.get("ExpressionAttributeValues"),
                        request)


_SHAPES_REMEMBERED: Final = 1024

#: UpdateItem's members whose every check depends on their value alone
#: (strings: plain, enums, the table name; a JSON null counts as absent, as
#: ``get`` has it). With the placeholder maps they make a request's shape.
_SHAPE_MEMBERS: Final = (
    "TableName", "UpdateExpression", "ConditionExpression", "ReturnValues",
    "ReturnConsumedCapacity", "ReturnItemCollectionMetrics",
    "ReturnValuesOnConditionCheckFailure", "ConditionalOperator",
)
#: The model's other members: Key and the values are checked on every
#: request (``_UpdateShape.decide``); the legacy maps are not remembered.
_UNSHAPED_MEMBERS: Final = ("Key", "ExpressionAttributeValues", "ExpressionAttributeNames",
                     "AttributeUpdates", "Expected")


@functools.cache
def _covers_the_model() -> bool:
    """Whether the shape key sees every member of botocore's UpdateItem
    input (a newer model may add one: then no shape is remembered)."""
    return set(model_members("UpdateItem")) <= {*_SHAPE_MEMBERS, *_UNSHAPED_MEMBERS}


def _update_shape_key(request: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """What decides every request-level check of UpdateItem but those on
    the values and the key; None for a request the shapes do not cover
    (legacy parameters, anything but a JSON object where one belongs).

    Equal keys mean equal members, value for value: ``_SHAPE_MEMBERS`` (got
    one by one: quicker than a loop) are valid only as strings, and a
    string equals nothing but a string."""
    if type(request) is not dict:
        return None
    get = request.get
    if get("AttributeUpdates") is not None or get("Expected") is not None:
        return None
    names = get("ExpressionAttributeNames")
    values = get("ExpressionAttributeValues")
    if names is not None:
        if type(names) is not dict:
            return None
        names = tuple(names.items())
    if values is not None:
        if type(values) is not dict:
            return None
        values = tuple(values)
    return (get("TableName"), get("UpdateExpression"), get("ConditionExpression"),
            get("ReturnValues"), get("ReturnConsumedCapacity"),
            get("ReturnItemCollectionMetrics"), get("ReturnValuesOnConditionCheckFailure"),
            get("ConditionalOperator"), names, values)


def update_checks(request: Mapping[str, Any]
                  ) -> tuple[str, Item, BoundUpdate | None, BoundCondition | None]:
    """UpdateItem's own checks, those that need no table, in DynamoDB's
    order (its shape checked before): ReturnValues, expression parameters,
    the key's values, placeholders, the update, the condition, unused
    placeholders. What a throttle checks before it refuses a request
    (``api.validate_only``)."""
    return_values = check_return_values("UpdateItem", request)
    uses_expressions = check_expression_params(request)
    key = validate_key_values(request["Key"])
    bound = bind_placeholders(request) if uses_expressions else None
    update: BoundUpdate | None = None
    if bound is not None and request.get("UpdateExpression") is not None:
        update = bound.update(request["UpdateExpression"])
    elif request.get("AttributeUpdates"):
        update = from_attribute_updates(request["AttributeUpdates"])
    condition = condition_of(request, bound)
    if bound is not None:
        bound.check_unused()
    return return_values, key, update, condition


def _update_request(txn: Transaction, request: Mapping[str, Any]) -> UpdateRequest:
    """Every check, in order (the path for a request of a new shape): the
    request's own (``update_checks``), then the table's."""
    return_values, key, update, condition = update_checks(request)
    table = get_table(txn, request["TableName"])
    keys = table.keys
    key = keys.check_key(key)
    if update is not None:
        update.check_key_unchanged(keys.names)
        if table.indexes:
            check_update_paths(table.indexes, update.nested_heads, update.assigned_type)
    hk, rk = keys.encode(key)
    return UpdateRequest(return_values, update, condition, table, key, hk, rk)


class _UpdateShape:
    """A request shape whose value-independent checks passed: its compiled
    expressions and their plans, for the next request of that shape."""

    __slots__ = ("condition", "condition_plan", "keyless", "keys", "last", "last_key",
                 "last_request", "last_values", "misses", "names", "return_values", "table",
                 "table_name", "update", "update_plan")

    def __init__(self, request: Mapping[str, Any], decided: UpdateRequest) -> None:
        # A copy: a caller may change its dicts once the request is answered.
        names = dict(request.get("ExpressionAttributeNames") or {})
        self.names: Mapping[str, str] = names
        self.table = decided.table
        self.table_name = decided.table.name
        self.keys = decided.table.keys
        self.return_values = decided.return_values
        text = request.get("UpdateExpression")
        self.update: CompiledUpdate | None = None
        self.update_plan: UpdatePlan | None = None
        if text is not None:
            self.update = compiled_update(text)
            self.update_plan = self.update.plan(names)
        text = request.get("ConditionExpression")
        self.condition: CompiledCondition | None = None
        if text is not None:
            self.condition = compiled_condition(text)
            self.condition_plan = self.condition.plan(names)
        # The last request decided the quick way whose key and values are all
        # S or N strings (copies: a caller may change its dicts afterwards),
        # and its decision: a hot counter's next request is equal to it
        # (equal dicts of strings are the same request), and gets the same
        # decision without a check.
        self.last: UpdateRequest | None = None
        self.last_key: Any = None
        self.last_values: Any = None
        self.last_request: Any = None  # the whole request, when it is strings alone
        #: that request with its Key member None, and its decision, set
        #: together (a thread reads the pair at once: ``other_key``)
        self.keyless: tuple[dict[str, Any], UpdateRequest] | None = None
        self.misses = 0  # requests since the last one equal to the remembered one

    def decide(self, txn: Transaction, key: Any, values: Mapping[str, Any] | None,
               request: Mapping[str, Any]) -> UpdateRequest | None:
        """The request decided the quick way, or None for the full checks."""
        table = self.table
        if txn.table(self.table_name) is not table.record:
            return None  # the table was deleted or changed since
        if self.last is not None and key == self.last_key and values == self.last_values:
            self.misses = 0
            return self.last
        sent = values
        strings = True  # every value an S or N string (the key is, once encoded)
        if values is not None:
            for value in values.values():
                if type(value) is dict and len(value) == 1:  # the everyday S and N
                    payload = value.get("N")
                    if payload is not None:
                        if type(payload) is str and is_canonical(payload):
                            continue
                    elif type(value.get("S")) is str:
                        continue
                strings = False
                try:
                    if validate_value(value) is not value:
                        return None  # not canonical as sent: the full path copies it
                except DynamoDBError:  # not an AttributeValue: the full path words it
                    return None
        else:
            values = _NO_VALUES
        encoded = self.keys.encode_plain(key)
        if encoded is None:
            return None
        update: BoundUpdate | None = None
        condition: BoundCondition | None = None
        compiled = self.update
        if compiled is not None:
            # CompiledUpdate.bind's checks on the values' types (the rest
            # depends on the shape alone, and passed).
            for keyword, ref in compiled.action_operands:
                kind = next(iter(values[ref]))
                if not ((kind == "N" and keyword == "ADD") or kind in _SET_TYPES):
                    return None
            if compiled.function_checks:
                try:
                    update = compiled.bind(self.names, values)
                except ExpressionError:
                    return None
            else:
                assert self.update_plan is not None  # planned with the compiled update
                update = BoundUpdate(self.update_plan, values)
        if self.condition is not None:
            try:
                self.condition.check(self.names, values)
            except ExpressionError:
                return None
            condition = BoundCondition(self.condition_plan, values)
        if update is not None and table.indexes:
            try:
                check_update_paths(table.indexes, update.nested_heads, update.assigned_type)
            except ValidationException:
                return None
        decided = UpdateRequest(self.return_values, update, condition, table, key, *encoded)
        if strings:
            # Remembering copies the request; when requests keep differing
            # (keys at random), copy only now and then.
            self.misses += 1
            if self.misses <= 2 or self.misses % 32 == 0:
                self._remember(decided, key, sent, request)
        return decided

    def _remember(self, decided: UpdateRequest, key: Item, values: Any,
                  request: Mapping[str, Any]) -> None:
        """Keep ``decided`` for the next equal request, over copies of the
        key and values (dicts of S/N strings) that nobody else holds; and,
        when the whole request is strings in objects, a copy of it, which
        ``update_item.quick`` compares the next request with (``HOT``)."""
        key = {name: dict(value) for name, value in key.items()}
        if values is not None:
            values = {ref: dict(value) for ref, value in values.items()}
            bound = values
        else:
            bound = _NO_VALUES
        update = decided.update
        if update is not None:
            update = update.with_values(bound)
        condition = decided.condition
        if condition is not None:
            condition = BoundCondition(self.condition_plan, bound)
        self.last = UpdateRequest(decided.return_values, update, condition, decided.table, key,
                                  decided.hk, decided.rk)
        self.last_key, self.last_values = key, values
        self.last_request = last_request = _strings_only(request)
        if last_request is not None:
            self.keyless = {**last_request, "Key": None}, self.last
            HOT[0] = self
        else:
            self.keyless = None
            HOT[0] = None

    def other_key(self, txn: Transaction, request: Any) -> UpdateRequest | None:
        """The decision for a request equal to the remembered one
        (``last_request``) in every member but its Key's values (a counter
        among many: the next ``ADD`` on another key), or None.

        Every member but Key equal, string for string, to a request whose
        every check passed passes each of them again (``_strings_only``),
        and gives the same update and condition, bound to equal values; so
        only the key is left to check: ``encode_plain`` takes exactly the
        keys that every check of a key (the values', then the schema's)
        passes as they are, and encodes them. Anything else (another
        member, a key the full checks must word) is None, and goes the way
        it went before: ``decided_quickly``, then every check."""
        keyless = self.keyless
        if (keyless is None or type(request) is not dict
                or {**request, "Key": None} != keyless[0]):
            return None
        table = self.table
        if txn.table(self.table_name) is not table.record:
            return None  # the table was deleted or changed since
        key: Any = request.get("Key")  # (absent: None, refused by ``encode_plain``)
        encoded = self.keys.encode_plain(key)
        if encoded is None:
            return None
        hk, rk = encoded
        return keyless[1].for_key(key, hk, rk)


def _strings_only(value: Any) -> Any:
    """A copy of ``value`` when it is strings in JSON objects and nothing
    else, else None. Such a copy equals only a request equal to it member
    for member and string for string (a string equals nothing but a
    string, an object nothing but an object), which passes every check it
    passed."""
    if type(value) is str:
        return value
    if type(value) is not dict:
        return None
    copy = {}
    for name, member in value.items():
        member = _strings_only(member)
        if member is None:
            return None
        copy[name] = member
    return copy


_update_shapes: Final[dict[tuple[Any, ...], _UpdateShape]] = {}
#: The shape whose last request (``last_request``, strings alone) a request
#: is compared with first: a hot counter's next request, equal to it, gets
#: its decision (``last``) again without a check (``update_item.quick``).
HOT: Final[list[_UpdateShape | None]] = [None]
_NO_VALUES: Final[Mapping[str, Any]] = {}
_SET_TYPES: Final = frozenset({"SS", "NS", "BS"})
