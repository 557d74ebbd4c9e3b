"""The table the storage tests write (``tally``: hash key PK, S), and
reading it back the way a restarted server would."""

from __future__ import annotations

from pathlib import Path

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store

TABLE = {
    "TableName": "tally",
    "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
}


def values_on_disk(path: Path) -> dict[str, str]:
    """Every item's ``n`` ("-" if it has none), as a fresh store on ``path``
    reads it (replaying the item log)."""
    engine = Engine(Store(path))
    try:
        items = engine.call("Scan", {"TableName": "tally"})["Items"]
    finally:
        engine.close()
    return {i["PK"]["S"]: i.get("n", {}).get("N", "-") for i in items}
