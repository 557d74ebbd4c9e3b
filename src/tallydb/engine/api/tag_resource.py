"""TagResource: add tags to a table, replacing the value of a key it has."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._tags import (
    check_arn,
    check_count,
    check_tags,
    on_tags,
    store_tags,
    tagged_table,
    tags_of,
)
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): writes the tags of the table its
#: ResourceArn names.
ACCESS = on_tags("TagResource", write=True)


def validate(request: dict[str, Any]) -> str:
    """The table name the ResourceArn gives, once it and the tags pass."""
    name = check_arn(request["ResourceArn"], "TagResource")
    check_tags(request.get("Tags") or [])
    return name


def tag_resource(txn: Transaction, request: dict[str, Any], name: str) -> dict[str, Any]:
    record = tagged_table(txn, request["ResourceArn"], name)
    tags = tags_of(record)
    position = {tag["Key"]: i for i, tag in enumerate(tags)}
    for tag in request.get("Tags") or ():
        if tag["Key"] in position:
            tags[position[tag["Key"]]]["Value"] = tag["Value"]
        else:
            position[tag["Key"]] = len(tags)
            tags.append({"Key": tag["Key"], "Value": tag["Value"]})
    check_count(tags)
    store_tags(txn, record, tags)
    return {}
