"""The bytes of DynamoDB's Kinesis records, pinned: each record's JSON
(its members, their order and values), its partition key, and the records'
order, for INSERTs, MODIFYs and REMOVEs of NEW_AND_OLD_IMAGES rows (a
counter's run of updates, an item's attribute added and removed, another
item's changes in between, a removal by TTL), at either
ApproximateCreationDateTimePrecision; and the PutRecords body that carries
them (each record's data as base64, with its partition key, in order)."""

from __future__ import annotations

import base64
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest

from tallydb.engine.api._kinesis import changes_of, records_of
from tallydb.engine.api._stream_records import SAME_AS_LAST

TABLE = ("orders.v2", ("PK", "SK"))
REGION = "eu-west-1"
START = 1_795_964_641_319_737_140  # nanoseconds since 1970


def _rows() -> list[bytes]:
    """The changes, as the outbox stores them: two rows (JSON arrays of
    [sequence number, event, keys, new image, old image, by TTL])."""
    first = {"PK": {"S": "cust#1"}, "SK": {"N": "7"}, "n": {"N": "9"},
             "title": {"S": 'café ☕ "quoted" \\ back\nslash'},
             "blob": {"B": "AAEC/w=="}, "flag": {"BOOL": True}, "none": {"NULL": True},
             "tags": {"SS": ["a", "bc"]}, "nums": {"NS": ["1", "2.5"]},
             "list": {"L": [{"N": "1"}, {"S": "x"}, {"M": {"k": {"N": "-0.5"}}}]},
             "map": {"M": {"é": {"S": ""}, "deep": {"M": {"z": {"BOOL": False}}}}}}
    ten = {**first, "n": {"N": "10"}}
    eleven = {**first, "n": {"N": "11"}}
    added = {**eleven, "extra": {"S": "new attribute"}}
    removed = {key: value for key, value in added.items() if key not in ("title", "blob")}
    other = {"PK": {"S": "cust#2"}, "SK": {"N": "1"}, "n": {"N": "100"}}
    other_after = {**other, "n": {"N": "99"}}
    hundred = {**removed, "n": {"N": "100"}}
    seq = [START + i * 1_234_567 for i in range(12)]
    rows = [
        [[seq[0], 0, None, first, None, False],
         [seq[1], 1, None, ten, SAME_AS_LAST, False],
         [seq[2], 1, None, eleven, SAME_AS_LAST, False],
         [seq[3], 1, None, added, SAME_AS_LAST, False],
         [seq[4], 1, None, removed, SAME_AS_LAST, False],
         [seq[5], 0, None, other, None, False]],
        [[seq[6], 1, None, hundred, removed, False],
         [seq[7], 1, None, other_after, other, False],
         [seq[8], 2, None, None, SAME_AS_LAST, True],
         [seq[9], 2, None, None, hundred, False],
         [seq[10], 0, None, first, None, False],
         [seq[11], 1, None, ten, SAME_AS_LAST, False]],
    ]
    return [orjson.dumps(row) for row in rows]


def _made(precision: str) -> list[tuple[str, bytes]]:
    changes: list[Any] = []
    for blob in _rows():
        changes += changes_of(orjson.loads(blob))
    return records_of(changes, *TABLE, REGION, precision)


def _golden() -> dict[str, list[tuple[str, bytes]]]:
    """``record_format.golden``: a line a record, ``precision partition-key data``."""
    found: dict[str, list[tuple[str, bytes]]] = {}
    for line in (Path(__file__).parent / "record_format.golden").read_bytes().splitlines():
        precision, partition, data = line.split(b" ", 2)
        found.setdefault(precision.decode(), []).append((partition.decode(), data))
    return found


@pytest.mark.parametrize("precision", ["MILLISECOND", "MICROSECOND"])
def test_each_record_is_dynamodbs_kinesis_record_to_the_byte(precision: str) -> None:
    expected = _golden()[precision]
    made = _made(precision)
    assert [partition for partition, _ in made] == [partition for partition, _ in expected]
    for (_, data), (_, wanted) in zip(made, expected, strict=True):
        assert data == wanted
    assert len(made) == 12


def test_the_pinned_records_say_what_dynamodb_says_of_each_change() -> None:
    """What the pinned bytes mean: each change's event, images, keys, time,
    eventID and who made it (TTL's removal: DynamoDB's service)."""
    for precision, records in _golden().items():
        parsed = [orjson.loads(data) for _, data in records]
        assert [record["eventName"] for record in parsed] == [
            "INSERT", "MODIFY", "MODIFY", "MODIFY", "MODIFY", "INSERT",
            "MODIFY", "MODIFY", "REMOVE", "REMOVE", "INSERT", "MODIFY"]
        for i, record in enumerate(parsed):
            seq = START + i * 1_234_567
            assert list(record) == ["awsRegion", "eventID", "eventName", "userIdentity",
                                    "recordFormat", "tableName", "dynamodb", "eventSource"]
            assert record["awsRegion"] == REGION and record["tableName"] == "orders.v2"
            low = seq & (2**48 - 1)
            assert record["eventID"] == f"00000000-0000-0000-{seq >> 48:04x}-{low:012x}"
            assert record["userIdentity"] == (
                {"type": "Service", "principalId": "dynamodb.amazonaws.com"} if i == 8 else None)
            dynamodb = record["dynamodb"]
            assert dynamodb["ApproximateCreationDateTimePrecision"] == precision
            assert dynamodb["ApproximateCreationDateTime"] == seq // (
                1000 if precision == "MICROSECOND" else 1_000_000)
            image = dynamodb.get("NewImage", dynamodb.get("OldImage"))
            assert dynamodb["Keys"] == {"PK": image["PK"], "SK": image["SK"]}
        by_item: dict[str, Any] = {}
        for (partition, _), record in zip(records, parsed, strict=True):
            key = record["dynamodb"]["Keys"]["PK"]["S"]
            assert by_item.setdefault(key, partition) == partition  # an item's own key
            if record["eventName"] != "INSERT":  # its old image: the new one before
                assert record["dynamodb"]["OldImage"] == by_item[key + "image"]
            by_item[key + "image"] = record["dynamodb"].get("NewImage")
        assert by_item["cust#1"] != by_item["cust#2"]


class _Kinesis(http.server.BaseHTTPRequestHandler):
    """A Kinesis that keeps each PutRecords body and refuses, in the n-th
    call, the records that ``refusals[n]`` names (by eventID)."""

    bodies: ClassVar[list[bytes]] = []
    refusals: ClassVar[list[set[str]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.bodies.append(body)
        refuse = self.refusals[len(self.bodies) - 1] if len(self.bodies) <= len(
            self.refusals) else set()
        answers = []
        for entry in orjson.loads(body)["Records"]:
            event = orjson.loads(base64.b64decode(entry["Data"]))["eventID"]
            if event in refuse:
                answers.append({"ErrorCode": "ProvisionedThroughputExceededException",
                                "ErrorMessage": "Rate exceeded for shard"})
            else:
                answers.append({"SequenceNumber": "1", "ShardId": "shardId-000000000000"})
        failed = sum("ErrorCode" in answer for answer in answers)
        data = orjson.dumps({"FailedRecordCount": failed, "Records": answers})
        self.send_response(200)
        self.send_header("Content-Type", "application/x-amz-json-1.1")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def kinesis() -> Iterator[str]:
    _Kinesis.bodies = []
    _Kinesis.refusals = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Kinesis)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _job(rows: list[tuple[bytes, frozenset[int]]]) -> Any:
    return ("arn:aws:kinesis:eu-west-1:000000000000:stream/orders", *TABLE, REGION,
            "MILLISECOND", rows)


def _sent(body: bytes) -> list[tuple[str, bytes]]:
    parsed = orjson.loads(body)
    assert list(parsed) == ["StreamName", "Records"] and parsed["StreamName"] == "orders"
    assert all(list(entry) == ["Data", "PartitionKey"] for entry in parsed["Records"])
    return [(entry["PartitionKey"], base64.b64decode(entry["Data"]))
            for entry in parsed["Records"]]


def test_putrecords_carries_each_record_as_base64_with_its_partition_key_in_order(
        kinesis: str) -> None:
    from tallydb.engine.api._kinesis_worker import deliver
    from tallydb.server.connectors import KinesisStreams

    report = deliver(KinesisStreams(kinesis), _job([(blob, frozenset()) for blob in _rows()]))
    assert report == ([None, None], None)
    assert len(_Kinesis.bodies) == 1
    assert _sent(_Kinesis.bodies[0]) == _golden()["MILLISECOND"]


def test_a_refused_record_goes_again_with_its_items_later_records_only(kinesis: str) -> None:
    """Kinesis refuses the second record (cust#1's) and the sixth (cust#2's
    first): the next PutRecords carries those and every later record of
    their items, in order, and none that Kinesis took."""
    from tallydb.engine.api._kinesis_worker import deliver
    from tallydb.server.connectors import KinesisStreams

    expected = _golden()["MILLISECOND"]
    events = [orjson.loads(data)["eventID"] for _, data in expected]
    _Kinesis.refusals = [{events[1], events[5]}]
    report = deliver(KinesisStreams(kinesis), _job([(blob, frozenset()) for blob in _rows()]))
    assert report == ([None, None], None)
    assert [_sent(body) for body in _Kinesis.bodies] == [
        expected, [expected[i] for i in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)]]


def test_records_taken_before_are_not_sent_again(kinesis: str) -> None:
    from tallydb.engine.api._kinesis_worker import deliver
    from tallydb.server.connectors import KinesisStreams

    expected = _golden()["MILLISECOND"]
    first, second = _rows()
    before = frozenset({START + 6 * 1_234_567, START + 8 * 1_234_567})
    report = deliver(KinesisStreams(kinesis), _job([(first, frozenset()), (second, before)]))
    assert report == ([None, None], None)
    assert [_sent(body) for body in _Kinesis.bodies] == [
        [expected[i] for i in (0, 1, 2, 3, 4, 5, 7, 9, 10, 11)]]


def test_a_job_that_kinesis_takes_none_of_stops_short_with_what_it_took(kinesis: str) -> None:
    from tallydb.engine.api._kinesis_worker import deliver
    from tallydb.server.connectors import KinesisStreams

    expected = _golden()["MILLISECOND"]
    events = [orjson.loads(data)["eventID"] for _, data in expected]
    # cust#1's third record and cust#2's first refused, twice: every record
    # after them is one of their items'
    _Kinesis.refusals = [{events[2], events[5]}, {events[2], events[5]}]
    taken, problem = deliver(KinesisStreams(kinesis),
                             _job([(blob, frozenset()) for blob in _rows()]))
    assert problem == "Kinesis took none of 10 records"
    first = [START + i * 1_234_567 for i in range(2)]
    assert taken == [frozenset(first), frozenset()]


@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 200 OK\r\nContent-Length: 23\r\n\r\n{\"FailedRecordCount\":0}",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 23\r\n\r\n"
    b"{\"FailedRecordCount\":0}",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\n{\"Fai\r\n"
    b"12\r\nledRecordCount\":0}\r\n0\r\nTrailer: t\r\n\r\n",
])
def test_an_answer_is_read_whole_as_its_header_frames_it(answer: bytes) -> None:
    import socket

    from tallydb.server.connectors import _answer

    ours, theirs = socket.socketpair()
    with ours, theirs:
        for i in range(0, len(answer), 7):  # in pieces, as a network delivers it
            theirs.sendall(answer[i:i + 7])
        assert _answer(ours) == (200, b'{"FailedRecordCount":0}', True)
        theirs.sendall(b"HTTP/1.0 500 Oops\r\n\r\nbody to the end")
        theirs.close()
        assert _answer(ours) == (500, b"body to the end", False)
