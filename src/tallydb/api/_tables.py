"""A table's catalog record as the item operations need it: its key schema."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from tallydb.errors import ResourceNotFoundException
from tallydb.storage import TableRecord, Transaction
from tallydb.values import Item
from tallydb.values.attribute_value import validate_item_key, validate_key
from tallydb.values.key import encode_key_value

REQUESTED_RESOURCE_NOT_FOUND = "Requested resource not found"


class KeySchema:
    """The HASH and optional RANGE attribute of a table, with their types."""

    __slots__ = ("attributes", "hash_name", "names", "range_name")

    def __init__(self, description: dict[str, Any]) -> None:
        types = {d["AttributeName"]: d["AttributeType"]
                 for d in description["AttributeDefinitions"]}
        by_role = {k["KeyType"]: k["AttributeName"] for k in description["KeySchema"]}
        self.hash_name: str = by_role["HASH"]
        self.range_name: str | None = by_role.get("RANGE")
        self.attributes: list[tuple[str, str]] = [(self.hash_name, types[self.hash_name])]
        if self.range_name is not None:
            self.attributes.append((self.range_name, types[self.range_name]))
        self.names = frozenset(name for name, _ in self.attributes)

    def validate_key(self, key: Any) -> Item:
        """A request's ``Key``, checked against the schema (DynamoDB's messages)."""
        return validate_key(key, self.attributes)

    def check_item_key(self, item: Item) -> None:
        """An item about to be written carries the whole key (PutItem's checks)."""
        validate_item_key(item, self.attributes)

    def encode(self, key: Item) -> tuple[bytes, bytes]:
        """(hash bytes, range bytes) of a validated key or of a whole item."""
        hk = encode_key_value(key[self.hash_name])
        rk = b"" if self.range_name is None else encode_key_value(key[self.range_name])
        return hk, rk

    def key_of(self, item: Item) -> Item:
        return {name: item[name] for name, _ in self.attributes}


class Table:
    """A catalog record plus what is derived from it once."""

    __slots__ = ("__dict__", "record")

    def __init__(self, record: TableRecord) -> None:
        self.record = record

    @property
    def name(self) -> str:
        return self.record.name

    @cached_property
    def keys(self) -> KeySchema:
        return KeySchema(self.record.description)


_cache: dict[str, Table] = {}


def get_table(txn: Transaction, name: Any) -> Table:
    """The table an item operation names, or DynamoDB's ResourceNotFoundException."""
    record = txn.table(name) if isinstance(name, str) else None
    if record is None:
        raise ResourceNotFoundException(REQUESTED_RESOURCE_NOT_FOUND)
    table = _cache.get(record.name)
    if table is None or table.record is not record:
        table = _cache[record.name] = Table(record)
    return table
