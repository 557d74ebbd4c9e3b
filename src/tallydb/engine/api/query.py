"""Query: one partition's items in sort-key order, a page at a time.

The key condition (KeyConditionExpression, or the legacy KeyConditions) picks
the partition and a sort-key range, which storage reads in key order (Numbers
by value, Strings and Binaries by their bytes: the key encoding's order), in
either direction (ScanIndexForward). The page stops at Limit items read or
1 MB read; FilterExpression/QueryFilter then drops items (ScannedCount counts
them, Count does not); Select and ProjectionExpression/AttributesToGet shape
what is returned. ConsumedCapacity charges the bytes read, rounded up to 4 KB
once for the whole page, half for an eventually consistent read.

With IndexName the partition and range are the index's (``_sources``):
entries come in index sort-key order, ties in table-key order.
"""

from __future__ import annotations

from typing import Any, Final

from tallydb.engine.api._access import on_table
from tallydb.engine.api._key_conditions import KeyPlan, plan
from tallydb.engine.api._multi_keys import MultiKeyPlan, plan_multi
from tallydb.engine.api._pages import row_item
from tallydb.engine.api._read_exprs import (
    ReadExpressions,
    check_filter_keys,
    check_key_paths,
    read_expressions,
)
from tallydb.engine.api._select import Output, plan_output
from tallydb.engine.api._sources import answer_page, check_index_key_paths, source_of
from tallydb.engine.api._tables import get_table
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the table its TableName names,
#: or the index its IndexName names.
ACCESS: Final = on_table("Query", write=False, index=True)


def validate(request: dict[str, Any]) -> tuple[ReadExpressions, Output]:
    """The expressions and legacy parameters, the start key's values, and
    what is returned (``_read_exprs``' order)."""
    exprs = read_expressions(request, operation="Query")
    output = plan_output(
        request, exprs.project, envelope=True, index=request.get("IndexName") is not None)
    return exprs, output


def query(txn: Transaction, request: dict[str, Any],
          checked: tuple[ReadExpressions, Output]) -> dict[str, Any]:
    exprs, output = checked
    start = exprs.start
    table = get_table(txn, request.get("TableName"))
    source = source_of(table, request)
    assert exprs.key_terms is not None
    key_plan: KeyPlan | MultiKeyPlan
    if source.index is not None and source.index.multi_attribute:
        key_plan = plan_multi(exprs.key_terms, source.index, start)
        key_names = source.index.key_names
    else:
        keys = source.query_keys()
        key_plan = plan(exprs.key_terms, keys, start, expression=exprs.key_expression,
                        table_keys=table.keys)
        key_names = tuple(name for name, _ in keys.attributes)
    table_key_names = tuple(name for name, _ in table.keys.attributes)
    check_key_paths(exprs.projected_nested, table_key_names)
    check_index_key_paths(exprs.projected_nested, table)
    check_filter_keys(exprs, key_names)
    source.check_filter_projected(exprs)
    source.check_select(request, exprs)

    low, below = key_plan.bounds()
    rows = txn.items(
        table.record,
        key_plan.hash_bytes(),
        index=source.storage_index,
        after=None if start is None else source.encode_start(start),
        low=low,
        below=below,
        forward=request.get("ScanIndexForward", True) is not False,
    )
    items = map(row_item, rows)
    return answer_page(txn, request, source, exprs, output, items)
