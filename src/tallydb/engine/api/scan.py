"""Scan: every item of a table (or every entry of one of its indexes), a
page at a time; or one segment of a parallel scan.

Items come in key order (partition key bytes, then sort key). A parallel scan
(Segment/TotalSegments) keeps the partitions whose key hashes into its segment
(``_segments``): the segments of one TotalSegments cover every item exactly
once. Limit, the 1 MB page, FilterExpression/ScanFilter, Select and
projection, LastEvaluatedKey and ConsumedCapacity work as in Query, and so
does IndexName (``_sources``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._pages import row_item
from tallydb.engine.api._read_exprs import ReadExpressions, check_key_paths, read_expressions
from tallydb.engine.api._segments import WRONG_SEGMENT, checked_segment, segment_of
from tallydb.engine.api._select import Output, plan_output
from tallydb.engine.api._sources import Source, answer_page, check_index_key_paths, source_of
from tallydb.engine.api._tables import get_table
from tallydb.engine.errors import ValidationException
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item

START_INVALID = "The provided starting key is invalid"
START_SCHEMA = "The provided key element does not match the schema"
#: A start key of another number of attributes (``_key_conditions.START_SIZE``).
START_SIZE = "Exclusive Start Key must have same size as table's key schema"


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


def _start(source: Source, start: Item) -> tuple[bytes, bytes]:
    """An ExclusiveStartKey checked against what the scan reads, encoded.

    A table's start key is its key; an index's holds the table's key and the
    index's (architect/dynalite's actions/scan.js, recorded against DynamoDB)."""
    keys = source.table.keys
    index = source.index
    if index is None:
        if len(start) != len(keys.attributes):
            raise ValidationException(START_SIZE)
    else:
        if len(start) != len(index.start_names):
            raise ValidationException(START_SIZE)
        for name, kind in index.hash_key + index.range_key:
            if name not in start:
                raise ValidationException(START_INVALID)
            if kind not in start[name]:
                raise ValidationException(START_SCHEMA)
    try:
        keys.validate_key({name: start[name] for name in keys.names if name in start})
    except ValidationException as e:
        raise ValidationException(f"{START_INVALID}: {e.message}") from None
    return source.encode_start(start)


#: What a request touches (``_access``): reads the table its TableName names,
#: or the index its IndexName names.
ACCESS = on_table("Scan", write=False, index=True)


Checked = tuple[ReadExpressions, tuple[int, int] | None, Output]


def validate(request: dict[str, Any]) -> Checked:
    """The expressions and legacy parameters, the start key's values, the
    segment, and what is returned (``_read_exprs``' order)."""
    exprs = read_expressions(request, operation="Scan")
    segments = checked_segment(request.get("Segment"), request.get("TotalSegments"))
    output = plan_output(
        request, exprs.project, envelope=False, index=request.get("IndexName") is not None)
    return exprs, segments, output


def scan(txn: Transaction, request: dict[str, Any], checked: Checked) -> dict[str, Any]:
    exprs, segments, output = checked
    start = exprs.start
    table = get_table(txn, request.get("TableName"))
    source = source_of(table, request)

    after: tuple[bytes, bytes] | None = None
    if start is not None:
        after = _start(source, start)
        if segments is not None and segment_of(after[0], segments[1]) != segments[0]:
            raise ValidationException(WRONG_SEGMENT.format(segments[1], segments[0]))
    source.check_select(request, exprs)

    key_names = tuple(name for name, _ in table.keys.attributes)
    check_key_paths(exprs.projected_nested, key_names)
    check_key_paths(exprs.filtered_nested, key_names)
    check_index_key_paths(exprs.projected_nested | exprs.filtered_nested, table)

    rows = txn.items(table.record, index=source.storage_index, after=after)
    items = map(row_item, rows) if segments is None else _in_segment(rows, *segments)
    return answer_page(txn, request, source, exprs, output, items)
