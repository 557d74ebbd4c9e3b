"""Where a Query or Scan reads: the table itself, or one of its indexes.

With ``IndexName`` the read walks the index's entries in index-key order
(``_indexes``) and pages by the index's key plus the table's: that is what
``LastEvaluatedKey`` holds and what ``ExclusiveStartKey`` must hold.

What an index read returns (DynamoDB's rules, messages from
architect/dynalite's tests and actions/query.js, recorded against DynamoDB):

- by default, and with ``Select=ALL_PROJECTED_ATTRIBUTES``, the entries as
  the projection keeps them;
- a Query's filter (FilterExpression, QueryFilter) naming an attribute the
  index does not project is refused, on a GSI and an LSI alike (DynamoDB
  Local's QueryFunction; ScyllaDB's Alternator tests, run against DynamoDB),
  after the refusal of a filter on a key attribute;
- ``Select=ALL_ATTRIBUTES`` on a GSI whose projection is not ALL is refused,
  as is asking a GSI (AttributesToGet, ProjectionExpression) for an
  attribute it does not project;
  on an LSI it (like a ProjectionExpression, or a Scan's filter, naming an
  attribute the LSI does not project) fetches each item from the table, and
  the fetches are charged to the table as single-item reads;
- a GSI refuses ``ConsistentRead=true``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from tallydb.engine.api._indexes import GLOBAL, NESTED_INDEX_KEY, Index
from tallydb.engine.api._pages import page_response, read_page
from tallydb.engine.api._read_exprs import ReadExpressions
from tallydb.engine.api._select import Output
from tallydb.engine.api._tables import KeySchema, Table
from tallydb.engine.api._units import consumed, read_units, wants_capacity
from tallydb.engine.errors import ValidationException
from tallydb.engine.storage import Transaction
from tallydb.engine.values import Item, item_size

NO_INDEX: Final = "The table does not have the specified index: {}"
CONSISTENT_GSI: Final = "Consistent reads are not supported on global secondary indexes"
ALL_ATTRIBUTES_GSI: Final = (
    "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported "
    "for global secondary index {} because its projection type is not ALL"
)
#: Asking a GSI for attributes it does not project (AttributesToGet,
#: ProjectionExpression): DynamoDB Local's words (its
#: validateAttributesToGetAndProjExpr), the attributes in brackets; the
#: order of several is not on record (sorted here).
NOT_PROJECTED_GSI: Final = (
    "One or more parameter values were invalid: Global secondary index {} does not project "
    "[{}]"
)

#: A Query's filter naming attributes the index does not project, sorted and
#: listed as DynamoDB lists them (DynamoDB Local's QueryFunction; the
#: "... hello does not project ... filter ... d" ScyllaDB's Alternator tests
#: match against DynamoDB).
FILTER_NOT_PROJECTED: Final = (
    "One or more parameter values were invalid: Secondary index {} does not project one or "
    "more filter attributes: [{}]"
)


@dataclass
class Source:
    """A table, or one of its indexes, as a Query or Scan reads it."""

    table: Table
    index: Index | None = None
    fetched_units: float = 0.0  # LSI fetches from the table, charged to the table
    entry_bytes: int | None = None  # the entries' bytes, when items were fetched

    @property
    def storage_index(self) -> str | None:
        return None if self.index is None else self.index.name

    def query_keys(self) -> KeySchema:
        """The key schema a key condition is checked against."""
        index = self.index
        if index is None:
            return self.table.keys
        return self.table.index_keys[index.name]

    def key_of(self, item: Item) -> Item:
        """LastEvaluatedKey for a page that ended on ``item``."""
        if self.index is None:
            return self.table.keys.key_of(item)
        return self.index.start_of(item)

    def encode_start(self, start: Item) -> tuple[bytes, bytes]:
        """Where a page resumes: a checked ExclusiveStartKey as (hk, rk)."""
        if self.index is None:
            return self.table.keys.encode(start)
        encoded = self.index.encode(start)
        assert encoded is not None
        return encoded

    def check_filter_projected(self, exprs: ReadExpressions) -> None:
        """A Query's filter may name only attributes its index projects."""
        index = self.index
        if index is None or index.projected is None:
            return
        missing = sorted(exprs.filter_names - index.projected)
        if missing:
            raise ValidationException(FILTER_NOT_PROJECTED.format(index.name, ", ".join(missing)))

    def check_select(self, request: dict[str, Any], exprs: ReadExpressions) -> None:
        """ALL_ATTRIBUTES, or a named attribute, from a GSI that does not
        project it (refused: a GSI cannot fetch from the table)."""
        index = self.index
        if index is None or index.kind != GLOBAL or index.projected is None:
            return
        if request.get("Select") == "ALL_ATTRIBUTES":
            raise ValidationException(ALL_ATTRIBUTES_GSI.format(index.name))
        missing = sorted(exprs.projected_heads - index.projected)
        if missing:
            raise ValidationException(NOT_PROJECTED_GSI.format(index.name, ", ".join(missing)))

    def fetcher(self, txn: Transaction, request: dict[str, Any], exprs: ReadExpressions
                ) -> Callable[[Iterator[Item]], Iterator[Item]] | None:
        """For an LSI asked for attributes it does not project: read each
        item from the table instead of the entry."""
        index = self.index
        if index is None or index.kind == GLOBAL or index.projected is None:
            return None
        wanted = set(exprs.filter_names) | set(exprs.projected_heads)
        all_attributes = request.get("Select") == "ALL_ATTRIBUTES"
        if not all_attributes and wanted <= index.projected:
            return None
        keys = self.table.keys
        record = self.table.record
        consistent = request.get("ConsistentRead") is True

        self.entry_bytes = 0

        def fetch(entries: Iterator[Item]) -> Iterator[Item]:
            for entry in entries:
                self.entry_bytes = (self.entry_bytes or 0) + item_size(entry)
                item = txn.get_item(record, *keys.encode(entry))
                if item is None:  # cannot happen: the entry is written with the item
                    continue
                self.fetched_units += read_units(item_size(item), consistent=consistent)
                yield item

        return fetch

    def capacity(self, read_bytes: int, request: dict[str, Any]) -> dict[str, Any]:
        """ConsumedCapacity of a page that read ``read_bytes`` of entries."""
        if self.entry_bytes is not None:
            read_bytes = self.entry_bytes
        units = read_units(read_bytes, consistent=request.get("ConsistentRead") is True)
        mode = request.get("ReturnConsumedCapacity")
        if self.index is None:
            return consumed(self.table.name, units, mode)
        return consumed(self.table.name, self.fetched_units, mode,
                        {(self.index.kind, self.index.name): units})


def source_of(table: Table, request: dict[str, Any]) -> Source:
    """The table, or the index IndexName names; DynamoDB's refusals of an
    unknown index and of a consistent read of a GSI."""
    name = request.get("IndexName")
    if name is None:
        return Source(table)
    index = table.index(name)
    if index is None:
        raise ValidationException(NO_INDEX.format(name))
    if index.kind == GLOBAL and request.get("ConsistentRead") is True:
        raise ValidationException(CONSISTENT_GSI)
    return Source(table, index)


def check_index_key_paths(nested: frozenset[str], table: Table) -> None:
    """A projection or filter may not reach into any index's key attribute
    (after the table's own key attributes are checked: dynalite's
    validateKeyPaths)."""
    if not nested:
        return
    for index in table.indexes:
        if index.kind == GLOBAL or index.kind == "LSI":
            for name in index.key_names:
                if name in nested:
                    raise ValidationException(NESTED_INDEX_KEY.format(name))


def answer_page(txn: Transaction, request: dict[str, Any], source: Source,
                exprs: ReadExpressions, output: Output, items: Iterator[Item]
                ) -> dict[str, Any]:
    """Read one page of ``items`` (in key order, from ``source``) and answer
    it as Query and Scan do: Items, Count, ScannedCount, LastEvaluatedKey and
    the read capacity the page used."""
    fetch = source.fetcher(txn, request, exprs)
    page = read_page(
        items if fetch is None else fetch(items),
        limit=request.get("Limit"),
        keep=exprs.keep,
        project=output.project,
        key_of=source.key_of,
        count_only=output.count_only,
    )
    response = page_response(page, count_only=output.count_only)
    if wants_capacity(request):
        response["ConsumedCapacity"] = source.capacity(page.read_bytes, request)
    return response
