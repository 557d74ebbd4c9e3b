"""The five scenarios: what wrk sends, and the probe that checks it first."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from bench.dynamo import COUNTERS, SHARD_COUNT, SHARDS, DynamoError, RawClient

KEY_SLOT = "__KEY__"


def _j(body: dict[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"))


def _template(body: dict[str, Any]) -> str:
    """body as JSON with KEY_SLOT replaced by Lua's %d."""
    text = _j(body).replace("%", "%%")
    return text.replace(f'"{KEY_SLOT}"', '"%d"').replace(KEY_SLOT, "%d")


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    description: str
    env: dict[str, str]
    probes: list[tuple[str, str]] = field(default_factory=list)
    # "requests": requests/s is the figure; "successes": successful CAS increments/s
    metric: str = "requests"

    def check_probe(self, client: RawClient, noop: bool) -> str | None:
        """Send each probe request once; None if all answered as expected."""
        for target, body in self.probes:
            try:
                out = client.call(target, body)
            except (DynamoError, OSError) as e:
                return f"{target}: {e}"
            if noop:
                continue
            if self.id == "C" and "Item" not in out:
                return f"GetItem returned no Item: {str(out)[:200]}"
            if self.id == "D" and target == "GetItem" and "v" not in out.get("Item", {}):
                return f"GetItem returned no v: {str(out)[:200]}"
            if target == "Query" and out.get("Count") != SHARD_COUNT:
                return f"Query returned Count={out.get('Count')}, expected {SHARD_COUNT}"
        return None


def build(keys: int) -> dict[str, Scenario]:
    one = {":one": {"N": "1"}}
    hot = {
        "TableName": COUNTERS,
        "Key": {"pk": {"S": "hot"}},
        "UpdateExpression": "ADD play_count :one",
        "ExpressionAttributeValues": one,
    }
    random_add = {
        "TableName": COUNTERS,
        "Key": {"pk": {"S": "k" + KEY_SLOT}},
        "UpdateExpression": "ADD play_count :one",
        "ExpressionAttributeValues": one,
    }
    random_get = {"TableName": COUNTERS, "Key": {"pk": {"S": "k" + KEY_SLOT}}}
    cas_get = {"TableName": COUNTERS, "Key": {"pk": {"S": "cas"}}, "ConsistentRead": True}
    cas_update = (
        _j(
            {
                "TableName": COUNTERS,
                "Key": {"pk": {"S": "cas"}},
                "UpdateExpression": "SET v = :next",
                "ConditionExpression": "v = :cur",
                # :cur before :next: wrk.lua fills the two %d in this order
                "ExpressionAttributeValues": {":cur": {"N": "__CUR__"}, ":next": {"N": "__NEXT__"}},
            }
        )
        .replace("%", "%%")
        .replace("__CUR__", "%d")
        .replace("__NEXT__", "%d")
    )
    shard_add = {
        "TableName": SHARDS,
        "Key": {"pk": {"S": "total"}, "sk": {"N": KEY_SLOT}},
        "UpdateExpression": "ADD hits :one",
        "ExpressionAttributeValues": one,
    }
    shard_sum = {
        "TableName": SHARDS,
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": "total"}},
        "ConsistentRead": True,
    }

    def sample(body: dict[str, Any], key: int) -> str:
        return _template(body).replace("%d", str(key))

    return {
        "A": Scenario(
            "A",
            "hot key ADD",
            "UpdateItem `ADD play_count :one` on one item",
            {"BENCH_MODE": "static", "BENCH_TARGET": "UpdateItem", "BENCH_BODY": _j(hot)},
            [("UpdateItem", _j(hot))],
        ),
        "B": Scenario(
            "B",
            f"{keys:,} keys ADD",
            f"UpdateItem `ADD play_count :one` on one of {keys:,} items at random",
            {
                "BENCH_MODE": "random",
                "BENCH_TARGET": "UpdateItem",
                "BENCH_TPL": _template(random_add),
                "BENCH_N": str(keys),
            },
            [("UpdateItem", sample(random_add, keys - 1))],
        ),
        "C": Scenario(
            "C",
            "GetItem",
            f"GetItem of one of {keys:,} items at random",
            {
                "BENCH_MODE": "random",
                "BENCH_TARGET": "GetItem",
                "BENCH_TPL": _template(random_get),
                "BENCH_N": str(keys),
            },
            [("GetItem", sample(random_get, keys - 1))],
        ),
        "D": Scenario(
            "D",
            "compare-and-set",
            "GetItem (consistent) then `SET v = :next` if `v = :cur`, on one item; "
            "figure: successful increments/s",
            {"BENCH_MODE": "cas", "BENCH_GET": _j(cas_get), "BENCH_UPD": cas_update},
            [("GetItem", _j(cas_get))],
            metric="successes",
        ),
        "E": Scenario(
            "E",
            "sharded counter",
            f"`ADD hits :one` on one of {SHARD_COUNT} shards at random; every 10th "
            "request sums the shards with a consistent Query",
            {
                "BENCH_MODE": "mix",
                "BENCH_TARGET": "UpdateItem",
                "BENCH_TPL": _template(shard_add),
                "BENCH_N": str(SHARD_COUNT),
                "BENCH_TARGET2": "Query",
                "BENCH_BODY2": _j(shard_sum),
                "BENCH_EVERY": "10",
            },
            [("UpdateItem", sample(shard_add, 0)), ("Query", _j(shard_sum))],
        ),
    }
