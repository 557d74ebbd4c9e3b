"""DescribeGlobalTableSettings (global tables version 2017.11.29): each
replica's billing mode and throughput (GlobalTableNotFoundException,
DynamoDB's text, for anything but a legacy group)."""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._legacy_global import SETTINGS_NOT_FOUND, find_group, settings
from tallydb.engine.storage import Transaction

#: What a request touches (``_access``): reads the group (its tables' name) its GlobalTableName
#: names.
ACCESS = on_table("DescribeGlobalTableSettings", write=False, member="GlobalTableName")


def describe_global_table_settings(txn: Transaction, request: dict[str, Any]
                                   ) -> dict[str, Any]:
    name = request["GlobalTableName"]
    _, tables = find_group(txn, name, SETTINGS_NOT_FOUND)
    return settings(name, tables)
