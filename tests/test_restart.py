"""Acknowledged writes survive the server stopping: cleanly, or by ``kill -9``.

Stopping the server and starting it on the same data directory finds every
acknowledged counter value; and, as the README promises,
every ``--sync`` level survives ``kill -9`` of the server with nothing
acknowledged lost (the storage engine commits before it answers).
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

import pytest
from botocore.exceptions import BotoCoreError, ClientError
from tallytest import TallyServer, create_table

KEY = {"id": {"S": "counter"}}
TABLE = "restart-counters"


def create_counter_table(ddb: Any) -> None:
    create_table(ddb, TABLE, ("id", "S"))


def add_one(ddb: Any, key: dict[str, Any] = KEY) -> int:
    response = ddb.update_item(
        TableName=TABLE, Key=key, UpdateExpression="ADD n :one",
        ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValues="UPDATED_NEW",
    )
    return int(response["Attributes"]["n"]["N"])


def stored(ddb: Any, key: dict[str, Any] = KEY) -> int | None:
    item = ddb.get_item(TableName=TABLE, Key=key, ConsistentRead=True).get("Item")
    return None if item is None else int(item["n"]["N"])


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT"])
def test_counters_survive_a_clean_stop(tallydb_server_factory: Any, how: str) -> None:
    server: TallyServer = tallydb_server_factory()
    ddb = server.client()
    create_counter_table(ddb)
    keys = [{"id": {"S": f"counter-{i}"}} for i in range(5)]
    acknowledged = {}
    for i, key in enumerate(keys):
        for _ in range(i + 1):
            acknowledged[i] = add_one(ddb, key)

    code = server.stop(getattr(signal, how))
    assert code in (0, -getattr(signal, how)), f"exit status {code}:\n{server.log()}"

    server.start()
    ddb = server.client()
    assert [stored(ddb, key) for key in keys] == [acknowledged[i] for i in range(5)]
    assert TABLE in ddb.list_tables()["TableNames"]
    # The table's definition came back too, and it keeps counting.
    assert ddb.describe_table(TableName=TABLE)["Table"]["KeySchema"] == [
        {"AttributeName": "id", "KeyType": "HASH"}]
    assert add_one(ddb, keys[0]) == 2


@pytest.mark.timeout(120)
@pytest.mark.parametrize("sync", ["off", "normal", "full"])
def test_acknowledged_increments_survive_kill_9(tallydb_server_factory: Any, sync: str) -> None:
    server: TallyServer = tallydb_server_factory(sync=sync)
    ddb = server.client()
    create_counter_table(ddb)

    # Quiet case: 50 sequential acknowledged increments, then kill -9.
    quiet = {"id": {"S": "quiet"}}
    for _ in range(50):
        last_quiet = add_one(ddb, quiet)
    assert last_quiet == 50

    # Busy case: 4 writers still sending when the server is killed. Every
    # value a writer saw acknowledged must be there after the restart; at most
    # the calls in flight (sent, never answered) may also have landed.
    acknowledged: list[int] = []
    attempts = [0]
    lock = threading.Lock()
    stop = threading.Event()

    def writer() -> None:
        client = server.client()
        while not stop.is_set():
            with lock:
                attempts[0] += 1
            try:
                value = add_one(client)
            except (BotoCoreError, ClientError):
                return  # the server is gone
            with lock:
                acknowledged.append(value)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 20
    while len(acknowledged) < 200 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.kill()
    stop.set()
    for thread in threads:
        thread.join(30)
    assert len(acknowledged) >= 200, f"only {len(acknowledged)} increments before the kill"

    server.start()
    ddb = server.client()
    assert stored(ddb, quiet) == 50
    after = stored(ddb, KEY)
    assert after is not None
    assert max(acknowledged) <= after <= attempts[0]
    # Each acknowledged call saw its own value (no two read the same state).
    assert len(set(acknowledged)) == len(acknowledged)
    assert add_one(ddb) == after + 1


def test_kill_9_right_after_create_table_keeps_the_table(tallydb_server_factory: Any) -> None:
    server: TallyServer = tallydb_server_factory()
    ddb = server.client()
    create_counter_table(ddb)
    server.kill()
    server.start()
    ddb = server.client()
    assert ddb.describe_table(TableName=TABLE)["Table"]["TableStatus"] == "ACTIVE"
    assert stored(ddb) is None
    assert add_one(ddb) == 1


def test_in_memory_server_starts_empty_each_time(tallydb_server_factory: Any) -> None:
    # --in-memory: "nothing survives the process".
    server: TallyServer = tallydb_server_factory(in_memory=True)
    ddb = server.client()
    create_counter_table(ddb)
    assert add_one(ddb) == 1
    server.stop()
    server.start()
    assert TABLE not in server.client().list_tables()["TableNames"]


def test_inprocess_engine_reopened_on_the_same_directory(tmp_path: Any) -> None:
    # The in-process engine keeps its data the same way: close, reopen, count on.
    from tallydb.engine.api import Engine
    from tallydb.engine.storage import Store
    from tallydb.toolkit import inprocess

    engine = Engine(Store(tmp_path))
    ddb = inprocess.client(engine)
    create_counter_table(ddb)
    for _ in range(10):
        add_one(ddb)
    engine.close()

    engine = Engine(Store(tmp_path))
    try:
        ddb = inprocess.client(engine)
        assert stored(ddb) == 10
        assert add_one(ddb) == 11
    finally:
        engine.close()
