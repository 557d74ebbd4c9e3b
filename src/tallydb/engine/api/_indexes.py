"""Secondary indexes (and TTL's own index), kept in step with their table.

Every write path (PutItem, UpdateItem, DeleteItem, BatchWriteItem,
TransactWriteItems, the TTL sweeper) stores an item through
:func:`write_item`, which writes the table row and, in the same SQLite
transaction, each index's entry. A table without indexes pays one attribute
test for them.

An index is an items table of its own (``Transaction.create_index``). Its
rows are keyed by the prefix-free, order-preserving key encoding:

* ``hk``: the index's HASH value (the encodings of every HASH attribute, for
  a GSI with a multi-attribute key);
* ``rk``: the index's RANGE value(s), then the table's HASH and RANGE
  values. Because no encoding is a prefix of another, the concatenation sorts
  as the tuple does: by index range key, ties by table key, and a key
  condition on the index range key is a byte range with a prefix successor
  as its upper bound (``_key_conditions``).

An item without every index key attribute (or, as DynamoDB's backfill
skips them, with one of the wrong type or empty) has no entry: indexes are
sparse. The entry holds what the projection keeps: the whole item (ALL), or
the table's and index's keys plus NonKeyAttributes (INCLUDE), or the keys
alone (KEYS_ONLY).

Write capacity for an index follows DynamoDB's rules: putting a new entry is
one write of the entry's size, removing one is one write, moving an entry
(the index key changed) is both, and an update that leaves the entry as it
was costs the index nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tallydb.engine.api import _history as history
from tallydb.engine.api._global import GLOBAL as GLOBAL_TABLE
from tallydb.engine.api._global import VERSIONS_SOURCE, local_write
from tallydb.engine.api._history import PITR
from tallydb.engine.api._insights import INSIGHTS
from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._kinesis import CAPTURE as KINESIS_CAPTURE
from tallydb.engine.api._stream_records import capture
from tallydb.engine.api._streams import CAPTURE
from tallydb.engine.errors import ValidationException
from tallydb.engine.feed import record as record_change
from tallydb.engine.storage import TableRecord, Transaction
from tallydb.engine.values import Item, encode_key_value, item_size, messages
from tallydb.engine.values.attribute_value import (
    MAX_HASH_KEY_BYTES,
    MAX_RANGE_KEY_BYTES,
    key_bytes,
)

GLOBAL, LOCAL, TTL = "GSI", "LSI", "TTL"
#: The storage name of the index TTL keeps on its attribute (index names
#: are ``[a-zA-Z0-9_.-]+``, so no user index can take it).
TTL_INDEX = "$ttl"

TYPE_MISMATCH = (
    "One or more parameter values were invalid: Type mismatch for Index Key {name} "
    "Expected: {expected} Actual: {actual} IndexName: {index}"
)
EMPTY_KEY = (
    "One or more parameter values are not valid. A value specified for a secondary index key "
    "is not supported. The AttributeValue for a key attribute cannot contain an empty {kind} "
    "value. IndexName: {index}, IndexKey: {name}"
)
EMPTY_KEY_UPDATE = (
    "One or more parameter values are not valid. The update expression attempted to update a "
    "secondary index key to a value that is not supported. The AttributeValue for a key "
    "attribute cannot contain an empty {kind} value."
)
NESTED_INDEX_KEY = (
    "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
    "allowed: IndexKey: {}"
)

KeyAttributes = tuple[tuple[str, str], ...]
#: Write (or read) units per index, by (kind, name): what ConsumedCapacity reports.
IndexUnits = dict[tuple[str, str], float]


@dataclass(frozen=True, eq=False)
class Index:
    """One index of a table: its keys, its projection, and how an item
    looks in it."""

    name: str
    kind: str  # GLOBAL, LOCAL or TTL
    hash_key: KeyAttributes
    range_key: KeyAttributes
    table_key: KeyAttributes
    projected: frozenset[str] | None  # None: the whole item (ALL)

    @property
    def key_names(self) -> tuple[str, ...]:
        """The index's own key attributes, HASH first."""
        return tuple(name for name, _ in self.hash_key + self.range_key)

    @property
    def multi_attribute(self) -> bool:
        """A key of several partition-key or sort-key attributes."""
        return len(self.hash_key) > 1 or len(self.range_key) > 1

    @property
    def start_names(self) -> tuple[str, ...]:
        """What a LastEvaluatedKey of this index holds: the table's key and the
        index's (each attribute once)."""
        names = [name for name, _ in self.table_key]
        names += [name for name in self.key_names if name not in names]
        return tuple(names)

    def encode(self, item: Item) -> tuple[bytes, bytes] | None:
        """(hk, rk) of ``item``'s entry, or None when it has none (sparse)."""
        parts: list[bytes] = []
        for name, kind in self.hash_key:
            value = item.get(name)
            if value is None or kind not in value or not value[kind]:
                return None
            parts.append(encode_key_value(value))
        hk = b"".join(parts)
        parts = []
        for name, kind in self.range_key:
            value = item.get(name)
            if value is None or kind not in value or not value[kind]:
                return None
            parts.append(encode_key_value(value))
        for name, _ in self.table_key:
            parts.append(encode_key_value(item[name]))
        return hk, b"".join(parts)

    def key_fits(self, item: Item) -> bool:
        """Whether ``item``'s index key values are within the key size limits."""
        return all(key_bytes(item[name]) <= limit
                   for keys, limit in ((self.hash_key, MAX_HASH_KEY_BYTES),
                                       (self.range_key, MAX_RANGE_KEY_BYTES))
                   for name, _ in keys if name in item)

    def project(self, item: Item) -> Item:
        """What the entry of ``item`` holds."""
        keep = self.projected
        if keep is None:
            return item
        return {name: value for name, value in item.items() if name in keep}

    def entry(self, item: Item) -> tuple[bytes, bytes, Item] | None:
        encoded = self.encode(item)
        if encoded is None:
            return None
        return encoded[0], encoded[1], self.project(item)

    def start_of(self, item: Item) -> Item:
        """An entry's key as LastEvaluatedKey gives it."""
        return {name: item[name] for name in self.start_names}


def _key_of(schema: Iterable[dict[str, Any]], types: Mapping[str, str]
            ) -> tuple[KeyAttributes, KeyAttributes]:
    schema = list(schema)
    hash_key = tuple((e["AttributeName"], types[e["AttributeName"]])
                     for e in schema if e["KeyType"] == "HASH")
    range_key = tuple((e["AttributeName"], types[e["AttributeName"]])
                      for e in schema if e["KeyType"] == "RANGE")
    return hash_key, range_key


def _projected(declared: dict[str, Any], keys: Iterable[str]) -> frozenset[str] | None:
    kind = declared.get("ProjectionType")
    if kind == "ALL":
        return None
    names = set(keys)
    if kind == "INCLUDE":
        names.update(declared.get("NonKeyAttributes") or ())
    return frozenset(names)


def build_indexes(record: TableRecord) -> tuple[Index, ...]:
    """The indexes a table's description declares (and TTL's, when enabled),
    restricted to those storage holds an index table for."""
    description = record.description
    types = {d["AttributeName"]: d["AttributeType"] for d in description["AttributeDefinitions"]}
    table_hash, table_range = _key_of(description["KeySchema"], types)
    table_key = table_hash + table_range
    table_names = [name for name, _ in table_key]
    indexes: list[Index] = []
    for member, kind in (("GlobalSecondaryIndexes", GLOBAL), ("LocalSecondaryIndexes", LOCAL)):
        for declared in description.get(member, ()):
            name = declared["IndexName"]
            if name not in record.indexes:
                continue
            hash_key, range_key = _key_of(declared["KeySchema"], types)
            keys = table_names + [n for n, _ in hash_key + range_key]
            indexes.append(Index(name, kind, hash_key, range_key, table_key,
                                 _projected(declared["Projection"], keys)))
    ttl = description.get("_TimeToLive")
    if ttl is not None and TTL_INDEX in record.indexes:
        attribute = ttl["AttributeName"]
        indexes.append(Index(TTL_INDEX, TTL, (), ((attribute, "N"),), table_key,
                             frozenset([*table_names, attribute])))
    return tuple(indexes)


# --- checks before a write -------------------------------------------------------


def _checked(indexes: Iterable[Index]) -> list[Index]:
    """The indexes whose key types a write must respect, in the order DynamoDB
    reports them: by name (real AWS names the alphabetically first index when
    one attribute keys several)."""
    return sorted((i for i in indexes if i.kind != TTL), key=lambda i: i.name)


def check_index_keys(
    indexes: Iterable[Index], item: Item, *, names: Iterable[str] | None = None,
    update: bool = False,
) -> None:
    """Refuse an item whose index key attributes have the wrong type or are
    empty, with DynamoDB's messages (types first); ``names`` limits the check
    to the attributes an update wrote, ``update`` picks the UpdateExpression
    wording for an empty value."""
    check_index_types(indexes, item, names=names)
    check_index_values(indexes, item, names=names, update=update)


def _index_keys(indexes: Iterable[Index], item: Item, names: Iterable[str] | None
                ) -> Iterable[tuple[Index, str, str, Any]]:
    """(index, attribute, declared type, the item's value) for each index key
    attribute the item has, indexes by name."""
    only = None if names is None else frozenset(names)
    for index in _checked(indexes):
        for name, kind in index.hash_key + index.range_key:
            value = item.get(name)
            if value is not None and (only is None or name in only):
                yield index, name, kind, value


def check_index_types(indexes: Iterable[Index], item: Item, *,
                      names: Iterable[str] | None = None) -> None:
    """"Type mismatch for Index Key ..." (a transaction's cancellation reason)."""
    for index, name, kind, value in _index_keys(indexes, item, names):
        if kind not in value:
            raise ValidationException(TYPE_MISMATCH.format(
                name=name, expected=kind, actual=next(iter(value)), index=index.name))


def check_index_values(indexes: Iterable[Index], item: Item, *,
                       names: Iterable[str] | None = None, update: bool = False) -> None:
    """An empty S or B index key value, or one longer than a key may be
    (refused before a transaction runs)."""
    for index, name, kind, value in _index_keys(indexes, item, names):
        if kind in value and not value[kind]:
            empty = "string" if kind == "S" else "binary"
            if update:
                raise ValidationException(EMPTY_KEY_UPDATE.format(kind=empty))
            raise ValidationException(EMPTY_KEY.format(kind=empty, index=index.name, name=name))
        if kind in value and kind != "N":
            is_hash = any(name == hash_name for hash_name, _ in index.hash_key)
            if key_bytes(value) > (MAX_HASH_KEY_BYTES if is_hash else MAX_RANGE_KEY_BYTES):
                raise ValidationException(
                    messages.HASH_KEY_TOO_LONG if is_hash else messages.RANGE_KEY_TOO_LONG)


def check_update_paths(indexes: Iterable[Index], nested_heads: frozenset[str],
                       assigned_type: Any) -> None:
    """What an UpdateExpression can be refused for before the item is read:
    reaching into an index key attribute (``x.y``, ``x[0]``), or giving one a
    value whose type is already known to be wrong."""
    checked = _checked(indexes)
    for index in checked:
        for name, _ in index.hash_key + index.range_key:
            if name in nested_heads:
                raise ValidationException(NESTED_INDEX_KEY.format(name))
    for index in checked:
        for name, kind in index.hash_key + index.range_key:
            actual = assigned_type(name)
            if actual is not None and actual != kind:
                raise ValidationException(TYPE_MISMATCH.format(
                    name=name, expected=kind, actual=actual, index=index.name))


# --- the write ----------------------------------------------------------------------


def _write_units(nbytes: int) -> float:
    return float(max(1, -(-nbytes // 1024)))


#: The members of a table's description that give a write upkeep beyond
#: the item and its indexes: ``write_item`` looks at none of them unless
#: one is on (or the feed listens), so the set is the one list of them.
_WRITE_EXTRAS = frozenset((GLOBAL_TABLE, CAPTURE, PITR, KINESIS_CAPTURE, INSIGHTS))


def writes_only_items(txn: Transaction, record: TableRecord, indexes: tuple[Index, ...]) -> bool:
    """Whether ``write_item`` on ``record`` would only put or delete the item
    itself, for now (no index, no feed listening, none of ``_WRITE_EXTRAS``
    on): a caller writing many items may then store each directly."""
    return txn.journal is None and items_alone(record, indexes)


def items_alone(record: TableRecord, indexes: tuple[Index, ...]) -> bool:
    """``writes_only_items`` but for the feed, which only the transaction
    knows: what holds for as long as ``record`` is the table's (records are
    never changed in place), so that a caller may keep it with the record."""
    return not indexes and _WRITE_EXTRAS.isdisjoint(record.description)


def captures_alone(record: TableRecord, indexes: tuple[Index, ...]
                   ) -> tuple[dict[str, str] | None, dict[str, str] | None] | None:
    """(stream, Kinesis outbox) of a table whose only write extras are its
    stream's and Kinesis destinations' capture (either may be None, not
    both); None for any other table. Holds for as long as ``record`` is the
    table's, as ``items_alone`` does."""
    description = record.description
    if indexes or GLOBAL_TABLE in description or PITR in description or INSIGHTS in description:
        return None
    stream = description.get(CAPTURE)
    kinesis = description.get(KINESIS_CAPTURE)
    return None if stream is None and kinesis is None else (stream, kinesis)


def write_item(
    txn: Transaction,
    record: TableRecord,
    indexes: tuple[Index, ...],
    hk: bytes,
    rk: bytes,
    old: Item | None,
    new: Item | None,
    encoded: bytes | None = None,
    *,
    by_service: bool = False,
    origin: bytes | None = None,
) -> IndexUnits | None:
    """Store ``new`` (or delete the item when it is None) under (hk, rk),
    and bring every index from ``old``'s entry to ``new``'s. Returns the
    write units each secondary index consumed (None for a table without
    indexes). ``encoded``: ``new``'s JSON, when the caller has it already.

    While the change feed has listeners (``tallydb.engine.feed``), records the
    change on the transaction: one entry per item write, none for a write
    that leaves the item as it was. While the table's stream is enabled,
    writes the change's stream record in the same transaction
    (``_streams``), and likewise for a Kinesis destination (``_kinesis``);
    ``by_service``: the write is DynamoDB's own (TTL). While point-in-time
    recovery is on, keeps what the item was (``_history``). On a replica of
    a global table (``_global``), a write sent to it is versioned and joins
    its outbox, or on a strongly consistent one is written to every replica
    at once (or refused, in conflict); ``origin``: the version a replicated
    write carries (empty for a strongly consistent group's copy)."""
    journal = txn.journal
    capturing = _capturing.get(id(record))
    if capturing is not None and capturing[0] is record and journal is None:
        if old != new:  # only a stream or a Kinesis outbox: the capture alone
            capture(txn, record, capturing[1], capturing[2], old, new, by_service, encoded)
    # (the keys' view looks up the five names; the set would look up every key)
    elif journal is not None or not record.description.keys().isdisjoint(_WRITE_EXTRAS):
        _upkeep(txn, record, journal, hk, rk, old, new, encoded, by_service, origin)
    if new is None:
        txn.delete_item(record, hk, rk)
    elif encoded is not None:
        txn.put_encoded(record, hk, rk, encoded)
    else:
        txn.put_item(record, hk, rk, new)
    if not indexes:
        return None
    units: IndexUnits = {}
    for index in indexes:
        before = None if old is None else index.entry(old)
        after = None if new is None else index.entry(new)
        if before is None and after is None:
            continue
        spent = 0.0
        if before is not None and after is not None and before[:2] == after[:2]:
            if before[2] == after[2]:
                continue  # the entry is as it was: nothing to write
        elif before is not None:
            txn.delete_entry(record, index.name, before[0], before[1])
            spent += _write_units(item_size(before[2]))
        if after is not None:
            txn.put_entry(record, index.name, after[0], after[1], after[2])
            spent += _write_units(item_size(after[2]))
        if index.kind != TTL:
            units[(index.kind, index.name)] = spent
    return units


#: The tables (by the id of their catalog record, which is kept to tell it
#: is the same) whose only write extras are their stream's and Kinesis
#: destinations' capture: (record, stream, Kinesis outbox), either may be
#: None but not both. ``write_item`` looks here first and calls the capture
#: for them without looking at the description or calling ``_upkeep``.
_capturing: dict[int, tuple[TableRecord, dict[str, str] | None, dict[str, str] | None]] = {}


def _upkeep(txn: Transaction, record: TableRecord, journal: list[Any] | None, hk: bytes,
            rk: bytes, old: Item | None, new: Item | None, encoded: bytes | None,
            by_service: bool, origin: bytes | None) -> None:
    """``write_item``'s work beyond the item and its indexes, from the members
    of ``_WRITE_EXTRAS`` on the table and the feed's journal."""
    description = record.description
    group = description.get(GLOBAL_TABLE)
    if group is not None:
        if origin is None:
            if old != new:
                for peer in local_write(txn, record, group, hk, rk, old, new):
                    write_item(txn, peer, indexes_of(peer), hk, rk, txn.get_item(peer, hk, rk),
                               new, encoded, by_service=by_service, origin=b"")
        elif origin:
            txn.put_entry_encoded(record, VERSIONS_SOURCE, hk, rk, origin)
    stream = description.get(CAPTURE)
    pitr = description.get(PITR)
    kinesis = description.get(KINESIS_CAPTURE)
    insights = description.get(INSIGHTS)
    if group is None and pitr is None and insights is None and (
            stream is not None or kinesis is not None):  # the capture alone, from now on
        if len(_capturing) > 1024:
            _capturing.clear()
        _capturing[id(record)] = (record, stream, kinesis)
    if (journal is not None or stream is not None or pitr is not None or kinesis is not None
            ) and old != new:
        if journal is not None:
            record_change(journal, txn.segment, record, hk, rk, old, new)
        if stream is not None or kinesis is not None:  # and Kinesis destinations' outbox
            capture(txn, record, stream, kinesis, old, new, by_service, encoded)
        if pitr is not None:
            history.record(txn, record, pitr, hk, rk, old)
    if insights is not None:  # contributor insights count the item (``_insights``)
        integrations(txn).extras["insights"].accessed(
            record, insights, hk, rk, new if new is not None else old)


_indexes_of: dict[int, tuple[TableRecord, tuple[Index, ...]]] = {}


def indexes_of(record: TableRecord) -> tuple[Index, ...]:
    """``build_indexes(record)``, kept while the record is current."""
    found = _indexes_of.get(id(record))
    if found is None or found[0] is not record:
        if len(_indexes_of) > 1024:
            _indexes_of.clear()
        found = _indexes_of[id(record)] = (record, build_indexes(record))
    return found[1]


def backfill(txn: Transaction, record: TableRecord, index: Index) -> None:
    """Fill a new index from the table's items (UpdateTable's GSI Create,
    UpdateTimeToLive): items without a fitting key (missing, of another
    type, or longer than a key may be) are skipped, as DynamoDB's backfill
    skips them."""
    for _, _, item in txn.items(record):
        entry = index.entry(item)
        if entry is not None and index.key_fits(item):
            txn.put_entry(record, index.name, *entry)
