"""Scan: every item of a table, a page at a time; or one segment of a
parallel scan.

Items come in key order (partition key bytes, then sort key). A parallel scan
(Segment/TotalSegments) keeps the partitions whose key hashes into its segment
(``_segments``): the segments of one TotalSegments cover every item exactly
once. Limit, the 1 MB page, FilterExpression/ScanFilter, Select and
projection, LastEvaluatedKey and ConsumedCapacity work as in Query.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tallydb.api._pages import page_response, read_page
from tallydb.api._read_exprs import check_key_paths, read_expressions
from tallydb.api._segments import WRONG_SEGMENT, checked_segment, segment_of
from tallydb.api._select import plan_output
from tallydb.api._tables import get_table
from tallydb.api._units import consumed, read_units, wants_capacity
from tallydb.errors import ValidationException
from tallydb.storage import Transaction
from tallydb.values import Item

NO_INDEX = "The table does not have the specified index: {}"
START_INVALID = "The provided starting key is invalid: {}"
START_SCHEMA = "The provided key element does not match the schema"


def _in_segment(
    rows: Iterator[tuple[bytes, bytes, Item]], segment: int, total: int
) -> Iterator[Item]:
    current: bytes | None = None
    inside = False
    for hk, _, item in rows:
        if hk != current:
            current, inside = hk, segment_of(hk, total) == segment
        if inside:
            yield item


def scan(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    exprs = read_expressions(request, operation="Scan")
    start = exprs.start
    segments = checked_segment(request.get("Segment"), request.get("TotalSegments"))
    output = plan_output(
        request, exprs.project, envelope=False, index=request.get("IndexName") is not None)
    table = get_table(txn, request.get("TableName"))
    if request.get("IndexName") is not None:
        raise ValidationException(NO_INDEX.format(request["IndexName"]))
    keys = table.keys

    after: tuple[bytes, bytes] | None = None
    if start is not None:
        if len(start) != len(keys.attributes):
            raise ValidationException(START_INVALID.format(START_SCHEMA))
        try:
            after = keys.encode(keys.validate_key(start))
        except ValidationException as e:
            raise ValidationException(START_INVALID.format(e.message)) from None
        if segments is not None and segment_of(after[0], segments[1]) != segments[0]:
            raise ValidationException(WRONG_SEGMENT.format(segments[1], segments[0]))

    key_names = tuple(name for name, _ in keys.attributes)
    check_key_paths(exprs.projected_nested, key_names)
    check_key_paths(exprs.filtered_nested, key_names)

    rows = txn.items(table.record, after=after)
    items = (
        (item for _, _, item in rows) if segments is None
        else _in_segment(rows, *segments)
    )
    page = read_page(
        items,
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
