"""Query: one partition's items in sort-key order, a page at a time.

The key condition (KeyConditionExpression, or the legacy KeyConditions) picks
the partition and a sort-key range, which storage reads in key order (Numbers
by value, Strings and Binaries by their bytes: the key encoding's order), in
either direction (ScanIndexForward). The page stops at Limit items read or
1 MB read; FilterExpression/QueryFilter then drops items (ScannedCount counts
them, Count does not); Select and ProjectionExpression/AttributesToGet shape
what is returned. ConsumedCapacity charges the bytes read, rounded up to 4 KB
once for the whole page, half for an eventually consistent read.
"""

from __future__ import annotations

from typing import Any

from tallydb.api._key_conditions import plan
from tallydb.api._pages import page_response, read_page
from tallydb.api._read_exprs import check_filter_keys, check_key_paths, read_expressions
from tallydb.api._select import plan_output
from tallydb.api._tables import get_table
from tallydb.api._units import consumed, read_units, wants_capacity
from tallydb.errors import ValidationException
from tallydb.storage import Transaction
from tallydb.values import encode_key_value

NO_INDEX = "The table does not have the specified index: {}"


def query(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    exprs = read_expressions(request, operation="Query")
    start = exprs.start
    output = plan_output(
        request, exprs.project, envelope=True, index=request.get("IndexName") is not None)
    table = get_table(txn, request.get("TableName"))
    if request.get("IndexName") is not None:
        raise ValidationException(NO_INDEX.format(request["IndexName"]))
    keys = table.keys
    assert exprs.key_terms is not None
    key_plan = plan(exprs.key_terms, keys, start, expression=exprs.key_expression)
    key_names = tuple(name for name, _ in keys.attributes)
    check_key_paths(exprs.projected_nested, key_names)
    check_filter_keys(exprs, key_names)

    low, high, excluded = key_plan.bounds()
    rows = txn.items(
        table.record,
        encode_key_value(key_plan.hash_value),
        after=None if start is None else keys.encode(start),
        low=low,
        high=high,
        forward=request.get("ScanIndexForward", True) is not False,
    )
    page = read_page(
        (item for _, rk, item in rows if rk != excluded),
        limit=request.get("Limit"),
        keep=exprs.keep,
        project=output.project,
        key_of=keys.key_of,
        count_only=output.count_only,
    )
    response = page_response(page, count_only=output.count_only)
    if wants_capacity(request):
        units = read_units(page.read_bytes, consistent=request.get("ConsistentRead") is True)
        response["ConsumedCapacity"] = consumed(
            table.name, units, request.get("ReturnConsumedCapacity"))
    return response
