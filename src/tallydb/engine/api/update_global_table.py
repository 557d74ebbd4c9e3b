"""UpdateGlobalTable (global tables version 2017.11.29): add a region's
table to a group (it must exist, be empty, have the group's key schema and
a NEW_AND_OLD_IMAGES stream) or take one out (the table stays, a regional
table again, after what it has not yet sent is sent).
ReplicaAlreadyExistsException and ReplicaNotFoundException's texts are not
on record: ours.
"""

from __future__ import annotations

from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._global import catalog_of
from tallydb.engine.api._legacy_global import (
    description,
    find_group,
    join,
    joining,
    regional,
)
from tallydb.engine.api._replicate import leave
from tallydb.engine.errors import (
    ReplicaAlreadyExistsException,
    ReplicaNotFoundException,
    ValidationException,
)
from tallydb.engine.storage import Transaction

ALREADY = "Replica already exists in region {} for global table {}"
MISSING = "Replica not found in region {} for global table {}"
#: On record (an empty ReplicaUpdates): the bare prefix, no detail.
NO_UPDATES = "One or more parameter values were invalid"


#: What a request touches (``_access``): writes the group (its tables' name) its GlobalTableName
#: names.
ACCESS = on_table("UpdateGlobalTable", write=True, member="GlobalTableName")


def update_global_table(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    regional(txn)
    name = request["GlobalTableName"]
    updates = request["ReplicaUpdates"]
    if not updates:
        raise ValidationException(NO_UPDATES)
    group, tables = find_group(txn, name)
    regions = [r["RegionName"] for r in group["Replicas"]]
    keys = tables[0].description["KeySchema"] if tables else None
    for update in updates:
        if update.get("Create") is not None:
            region = update["Create"]["RegionName"]
            if region in regions:
                raise ReplicaAlreadyExistsException(ALREADY.format(region, name))
            joining(txn, name, region, keys)
            regions.append(region)
        elif update.get("Delete") is not None:
            region = update["Delete"]["RegionName"]
            if region not in regions:
                raise ReplicaNotFoundException(MISSING.format(region, name))
            record = txn.table_in(catalog_of(region), name)
            if record is not None:
                leave(txn, record)
            regions.remove(region)
    group = join(txn, name, regions, group.get("Created", 0.0))
    return {"GlobalTableDescription": description(name, group, "UPDATING")}
