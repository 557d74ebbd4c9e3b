"""DescribeGlobalTable (global tables version 2017.11.29): a legacy group's
description; a 2019.11.21 group or a regional table is not one
(GlobalTableNotFoundException, DynamoDB's text)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._legacy_global import description, find_group
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the group (its tables' name) its GlobalTableName
#: names.
ACCESS = on_table("DescribeGlobalTable", write=False, member="GlobalTableName")


def describe_global_table(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    name = request["GlobalTableName"]
    group, _ = find_group(txn, name)
    return {"GlobalTableDescription": description(name, group)}
