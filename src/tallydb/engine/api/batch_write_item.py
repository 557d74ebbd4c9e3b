"""BatchWriteItem: up to 25 PutRequest/DeleteRequest over one or more tables.

Every request is checked before anything is written (DynamoDB's order: the
number of entries over all tables, then the values of every item, then the
tables, then each key, then duplicates), and then all of them are written
in the caller's transaction, so the whole batch lands or none of it does and
``UnprocessedItems`` is always empty. A batch takes no conditions and no
updates: a WriteRequest must hold exactly one of PutRequest or
DeleteRequest, and one carrying anything else (an ``UpdateRequest``, say:
DynamoDB ignores the unknown member) is refused.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from tallydb.engine.api._access import Touch, named
from tallydb.engine.api._batches import (
    BATCH_WRITE_REQUIRED,
    DUPLICATE_KEYS,
    check_put_key,
    check_write_total,
)
from tallydb.engine.api._global import GLOBAL, check_claim
from tallydb.engine.api._indexes import check_index_keys, write_item, writes_only_items
from tallydb.engine.api._tables import Table, get_table
from tallydb.engine.api._units import Tally, wants_capacity, write_units
from tallydb.engine.errors import ValidationException
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item, check_item_fits, item_size, messages, validate_item


def _parsed(request: Any) -> tuple[str, Item, bytes | None]:
    """("put", item, its JSON) or ("delete", key, None) of one WriteRequest,
    values checked. The item's JSON, made here to be stored, also stands in
    for counting its size (``check_item_fits``)."""
    put, delete = request.get("PutRequest"), request.get("DeleteRequest")
    if (put is None) == (delete is None):
        # DynamoDB's words for a union with no member (or two) set (dynalite).
        raise ValidationException(messages.MULTIPLE_DATATYPES)
    if put is not None:
        item = validate_item(put.get("Item") or {}, wording="older")
        encoded = orjson.dumps(item)
        check_item_fits(item, encoded)
        return "put", item, encoded
    return "delete", validate_item(delete.get("Key") or {}, wording="older"), None


def access(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
    """What a request touches (``_access``): writes each table its RequestItems names."""
    return tuple(Touch("BatchWriteItem", named(name) or "*", write=True)
                 for name in request.get("RequestItems") or {})


ACCESS: Final = access


Checked = dict[str, list[tuple[str, Item, bytes | None]]]


def validate(request: dict[str, Any]) -> Checked:
    """The number of entries over all tables, then every entry's values."""
    request_items = request.get("RequestItems")
    if not request_items:
        raise ValidationException(BATCH_WRITE_REQUIRED)
    check_write_total(request_items)
    return {name: [_parsed(r) for r in requests] for name, requests in request_items.items()}


def batch_write_item(txn: Transaction, request: dict[str, Any], parsed: Checked
                     ) -> dict[str, Any]:
    tables = {name: get_table(txn, name) for name in parsed}

    writes: list[tuple[Table, Item | None, bytes | None, bytes, bytes]] = []
    for name, requests in parsed.items():
        table = tables[name]
        keys, indexes = table.keys, table.indexes
        seen: set[tuple[bytes, bytes]] = set()
        for kind, body, encoded in requests:
            if kind == "put":
                row = keys.encode_plain_item(body)  # (a key every check passes)
                if row is None:
                    check_put_key(body, keys)
                    row = keys.encode(body)  # the item's own key attributes
                if indexes:
                    check_index_keys(indexes, body)
            else:
                row = keys.encode(keys.check_key(body))
            if row in seen:
                raise ValidationException(DUPLICATE_KEYS)
            seen.add(row)
            writes.append((table, body if encoded is not None else None, encoded, *row))

    # Nothing is written before every item may be (a batch runs this without
    # a savepoint: ``WRITE_LAST``): the items another region of a STRONG
    # global table holds are refused first.
    if any(GLOBAL in table.record.description for table in tables.values()):
        for table, _, _, hk, rk in writes:
            if GLOBAL in table.record.description:
                check_claim(txn, table.record, hk, rk)

    tally = Tally()
    charge = wants_capacity(request)
    direct = set() if charge else {
        name for name, table in tables.items()
        if writes_only_items(txn, table.record, table.indexes)}
    for table, new, encoded, hk, rk in writes:
        if direct and table.name in direct:  # (what write_item would do, no more)
            if encoded is None:
                txn.delete_item(table.record, hk, rk)
            else:
                txn.put_encoded(table.record, hk, rk, encoded)
            continue
        # the units, and each write's upkeep (an index, a stream's record,
        # the feed, history...), go by what the item was
        old = txn.get_item(table.record, hk, rk)
        index_units = write_item(txn, table.record, table.indexes, hk, rk, old, new, encoded)
        if charge:
            size = max(item_size(old) if old else 0, item_size(new) if new else 0)
            tally.add(table.name, write_units(size), index_units)

    response: dict[str, Any] = {"UnprocessedItems": {}}
    if charge:
        response["ConsumedCapacity"] = tally.entries(request.get("ReturnConsumedCapacity"))
    return response
