"""``tallydb restore TABLE --to-time ... --as NEW``: RestoreTableToPointInTime
from a shell, against the embedded engine and a server."""

from __future__ import annotations

import math
import time

from cli_store import Store

KEY = '{"PK": "VID#9f3a", "SK": "STATS#TOTAL"}'


def test_restore_to_a_second_and_to_the_latest(store: Store) -> None:
    table = store.table()
    with store.connect() as db:
        db.client.update_continuous_backups(TableName=table, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
    store.ok("counter", "add", table, KEY, "play_count", "10")
    moment = math.floor(time.time()) + 1
    time.sleep(moment - time.time() + 0.01)
    store.ok("counter", "add", table, KEY, "play_count", "5")
    out = store.ok("restore", table, "--to-time", str(moment), "--as", f"{table}-then")
    assert out.startswith(f"restored {table} as of ") and out.endswith("-then (1 items)\n")
    assert store.ok("counter", "get", f"{table}-then", KEY, "play_count") == "10\n"
    store.ok("restore", table, "--to-time", "latest", "--as", f"{table}-now")
    assert store.ok("counter", "get", f"{table}-now", KEY, "play_count") == "15\n"


def test_create_table_turns_recovery_on_and_exist_ok_turns_it_on_later(store: Store) -> None:
    fresh = f"{store.table()}-new"
    out = store.ok("create-table", fresh, "--hash-key", "PK", "--point-in-time-recovery")
    assert out == f"table {fresh}: key PK (S); PAY_PER_REQUEST; point-in-time recovery on\n"
    table = store.table()
    assert "recovery" not in store.ok("create-table", table, "--hash-key", "PK",
                                      "--range-key", "SK", "--exist-ok")
    assert store.run("restore", table, "--to-time", "latest", "--as", f"{table}-x"
                     ).exit_code == 1
    out = store.ok("create-table", table, "--hash-key", "PK", "--range-key", "SK",
                   "--point-in-time-recovery", "--exist-ok")
    assert out.endswith("; PAY_PER_REQUEST; point-in-time recovery on\n")
    store.ok("counter", "add", table, KEY, "play_count", "3")
    store.ok("restore", table, "--to-time", "latest", "--as", f"{table}-copy")
    assert store.ok("counter", "get", f"{table}-copy", KEY, "play_count") == "3\n"


def test_a_table_without_recovery_is_refused_in_one_line(store: Store) -> None:
    table = store.table()
    result = store.run("restore", table, "--to-time", "10m ago", "--as", f"{table}-x")
    assert result.exit_code == 1
    assert result.stderr.startswith("tallydb: PointInTimeRecoveryUnavailableException: ")


def test_a_time_that_is_not_one_is_a_usage_error(store: Store) -> None:
    result = store.run("restore", "videos", "--to-time", "yesterday-ish", "--as", "x")
    assert result.exit_code == 2
    assert "is not a time" in result.stderr
