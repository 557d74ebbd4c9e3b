"""TagResource: add tags to a table, replacing the value of a key it has."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._tags import check_count, on_tags, store_tags, tagged_table, tags_of
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): writes the tags of the table its
#: ResourceArn names.
ACCESS = on_tags("TagResource", write=True)


def tag_resource(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    record = tagged_table(txn, request["ResourceArn"])
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
