"""The thread that sends Kinesis destinations' records (``_kinesis``).

Every ``POLL`` seconds, or sooner when a destination changes, it looks at
each table with a destination: an ENABLING one is checked (the stream
exists: ACTIVE; it does not: ENABLE_FAILED), an ACTIVE one gets the rows of
its outbox, oldest first, ``READ_BYTES`` of them, sent in as few PutRecords
as Kinesis takes (``BATCH`` records and ``BATCH_BYTES`` each), each row
deleted once all of its records were taken, all of a round's rows in one
transaction. A row it has read takes no more records (``read_through``): a
later commit's go into a row of their own. Kinesis answers PutRecords
record by record: the ones it refused are sent again in the next call,
alone (what it took is not sent again), except that after a refused record
every later one of the same item in that call goes again too, so that each
item's records arrive in order (a throttled shard refuses the last ones of
a call: then no record arrives twice). A failure leaves the rows where they
are, says why in DestinationStatusDescription, and is tried again after
``RETRY`` seconds; requests never wait for any of it (the writer is held
only to read or delete rows, never while records are made or Kinesis is
asked).

It shares the interpreter with the requests: while they write, it waits
``YIELD`` times as long as each round took of its own thread's time before
the next, so it takes about a ninth of the process, and catches up at full
speed once they stop. A write rate above what that ninth sends leaves
records waiting in the outbox (stored, as durable as the writes) until then.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from itertools import chain, islice
from typing import Any

import orjson

from tallydb.engine.api._kinesis import (
    CAPTURE,
    KINESIS,
    OUTBOX,
    KinesisError,
    KinesisSender,
    changes_of,
    drop_outbox,
)
from tallydb.engine.api._kinesis import records_of as kinesis_records
from tallydb.engine.api._stream_records import (
    STREAM_SOURCE,
    Held,
    first_row,
    held_changes,
    raise_clock,
    read_through,
    stored_rows,
)
from tallydb.engine.storage import Store, TableRecord

__all__ = ["Forwarder"]

log = logging.getLogger("tallydb.engine.kinesis")

POLL = 0.05
RETRY = 1.0
#: Records in one PutRecords (Kinesis takes 500 at most), and their bytes,
#: partition keys included (Kinesis takes 5 MiB at most).
BATCH = 500
BATCH_BYTES = 5 * 1024 * 1024
#: While requests write, the thread waits this many times as long as each
#: round took of its own time before the next (about a ninth of the process).
YIELD = 8.0
#: A round reads the oldest rows until they hold this many bytes (a counter's
#: record takes about 70 of them: some 3,500 records, PutRecords of 500 each,
#: which costs about as much again as a record to send: few and full calls).
READ_BYTES = 256 * 1024
NO_ENDPOINT = ("tallydb has no Kinesis endpoint to send to (tallydb serve --kinesis-endpoint "
               "URL); the records wait")


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
        self._taken: dict[tuple[int, bytes], set[int]] = {}

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
        if self._thread is not None:
            self._thread.join(10)

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
        with self.store.transaction() as txn:
            # The table as it is now, read with the rows: an update of the
            # precision committed before a row is always seen with that row.
            current = txn.table_by_key(record.key)
            if current is None or current.id != record.id or STREAM_SOURCE not in current.indexes:
                return False
            record = current
            destination = next((d for d in record.description.get(KINESIS, {}).get(
                "destinations", []) if d["StreamArn"] == arn), destination)
            blobs: list[tuple[bytes, bytes]] = []
            # each row's changes: as the capture held them, or None (parsed below)
            rows: list[list[Held] | None] = []
            read = 0
            more = False
            for rk, blob in txn.appended_rows(record, STREAM_SOURCE, OUTBOX.encode()):
                if read >= READ_BYTES:
                    more = True
                    break
                blobs.append((rk, blob))
                rows.append(held_changes(record.id, rk, blob))
                read += len(blob)
            if blobs:  # sent and deleted whole: none of them takes more records
                read_through(record.id, blobs[-1][0])
        if not blobs:
            return False
        region = record.description.get("_KinesisRegion", "us-east-1")
        precision = destination.get("ApproximateCreationDateTimePrecision", "MILLISECOND")
        # Each record still to send, its sequence number, and its row.
        records: list[tuple[str, bytes]] = []
        numbers: list[int] = []
        owners: list[int] = []
        waiting = [0] * len(blobs)  # records of each row not taken yet
        changes = [changes_of(orjson.loads(blob)) if row is None else row
                   for (_, blob), row in zip(blobs, rows, strict=True)]
        made = iter(kinesis_records(chain.from_iterable(changes), record, region, precision))
        for row, ((rk, _), entries) in enumerate(zip(blobs, changes, strict=True)):
            taken = self._taken.get((record.id, rk))
            if taken is None:  # the usual: none of the row taken yet
                records.extend(islice(made, len(entries)))
                numbers.extend([entry[0] for entry in entries])
                owners.extend([row] * len(entries))
                waiting[row] = len(entries)
                continue
            for entry, one in zip(entries, islice(made, len(entries)), strict=True):
                if entry[0] not in taken:
                    records.append(one)
                    numbers.append(entry[0])
                    owners.append(row)
                    waiting[row] += 1
        queue = list(range(len(records)))
        try:
            while queue:
                end = min(BATCH, len(queue))
                chunk = [records[i] for i in queue[:end]]
                if sum(map(len, chain.from_iterable(chunk))) > BATCH_BYTES:  # keys and data
                    end, size = 0, 0
                    while end < len(chunk):
                        length = len(chunk[end][0]) + len(chunk[end][1])
                        if end and size + length > BATCH_BYTES:
                            break
                        size += length
                        end += 1
                    chunk = chunk[:end]
                batch = queue[:end]
                answers = self.sender.put_records(arn, chunk)
                again = self._taken_of(record, blobs, batch, answers, records, numbers,
                                       owners, waiting)
                if len(again) == len(batch):
                    raise KinesisError(f"Kinesis took none of {len(batch)} records")
                queue = again + queue[end:]
        except KinesisError as error:
            self._problem(record, arn, str(error))
            self._delete(record, [rk for (rk, _), left in zip(blobs, waiting, strict=True)
                                  if not left])
            self._closing.wait(RETRY)
            return False
        self._problem(record, arn, None)
        self._delete(record, [rk for rk, _ in blobs])
        return more

    def _taken_of(self, record: TableRecord, blobs: list[tuple[bytes, bytes]],
                  batch: list[int], answers: list[bool], records: list[tuple[str, bytes]],
                  numbers: list[int], owners: list[int], waiting: list[int]) -> list[int]:
        """Count the records of one PutRecords Kinesis took; the ones to send
        again, in order: each it refused, and after one refused every later
        one of the same item (partition key), taken or not, so that the
        item's records arrive again in their order after the refused one
        (a refusal of the last ones of an item, as a throttled shard gives,
        sends only those again: every copy in order)."""
        if all(answers):  # the usual answer: every record taken
            for row, count in Counter(map(owners.__getitem__, batch)).items():
                waiting[row] -= count
                key = (record.id, blobs[row][0])
                if waiting[row]:  # kept should the row be read again (after a failure)
                    self._taken.setdefault(key, set()).update(
                        numbers[i] for i in batch if owners[i] == row)
                else:
                    self._taken.pop(key, None)
            return []
        again: list[int] = []
        refused: set[str] = set()
        for i, taken in zip(batch, answers, strict=True):
            partition = records[i][0]
            if taken and partition not in refused:
                row = owners[i]
                waiting[row] -= 1
                key = (record.id, blobs[row][0])
                if waiting[row]:  # kept should the row be read again (after a failure)
                    self._taken.setdefault(key, set()).add(numbers[i])
                else:
                    self._taken.pop(key, None)
            else:
                refused.add(partition)
                again.append(i)
        return again

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

