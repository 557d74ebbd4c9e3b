"""UpdateTimeToLive: turn a table's TTL on or off.

Enabling builds the TTL index from the table's items (``_ttl``) and is in
effect at once: DescribeTimeToLive answers ENABLED, as DynamoDB does on its
first look after the call. DynamoDB's refusals (ack-api-quirks catalogue
2026, DDB-TABLE-146/147, and architect/dynalite's tests): enabling when
enabled, disabling when disabled, and naming another attribute than the
enabled one; and a change within a fixed interval of the last one (the
table's ``_TimeToLiveChanged``, epoch seconds; ``_ttl.CHANGE_INTERVAL``, an
hour unless the engine was given another), checked after the others, as
DynamoDB checks it (DDB-TABLE-143: a refused call does not extend the
interval). On a replica of a global table the
setting is the group's, as on DynamoDB: every replica's TTL changes with it.
"""

from __future__ import annotations

import time
from math import inf
from typing import Any

from tallydb.engine.api._access import on_table
from tallydb.engine.api._global import GLOBAL, peers, refuse_strong
from tallydb.engine.api._indexes import TTL_INDEX, backfill, build_indexes
from tallydb.engine.api._ttl import change_interval
from tallydb.engine.api.describe_table import find_table, table_named
from tallydb.engine.errors import ValidationException
from tallydb.engine.storage import TableRecord, Transaction

ALREADY_ENABLED = "TimeToLive is already enabled"
ALREADY_DISABLED = "TimeToLive is already disabled"
OTHER_ATTRIBUTE = "TimeToLive is active on a different AttributeName: current AttributeName is {}"
#: A second change within the interval (the ack-api-quirks catalogue 2026,
#: DDB-TABLE-143; the text code written for DynamoDB matches, e.g. the
#: Terraform AWS provider's TTL tests).
TOO_SOON = "Time to live has been modified multiple times within a fixed interval"
#: When the table's TTL last changed (epoch seconds), in its description.
CHANGED = "_TimeToLiveChanged"


#: What a request touches (``_access``): writes the table its TableName names.
ACCESS = on_table("UpdateTimeToLive", write=True, read=table_named)


def update_time_to_live(txn: Transaction, request: dict[str, Any]) -> dict[str, Any]:
    spec = request["TimeToLiveSpecification"]
    name, enabled = spec["AttributeName"], bool(spec["Enabled"])
    record = find_table(txn, request["TableName"])
    refuse_strong(record, "Time to live")
    current = record.description.get("_TimeToLive")
    if current is not None and current["AttributeName"] != name:
        raise ValidationException(OTHER_ATTRIBUTE.format(current["AttributeName"]))
    if enabled and current is not None:
        raise ValidationException(ALREADY_ENABLED)
    if not enabled and current is None:
        raise ValidationException(ALREADY_DISABLED)
    now = time.time()  # (a clock set back does not hold the table for longer)
    if 0 <= now - record.description.get(CHANGED, -inf) < change_interval(txn):
        raise ValidationException(TOO_SOON)
    group = record.description.get(GLOBAL)
    replicas = [record] + ([] if group is None else peers(txn, record, group))
    for replica in replicas:
        _switch(txn, replica, name, enabled, now)
    return {"TimeToLiveSpecification": {"AttributeName": name, "Enabled": enabled}}


def _switch(txn: Transaction, record: TableRecord, name: str, enabled: bool,
            now: float) -> None:
    description = dict(record.description)
    description[CHANGED] = now
    if enabled:
        description["_TimeToLive"] = {"AttributeName": name}
        record = record.with_description(description)
        txn.update_table(record)
        record = txn.create_index(record, TTL_INDEX)
        index = next(i for i in build_indexes(record) if i.name == TTL_INDEX)
        backfill(txn, record, index)
    else:
        description.pop("_TimeToLive", None)
        record = record.with_description(description)
        txn.update_table(record)
        if TTL_INDEX in record.indexes:
            txn.drop_index(record, TTL_INDEX)
