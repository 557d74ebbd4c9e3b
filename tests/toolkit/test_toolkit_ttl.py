"""TTL: expired items are swept, by the embedded engine as by ``tallydb serve``."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

import tallydb
from tallydb.toolkit.counters import COMPANION_TABLE


def _wait_until_gone(table: tallydb.Table, key: dict[str, str], seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if table.get(key, consistent=True) is None:
            return True
        time.sleep(0.1)
    return False


def test_expired_items_are_swept(store: str, make_table: Callable[..., tallydb.Table]) -> None:
    if store == "moto":
        pytest.skip("moto does not sweep expired items (tests/toolkit/MOTO.md)")
    table = make_table("ttl", ttl_attribute="expires_at")
    now = int(time.time())
    table.put({"PK": "old", "expires_at": now - 60})
    table.put({"PK": "new", "expires_at": now + 3600})
    table.put({"PK": "none"})
    assert _wait_until_gone(table, {"PK": "old"})
    assert table.get({"PK": "new"}, consistent=True) is not None
    assert table.get({"PK": "none"}, consistent=True) is not None


def test_idempotency_records_are_kept_apart_and_expire_in_an_embedded_store() -> None:
    with tallydb.connect(in_memory=True) as db:
        table = db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
        plays = tallydb.Counter(table, {"PK": "v", "SK": "total"}, "plays", retention=1)
        plays.add(1, idempotency_key="once")
        assert table.count() == 1  # the counter alone: its record is elsewhere
        companion = db.table(COMPANION_TABLE)
        assert companion.count() == 1
        deadline = time.monotonic() + 60
        while companion.count() > 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert companion.count() == 0  # TTL, turned on by the toolkit, swept it
        assert plays.value() == 1
