"""ListTables: table names in order, a page at a time.

Names come back sorted (DynamoDB sorts them; table names are ASCII, so this
is their byte order), at most ``Limit`` (default and maximum 100) after
``ExclusiveStartTableName``. ``LastEvaluatedTableName`` is the page's last
name only when more tables follow it (dynalite, recorded: a Limit equal to
the number of tables answers without it). A caller limited to some tables
sees only those (and pages through only those).
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import caller_sees, on_nothing
from tallydb.engine.api._lifecycle import PENDING, gone
from tallydb.engine.storage import Transaction

DEFAULT_LIMIT = 100
#: What a request touches (``_access``): no table; it lists those the caller may see.
ACCESS = on_nothing("ListTables")


def list_tables(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    limit = request.get("Limit") or DEFAULT_LIMIT
    start = request.get("ExclusiveStartTableName")
    names = [record.name for record in txn.tables() if caller_sees(record.name)
             and (PENDING not in record.description or not gone(record.description))]
    if start is not None:
        names = [name for name in names if name > start]
    page = names[:limit]
    response: dict[str, Any] = {"TableNames": page}
    if len(names) > limit:
        response["LastEvaluatedTableName"] = page[-1]
    return response
