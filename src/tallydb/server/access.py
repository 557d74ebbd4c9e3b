"""What a signed request's key may do: read-only or read-write, all tables
or some.

A key's ``Access`` answers two questions for any DynamoDB request: may it
run (``check``, which raises DynamoDB's AccessDeniedException), and which
table names may it see (``visible``, for ListTables). Operations not known
to be reads count as writes, so a read-only key can never do what it was not
explicitly allowed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tallydb.engine.errors import AccessDeniedException

ACCOUNT = "000000000000"
LIST_TABLES_LIMIT = 100  # ListTables' default and largest Limit

#: Operations that change nothing (PartiQL statements are decided by verb).
READS = frozenset({
    "BatchGetItem", "DescribeContinuousBackups", "DescribeEndpoints", "DescribeLimits",
    "DescribeStream", "DescribeTable", "DescribeTimeToLive", "GetItem", "GetRecords",
    "GetShardIterator", "ListStreams", "ListTables", "ListTagsOfResource", "Query", "Scan",
    "TransactGetItems",
})
#: Operations that name no table.
TABLELESS = frozenset({"DescribeEndpoints", "DescribeLimits", "ListTables", "ListStreams"})
_PARTIQL = frozenset({"ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction"})
_PARTIQL_TABLE = re.compile(
    r'\b(?:FROM|INTO|UPDATE)\s+(?:"((?:[^"]|"")+)"|([A-Za-z0-9_.-]+))', re.IGNORECASE
)
_TABLE_ARN = re.compile(r"^arn:[^:]*:dynamodb:[^:]*:[^:]*:table/([^/]+)")


def denied_message(key: str, region: str, action: str, table: str | None) -> str:
    """DynamoDB's AccessDeniedException message for an identity-based policy."""
    resource = f"arn:aws:dynamodb:{region}:{ACCOUNT}:table/{table}" if table else "*"
    return (
        f"User: arn:aws:iam::{ACCOUNT}:user/{key} is not authorized to perform: "
        f"dynamodb:{action} on resource: {resource} because no identity-based policy "
        f"allows the dynamodb:{action} action"
    )


@dataclass(frozen=True)
class Key:
    """One access key from the credentials file."""

    secret: str
    read_only: bool = False
    tables: frozenset[str] | None = None  # None: every table


@dataclass(frozen=True)
class Access:
    """What the key that signed a request may do (``Verifier.verify``'s answer)."""

    key: str
    region: str
    read_only: bool = False
    tables: frozenset[str] | None = None

    @property
    def unlimited(self) -> bool:
        return not self.read_only and self.tables is None

    def may_write(self) -> bool:
        return not self.read_only

    def visible(self, table: str) -> bool:
        return self.tables is None or table in self.tables

    def check(self, operation: str, request: Any) -> None:
        """Raise AccessDeniedException unless this key may run the request."""
        if self.unlimited:
            return
        tables = list(tables_of(operation, request))
        if self.read_only and not is_read(operation, request):
            self._deny(operation, tables[0] if tables else None)
        if self.tables is None:
            return
        if not tables and operation not in TABLELESS:
            self._deny(operation, None)  # a table this policy cannot name
        for table in tables:
            if table not in self.tables:
                self._deny(operation, table)

    def _deny(self, operation: str, table: str | None) -> None:
        raise AccessDeniedException(denied_message(self.key, self.region, operation, table))


def is_read(operation: str, request: Any) -> bool:
    if operation in READS:
        return True
    if operation in _PARTIQL:
        statements = list(_statements(operation, request))
        return bool(statements) and all(
            s.lstrip().upper().startswith("SELECT") for s in statements
        )
    return False


def tables_of(operation: str, request: Any) -> Iterator[str]:
    """Every table name a request names, in any of DynamoDB's places."""
    if not isinstance(request, dict):
        return
    name = request.get("TableName")
    if isinstance(name, str):
        yield name
    items = request.get("RequestItems")
    if isinstance(items, dict):
        yield from (t for t in items if isinstance(t, str))
    for entry in _dicts(request.get("TransactItems")):
        for part in entry.values():
            if isinstance(part, dict) and isinstance(part.get("TableName"), str):
                yield part["TableName"]
    arn = request.get("ResourceArn")
    if isinstance(arn, str):
        match = _TABLE_ARN.match(arn)
        yield match.group(1) if match else arn
    if operation in _PARTIQL:
        for statement in _statements(operation, request):
            for quoted, bare in _PARTIQL_TABLE.findall(statement):
                yield quoted.replace('""', '"') if quoted else bare.split(".")[0]


def _statements(operation: str, request: dict[str, Any]) -> Iterator[str]:
    if operation == "ExecuteStatement":
        found: Iterable[Any] = [request]
    else:
        found = _dicts(request.get("Statements") or request.get("TransactStatements"))
    for entry in found:
        if isinstance(entry, dict) and isinstance(entry.get("Statement"), str):
            yield entry["Statement"]


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        yield from (v for v in value if isinstance(v, dict))


def list_tables(
    access: Access, call: Callable[[str, dict[str, Any]], dict[str, Any]], request: dict[str, Any]
) -> dict[str, Any]:
    """ListTables as a key limited to some tables sees it: only those, paged
    as ListTables pages (``Limit`` after ``ExclusiveStartTableName``)."""
    call("ListTables", request)  # DynamoDB's validation of the request, as it is
    names: list[str] = []
    start: str | None = None
    while True:
        page = call("ListTables", {} if start is None else {"ExclusiveStartTableName": start})
        names += (name for name in page["TableNames"] if access.visible(name))
        start = page.get("LastEvaluatedTableName")
        if start is None:
            break
    after = request.get("ExclusiveStartTableName")
    if after is not None:
        names = [name for name in names if name > after]
    limit = request.get("Limit") or LIST_TABLES_LIMIT
    response: dict[str, Any] = {"TableNames": names[:limit]}
    if len(names) > limit:
        response["LastEvaluatedTableName"] = names[limit - 1]
    return response
