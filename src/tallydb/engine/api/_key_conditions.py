"""A Query's key condition, checked against the key schema and turned into a
range read.

Both spellings (KeyConditionExpression and the legacy KeyConditions) become a
list of :class:`KeyTerm`; the checks against the schema, and their order, are
DynamoDB's as architect/dynalite's tests recorded them, with the newer wording
paritysuite/dynamodb-conformance captured in 2026 where it differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from tallydb.engine.api._tables import KeySchema
from tallydb.engine.errors import ValidationException
from tallydb.engine.expressions import BoundKeyCondition
from tallydb.engine.expressions.legacy import check_name, check_operands
from tallydb.engine.values import (
    AttributeValue,
    Item,
    compare_values,
    encode_key_prefix,
    encode_key_value,
    validate_value,
    values_equal,
)
from tallydb.engine.values.types import Wording

_INVALID: Final = "One or more parameter values were invalid: "
MISSED_KEY: Final = "Query condition missed key schema element: {}"
NOT_SUPPORTED: Final = "Query key condition not supported"
NOT_INDEXABLE: Final = "Attempted conditional constraint is not an indexable operation"
TYPE_MISMATCH: Final = _INVALID + "Condition parameter type does not match schema type"
TOO_MANY_CONDITIONS: Final = (
    "The number of query conditions ({}) exceeds the number of key attributes defined in the "
    "schema ({})"
)
LEGACY_LENGTH: Final = "Conditions can be of length 1 or 2 only"
NEITHER: Final = (
    "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
)
START_INVALID: Final = "The provided starting key is invalid"
#: An ExclusiveStartKey of another number of attributes than the key read
#: (DynamoDB's, as suites and ORMs run against it quote it: the Dynamoid
#: ORM's documentation names both refusals; dynalite, recorded years
#: before, answered START_INVALID for both, the older wording).
START_SIZE: Final = "Exclusive Start Key must have same size as table's key schema"
START_SCHEMA: Final = "The provided key element does not match the schema"
START_OUTSIDE: Final = (
    "The provided starting key is outside query boundaries based on provided conditions"
)
START_RANGE: Final = "The provided starting key does not match the range key predicate"
START_ONE_ROW: Final = "The query can return at most one row and cannot be restarted"

_NOT_INDEXABLE: Final = frozenset({"NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN"})


@dataclass(frozen=True)
class KeyTerm:
    """One condition on one key attribute: ``name op values``. ``op`` is a
    legacy ComparisonOperator name (EQ, LT, LE, GT, GE, BETWEEN, BEGINS_WITH;
    the legacy spelling may also bring the ones no index can serve)."""

    name: str
    op: str
    values: tuple[AttributeValue, ...]


def check_conditions(conditions: Any, *, wording: Wording = "current") -> dict[str, Any]:
    """Legacy conditions (KeyConditions, QueryFilter, ScanFilter) checked the
    way DynamoDB checks them before it reads the table; returned with their
    AttributeValues canonical."""
    checked: dict[str, Any] = {}
    for name, condition in conditions.items():
        check_name(name)
        op = condition.get("ComparisonOperator")
        values = [validate_value(av, wording=wording)
                  for av in condition.get("AttributeValueList") or ()]
        check_operands(op, values)
        checked[name] = {"ComparisonOperator": op, "AttributeValueList": values}
    return checked


def from_key_conditions(conditions: Any) -> list[KeyTerm]:
    """The legacy KeyConditions map as terms (1 or 2 of them)."""
    checked = check_conditions(conditions)
    if len(checked) not in (1, 2):
        raise ValidationException(LEGACY_LENGTH)
    return [KeyTerm(name, c["ComparisonOperator"], tuple(c["AttributeValueList"]))
            for name, c in checked.items()]


_EXPRESSION_OPS: Final = {"=": "EQ", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE",
                   "BETWEEN": "BETWEEN", "begins_with": "BEGINS_WITH"}


def from_key_expression(bound: BoundKeyCondition) -> list[KeyTerm]:
    """A bound KeyConditionExpression as terms."""
    return [KeyTerm(part.name, _EXPRESSION_OPS[part.op], part.values) for part in bound.parts]


# --- against the schema ---------------------------------------------------------


def _matches(term: KeyTerm, value: AttributeValue) -> bool:
    """Does a key value satisfy a (schema-checked) sort key term?"""
    if term.op == "BEGINS_WITH":
        return encode_key_value(value).startswith(encode_key_prefix(term.values[0]))
    order = compare_values(value, term.values[0])
    if order is None:
        return False
    if term.op == "EQ":
        return order == 0
    if term.op == "LT":
        return order < 0
    if term.op == "LE":
        return order <= 0
    if term.op == "GT":
        return order > 0
    if term.op == "GE":
        return order >= 0
    high = compare_values(value, term.values[1])
    return order >= 0 and high is not None and high <= 0  # BETWEEN


@dataclass(frozen=True)
class KeyPlan:
    """What a checked key condition reads: one partition, a sort key range."""

    hash_value: AttributeValue
    range_term: KeyTerm | None
    start: Item | None

    def hash_bytes(self) -> bytes:
        """The partition's encoded key."""
        return encode_key_value(self.hash_value)

    def bounds(self) -> tuple[bytes | None, bytes | None]:
        """(low, below): the range read ``low <= rk < below``.

        A table's ``rk`` is the sort key's encoding; an index's is the index
        sort key's encoding followed by the table's key. Either way every
        ``rk`` whose sort key is ``v`` starts with ``enc(v)`` and sorts before
        ``successor(enc(v))`` (encodings are prefix-free), so one set of
        bounds serves both."""
        term = self.range_term
        if term is None:
            return None, None
        first = encode_key_value(term.values[0])
        if term.op == "EQ":
            return first, successor(first)
        if term.op == "LE":
            return None, successor(first)
        if term.op == "LT":
            return None, first
        if term.op == "GE":
            return first, None
        if term.op == "GT":
            return successor(first) or first, None
        if term.op == "BETWEEN":
            return first, successor(encode_key_value(term.values[1]))
        prefix = encode_key_prefix(term.values[0])  # BEGINS_WITH
        return prefix, successor(prefix)


def successor(prefix: bytes) -> bytes | None:
    """The smallest byte string greater than every string starting with
    ``prefix`` (never itself a key's encoding: those end in 0x00 0x00)."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes([stripped[-1] + 1])


def plan(
    terms: list[KeyTerm],
    keys: KeySchema,
    start: Item | None,
    *,
    expression: bool,
    table_keys: KeySchema | None = None,
) -> KeyPlan:
    """Check the terms (and an ExclusiveStartKey, already validated as
    AttributeValues) against the key schema queried, in DynamoDB's order:
    the table's, or an index's (``keys``) with the table's (``table_keys``),
    whose start key holds both (architect/dynalite's actions/query.js)."""
    table_keys = keys if table_keys is None else table_keys
    by_name = {term.name: term for term in terms}
    if expression and len(terms) > len(keys.attributes) and len(terms) > 2:
        raise ValidationException(TOO_MANY_CONDITIONS.format(len(terms), len(keys.attributes)))
    start_names = table_keys.names | keys.names
    if start is not None and len(start) != len(start_names):
        raise ValidationException(START_SIZE)
    for index, (name, kind) in enumerate(keys.attributes):
        is_hash = index == 0
        if start is not None:
            if name not in start:
                raise ValidationException(START_INVALID)
            if kind not in start[name]:
                raise ValidationException(START_SCHEMA)
        if is_hash and len(keys.attributes) == 1 and len(terms) > 1:
            raise ValidationException(NOT_SUPPORTED)
        term = by_name.get(name)
        if term is None:
            if is_hash or len(terms) > 1:
                raise ValidationException(MISSED_KEY.format(name))
            continue
        if term.op in _NOT_INDEXABLE:
            raise ValidationException(NOT_INDEXABLE)
        if any(kind not in value for value in term.values):
            raise ValidationException(TYPE_MISMATCH)
        if is_hash and term.op != "EQ":
            raise ValidationException(NOT_SUPPORTED)
    hash_term = by_name[keys.hash_name]
    range_term = by_name.get(keys.range_name) if keys.range_name else None
    if start is not None:
        # On a table without a sort key the start key is the partition's one
        # item (a page of Limit 1 ends on it): the query goes on after it,
        # to nothing, as the LastEvaluatedKey it answered promised.
        _check_start(start, keys, table_keys, hash_term.values[0], range_term)
    return KeyPlan(hash_term.values[0], range_term, start)


def _check_start(
    start: Item, keys: KeySchema, table_keys: KeySchema, hash_value: AttributeValue,
    range_term: KeyTerm | None,
) -> None:
    try:
        table_keys.validate_key({name: start[name] for name in table_keys.names if name in start})
    except ValidationException as e:
        raise ValidationException(f"{START_INVALID}: {e.message}") from None
    same_partition = values_equal(start[keys.hash_name], hash_value)
    if range_term is None:
        if not same_partition:
            raise ValidationException(START_OUTSIDE)
        return
    assert keys.range_name is not None
    if not _matches(range_term, start[keys.range_name]):
        raise ValidationException(START_RANGE)
    if not same_partition:
        raise ValidationException(START_ONE_ROW)
