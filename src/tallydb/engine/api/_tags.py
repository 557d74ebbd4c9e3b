"""A table's tags: kept in its description as ``_Tags`` (a list of
``{"Key", "Value"}`` in the order first given), reached by the table's ARN.

Before any table is looked up (:func:`check_arn`, :func:`check_tags`): a
string that is not an ARN, an index's ARN and an ARN not of a table's form
are ValidationExceptions (the first two in DynamoDB's words,
``_resource_arns``); a stream's ARN, which DynamoDB takes as a resource
("only table or stream is accepted") but whose tags no operation keeps, is
the ResourceNotFoundException of a ResourceArn that names nothing (its
wording for a stream is not on record: the same as for a missing table's
ARN); a table or stream ARN of another
account is DynamoDB's AccessDeniedException naming it (a caller may not
reach another account's table; the nubo-db/dynamodb-conformance suite,
run against DynamoDB in 2026, gets AccessDeniedException for ARNs of an
account not its own); a tag key or value with a character the tagging
restrictions do not allow is a ValidationException.

Messages: the ResourceNotFoundException's text is DynamoDB's current wording
(recorded against it in 2026; dynalite's older record spelled it
"ResourcArn") (``_shapes`` answers a missing ResourceArn); the
AccessDeniedException is worded as IAM words a refusal across accounts
("... because no resource-based policy allows the ... action", the IAM
user guide's access-denied messages), the caller being the account's
root, since no IAM user is known here; the wording for another malformed
ARN, a forbidden character and more than 50 tags is not on record, so they use
the closest documented phrasing (DynamoDB's tagging restrictions page:
letters, white space, numbers and ``+ - = . _ : /``; at most 50 tags per
resource).
"""

from __future__ import annotations

import re
from typing import Any

from tallydb.engine.api._access import Touch
from tallydb.engine.api._regions import is_stored
from tallydb.engine.api._resource_arns import NOT_A_TABLE_OR_STREAM, is_index_arn, not_an_arn
from tallydb.engine.api.describe_table import ACCOUNT
from tallydb.engine.errors import (
    AccessDeniedException,
    DynamoDBError,
    ResourceNotFoundException,
    ValidationException,
)
from tallydb.engine.storage import TableRecord, Transaction

MAX_TAGS = 50
BAD_ARN = "Invalid TableArn: Invalid ResourceArn provided as input {arn}"
ARN_NOT_FOUND = "Requested resource not found: ResourceArn: {arn} not found"
OTHER_ACCOUNT = (
    "User: arn:aws:iam::{account}:root is not authorized to perform: dynamodb:{action} on "
    "resource: {arn} because no resource-based policy allows the dynamodb:{action} action")
TOO_MANY_TAGS = (
    "One or more parameter values were invalid: The number of tags exceeds the limit of 50")
BAD_TAG = (
    "One or more parameter values were invalid: The tag {part} {text} has characters other "
    "than letters, white space, numbers and + - = . _ : /")

_TABLE_ARN = re.compile(
    r"arn:aws[a-z-]*:dynamodb:[^:]+:([^:]+):table/([a-zA-Z0-9_.-]{3,255})(/stream/.+)?")
#: What a tag key or value may hold besides letters, numbers and white space.
_TAG_PUNCTUATION = frozenset("+-=._:/")

Tags = list[dict[str, str]]


def check_arn(arn: str, action: str) -> str:
    """The table name a ResourceArn names, refused before any lookup when
    it is not a table ARN (ValidationException) or names another account
    (AccessDeniedException)."""
    refusal = not_an_arn(arn)
    if refusal is not None:
        raise refusal
    if is_index_arn(arn):
        raise ValidationException(NOT_A_TABLE_OR_STREAM.format(arn))
    match = _TABLE_ARN.fullmatch(arn)
    if match is None:
        raise ValidationException(BAD_ARN.format(arn=arn))
    if match.group(1) != ACCOUNT:
        raise AccessDeniedException(OTHER_ACCOUNT.format(account=ACCOUNT, action=action, arn=arn))
    if match.group(3) is not None:  # a stream's: of the right form, but it holds no tags
        raise ResourceNotFoundException(ARN_NOT_FOUND.format(arn=arn))
    return match.group(2)


def check_tags(tags: Tags) -> None:
    """Every key and value of the characters tags may hold."""
    for tag in tags:
        for part in ("Key", "Value"):
            text = tag[part]
            if not all(ch.isalnum() or ch.isspace() or ch in _TAG_PUNCTUATION for ch in text):
                raise ValidationException(BAD_TAG.format(part=part.lower(), text=text))


def check_count(tags: Tags) -> None:
    if len(tags) > MAX_TAGS:
        raise ValidationException(TOO_MANY_TAGS)


def tagged_table(txn: Transaction, arn: str, name: str) -> TableRecord:
    """The table ``name`` that a checked ResourceArn names, or DynamoDB's
    ResourceNotFoundException."""
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
    as ``check_arn`` reads it (an ARN that names none, or another account's
    table, touches nothing: the operation refuses it)."""
    def resolve(txn: Transaction, request: dict[str, Any]) -> tuple[Touch, ...]:
        arn = request.get("ResourceArn")
        try:
            name = check_arn(arn, action) if isinstance(arn, str) else None
        except DynamoDBError:
            return ()
        return (Touch(action, name or "*", write),)
    return resolve
