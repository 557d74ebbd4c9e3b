"""CreateGlobalTable (global tables version 2017.11.29): join one table of
a name in each region of ReplicationGroup into a group (``_legacy_global``).

Each table must exist, be empty, have the same key schema and a
NEW_AND_OLD_IMAGES stream; a group of that name must not exist
(GlobalTableAlreadyExistsException; its text, not on record, is ours).
"""

from __future__ import annotations

import time
from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._global import GLOBAL
from tallydb.engine.api._legacy_global import description, join, joining, regional
from tallydb.engine.errors import GlobalTableAlreadyExistsException
from tallydb.engine.storage import Transaction

EXISTS = "Global table already exists: {}"


#: What a request touches (``_access``): writes the tables of the name its GlobalTableName names
#: (a legacy group's tables share it).
ACCESS = on_table("CreateGlobalTable", write=True, member="GlobalTableName")


def create_global_table(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    regional(txn)
    name = request["GlobalTableName"]
    regions: list[str] = []
    for replica in request["ReplicationGroup"]:
        if replica["RegionName"] not in regions:
            regions.append(replica["RegionName"])
    if any(GLOBAL in t.description for t in txn.all_tables() if t.name == name):
        raise GlobalTableAlreadyExistsException(EXISTS.format(name))
    keys = None
    for region in regions:
        keys = joining(txn, name, region, keys).description["KeySchema"]
    group = join(txn, name, regions, time.time())
    return {"GlobalTableDescription": description(name, group, "CREATING")}
