"""The thread that sends Kinesis destinations' records (``_kinesis``),
through a worker process of its own (``_kinesis_worker``).

Every ``POLL`` seconds, or sooner when a destination changes, it looks at
each table with a destination: an ENABLING one is checked (the stream
exists: ACTIVE; it does not: ENABLE_FAILED), an ACTIVE one gets the rows of
its outbox, oldest first (after the rows it deleted: those stay in
SQLite until their deletions reach it, and a read seeks past them),
``READ_BYTES`` of them, handed as they are stored
to the worker process, which makes their records and sends them in as few
PutRecords as Kinesis takes, and reports which rows Kinesis took whole:
those are deleted, all of a round's in one transaction. A row it has read
takes no more records (``read_through``): a later commit's go into a row of
their own. A record Kinesis took from a row it did not take all of is not
sent again while the server runs (after a restart such a row is sent whole,
again). A failure leaves the rows where they are, says why in
DestinationStatusDescription, and is tried again after ``RETRY`` seconds
(a worker that keeps exiting before it answers: twice as long each time,
up to ``WORKER_RETRY_MAX``);
requests never wait for any of it (the writer is held only to read or
delete rows, never while records are made or Kinesis is asked).

Making records, their base64, SigV4's SHA-256 and HTTP are the worker's:
the serving interpreter only reads rows, writes them to the worker's
socket (one write a round) and deletes them. The worker starts with the
first round that has rows to send (a server whose tables have no
destination never starts one). The outbox stays the truth: a worker that
dies (or is killed) is started again at the next round and its rows not
reported taken are sent again, and a server killed mid-round sends its
rows again at the next start (at least once, in order per item).

While requests write, the thread waits ``YIELD`` times as long as each
round took of its own thread's time before the next.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from tallydb.engine.api._kinesis import (
    CAPTURE,
    KINESIS,
    OUTBOX,
    KinesisError,
    KinesisSender,
    drop_outbox,
    key_names,
    read_outbox,
)
from tallydb.engine.api._stream_records import (
    STREAM_SOURCE,
    first_row,
    raise_clock,
    stored_rows,
)
from tallydb.engine.storage import Store, TableRecord

if TYPE_CHECKING:
    from tallydb.engine.api._kinesis_worker import Job, Report

__all__ = ["Forwarder"]

log = logging.getLogger("tallydb.engine.kinesis")

POLL = 0.05
RETRY = 1.0
#: A worker that exits before it answers (it cannot start, or cannot load
#: the Kinesis client) is started again after ``RETRY`` seconds, twice as
#: long after each such failure in a row, at most this long.
WORKER_RETRY_MAX = 30.0
#: While requests write, the thread waits this many times as long as each
#: round took of its own time before the next.
YIELD = 8.0
#: A round reads the oldest rows until they hold this many bytes (a counter's
#: record takes about 70 of them: some 3,500 records, PutRecords of 500 each,
#: which costs about as much again as a record to send: few and full calls).
READ_BYTES = 256 * 1024
NO_ENDPOINT = ("tallydb has no Kinesis endpoint to send to (tallydb serve --kinesis-endpoint "
               "URL); the records wait")
#: The worker process's module.
WORKER = "tallydb.engine.api._kinesis_worker"
#: How the worker starts: by importing its ``main`` (``python -m`` cannot run
#: a module built as a C extension, as setup.py compiles this one).
WORKER_START = f"from {WORKER} import main; main()"
_NONE_TAKEN: frozenset[int] = frozenset()


class _Worker:
    """The worker process (``_kinesis_worker``), started on first use, and
    the forwarder's end of its socket."""

    def __init__(self, sender: KinesisSender) -> None:
        self.sender = sender
        self._process: subprocess.Popen[bytes] | None = None
        self._socket: socket.socket | None = None
        self._connection: Connection | None = None
        #: The failures in a row: started (or sent a job) and exited
        #: before it answered; none once it answers.
        self.failures = 0

    def retry_after(self) -> float:
        """The seconds to wait before the worker is started again."""
        if not self.failures:
            return RETRY
        return min(RETRY * (1 << min(self.failures - 1, 16)), WORKER_RETRY_MAX)

    def deliver(self, job: Job) -> Report:
        """The worker's report of one job; KinesisError if it could not be
        started or exited before it answered (started again next time)."""
        try:
            if self._connection is None:
                self._start()
            assert self._connection is not None
            self._connection.send(job)
            report: Report = self._connection.recv()
        except (EOFError, OSError) as error:
            self.failures += 1
            self.stop()
            raise KinesisError(f"the process sending Kinesis records exited ({error!r}); "
                               "its records are sent again") from None
        self.failures = 0
        return report

    def _start(self) -> None:
        try:
            sender = pickle.dumps(self.sender)
        except Exception as error:
            raise KinesisError(f"the Kinesis client cannot be handed to its process: "
                               f"{error!r}") from None
        ours, theirs = socket.socketpair()
        # the worker imports tallydb (and the client's module) as this process does
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        with theirs:
            self._process = subprocess.Popen(
                [sys.executable, "-c", WORKER_START, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), env=environment, stdin=subprocess.DEVNULL)
        self._socket = ours
        self._connection = Connection(os.dup(ours.fileno()))
        self._connection.send_bytes(sender)

    def interrupt(self) -> None:
        """Wake a deliver waiting for the worker (from another thread): it
        reads the end of the socket."""
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        """Close the socket (the worker exits on it) and wait for the worker."""
        connection, self._connection = self._connection, None
        ours, self._socket = self._socket, None
        process, self._process = self._process, None
        if connection is not None:
            connection.close()
        if ours is not None:
            ours.close()
        if process is not None:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


class Forwarder:
    """Sends the outboxes of one store's tables to Kinesis, on its own thread."""

    def __init__(self, store: Store, sender: KinesisSender | None) -> None:
        self.store = store
        self.sender = sender
        self.wake = threading.Event()
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        #: Why the last attempt failed, by (catalog key, stream ARN).
        self.problems: dict[tuple[str, str], str] = {}
        #: The sequence numbers of records Kinesis took from rows it did not
        #: take all of, by (table id, row key): not sent again while the
        #: server runs (after a restart such a row is sent whole, again).
        self._taken: dict[tuple[int, bytes], frozenset[int]] = {}
        self._worker: _Worker | None = None
        #: The last row key of each table's outbox (by table id) below which
        #: every row was sent and deleted: the next read starts after it,
        #: past the rows SQLite still holds until their deletions reach it.
        self._deleted_through: dict[int, bytes] = {}

    def start(self) -> None:
        """Run the thread (once; again after close, no)."""
        with self._lock:
            if self._thread is not None or self._closing.is_set():
                return
            self._recover()
            self._thread = threading.Thread(target=self._run, name="tallydb-kinesis",
                                            daemon=True)
            self._thread.start()

    def _recover(self) -> None:
        """Raise the sequence clock past every record waiting (their row keys)."""
        with self.store.transaction() as txn:
            for record in txn.all_tables():
                if KINESIS in record.description and STREAM_SOURCE in record.indexes:
                    row = first_row(stored_rows(txn, record, OUTBOX.encode(), forward=False))
                    if row is not None:
                        raise_clock(row[2][-1][0])

    def close(self) -> None:
        self._closing.set()
        self.wake.set()
        if self._worker is not None:
            self._worker.interrupt()
        if self._thread is not None:
            self._thread.join(10)
        if self._worker is not None:
            self._worker.stop()

    def _run(self) -> None:
        store = self.store
        busy = False
        while not self._closing.is_set():
            if not busy:
                self.wake.wait(POLL)
                self.wake.clear()
            writes = store.writes
            took = time.thread_time()
            try:
                busy = self._round()
            except Exception:
                log.exception("sending Kinesis records failed")
                busy = False
            took = time.thread_time() - took
            if busy and store.writes != writes:  # requests are writing: make room for them
                self._closing.wait(took * YIELD)

    def _tables(self) -> list[TableRecord]:
        with self.store.transaction() as txn:
            return [record for record in txn.all_tables() if KINESIS in record.description]

    def _round(self) -> bool:
        """One look at every destination; whether rows are still waiting."""
        busy = False
        for record in self._tables():
            for destination in record.description[KINESIS]["destinations"]:
                status = destination["DestinationStatus"]
                if status == "ENABLING":
                    self._check(record, destination)
                elif status in ("ACTIVE", "UPDATING") and CAPTURE in record.description:
                    busy |= self._send(record, destination)
        return busy

    def _problem(self, record: TableRecord, arn: str, text: str | None) -> None:
        key = (record.key, arn)
        if text is None:
            if self.problems.pop(key, None) is not None:
                log.info("Kinesis stream %s takes records again", arn)
            return
        if self.problems.get(key) != text:
            log.warning("Kinesis stream %s: %s", arn, text)
        self.problems[key] = text

    def _check(self, record: TableRecord, destination: dict[str, Any]) -> None:
        arn = destination["StreamArn"]
        if self.sender is None:
            self._problem(record, arn, NO_ENDPOINT)
            return
        try:
            self.sender.check_stream(arn)
        except KinesisError as error:
            if error.missing:
                self._set_status(record, arn, "ENABLE_FAILED", str(error))
            else:
                self._problem(record, arn, str(error))
            return
        self._problem(record, arn, None)
        self._set_status(record, arn, "ACTIVE", None)

    def _set_status(self, record: TableRecord, arn: str, status: str,
                    description: str | None) -> None:
        with self.store.transaction() as txn:
            current = txn.table_by_key(record.key)
            if current is None or KINESIS not in current.description:
                return
            kinesis = current.description[KINESIS]
            destinations = []
            for destination in kinesis["destinations"]:
                if destination["StreamArn"] == arn and destination["DestinationStatus"] in (
                        "ENABLING", "UPDATING"):
                    destination = {**destination, "DestinationStatus": status}
                    destination.pop("DestinationStatusDescription", None)
                    if description is not None:
                        destination["DestinationStatusDescription"] = description
                destinations.append(destination)
            changed = {**current.description, KINESIS: {**kinesis, "destinations": destinations}}
            if status == "ENABLE_FAILED" and not any(
                    d["DestinationStatus"] in ("ACTIVE", "ENABLING", "UPDATING")
                    for d in destinations):
                changed.pop(CAPTURE, None)
                drop_outbox(txn, current)
            txn.update_table(current.with_description(changed))

    def _send(self, record: TableRecord, destination: dict[str, Any]) -> bool:
        """Send the oldest rows of one destination; whether more are waiting."""
        arn = destination["StreamArn"]
        if self.sender is None:
            self._problem(record, arn, NO_ENDPOINT)
            return False
        looked = read_outbox(self.store, record, arn, READ_BYTES,
                             self._deleted_through.get(record.id))
        if looked is None:
            return False
        record, found, blobs, more = looked
        destination = found or destination
        if not blobs or self._closing.is_set():
            return False
        if self._worker is None:
            self._worker = _Worker(self.sender)
        region = record.description.get("_KinesisRegion", "us-east-1")
        precision = destination.get("ApproximateCreationDateTimePrecision", "MILLISECOND")
        taken = self._taken
        try:
            sent, problem = self._worker.deliver((
                arn, record.name, key_names(record), region, precision,
                [(blob, taken.get((record.id, rk), _NONE_TAKEN)) for rk, blob in blobs]))
        except KinesisError as error:
            sent, problem = [_NONE_TAKEN] * len(blobs), str(error)
        done = []
        # the last of the rows Kinesis took whole in a run from the first
        # read: with every row before it deleted, the next read starts after it
        through = None
        whole = True
        for (rk, _), took in zip(blobs, sent, strict=True):
            if took is None:
                done.append(rk)
                taken.pop((record.id, rk), None)
                if whole:
                    through = rk
            else:
                whole = False
                if took:  # kept should the row be read again (after a failure)
                    taken[(record.id, rk)] = took
        self._delete(record, done)
        if through is not None:
            self._deleted_through[record.id] = through
        self._problem(record, arn, problem)
        if problem is not None:
            self._closing.wait(self._worker.retry_after())
            return False
        return more

    def _delete(self, record: TableRecord, rows: list[bytes]) -> None:
        if not rows:
            return
        with self.store.transaction() as txn:
            current = txn.table_by_key(record.key)
            if current is None or current.id != record.id:
                return
            shard = OUTBOX.encode()
            for rk in rows:
                txn.delete_entry(current, STREAM_SOURCE, shard, rk)

