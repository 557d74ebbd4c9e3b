"""A table's tags: kept in its description as ``_Tags`` (a list of
``{"Key", "Value"}`` in the order first given), reached by the table's ARN.

Messages: the ResourceNotFoundException's "ResourcArn" (sic) is DynamoDB's
as dynalite recorded it (``_shapes`` answers a missing ResourceArn); the
wording for a malformed ARN and for more than 50 tags is not on record, so
they use the closest documented phrasing (the tagging restrictions page: at
most 50 tags per resource).
"""

from __future__ import annotations

import re
from typing import Any

from tallydb.engine.api._access import Touch
from tallydb.engine.api._regions import is_stored
from tallydb.engine.errors import ResourceNotFoundException, ValidationException
from tallydb.engine.storage import TableRecord, Transaction

MAX_TAGS = 50
BAD_ARN = "Invalid TableArn: Invalid ResourceArn provided as input {arn}"
ARN_NOT_FOUND = "Requested resource not found: ResourcArn: {arn} not found"
TOO_MANY_TAGS = (
    "One or more parameter values were invalid: The number of tags exceeds the limit of 50")

_TABLE_ARN = re.compile(r"arn:aws[a-z-]*:dynamodb:[^:]+:[^:]+:table/([a-zA-Z0-9_.-]{3,255})")

Tags = list[dict[str, str]]


def check_count(tags: Tags) -> None:
    if len(tags) > MAX_TAGS:
        raise ValidationException(TOO_MANY_TAGS)


def tagged_name(arn: str) -> str:
    """The table name a ResourceArn names (ValidationException for an ARN
    that names no table)."""
    match = _TABLE_ARN.fullmatch(arn)
    if match is None:
        raise ValidationException(BAD_ARN.format(arn=arn))
    return match.group(1)


def tagged_table(txn: Transaction, arn: str) -> TableRecord:
    """The table a ResourceArn names (present: ``check_request`` saw to it)."""
    name = tagged_name(arn)
    record = txn.table(name) if is_stored(arn) else None
    if record is None:
        raise ResourceNotFoundException(ARN_NOT_FOUND.format(arn=arn))
    return record


def tags_of(record: TableRecord) -> Tags:
    return [dict(tag) for tag in record.description.get("_Tags") or ()]


def store_tags(txn: Transaction, record: TableRecord, tags: Tags) -> None:
    description = dict(record.description)
    if tags:
        description["_Tags"] = tags
    else:
        description.pop("_Tags", None)
    txn.update_table(record.with_description(description))


def on_tags(action: str, *, write: bool) -> Any:
    """``ACCESS`` of a tag operation: the table its ResourceArn names, read
    as ``tagged_table`` reads it (an ARN that names none touches nothing:
    the operation refuses it)."""
    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        arn = request.get("ResourceArn")
        try:
            name = tagged_name(arn) if isinstance(arn, str) else None
        except ValidationException:
            return ()
        return (Touch(action, name or "*", write),)
    return resolve
