"""Regions: the catalog a request's region sees, and the ARNs it is shown.

A request comes from a region: the one its SigV4 credential scope names, or
``DEFAULT_REGION`` when it is unsigned. With shared regions (the default,
what DynamoDB Local's users expect) every region sees the same tables; with
separate regions each region has its own, as on DynamoDB, and the default
region's are the shared ones (a data directory made with shared regions
keeps its tables there).

The catalog keeps every ARN in one stored form, with DynamoDB Local's
``ddblocal`` as its region; a response shows each ARN with the request's
region, and an ARN a request names is read back into the stored form (with
separate regions, only an ARN of the request's own region: another region's
names a resource this one does not have).
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.errors import DynamoDBError

__all__ = ["DEFAULT_REGION", "NAMES_NO_ARN", "STORED_REGION", "Regions", "is_stored",
           "shown", "shown_error", "shown_response"]

DEFAULT_REGION = "us-east-1"
STORED_REGION = "ddblocal"
_STORED = f"arn:aws:dynamodb:{STORED_REGION}:"
_STORED_PART = f":{STORED_REGION}:"

#: Operations whose requests and responses carry no ARN (an error's message
#: may: a throttled table's): the item operations, which skip the rewriting.
NAMES_NO_ARN = frozenset({
    "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
    "BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems",
    "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction",
})

#: The request members that may name a table, stream or backup by its ARN.
_ARN_MEMBERS = (
    "TableName", "ResourceArn", "StreamArn", "ExclusiveStartStreamArn", "BackupArn",
    "ExclusiveStartBackupArn", "TableArn", "ExportArn", "ImportArn", "BulkOperationArn",
    "SourceTableArn",
)


class Regions:
    """Whether regions share one catalog, and the rewriting of ARNs."""

    __slots__ = ("separate",)

    def __init__(self, separate: bool = False) -> None:
        self.separate = separate

    def catalog(self, region: str) -> str:
        """The storage catalog ``region``'s requests use ("" is the shared one)."""
        return region if self.separate and region != DEFAULT_REGION else ""

    def request(self, request: dict[str, Any], region: str) -> dict[str, Any]:
        """``request`` with the ARNs it names in their stored form."""
        changed = None
        for member in _ARN_MEMBERS:
            value = request.get(member)
            if isinstance(value, str) and value.startswith("arn:"):
                stored = self._stored(value, region)
                if stored != value:
                    if changed is None:
                        changed = dict(request)
                    changed[member] = stored
        return request if changed is None else changed

    def _stored(self, arn: str, region: str) -> str:
        parts = arn.split(":", 4)
        if len(parts) < 5 or parts[2] != "dynamodb":
            return arn
        if self.separate and parts[3] != region:
            return arn
        parts[3] = STORED_REGION
        return ":".join(parts)


def is_stored(arn: str) -> bool:
    """Whether a request's ARN was read back into the stored form: false for
    another region's when regions are separate."""
    return arn.startswith(_STORED)


def shown(value: Any, region: str) -> Any:
    """A response with every stored ARN in it (a table's, or its KMS key's)
    naming ``region``."""
    if isinstance(value, str):
        if value.startswith("arn:aws:"):
            service, _, rest = value[8:].partition(_STORED_PART)
            if rest and ":" not in service:
                return f"arn:aws:{service}:{region}:{rest}"
        return value
    if isinstance(value, dict):
        return {k: shown(v, region) for k, v in value.items()}
    if isinstance(value, list):
        return [shown(v, region) for v in value]
    return value


#: The response member of an operation that holds items (images of them),
#: shown as stored: a string in an item is the user's, whatever it looks
#: like, and walking 1,000 records' images cost GetRecords four times its
#: own work.
_ITEM_MEMBERS = {"GetRecords": "Records"}


def shown_response(operation: str, response: dict[str, Any], region: str) -> dict[str, Any]:
    """``operation``'s response with every stored ARN in it naming
    ``region`` (``shown``), but for the items it holds."""
    member = _ITEM_MEMBERS.get(operation)
    if member is None or member not in response:
        return shown(response, region)  # type: ignore[no-any-return]
    found = shown({name: value for name, value in response.items() if name != member}, region)
    found[member] = response[member]
    return found  # type: ignore[no-any-return]


def shown_error(error: DynamoDBError, region: str) -> None:
    """Make the stored ARNs ``error`` names (its message, a throttle's
    reasons) name ``region``."""
    message = error.message
    if message and _STORED in message:
        error.message = message.replace(_STORED, f"arn:aws:dynamodb:{region}:")
        error.args = (error.message,)
    reasons = getattr(error, "reasons", None)
    if reasons:
        error.reasons = shown(reasons, region)  # type: ignore[attr-defined]
