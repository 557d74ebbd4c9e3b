"""ListTagsOfResource: a table's tags, in the order they were first given
(at most 50, so always one page)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._tags import check_arn, on_tags, tagged_table, tags_of
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the tags of the table its
#: ResourceArn names.
ACCESS = on_tags("ListTagsOfResource", write=False)


def validate(request: dict[str, Any]) -> str:
    """The table name the ResourceArn gives, once it passes."""
    return check_arn(request["ResourceArn"], "ListTagsOfResource")


def list_tags_of_resource(txn: Transaction, request: dict[str, Any], name: str
                          ) -> dict[str, Any]:
    return {"Tags": tags_of(tagged_table(txn, request["ResourceArn"], name))}
