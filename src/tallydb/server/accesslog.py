"""``--log-requests``: one line per request, for the logger ``tallydb.access``.

A line says what was asked and how it ended: operation, table, status,
duration and request id. It never carries a key's secret, a signature, a
key value or an item's attributes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tallydb.server.access import tables_of

if TYPE_CHECKING:
    from tallydb.server.exchange import Exchange

log = logging.getLogger("tallydb.access")
_REQUEST_ID = b"x-amzn-RequestId: "


def record(ex: Exchange, response: bytes, now: float) -> None:
    """Log ``ex``, answered with ``response``, at loop time ``now``."""
    status = response[9:12].decode("latin-1") if response.startswith(b"HTTP/1.1 ") else "-"
    start = response.find(_REQUEST_ID)
    request_id = "-"
    if start >= 0:
        start += len(_REQUEST_ID)
        request_id = response[start : response.find(b"\r\n", start)].decode("latin-1")
    operation = ex.operation
    if operation is None:  # answered while routing: say what it was
        operation = ex.target.decode("latin-1").rpartition(".")[2] if ex.target else "-"
    table = next(tables_of(operation, ex.request), "-") if ex.request is not None else "-"
    took = (now - ex.started) * 1000 if ex.started else 0.0
    log.info("%s %s %s %s %.1fms %s", ex.method.decode("latin-1") or "-", operation, table,
             status, took, request_id)
