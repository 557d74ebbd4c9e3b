"""Query on a GSI whose key has several attributes (DynamoDB's multi-attribute
keys: up to four partition-key and four sort-key attributes).

The rules DynamoDB documents: every partition-key attribute is given with
``=``; sort-key attributes are given left to right without a gap, all with
``=`` but the last one given, which may use any key operator (``<``, ``<=``,
``>``, ``>=``, BETWEEN, ``begins_with``). An index entry's key is its
attributes' order-preserving encodings one after another (prefix-free, see
``tallydb.engine.values.key``), so the equal sort attributes are a prefix of the
range read and the last condition bounds what follows it.

Refusals use the single-attribute key condition's messages, DynamoDB's
wording for these cases not being on record.
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
    hash_key = b""
    for name, _ in index.hash_key:
        equal = by_name.get(name)
        if equal is None:
            raise ValidationException(MISSED_KEY.format(name))
        if equal.op != "EQ":
            raise ValidationException(NOT_SUPPORTED)
        hash_key += encode_key_value(equal.values[0])
    prefix, last = b"", None
    given = [by_name.get(name) for name, _ in index.range_key]
    for position, sort_term in enumerate(given):
        if sort_term is None:
            if any(t is not None for t in given[position + 1:]):
                raise ValidationException(MISSED_KEY.format(index.range_key[position][0]))
            break
        if sort_term.op in ("NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN"):
            raise ValidationException(NOT_SUPPORTED)
        if all(t is None for t in given[position + 1:]):
            last = sort_term
        elif sort_term.op != "EQ":
            raise ValidationException(NOT_SUPPORTED)
        else:
            prefix += encode_key_value(sort_term.values[0])
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
