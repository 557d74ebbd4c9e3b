"""The console's live feed (``GET /console/events``): every commit by any
client reaches an open page within a second, coalesced per item, in commit
order, with the exact final value; a page that resumes gets what it missed
or a resync; a page that does not read never slows the writers."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from console_server import EventStream, get, serving
from tallytest import TallyServer

KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}


@pytest.fixture(scope="module")
def server() -> Iterator[TallyServer]:
    with serving() as server:
        client = server.client()
        for name in ("videos", "others"):
            client.create_table(
                TableName=name, BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                      {"AttributeName": "SK", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                           {"AttributeName": "SK", "KeyType": "RANGE"}])
        yield server


def add(client: Any, table: str = "videos", key: dict[str, Any] = KEY, n: int = 1) -> Any:
    return client.update_item(
        TableName=table, Key=key, UpdateExpression="ADD play_count :n",
        ExpressionAttributeValues={":n": {"N": str(n)}}, ReturnValues="UPDATED_NEW")


def value_of(change: dict[str, Any]) -> int:
    return int(change["new"]["play_count"]["N"])


def test_the_stream_is_server_sent_events(server: TallyServer) -> None:
    stream = EventStream(server)
    try:
        assert stream.status == 200
        assert "Content-Type: text/event-stream" in stream.head
        assert "Content-Length" not in stream.head
        hello = stream.next()
        assert hello.name == "hello" and isinstance(hello.data["seq"], int)
    finally:
        stream.close()


def test_increments_from_other_clients_arrive_coalesced_and_exact(server: TallyServer) -> None:
    client = server.client()
    start = int(add(client)["Attributes"]["play_count"]["N"])
    time.sleep(0.3)  # framed before this page connects
    stream = EventStream(server, "?tables=videos")
    try:
        stream.until("hello")
        def writer(client: Any) -> None:
            for _ in range(50):
                add(client)

        threads = [threading.Thread(target=writer, args=(server.client(),)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seen: list[int] = []
        seqs: list[int] = []
        while not seen or seen[-1] < start + 200:
            event = stream.until("changes")
            seqs.append(int(event.id or 0))
            (change,) = event.data["changes"]
            assert change["table"] == "videos" and change["keys"] == KEY
            assert change["event"] == "MODIFY"
            seen.append(value_of(change))
        assert seen[-1] == start + 200  # the exact final value
        assert seen == sorted(seen) and seqs == sorted(seqs)  # commit order
        assert len(seen) < 200  # coalesced: a frame per 100 ms, not per commit
    finally:
        stream.close()


def test_a_page_sees_only_the_tables_it_asked_for(server: TallyServer) -> None:
    client = server.client()
    stream = EventStream(server, "?tables=others")
    try:
        stream.until("hello")
        add(client, "videos")
        other = {"PK": {"S": "o"}, "SK": {"S": "1"}}
        add(client, "others", other)
        event = stream.until("changes")
        assert [c["table"] for c in event.data["changes"]] == ["others"]
    finally:
        stream.close()


def test_inserts_and_removes_are_named(server: TallyServer) -> None:
    client = server.client()
    key = {"PK": {"S": "fresh"}, "SK": {"S": "1"}}
    stream = EventStream(server, "?tables=videos")
    try:
        stream.until("hello")
        client.put_item(TableName="videos", Item={**key, "v": {"S": "x"}})
        (change,) = stream.until("changes").data["changes"]
        assert (change["event"], change["new"]["v"]) == ("INSERT", {"S": "x"})
        client.delete_item(TableName="videos", Key=key)
        (change,) = stream.until("changes").data["changes"]
        assert (change["event"], change["new"]) == ("REMOVE", None)
    finally:
        stream.close()


def test_a_resumed_page_gets_what_it_missed(server: TallyServer) -> None:
    client = server.client()
    other_tab = EventStream(server, "?tables=others")  # the ring lives while a page is open
    stream = EventStream(server, "?tables=videos")
    try:
        other_tab.until("hello")
        last = stream.until("hello").data["seq"]
        add(client)
        first = stream.until("changes")
        stream.close()
        assert first.id is not None
        add(client, n=5)
        time.sleep(0.3)  # framed while the page is away
        resumed = EventStream(server, "?tables=videos", {"Last-Event-ID": first.id})
        try:
            resumed.until("hello")
            replayed = resumed.next()
            assert replayed.name == "changes"
            assert int(replayed.id or 0) > int(first.id) > last
            assert value_of(replayed.data["changes"][-1]) == value_of(
                first.data["changes"][-1]) + 5
        finally:
            resumed.close()
        gone = EventStream(server, "", {"Last-Event-ID": "0"})
        try:
            gone.until("hello")
            assert gone.next().name == "resync"  # changes from before the feed had listeners
        finally:
            gone.close()
    finally:
        other_tab.close()


def test_the_ring_is_dropped_when_the_last_page_leaves(server: TallyServer) -> None:
    client = server.client()
    stream = EventStream(server, "?tables=videos")
    stream.until("hello")
    add(client)
    first = stream.until("changes")
    stream.close()  # the only page: what it could replay is forgotten
    time.sleep(0.5)  # (the server sees the close in its own time)
    add(client, n=5)
    time.sleep(0.3)  # framed while no page is open
    resumed = EventStream(server, "?tables=videos", {"Last-Event-ID": first.id or ""})
    try:
        resumed.until("hello")
        assert resumed.next().name == "resync"
    finally:
        resumed.close()


def test_large_images_come_as_references_and_the_ring_holds_few_bytes(
    server: TallyServer
) -> None:
    client = server.client()
    big = {"PK": {"S": "ref"}, "SK": {"S": "1"}}
    holder = EventStream(server, "?tables=others")  # keeps the ring
    stream = EventStream(server, "?tables=videos")
    try:
        holder.until("hello")
        last = stream.until("hello").data["seq"]
        for i in range(300):  # 300 commits of a 100 KB item: 30 MB of images
            client.put_item(TableName="videos", Item={**big, "n": {"N": str(i)},
                                                     "blob": {"S": "x" * 100_000}})
        marker = {"PK": {"S": "ref"}, "SK": {"S": "marker"}}
        client.put_item(TableName="videos", Item=marker)
        refs = 0
        while True:
            changes = stream.until("changes").data["changes"]
            for change in changes:
                if change["keys"] == big:
                    assert change.get("ref") is True and "new" not in change
                    refs += 1
            if any(change["keys"] == marker for change in changes):
                break
        assert refs > 0
        # a page resuming from before them all: the ring (2 MB) no longer has them
        resumed = EventStream(server, "?tables=videos", {"Last-Event-ID": str(last)})
        try:
            resumed.until("hello")
            first = resumed.next()
            assert first.name in ("resync", "changes")
            if first.name == "changes":  # what the ring kept: references, small
                assert all(c.get("ref") for c in first.data["changes"])
        finally:
            resumed.close()
    finally:
        stream.close()
        holder.close()


def test_a_page_that_does_not_read_never_slows_the_writers(server: TallyServer) -> None:
    client = server.client()
    big = {"PK": {"S": "big"}, "SK": {"S": "1"}}
    client.put_item(TableName="videos", Item={**big, "blob": {"S": "x" * 300_000}})
    stalled = EventStream(server, "?tables=videos", read_size=1)
    stalled.sock.setsockopt(__import__("socket").SOL_SOCKET,
                            __import__("socket").SO_RCVBUF, 4096)
    try:
        # A writer held up by the stalled page would hang: each write is one
        # attempt with a read timeout (the client's), so it would fail here.
        for i in range(40):  # ~12 MB of frames the page never reads
            client.update_item(TableName="videos", Key=big, UpdateExpression="SET n = :n",
                               ExpressionAttributeValues={":n": {"N": str(i)}})
        assert get(server, "/console/api/info").status == 200  # the server still answers
    finally:
        stalled.close()
    reader = EventStream(server, "?tables=videos")
    try:
        reader.until("hello")
        client.update_item(TableName="videos", Key=big, UpdateExpression="SET n = :n",
                           ExpressionAttributeValues={":n": {"N": "100"}})
        change = reader.until("changes").data["changes"][0]
        assert change["keys"] == big and change["ref"] is True  # (300 KB: read by the page)
    finally:
        reader.close()


def test_hot_keys_arrive_every_second(server: TallyServer) -> None:
    client = server.client()
    hot = {"PK": {"S": "hot-keys"}, "SK": {"S": "1"}}
    stream = EventStream(server)
    try:
        stream.until("hello")
        for _ in range(30):
            add(client, key=hot)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            keys = stream.until("hotkeys").data["keys"]
            writes = [entry["writes"] for entry in keys]
            assert writes == sorted(writes, reverse=True)  # busiest first
            mine = [entry for entry in keys if entry["keys"] == hot]
            if mine and mine[0]["writes"] == 30:
                assert len(mine[0]["spark"]) == 60 and sum(mine[0]["spark"]) == 30
                return
        raise AssertionError("the hammered item never reached the hot keys")
    finally:
        stream.close()


def rss(server: TallyServer) -> int:
    assert server.proc is not None
    with open(f"/proc/{server.proc.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_one_open_page_holds_little_memory_however_large_the_items() -> None:
    # 25 items of 20 KB rewritten 200 times while a page watches: its frames
    # (and the ring a resuming page would be replayed from) hold references,
    # not 100 MB of images
    with serving() as server:
        client = server.client()
        client.create_table(
            TableName="wide", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
        stream = EventStream(server)
        stream.until("hello")
        stop = threading.Event()

        def read() -> None:  # the page reads what it is sent
            stream.sock.settimeout(0.5)
            while not stop.is_set():
                try:
                    if not stream.sock.recv(1 << 20):
                        return
                except TimeoutError:
                    pass

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            before = rss(server)
            for round_ in range(200):
                client.batch_write_item(RequestItems={"wide": [
                    {"PutRequest": {"Item": {"id": {"S": f"i{n}"}, "round": {"N": str(round_)},
                                             "blob": {"S": "b" * 20_000}}}}
                    for n in range(25)]})
            grown = rss(server) - before
            assert grown < 40 << 20, grown
        finally:
            stop.set()
            reader.join(5)
            stream.close()
