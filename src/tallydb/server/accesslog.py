"""``--log-requests``: one line per request, for the logger ``tallydb.access``.

A line says who asked what and how it ended: method, operation, the table
it touched (as the engine resolved it: ``engine/api/_access``), status,
duration, request id and the access key id that signed it. Every field is
quoted (JSON string escapes), so nothing a client sends, a table name with
a newline or a quote in it, can end a line or forge another. A line never
carries a key's secret, a signature, a key value or an item's attributes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import orjson

if TYPE_CHECKING:
    from tallydb.server.exchange import Exchange

log = logging.getLogger("tallydb.access")
_REQUEST_ID = b"x-amzn-RequestId: "


def quoted(text: str) -> str:
    """``text`` as a JSON string: quoted, every control character escaped."""
    return orjson.dumps(text).decode()


def record(ex: Exchange, response: bytes, now: float) -> None:
    """Log ``ex``, answered with ``response``, at ``now`` (``time.perf_counter``)."""
    status = response[9:12].decode("latin-1") if response.startswith(b"HTTP/1.1 ") else "-"
    start = response.find(_REQUEST_ID)
    request_id = "-"
    if start >= 0:
        start += len(_REQUEST_ID)
        request_id = response[start : response.find(b"\r\n", start)].decode("latin-1")
    operation = ex.operation
    if operation is None:  # answered while routing: say what it was
        operation = ex.target.decode("latin-1").rpartition(".")[2] if ex.target else "-"
    access = ex.access
    table = "-"
    key = "-"
    if access is not None:
        key = access.key or "-"
        table = next((t.table for t in access.touched if t.table is not None), "-")
    took = (now - ex.started) * 1000 if ex.started else 0.0
    fields = (ex.method.decode("latin-1") or "-", operation, table, status, f"{took:.1f}ms",
              request_id, key)
    log.info(" ".join(quoted(field) for field in fields))
