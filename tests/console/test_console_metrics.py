"""The operational view's numbers and the counters view, in bounded memory:
per table and second, requests by operation, units, throttles, p50/p99;
the attributes that moved most. Over a real server, while a page listens:
the ``metrics`` and ``counters`` events, and answers unchanged."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from console_server import EventStream, serving
from tallytest import TallyServer

from tallydb.console import counters as counters_module
from tallydb.console import metrics as metrics_module
from tallydb.console.counters import Counters
from tallydb.console.metrics import OTHER, Metrics
from tallydb.engine.feed import Change


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_second_is_summed_per_table_and_operation_with_its_percentiles() -> None:
    clock = Clock()
    metrics = Metrics(clock)
    for i in range(100):
        metrics.record("videos", "UpdateItem", (i + 1) / 1000, write=1.0)
    metrics.record("videos", "GetItem", 0.002, read=0.5)
    metrics.record("videos", "UpdateItem", 0.001, throttled=True)
    assert metrics.closed() == []  # the second has not ended
    clock.now += 1
    [(second, tables)] = metrics.closed()
    assert second == 1_000_000
    numbers = tables["videos"]
    assert numbers["operations"] == {"UpdateItem": 101, "GetItem": 1}
    assert (numbers["read"], numbers["write"], numbers["throttled"]) == (0.5, 100.0, 1)
    assert 48 <= numbers["p50"] <= 53  # ms, within a bucket's 5 %
    assert 97 <= numbers["p99"] <= 104
    assert metrics.closed() == []  # given once
    assert len(metrics.window()) == 1


class Answered:
    """An answered request as the server hands it to the metrics."""

    def __init__(self, operation: str, observed: Any, started: float | None = None,
                 request: Any = None) -> None:
        self.operation = operation
        self.observed = observed
        if started is not None:
            self.started = started
        self.request = request


def test_a_batch_of_answers_is_counted_by_table_with_units_and_throttles() -> None:
    clock = Clock()
    metrics = Metrics(clock)
    now = 50.0
    metrics.record_answers([
        Answered("UpdateItem", {"TableName": "videos", "CapacityUnits": 1.0}, now - 0.002),
        Answered("GetItem", {"TableName": "videos", "CapacityUnits": 0.5}, now - 0.004),
        Answered("UpdateItem", ("videos", True), now - 0.001),  # throttled
        Answered("DescribeTable", ("videos", False), now - 0.001),
        Answered("TransactWriteItems", [
            {"TableName": "videos", "CapacityUnits": 4.0, "WriteCapacityUnits": 4.0},
            {"TableName": "users", "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}],
            now - 0.003),
        Answered("PutItem", {"TableName": "users", "CapacityUnits": 3.0, "Table": {
            "CapacityUnits": 1.0}}, now - 0.003),  # INDEXES: the rest on indexes
        Answered("GetItem", {"TableName": "users", "CapacityUnits": 1.0}),  # not timed
        Answered("DeleteItem", ("users", 2.0), now - 0.003),  # an engine's units report
    ], now)
    clock.now += 1
    [(_, tables)] = metrics.closed()
    videos, users = tables["videos"], tables["users"]
    assert videos["operations"] == {"UpdateItem": 2, "GetItem": 1, "DescribeTable": 1,
                                    "TransactWriteItems": 1}
    assert (videos["read"], videos["write"], videos["throttled"]) == (0.5, 5.0, 1)
    assert 0.95 <= videos["p50"] <= 2.1 and 3.8 <= videos["p99"] <= 4.2
    assert users["operations"] == {"TransactWriteItems": 1, "PutItem": 1, "GetItem": 1,
                                   "DeleteItem": 1}
    assert (users["read"], users["write"]) == (1.0, 7.0)
    assert 2.85 <= users["p50"] <= 3.15  # the untimed GetItem is not in it


def test_a_busy_second_is_timed_from_a_sample_and_counted_exactly() -> None:
    clock = Clock()
    metrics = Metrics(clock)
    now = 100.0
    busy = metrics_module.TIMED_EXACTLY * 10
    # latencies 0.1 ms to 10 ms, in a shuffled but fixed order
    latencies = [0.0001 + 0.0099 * ((i * 7919) % busy) / busy for i in range(busy)]
    for start in range(0, busy, 64):
        metrics.record_answers([
            Answered("UpdateItem", {"TableName": "videos", "CapacityUnits": 1.0}, now - latency)
            for latency in latencies[start:start + 64]], now)
    clock.now += 1
    [(_, tables)] = metrics.closed()
    videos = tables["videos"]
    assert videos["operations"] == {"UpdateItem": busy}
    assert videos["write"] == busy
    ordered = sorted(latencies)
    for name, fraction in (("p50", 0.5), ("p99", 0.99)):
        exact = ordered[int(fraction * busy)] * 1000
        assert exact * 0.93 <= videos[name] <= exact * 1.07, (name, videos[name], exact)


def test_answers_sharing_one_units_pair_are_each_counted() -> None:
    """An engine's units report gives a hot counter's writes one object
    (a pair, or the table's name for one unit): each answer carrying it
    still counts once, with its units and its own operation, whatever came
    between, and is timed."""
    clock = Clock()
    metrics = Metrics(clock)
    now = 10.0
    hot, other, big = ("videos", 1.0), ("users", 1.0), ("videos", 3.0)
    answers = [Answered("UpdateItem", hot, now - 0.001) for _ in range(5)]
    answers += [Answered("PutItem", hot, now - 0.001), Answered("UpdateItem", other, now - 0.001),
                Answered("UpdateItem", hot, now - 0.001),
                Answered("UpdateItem", "users", now - 0.001),  # one unit, as a name
                Answered("UpdateItem", "users", now - 0.001),
                Answered("UpdateItem", ("videos", True), now - 0.001),  # throttled
                Answered("UpdateItem", hot), Answered("DeleteItem", big, now - 0.001),
                Answered("GetItem", {"TableName": "videos", "CapacityUnits": 0.5}, now - 0.001),
                Answered("UpdateItem", hot, now - 0.001)]
    metrics.record_answers(answers, now)
    clock.now += 1
    [(_, tables)] = metrics.closed()
    videos, users = tables["videos"], tables["users"]
    assert videos["operations"] == {"UpdateItem": 9, "PutItem": 1, "DeleteItem": 1,
                                    "GetItem": 1}
    assert (videos["read"], videos["write"], videos["throttled"]) == (0.5, 12.0, 1)
    assert users["operations"] == {"UpdateItem": 3} and users["write"] == 3.0
    assert 0.95 <= users["p50"] <= 1.05 and 0.95 <= videos["p99"] <= 1.05


def test_a_second_ending_in_the_middle_of_a_batch_loses_nothing() -> None:
    """The batch is counted in the second it began in, even when an
    uncommon answer among it reads the clock after the second ended."""

    class Ticking(Clock):
        def __call__(self) -> float:
            now = self.now
            self.now += 0.6  # the second ends between two reads
            return now

    metrics = Metrics(Ticking())
    now = 10.0
    pair = ("videos", 1.0)
    metrics.record_answers([
        Answered("UpdateItem", pair, now - 0.001),
        Answered("DescribeTable", ("videos", False), now - 0.001),
        Answered("UpdateItem", pair, now - 0.001),
        Answered("TransactWriteItems", [
            {"TableName": "videos", "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}],
            now - 0.001),
        Answered("UpdateItem", pair, now - 0.001)], now)
    counted: dict[str, int] = {}
    write = 0.0
    for _ in range(3):
        for _, tables in metrics.closed():
            for name, count in tables["videos"]["operations"].items():
                counted[name] = counted.get(name, 0) + count
            write += tables["videos"]["write"]
    assert counted == {"UpdateItem": 3, "DescribeTable": 1, "TransactWriteItems": 1}
    assert write == 5.0


def test_memory_is_bounded_by_tables_and_window() -> None:
    clock = Clock()
    metrics = Metrics(clock)
    for _ in range(metrics_module.WINDOW + 50):
        for table in range(metrics_module.TABLES + 10):
            metrics.record(f"t{table}", "PutItem", 0.001)
        clock.now += 1
    window = metrics.window()
    assert len(window) == metrics_module.WINDOW
    assert all(len(tables) == metrics_module.TABLES + 1 for _, tables in window)
    assert window[-1][1][OTHER]["operations"] == {"PutItem": 10}


class _Table:
    name = "videos"
    description: ClassVar[dict[str, Any]] = {
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}


def change(pk: str, old: int | None, new: int) -> Change:
    def image(n: int) -> dict[str, Any]:
        return {"PK": {"S": pk}, "plays": {"N": str(n)}, "title": {"S": "x"}}

    return Change(_Table(), pk.encode(), b"", None if old is None else image(old), image(new))


def test_the_counters_that_moved_most_come_first_with_their_rates() -> None:
    clock = Clock()
    counters = Counters(clock)
    for second in range(10):
        hot = change("hot", second * 100, (second + 1) * 100)
        slow = change("slow", second, second + 1)
        counters.record([(hot.old, hot, 100), (slow.old, slow, 1)])
        clock.now += 1
    top = counters.top()
    assert [(c["keys"], c["attribute"]) for c in top] == [
        ({"PK": {"S": "hot"}}, "plays"), ({"PK": {"S": "slow"}}, "plays")]
    assert top[0]["value"] == "1000" and top[0]["commits"] == 1000
    assert top[0]["rate"] == round(1000 / counters_module.WINDOW, 3)
    clock.now += counters_module.WINDOW + 1
    assert counters.top() == []  # nothing moved in the last minute


def test_the_counters_sketch_is_bounded() -> None:
    clock = Clock()
    counters = Counters(clock)
    for second in range(3):
        counters.record([(None, change(f"k{second}-{i}", None, 1), 1) for i in range(10_000)])
        assert len(counters._current) <= counters_module.SECOND_KEYS
        clock.now += 1
    counters.top()
    assert len(counters._tracked) <= counters_module.TRACKED


@pytest.fixture(scope="module")
def server() -> Iterator[TallyServer]:
    with serving() as server:
        server.client().create_table(
            TableName="ops", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}])
        yield server


def until(stream: EventStream, name: str, found: Any, timeout: float = 10.0) -> Any:
    """The first ``name`` event whose data ``found`` accepts."""
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = stream.until(name, timeout)
        if found(event.data):
            return event.data
    raise AssertionError(f"no {name} event as expected")


def test_a_listening_page_gets_metrics_and_counters_and_answers_do_not_change(
        server: TallyServer) -> None:
    client = server.client()
    stream = EventStream(server, "?tables=ops")
    try:
        until(stream, "metrics", lambda data: data["whole"])
        slowest = 0.0  # ms: the longest round trip the client saw
        for _ in range(20):
            sent = time.perf_counter()
            answer = client.update_item(
                TableName="ops", Key={"PK": {"S": "a"}}, UpdateExpression="ADD plays :one",
                ExpressionAttributeValues={":one": {"N": "1"}})
            slowest = max(slowest, (time.perf_counter() - sent) * 1000)
            assert "ConsumedCapacity" not in answer  # not asked, not answered
        asked = client.get_item(TableName="ops", Key={"PK": {"S": "a"}},
                                ReturnConsumedCapacity="TOTAL")
        assert asked["ConsumedCapacity"] == {"TableName": "ops", "CapacityUnits": 0.5}

        def seen(data: dict[str, Any]) -> bool:
            return any("ops" in s["tables"] for s in data["seconds"])

        totals: dict[str, float] = {"UpdateItem": 0, "GetItem": 0, "write": 0.0, "read": 0.0}
        while totals["UpdateItem"] < 20 or totals["GetItem"] < 1:
            data = until(stream, "metrics", seen)
            for second in data["seconds"]:
                ops = second["tables"].get("ops")
                if ops:
                    for name in ("UpdateItem", "GetItem"):
                        totals[name] += ops["operations"].get(name, 0)
                    totals["write"] += ops["write"]
                    totals["read"] += ops["read"]
                    assert ops["p50"] is not None and ops["p99"] >= ops["p50"]
                    # the server's time is within the client's round trip (to a
                    # bucket's width), and is timed finer than the first bucket
                    # (a clock of whole milliseconds reads most requests as 0)
                    if "GetItem" not in ops["operations"]:
                        assert ops["p50"] > metrics_module.SMALLEST * 1000
                        assert ops["p99"] <= slowest * metrics_module.RATIO
        assert totals == {"UpdateItem": 20, "GetItem": 1, "write": 20.0, "read": 0.5}
        counters = until(stream, "counters", lambda data: bool(data["counters"]))
        assert counters["counters"][0]["attribute"] == "plays"
        assert counters["counters"][0]["value"] == "20"
    finally:
        stream.close()


def test_item_writes_are_counted_with_their_index_units_whether_asked_or_not(
        server: TallyServer) -> None:
    client = server.client()
    client.create_table(
        TableName="indexed", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "G", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "byG", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}]}])
    stream = EventStream(server, "?tables=indexed")
    try:
        until(stream, "metrics", lambda data: data["whole"])
        big = "x" * 1500  # a 2 KB item: two units on the table and two on the index
        put = client.put_item(TableName="indexed", Item={
            "PK": {"S": "a"}, "G": {"S": "g"}, "v": {"S": big}})
        assert "ConsumedCapacity" not in put
        update = client.update_item(  # the larger of before and after, on both
            TableName="indexed", Key={"PK": {"S": "a"}}, UpdateExpression="REMOVE v")
        assert "ConsumedCapacity" not in update
        asked = client.update_item(
            TableName="indexed", Key={"PK": {"S": "b"}}, UpdateExpression="SET G = :g",
            ExpressionAttributeValues={":g": {"S": "h"}}, ReturnConsumedCapacity="INDEXES")
        assert asked["ConsumedCapacity"] == {
            "TableName": "indexed", "CapacityUnits": 2.0, "Table": {"CapacityUnits": 1.0},
            "GlobalSecondaryIndexes": {"byG": {"CapacityUnits": 1.0}}}
        deleted = client.delete_item(TableName="indexed", Key={"PK": {"S": "a"}},
                                     ReturnConsumedCapacity="TOTAL")
        assert deleted["ConsumedCapacity"] == {"TableName": "indexed", "CapacityUnits": 2.0}
        missing = client.delete_item(TableName="indexed", Key={"PK": {"S": "none"}})
        assert "ConsumedCapacity" not in missing
        with pytest.raises(client.exceptions.ConditionalCheckFailedException):
            client.put_item(TableName="indexed", Item={"PK": {"S": "b"}},
                            ConditionExpression="attribute_not_exists(PK)")

        operations: dict[str, int] = {}
        write = 0.0
        while sum(operations.get(name, 0) for name in ("PutItem", "UpdateItem", "DeleteItem")
                  ) < 6:
            data = until(stream, "metrics", lambda data: any(
                "indexed" in s["tables"] for s in data["seconds"]))
            for second in data["seconds"]:
                numbers = second["tables"].get("indexed")
                if numbers:
                    for name, count in numbers["operations"].items():
                        operations[name] = operations.get(name, 0) + count
                    write += numbers["write"]
        operations.pop("CreateTable", None)  # (when a page listened already)
        assert operations == {"PutItem": 2, "UpdateItem": 2, "DeleteItem": 2}
        # put 2 + 2, update 2 (the larger image) + 1 (its entry rewritten smaller),
        # asked 1 + 1, delete 1 + 1, the missing item 1, the failed put nothing
        assert write == 12.0
    finally:
        stream.close()
