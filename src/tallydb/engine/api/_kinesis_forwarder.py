"""The thread that sends Kinesis destinations' records (``_kinesis``).

Every ``POLL`` seconds, or sooner when a write wakes it, it looks at each
table with a destination: an ENABLING one is checked (the stream exists:
ACTIVE; it does not: ENABLE_FAILED), an ACTIVE one gets the rows of its
outbox, oldest first, sent ``BATCH`` records a PutRecords at most, each row
deleted once all of its records were taken. A failure leaves the rows where
they are, says why in DestinationStatusDescription, and is tried again after
``RETRY`` seconds; requests never wait for any of it (the writer is held only
to read or delete rows, never while Kinesis is asked).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from tallydb.engine.api._kinesis import CAPTURE, KINESIS, OUTBOX, KinesisError, KinesisSender
from tallydb.engine.api._kinesis import records_of as kinesis_records
from tallydb.engine.api._stream_records import (
    STREAM_SOURCE,
    first_row,
    raise_clock,
    stored_rows,
)
from tallydb.engine.storage import Store, TableRecord

__all__ = ["Forwarder"]

log = logging.getLogger("tallydb.engine.kinesis")

POLL = 0.05
RETRY = 1.0
#: Records in one PutRecords (Kinesis takes 500 at most).
BATCH = 500
#: Rows read at once from an outbox.
ROWS = 64
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
        while not self._closing.is_set():
            self.wake.wait(POLL)
            self.wake.clear()
            try:
                busy = self._round()
            except Exception:
                log.exception("sending Kinesis records failed")
                busy = False
            if not busy:
                self._closing.wait(POLL)

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
            txn.update_table(current.with_description(changed))

    def _send(self, record: TableRecord, destination: dict[str, Any]) -> bool:
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
            rows = []
            for hk, rk, entries in stored_rows(txn, record, OUTBOX.encode()):
                rows.append((hk, rk, entries))
                if len(rows) >= ROWS:
                    break
        if not rows:
            return False
        region = record.description.get("_KinesisRegion", "us-east-1")
        precision = destination.get("ApproximateCreationDateTimePrecision", "MILLISECOND")
        sent: list[tuple[bytes, bytes]] = []
        for hk, rk, entries in rows:
            records = list(kinesis_records(entries, record, region, precision))
            try:
                for start in range(0, len(records), BATCH):
                    taken = self.sender.put_records(arn, records[start:start + BATCH])
                    if not all(taken):
                        raise KinesisError(
                            f"Kinesis took {sum(taken)} of {len(taken)} records; sending again")
            except KinesisError as error:
                self._problem(record, arn, str(error))
                self._delete(record, sent)
                self._closing.wait(RETRY)
                return False
            sent.append((hk, rk))
        self._problem(record, arn, None)
        self._delete(record, sent)
        return len(rows) >= ROWS

    def _delete(self, record: TableRecord, rows: list[tuple[bytes, bytes]]) -> None:
        if not rows:
            return
        with self.store.transaction() as txn:
            current = txn.table_by_key(record.key)
            if current is None or current.id != record.id:
                return
            for hk, rk in rows:
                txn.delete_entry(current, STREAM_SOURCE, hk, rk)

