"""A table's catalog record as the item operations need it: its key schema
and its indexes, derived once per record."""

from __future__ import annotations

from typing import Any, Final

from tallydb.engine.api._indexes import (
    GLOBAL,
    LOCAL,
    Index,
    build_indexes,
    captures_alone,
    items_alone,
)
from tallydb.engine.api._lifecycle import CREATING, DELETING, PENDING, gone, status_of
from tallydb.engine.errors import ResourceNotFoundException
from tallydb.engine.storage import TableRecord, Transaction
from tallydb.engine.values import Item
from tallydb.engine.values.attribute_value import (
    check_key_schema,
    plain_key,
    validate_item_key,
    validate_key,
)
from tallydb.engine.values.key import encode_key_value

REQUESTED_RESOURCE_NOT_FOUND: Final = "Requested resource not found"


class KeySchema:
    """The HASH and optional RANGE attribute of a table, with their types."""

    __slots__ = ("attributes", "hash_name", "lone_string", "names", "range_name")

    def __init__(self, attributes: list[tuple[str, str]]) -> None:
        """From (name, type) pairs, HASH first."""
        self.attributes: list[tuple[str, str]] = list(attributes)
        self.hash_name: str = attributes[0][0]
        self.range_name: str | None = attributes[1][0] if len(attributes) > 1 else None
        self.names = frozenset(name for name, _ in attributes)
        self.lone_string = _lone_string(self.attributes)

    @classmethod
    def of_table(cls, description: dict[str, Any]) -> KeySchema:
        """A table's schema, from its description."""
        types = {d["AttributeName"]: d["AttributeType"]
                 for d in description["AttributeDefinitions"]}
        by_role = {k["KeyType"]: k["AttributeName"] for k in description["KeySchema"]}
        names = [by_role["HASH"]] + ([by_role["RANGE"]] if "RANGE" in by_role else [])
        return cls([(name, types[name]) for name in names])

    def validate_key(self, key: Any) -> Item:
        """A request's ``Key``, checked against the schema (DynamoDB's messages)."""
        return validate_key(key, self.attributes)

    def check_key(self, checked: Item) -> Item:
        """A request's ``Key`` whose values were checked before the table
        was known (``validate_key_values``), checked against the schema."""
        return check_key_schema(checked, self.attributes)

    def check_item_key(self, item: Item) -> None:
        """An item about to be written carries the whole key (PutItem's checks)."""
        validate_item_key(item, self.attributes)

    def encode(self, key: Item) -> tuple[bytes, bytes]:
        """(hash bytes, range bytes) of a validated key or of a whole item."""
        hk = _encode(key[self.hash_name])
        rk = b"" if self.range_name is None else _encode(key[self.range_name])
        return hk, rk

    def encode_plain(self, key: Any) -> tuple[bytes, bytes] | None:
        """``encode(key)`` for a request's ``Key`` that :func:`validate_key`
        would accept exactly as it is (``plain_key``'s test: the schema's
        attributes, canonical S or N, non-empty, short); None for any other,
        which the full checks must see."""
        name = self.lone_string
        if name is not None:  # the everyday schema: ``plain_key``'s tests and
            # ``encode`` in one pass, without the loop (every UpdateItem and
            # GetItem of a known shape on such a table runs this)
            if type(key) is not dict or len(key) != 1:
                return None
            av = key.get(name)
            if type(av) is not dict or len(av) != 1:
                return None
            text = av.get("S")
            if type(text) is not str or not text or len(text) > 256:
                return None
            if "\x00" in text:
                return encode_key_value(av), b""
            return text.encode() + b"\x00\x00", b""
        if not plain_key(key, self.attributes):
            return None
        return self.encode(key)

    def encode_plain_item(self, item: Item) -> tuple[bytes, bytes] | None:
        """``encode(item)`` of a checked item whose key attributes are all
        everyday Strings (non-empty, at most 256 code points, no NUL), which
        every check of an item's key (``validate_item_key``) passes as they
        are; None for any other item, which those checks must see."""
        hk = b""
        for name, kind in self.attributes:
            value = item.get(name)
            text = None if kind != "S" or value is None else value.get("S")
            if type(text) is not str or not text or len(text) > 256 or "\x00" in text:
                return None
            if hk:
                return hk, text.encode() + b"\x00\x00"
            hk = text.encode() + b"\x00\x00"
        return hk, b""

    def key_of(self, item: Item) -> Item:
        return {name: item[name] for name, _ in self.attributes}


def _lone_string(attributes: list[tuple[str, str]]) -> str | None:
    """The hash key's name when it is a String and the only key attribute."""
    if len(attributes) == 1 and attributes[0][1] == "S":
        return attributes[0][0]
    return None


def _encode(value: Any) -> bytes:
    """``encode_key_value``, with a string without NUL bytes (the everyday
    key) encoded here: its UTF-8 bytes and the terminator."""
    text = value.get("S")
    if text is not None and "\x00" not in text:
        return text.encode() + b"\x00\x00"  # type: ignore[no-any-return]
    return encode_key_value(value)


class Table:
    """A catalog record plus what is derived from it, once: a record is
    never changed (a table's change is a new record, so a new ``Table``)."""

    __slots__ = ("captures_alone", "index_keys", "indexes", "items_alone", "keys", "pending",
                 "record")

    def __init__(self, record: TableRecord) -> None:
        self.record = record
        description = record.description
        #: Whether the table has a state with a deadline (``_lifecycle``).
        self.pending: bool = PENDING in description
        self.keys = KeySchema.of_table(description)
        #: Every index a write must maintain (empty for most tables).
        self.indexes: tuple[Index, ...] = build_indexes(record)
        #: The key schema of each index a Query or Scan names, by name.
        self.index_keys: dict[str, KeySchema] = {
            index.name: KeySchema(list(index.hash_key + index.range_key))
            for index in self.indexes if index.kind in (GLOBAL, LOCAL)}
        #: Whether an item write needs nothing but the item itself and, while
        #: the feed listens, its change (``_indexes.items_alone``: no index, no
        #: stream, no Kinesis destination, no point-in-time recovery, no
        #: replica, no contributor insights).
        self.items_alone: bool = items_alone(record, self.indexes)
        #: (stream, Kinesis outbox) when an item write needs nothing but the
        #: item and their capture (``_indexes.captures_alone``), else None.
        self.captures_alone: tuple[dict[str, str] | None, dict[str, str] | None] | None = (
            captures_alone(record, self.indexes))

    @property
    def name(self) -> str:
        return self.record.name

    def index(self, name: str) -> Index | None:
        """The secondary index (GSI or LSI) a Query or Scan names."""
        for index in self.indexes:
            if index.name == name and index.kind in (GLOBAL, LOCAL):
                return index
        return None


_cache: Final[dict[str, Table]] = {}


def get_table(txn: Transaction, name: Any) -> Table:
    """The table an item operation names, or DynamoDB's ResourceNotFoundException."""
    record = txn.table(name) if isinstance(name, str) else None
    if record is None:
        raise ResourceNotFoundException(REQUESTED_RESOURCE_NOT_FOUND)
    table = _cache.get(record.key)
    if table is None or table.record is not record:
        table = _cache[record.key] = Table(record)
    if table.pending and _unreachable(record.description):
        raise ResourceNotFoundException(REQUESTED_RESOURCE_NOT_FOUND)
    return table


def _unreachable(description: dict[str, Any]) -> bool:
    """CREATING or DELETING, or deleted: no item operation reaches the table
    (``_lifecycle``)."""
    return status_of(description) in (CREATING, DELETING) or gone(description)
