"""A Kinesis destination's records are made and sent by a worker process
of the serving process's own: it starts only once a destination has
records to send, ends with the engine, and when it is killed mid-stream
it is started again and nothing is lost (the outbox stays the truth):
every record arrives, each item's in order. In-process engines, their
records sent to kinesalite."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

from kinesiskit import Kinesalite
from tallytest import unique_name

from tallydb.engine import Engine, Store
from tallydb.server.connectors import KinesisStreams

WAIT = 180.0
WORKER = "tallydb.engine.api._kinesis_worker"
TABLE = {"TableName": "counted", "BillingMode": "PAY_PER_REQUEST",
         "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
         "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}


def _add(engine: Engine, key: str) -> None:
    with engine.batch() as call:
        call("UpdateItem", {"TableName": "counted", "Key": {"PK": {"S": key}},
                            "UpdateExpression": "ADD n :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}})


def _workers() -> list[int]:
    """The worker processes this process started, alive (zombies aside)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
            command = Path(f"/proc/{entry.name}/cmdline").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and WORKER.encode() in command:
            found.append(int(entry.name))
    return found


def _wait(condition: object, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def _enabled(tmp_path: Path, kinesalite: Kinesalite) -> tuple[Engine, str]:
    engine = Engine(Store(tmp_path), kinesis=KinesisStreams(kinesalite.url))
    engine.call("CreateTable", TABLE)
    for i in range(20):  # a table without a destination: no worker
        _add(engine, f"before-{i}")
    assert _workers() == []
    stream = unique_name("worked")
    engine.call("EnableKinesisStreamingDestination", {
        "TableName": "counted", "StreamArn": kinesalite.create_stream(stream, shards=1)})
    _wait(lambda: engine.call("DescribeKinesisStreamingDestination", {
        "TableName": "counted"})["KinesisDataStreamDestinations"][0][
            "DestinationStatus"] == "ACTIVE", "the destination never became ACTIVE")
    return engine, stream


def _delivered(kinesalite: Kinesalite, stream: str, expected: int) -> dict[str, list[int]]:
    """Each item's new counts in the stream's order, first copies only
    (a resend repeats a record with its eventID), once ``expected`` arrived."""
    deadline = time.monotonic() + WAIT
    while True:
        seen: set[str] = set()
        counts: dict[str, list[int]] = {}
        for record in kinesalite.records(stream):
            if record["eventID"] not in seen:
                seen.add(record["eventID"])
                change = record["dynamodb"]
                counts.setdefault(change["Keys"]["PK"]["S"], []).append(
                    int(change["NewImage"]["n"]["N"]))
        if len(seen) >= expected or time.monotonic() > deadline:
            return counts
        time.sleep(0.3)


def test_the_worker_starts_with_a_destinations_records_and_ends_with_the_engine(
    tmp_path: Path, kinesalite: Kinesalite,
) -> None:
    engine, stream = _enabled(tmp_path, kinesalite)
    try:
        _add(engine, "hot")
        assert _delivered(kinesalite, stream, 1) == {"hot": [1]}
        assert len(_workers()) == 1
    finally:
        engine.close()
    assert _workers() == []


def test_a_killed_worker_is_started_again_and_no_record_is_lost(
    tmp_path: Path, kinesalite: Kinesalite,
) -> None:
    """Four phases of increments, a worker killed (kill -9) during each of
    the first three: every phase writes records, so a worker runs again."""
    engine, stream = _enabled(tmp_path, kinesalite)
    keys = ["hot-a", "hot-b"]
    each = 150  # a phase's increments of each key
    failures: list[BaseException] = []

    def increments(key: str) -> None:
        try:
            for _ in range(each):
                _add(engine, key)
        except BaseException as error:
            failures.append(error)

    try:
        killed: set[int] = set()
        for phase in range(4):
            threads = [threading.Thread(target=increments, args=(key,)) for key in keys]
            for thread in threads:
                thread.start()
            if phase < 3:
                _wait(lambda: [pid for pid in _workers() if pid not in killed],
                      "no worker (again) after a kill")
                pid = next(pid for pid in _workers() if pid not in killed)
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            for thread in threads:
                thread.join()
            assert not failures
        counts = _delivered(kinesalite, stream, len(keys) * each * 4)
        for key in keys:
            assert counts.get(key) == list(range(1, each * 4 + 1)), key  # in order, none lost
        assert [pid for pid in _workers() if pid not in killed]  # a worker runs again
    finally:
        engine.close()


class _Unloadable:
    """A Kinesis client whose worker process cannot load it: unpickled
    there, it notes the start in ``starts`` and exits the process. (The
    serving process takes every stream as there.)"""

    def __init__(self, starts: Path) -> None:
        self.starts = starts

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return exec, (f"open({str(self.starts)!r}, 'a').write('started\\n'); "
                      "import os; os._exit(3)",)

    def describe(self) -> str:
        return "unloadable"

    def check_stream(self, stream_arn: str) -> None:
        pass

    def put_records(self, stream_arn: str, partitions: list[str], data: list[bytes]
                    ) -> list[bool]:
        raise AssertionError("never called in the serving process")


def test_a_worker_that_cannot_load_its_client_is_started_again_later_each_time(
        tmp_path: Path) -> None:
    from tallydb.engine.api._kinesis_forwarder import RETRY, WORKER_RETRY_MAX

    starts = tmp_path / "starts"
    engine = Engine(Store(tmp_path / "data"), kinesis=_Unloadable(starts))  # type: ignore[arg-type]
    try:
        engine.call("CreateTable", TABLE)
        engine.call("EnableKinesisStreamingDestination", {
            "TableName": "counted",
            "StreamArn": "arn:aws:kinesis:us-east-1:000000000000:stream/never"})
        _add(engine, "a")
        worker = engine.forwarder

        def described() -> str:
            destination = engine.call("DescribeKinesisStreamingDestination", {
                "TableName": "counted"})["KinesisDataStreamDestinations"][0]
            return str(destination.get("DestinationStatusDescription", ""))

        # three starts in a row that failed: the wait before the next has doubled twice
        _wait(lambda: worker._worker is not None and worker._worker.failures >= 3,
              "the worker was not started three times")
        assert starts.read_text().count("started") >= 3
        assert worker._worker is not None
        failures = worker._worker.failures
        assert worker._worker.retry_after() == min(RETRY * 2 ** (failures - 1), WORKER_RETRY_MAX)
        assert worker._worker.retry_after() >= 4 * RETRY
        # the failure stays in the destination's status, and the record waits
        assert "exited" in described()
        assert engine.call("DescribeKinesisStreamingDestination", {
            "TableName": "counted"})["KinesisDataStreamDestinations"][0][
                "DestinationStatus"] == "ACTIVE"
    finally:
        engine.close()
