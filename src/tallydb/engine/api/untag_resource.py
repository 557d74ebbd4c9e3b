"""UntagResource: remove a table's tags by key (keys it lacks are ignored)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._tags import check_arn, on_tags, store_tags, tagged_table, tags_of
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): writes the tags of the table its
#: ResourceArn names.
ACCESS = on_tags("UntagResource", write=True)


def validate(request: dict[str, Any]) -> str:
    """The table name the ResourceArn gives, once it passes."""
    return check_arn(request["ResourceArn"], "UntagResource")


def untag_resource(txn: Transaction, request: dict[str, Any], name: str) -> dict[str, Any]:
    record = tagged_table(txn, request["ResourceArn"], name)
    removed = set(request.get("TagKeys") or ())
    store_tags(txn, record, [tag for tag in tags_of(record) if tag["Key"] not in removed])
    return {}
