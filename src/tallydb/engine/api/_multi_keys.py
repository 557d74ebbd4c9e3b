"""Query on a GSI whose key has several attributes (DynamoDB's multi-attribute
keys: up to four partition-key and four sort-key attributes).

The rules DynamoDB documents: every partition-key attribute is given with
``=``; sort-key attributes are given left to right without a gap, all with
``=`` but the last one given, which may use any key operator (``<``, ``<=``,
``>``, ``>=``, BETWEEN, ``begins_with``). An index entry's key is its
attributes' order-preserving encodings one after another (prefix-free, see
``tallydb.engine.values.key``), so the equal sort attributes are a prefix of the
range read and the last condition bounds what follows it.

Refusals: a sort-key attribute left out or given with a range before a
later one is given is DynamoDB's RANGE_NEEDS_EQUALITY (paritysuite's
dynamodb-conformance, verified against DynamoDB in October 2026: "RANGE key
attributes b must have equality conditions specified in the query because
a condition is present on key attribute c"; with several left out, all
are named); a partition-key attribute given with anything but ``=`` is
HASH_NEEDS_EQUALITY (a user quotes DynamoDB's "HASH key attributes
createdAt must have equality conditions", the rest of the sentence is
not on record and is the RANGE message's). The other refusals use the
single-attribute key condition's messages.

An ExclusiveStartKey must carry the table's key and every index key
attribute; an attribute beyond those is ignored, as DynamoDB ignores it
for these indexes (suites run against DynamoDB page with such keys).
"""

from __future__ import annotations

from dataclasses import dataclass

from tallydb.engine.api._indexes import Index
from tallydb.engine.api._key_conditions import (
    MISSED_KEY,
    NOT_SUPPORTED,
    START_INVALID,
    START_ONE_ROW,
    START_OUTSIDE,
    START_RANGE,
    START_SCHEMA,
    TOO_MANY_CONDITIONS,
    TYPE_MISMATCH,
    KeyTerm,
    _matches,
    successor,
)
from tallydb.engine.errors import ValidationException
from tallydb.engine.values import Item, encode_key_prefix, encode_key_value

_NOT_KEY_OPERATORS = frozenset({"NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN"})
HASH_NEEDS_EQUALITY = (
    "HASH key attributes {} must have equality conditions specified in the query")
RANGE_NEEDS_EQUALITY = (
    "RANGE key attributes {} must have equality conditions specified in the query because a "
    "condition is present on key attribute {}")


@dataclass(frozen=True)
class MultiKeyPlan:
    """One partition of a multi-attribute index, and a range of its entries."""

    hash_key: bytes
    prefix: bytes  # the encodings of the sort attributes given with =
    last: KeyTerm | None  # the condition on the next sort attribute, if any
    start: Item | None

    def hash_bytes(self) -> bytes:
        return self.hash_key

    def bounds(self) -> tuple[bytes | None, bytes | None]:
        prefix, term = self.prefix, self.last
        end = successor(prefix) if prefix else None
        if term is None or term.op == "EQ":
            if term is not None:
                prefix += encode_key_value(term.values[0])
            return (prefix or None), (successor(prefix) if prefix else None)
        first = prefix + encode_key_value(term.values[0])
        if term.op == "LE":
            return prefix or None, successor(first)
        if term.op == "LT":
            return prefix or None, first
        if term.op == "GE":
            return first, end
        if term.op == "GT":
            return successor(first) or first, end
        if term.op == "BETWEEN":
            return first, successor(prefix + encode_key_value(term.values[1]))
        begins = prefix + encode_key_prefix(term.values[0])  # BEGINS_WITH
        return begins, successor(begins)


def plan_multi(terms: list[KeyTerm], index: Index, start: Item | None) -> MultiKeyPlan:
    """Check the terms against a multi-attribute index key; the range to read."""
    key_count = len(index.hash_key) + len(index.range_key)
    if len(terms) > key_count:
        raise ValidationException(TOO_MANY_CONDITIONS.format(len(terms), key_count))
    by_name = {term.name: term for term in terms}
    for term in terms:
        kind = dict(index.hash_key + index.range_key).get(term.name)
        if kind is None:
            missing = next(name for name in index.key_names if name not in by_name)
            raise ValidationException(MISSED_KEY.format(missing))
        if any(kind not in value for value in term.values):
            raise ValidationException(TYPE_MISMATCH)
    for name, _ in index.hash_key:
        if name not in by_name:
            raise ValidationException(MISSED_KEY.format(name))
    not_equal = [name for name, _ in index.hash_key if by_name[name].op != "EQ"]
    if not_equal:
        raise ValidationException(HASH_NEEDS_EQUALITY.format(", ".join(not_equal)))
    hash_key = b"".join(encode_key_value(by_name[name].values[0]) for name, _ in index.hash_key)
    given = [by_name.get(name) for name, _ in index.range_key]
    if any(t is not None and t.op in _NOT_KEY_OPERATORS for t in given):
        raise ValidationException(NOT_SUPPORTED)
    prefix = b""
    last: KeyTerm | None = None
    named = [position for position, term in enumerate(given) if term is not None]
    if named:
        last_named = named[-1]
        unequal = [index.range_key[position][0] for position, term in enumerate(given)
                   if position < last_named and (term is None or term.op != "EQ")]
        if unequal:
            raise ValidationException(RANGE_NEEDS_EQUALITY.format(
                ", ".join(unequal), index.range_key[last_named][0]))
        for equal in given[:last_named]:
            assert equal is not None  # an equality, checked above
            prefix += encode_key_value(equal.values[0])
        last = given[last_named]
    if start is not None:
        for name in index.start_names:
            if name not in start:
                raise ValidationException(START_INVALID)
        for name, kind in index.hash_key + index.range_key:
            if kind not in start[name]:
                raise ValidationException(START_SCHEMA)
        _check_start(start, index, hash_key, [t for t in given if t is not None])
    return MultiKeyPlan(hash_key, prefix, last, start)


def _check_start(start: Item, index: Index, hash_key: bytes, sort_terms: list[KeyTerm]) -> None:
    """An ExclusiveStartKey must lie in the range queried, checked as for a
    single-attribute key (``_key_conditions._check_start``): in the
    partition, and matching every sort-key condition."""
    same_partition = b"".join(
        encode_key_value(start[name]) for name, _ in index.hash_key) == hash_key
    if not sort_terms:
        if not same_partition:
            raise ValidationException(START_OUTSIDE)
        return
    if not all(_matches(term, start[term.name]) for term in sort_terms):
        raise ValidationException(START_RANGE)
    if not same_partition:
        raise ValidationException(START_ONE_ROW)
