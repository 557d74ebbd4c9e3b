"""A table's TableClass, read as DynamoDB reads CreateTable's and UpdateTable's.

DynamoDB does not check TableClass as an enum of its request model (no
"Member must satisfy enum value set" for it): its table operations read the
value themselves and refuse any other, case included ('standard'), with the
sentence below (ScyllaDB Alternator's test_tableclass.py, run against
DynamoDB; the conformance catalogue of DynamoDB's messages, 2026). Where
among the operation's own checks DynamoDB reads it is not on record: here it
is read first, as a parameter, before any rule that combines members.

A replica's TableClassOverride keeps the model's enum check: DynamoDB's
words for it are not on record.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.errors import ValidationException

__all__ = ["TABLE_CLASSES", "check_table_class"]

#: The classes a table may have, in the order DynamoDB's message names them.
TABLE_CLASSES = ("STANDARD", "STANDARD_INFREQUENT_ACCESS")

INVALID_TABLE_CLASS = (
    "Invalid table-class parameter provided. Please try again with a valid table-class "
    f"value: [{', '.join(TABLE_CLASSES)}]."
)


def check_table_class(request: dict[str, Any]) -> None:
    """Refuse a request whose TableClass names no table class."""
    value = request.get("TableClass")
    if value is not None and value not in TABLE_CLASSES:
        raise ValidationException(INVALID_TABLE_CLASS)
