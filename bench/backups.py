"""CreateBackup and RestoreTableFromBackup of a 100,000-item table with a
global secondary index, embedded (no HTTP), wall and CPU time.

    .venv/bin/python -m bench.backups            # 100,000 items, 3 rounds
    .venv/bin/python -m bench.backups --items 10000 --rounds 5
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from typing import Any

from tallydb.engine.api import Engine
from tallydb.engine.storage import Store


def _timed(engine: Engine, operation: str, request: dict[str, Any]
           ) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = engine.call(operation, request)
    return result, (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.backups", description=__doc__.split("\n")[0])
    p.add_argument("--items", type=int, default=100_000)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tallydb-bench-backups-") as folder:
        engine = Engine(Store(folder))
        engine.call("CreateTable", {
            "TableName": "orders", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "customer", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "GlobalSecondaryIndexes": [{
                "IndexName": "byCustomer",
                "KeySchema": [{"AttributeName": "customer", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}]})
        for start in range(0, args.items, 25):
            engine.call("BatchWriteItem", {"RequestItems": {"orders": [
                {"PutRequest": {"Item": {"pk": {"S": f"o{n}"}, "customer": {"S": f"c{n % 97}"},
                                         "total": {"N": str(n)}}}}
                for n in range(start, min(start + 25, args.items))]}})
        print(f"{args.items:,} items, one GSI (ALL); ms wall / ms CPU")
        for r in range(args.rounds):
            made, wall_b, cpu_b = _timed(
                engine, "CreateBackup", {"TableName": "orders", "BackupName": "fixture"})
            arn = made["BackupDetails"]["BackupArn"]
            _, wall_r, cpu_r = _timed(engine, "RestoreTableFromBackup",
                                      {"TargetTableName": f"copy{r}", "BackupArn": arn})
            print(f"  round {r + 1}: CreateBackup {wall_b:.0f} / {cpu_b:.0f}, "
                  f"RestoreTableFromBackup {wall_r:.0f} / {cpu_r:.0f}")
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
