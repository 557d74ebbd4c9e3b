"""UpdateItem: the atomic counter's operation.

Read, evaluate, write in one step while holding the store's single writer, so
concurrent ``ADD n :one`` calls apply one after another in arrival order and
none is lost. A missing item is updated from its key alone.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from tallydb.engine.api._access import on_table
from tallydb.engine.api._conditions import check_condition
from tallydb.engine.api._indexes import check_index_keys, write_item
from tallydb.engine.api._params import HOT, UpdateRequest, decided_quickly, update_request
from tallydb.engine.api._stream_records import capture
from tallydb.engine.api._units import (
    REPORTING,
    WRITE_BLOCK,
    charged,
    item_write_units,
    wants_capacity,
    write_units,
)
from tallydb.engine.errors import ConditionalCheckFailedException
from tallydb.engine.expressions import BoundUpdate
from tallydb.engine.feed import record as record_change
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item
from tallydb.engine.values.size import MAX_ITEM_SIZE, check_item_fits, item_size

#: orjson's functions bound once: a C static read, not a lookup of the
#: module's attribute by name at each call (this module is compiled).
_loads: Final = orjson.loads
_dumps: Final = orjson.dumps

#: What a request touches (``_access``): writes the table its TableName names.
ACCESS: Final = on_table("UpdateItem", write=True)


#: The item the last update of ``updated``'s plain kind wrote: its JSON (the
#: bytes it stored) and the item. (Any thread's: a store's writer holds its
#: lock, and bytes written are one store's.)
_written: Final[list[tuple[bytes, Item] | None]] = [None]


def update_item(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    # every request-level check, in DynamoDB's order, then the update
    return updated(txn, request, update_request(txn, request))


def quick(txn: Transaction, request: dict[str, Any]) -> dict[str, Any] | None:
    """A request of a shape that passed every request-level check before,
    run without the pipeline's steps before it; None for any other
    (``api.run``). A request equal to the last one remembered (``HOT``: a
    hot counter's next ``ADD``), on the very table it was decided for, gets
    that decision again; one that differs from it only in its Key's values
    (a counter among many) has only its key checked and encoded
    (``_UpdateShape.other_key``); any other of a known shape has its values
    and key checked (``_params.decided_quickly``)."""
    hot = HOT[0]
    decided: UpdateRequest | None
    if hot is None:
        decided = decided_quickly(txn, request)
    elif hot.last_request == request:
        decided = (hot.last if txn.table(hot.table_name) is hot.table.record
                   else decided_quickly(txn, request))
    else:
        decided = hot.other_key(txn, request) or decided_quickly(txn, request)
    return None if decided is None else updated(txn, request, decided)


def updated(txn: Transaction, request: dict[str, Any], decided: UpdateRequest,
            must_exist: bool = False) -> dict[str, Any]:
    """The update ``decided`` from ``request`` (``update_request``) applied.
    ``must_exist``: only to an item that exists (PartiQL's UPDATE), a
    missing one failing as a condition fails."""
    update, table, hk, rk = decided.update, decided.table, decided.hk, decided.rk
    indexes = table.indexes
    # An update none of whose items reaches its caller (no ReturnValues, no
    # condition to return the item with): its item, if the bytes stored are
    # those the last such update wrote, is the one that update made, not a
    # parse of its JSON (equal bytes parse into an equal item; after a
    # commit the store holds a copy of them). (Nothing changes an item once
    # made: ``apply`` copies, the stream and the feed read.)
    plain = decided.plain
    if plain:
        blob = txn.get_item_blob(table.record, hk, rk)
        last = _written[0]
        old = (None if blob is None else last[1] if last is not None and last[0] == blob
               else _loads(blob))
    else:
        old = txn.get_item(table.record, hk, rk)
    if old is None and must_exist:
        raise ConditionalCheckFailedException()
    if decided.condition is not None:
        check_condition(request, decided.condition, old)

    if old is None and update is not None and update.only_removes:
        return _nothing_written(txn, request, decided.table.name, decided.key)
    base = old if old is not None else decided.key
    new = update.apply(base) if update is not None else base
    encoded = _dumps(new)
    if len(encoded) > MAX_ITEM_SIZE:  # (else it fits: ``check_item_fits``)
        check_item_fits(new, encoded, update=True)
    if indexes and update is not None:
        written = {str(path[0]) for path in update.updated_paths}
        check_index_keys(indexes, new, names=written, update=True)
    if table.items_alone:  # all ``write_item`` would do: the feed's change, and the item
        journal = txn.journal
        if journal is not None and _changed(update, old, new):
            record_change(journal, txn.segment, table.record, hk, rk, old, new)
        txn.put_encoded(table.record, hk, rk, encoded)
        index_units = None
    elif (captures := table.captures_alone) is not None and txn.journal is None:
        if _changed(update, old, new):  # all ``write_item`` would do: the capture, and the item
            capture(txn, table.record, captures[0], captures[1], old, new, False, encoded)
        txn.put_encoded(table.record, hk, rk, encoded)
        index_units = None
    else:
        index_units = write_item(txn, table.record, indexes, hk, rk, old, new, encoded)
    if plain:
        _written[0] = (encoded, new)

    response: dict[str, Any] = {}
    if decided.return_values != "NONE":
        attributes = _returned(decided.return_values, update, old, new)
        if attributes:
            response["Attributes"] = attributes
    if REPORTING[0]:
        report = txn.context.units
        if (report is not None and index_units is None and len(encoded) <= WRITE_BLOCK
                and (old is None or (plain and blob is not None and len(blob) <= WRITE_BLOCK))
                and "ReturnConsumedCapacity" not in request):
            # one unit (both images' JSON fits a block: see ``item_write_units``),
            # not asked for: what ``charged`` does, without a call
            report.last = table.record.name
            return response
    elif "ReturnConsumedCapacity" not in request or not wants_capacity(request):
        return response
    units = max(item_write_units(new, encoded),  # (old's stored JSON, when read)
                item_write_units(old, blob if plain else None))
    entry = charged(txn, request, table.name, units, index_units)
    if entry is not None:
        response["ConsumedCapacity"] = entry
    return response


def _changed(update: BoundUpdate | None, old: Item | None, new: Item) -> bool:
    """Whether the item changed (a change record is made only then)."""
    if old is None or update is None:
        return old != new
    return update.changed(old, new)


def _nothing_written(txn: Transaction, request: dict[str, Any], table: str, key: Item
                     ) -> dict[str, Any]:
    """DynamoDB's answer to an update that only removes from a missing item:
    no item is created and no Attributes are returned, whatever ReturnValues."""
    response: dict[str, Any] = {}
    entry = charged(txn, request, table, write_units(item_size(key)), None)
    if entry is not None:
        response["ConsumedCapacity"] = entry
    return response


def _returned(mode: str, update: BoundUpdate | None, old: Item | None, new: Item
              ) -> Item | None:
    """The ``Attributes`` a ReturnValues mode gives back."""
    if mode == "ALL_NEW":
        return new
    if mode == "ALL_OLD":
        return old
    if update is None:
        return None
    if mode == "UPDATED_NEW":
        return update.updated_view(new)
    return update.updated_view(old) if old is not None else None
