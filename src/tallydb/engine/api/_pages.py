"""The page loop Query and Scan share, measured the way DynamoDB measures it.

DynamoDB reads items in key order until it has read ``Limit`` items or 1 MB of
them, and only then applies the filter: ``Limit`` counts items *evaluated*
(``ScannedCount``), not items returned (``Count``), and the 1 MB is the size of
the items read, filtered or not. The item that crosses 1 MB is still part of
the page. ``LastEvaluatedKey`` is the key of the last item read whenever the
page stopped on Limit or on size, even when that item was the last one there
is (the next page is then empty) and even when the filter dropped it.

A page holds up to 1 MB of decoded items, tens of thousands of fresh dicts
and lists, none of them in a cycle: the cyclic garbage collector would run
dozens of times while one page is read, and cost more than the reading.
It is paused for the page (``gc_paused``).
"""

from __future__ import annotations

import gc
import operator
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

from tallydb.engine.values import Item, item_size

#: DynamoDB's page cap for Query and Scan, on the items read.
PAGE_BYTES: Final = 1024 * 1024
#: The item of a storage row ``(hk, rk, item)`` (``map(row_item, rows)``:
#: no Python frame per row).
row_item: Final = operator.itemgetter(2)


@dataclass
class Page:
    """One page of a Query or Scan: what the response reports, and the bytes
    read (which ConsumedCapacity charges)."""

    items: list[Item] = field(default_factory=list)
    count: int = 0
    scanned: int = 0
    read_bytes: int = 0
    last_key: Item | None = None


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector off for a bounded piece of work that makes no
    cycles (left off if something else had turned it off)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_page(
    rows: Iterable[Item],
    *,
    limit: int | None,
    keep: Callable[[Item], bool] | None,
    project: Callable[[Item], Item] | None,
    key_of: Callable[[Item], Item],
    count_only: bool,
) -> Page:
    """Read ``rows`` (already in the order the caller wants) into a page."""
    with gc_paused():
        return _read_page(rows, limit, keep, project, key_of, count_only)


def _read_page(
    rows: Iterable[Item],
    limit: int | None,
    keep: Callable[[Item], bool] | None,
    project: Callable[[Item], Item] | None,
    key_of: Callable[[Item], Item],
    count_only: bool,
) -> Page:
    items: list[Item] = []
    count = scanned = read_bytes = 0
    last: Item | None = None
    for item in rows:
        if scanned == limit or read_bytes >= PAGE_BYTES:
            break
        scanned += 1
        read_bytes += item_size(item)
        last = item
        if keep is not None and not keep(item):
            continue
        count += 1
        if not count_only:
            items.append(project(item) if project is not None else item)
    page = Page(items, count, scanned, read_bytes)
    if last is not None and (scanned == limit or read_bytes >= PAGE_BYTES):
        page.last_key = key_of(last)
    return page


def page_response(page: Page, *, count_only: bool) -> dict[str, object]:
    """A page in the wire shape of a Query or Scan response."""
    response: dict[str, object] = {}
    if not count_only:
        response["Items"] = page.items
    response["Count"] = page.count
    response["ScannedCount"] = page.scanned
    if page.last_key is not None:
        response["LastEvaluatedKey"] = page.last_key
    return response
