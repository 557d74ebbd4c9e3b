"""The process that makes Kinesis destinations' records and sends them, off
the serving interpreter (``main``, given the socket's descriptor ``FD``).

The forwarder (``_kinesis_forwarder``) starts it once a destination has
records to send, and speaks to it over a socket (``FD``, a
``multiprocessing.connection.Connection``): first the Kinesis client,
pickled, then one ``Job`` a round (the outbox rows read, as stored); it
answers each with a ``Report``: which rows Kinesis took whole (the
forwarder deletes those), which records of the others it took, and why
it stopped short. It keeps nothing between jobs: the outbox, in the
serving process's store, stays the truth, so a worker killed mid-job
only has its rows sent again. It exits when the socket closes (the
forwarder closed it, or the serving process died).

Kinesis answers PutRecords record by record: the ones it refused are sent
again in the next call, alone (what it took is not sent again), except
that after a refused record every later one of the same item in that call
goes again too, so that each item's records arrive in order (a throttled
shard refuses the last ones of a call: then no record arrives twice).
"""

from __future__ import annotations

import gc
import signal
import sys
from collections import Counter
from multiprocessing.connection import Connection
from typing import Final

import orjson

from tallydb.engine.api._kinesis import KinesisError, KinesisSender, RecordMaker

__all__ = ["BATCH", "BATCH_BYTES", "Job", "Report", "answer", "deliver"]

#: Records in one PutRecords (Kinesis takes 500 at most), and their bytes,
#: partition keys included (Kinesis takes 5 MiB at most).
BATCH: Final = 500
BATCH_BYTES: Final = 5 * 1024 * 1024

#: (stream ARN, table name, key names, region, precision, and each row's
#: JSON as stored with the sequence numbers of its records Kinesis took
#: before, if it took some).
Job = tuple[str, str, tuple[str, ...], str, str, list[tuple[bytes, frozenset[int]]]]
#: (for each row of the job: None when Kinesis took all of its records,
#: else the sequence numbers of those it took; why it stopped short, or None).
Report = tuple[list[frozenset[int] | None], str | None]


def deliver(sender: KinesisSender, job: Job) -> Report:
    """Send the records of a job's rows in as few PutRecords as Kinesis
    takes (``BATCH`` records and ``BATCH_BYTES`` each), in order."""
    arn, table, names, region, precision, rows = job
    # Each record still to send: its partition key, data (base64), sequence
    # number (``maker``'s) and row (``owners``; each row's first: ``starts``).
    maker = RecordMaker(table, names, region, precision, True)
    owners: list[int] = []
    starts: list[int] = []
    waiting = [0] * len(rows)  # records of each row not taken yet
    taken = [set(before) for _, before in rows]
    data = maker.data
    for row, (blob, before) in enumerate(rows):
        start = len(data)
        starts.append(start)
        maker.add_row(orjson.loads(blob), before)
        count = len(data) - start
        owners.extend([row] * count)
        waiting[row] = count
    starts.append(len(data))
    partitions = maker.partitions
    numbers = maker.numbers
    # the most bytes a record counts against BATCH_BYTES (its data: 3 bytes
    # for each 4 of base64, or fewer; and its partition key)
    most = maker.longest // 4 * 3 + maker.longest_key
    problem = None
    queue = list(range(len(data)))
    try:
        while queue:
            batch = queue[:BATCH]
            first = batch[0]
            if batch[-1] - first == len(batch) - 1:  # the usual: records in a row
                chunk = data[first:first + len(batch)]
                keys = partitions[first:first + len(batch)]
            else:
                chunk = [data[i] for i in batch]
                keys = [partitions[i] for i in batch]
            if len(batch) * most > BATCH_BYTES:
                end, size = 0, 0
                while end < len(chunk):
                    length = len(keys[end]) + _decoded_length(chunk[end])
                    if end and size + length > BATCH_BYTES:
                        break
                    size += length
                    end += 1
                batch, chunk, keys = batch[:end], chunk[:end], keys[:end]
            again = _taken_of(batch, sender.put_records(arn, keys, chunk), partitions, numbers,
                              owners, starts, waiting, taken)
            if len(again) == len(batch):
                raise KinesisError(f"Kinesis took none of {len(batch)} records")
            queue = again + queue[len(batch):]
    except KinesisError as error:
        problem = str(error)
    return [None if not left else frozenset(done)
            for left, done in zip(waiting, taken, strict=True)], problem


def _decoded_length(encoded: bytes) -> int:
    """The length of the data of base64 text."""
    return len(encoded) // 4 * 3 - encoded.endswith(b"=") - encoded.endswith(b"==")


def _taken_of(batch: list[int], answers: list[bool], partitions: list[str],
              numbers: list[int], owners: list[int], starts: list[int], waiting: list[int],
              taken: list[set[int]]) -> list[int]:
    """Count the records of one PutRecords Kinesis took; the ones to send
    again, in order: each it refused, and after one refused every later
    one of the same item (partition key), taken or not, so that the item's
    records arrive again in their order after the refused one."""
    if all(answers):  # the usual answer: every record taken
        first = batch[0]
        last = batch[-1]
        if last - first == len(batch) - 1:  # records in a row: rows' runs of them
            for row in range(owners[first], owners[last] + 1):
                low = max(starts[row], first)
                high = min(starts[row + 1], last + 1)
                waiting[row] -= high - low
                if waiting[row]:  # said should the job stop short (a row done needs none)
                    taken[row].update(numbers[low:high])
            return []
        for row, count in Counter(map(owners.__getitem__, batch)).items():
            waiting[row] -= count
            if waiting[row]:
                taken[row].update(numbers[i] for i in batch if owners[i] == row)
        return []
    again: list[int] = []
    refused: set[str] = set()
    for i, took in zip(batch, answers, strict=True):
        partition = partitions[i]
        if took and partition not in refused:
            waiting[owners[i]] -= 1
            taken[owners[i]].add(numbers[i])
        else:
            refused.add(partition)
            again.append(i)
    return again


def answer(sender: KinesisSender, job: Job) -> Report:
    """The report of one job (``deliver``; a row it cannot make records of
    is said in it, not fatal).

    The cyclic garbage collector waits until the job is done: the rows a
    job parses are thousands of small dicts, each freed by its reference
    count when the job ends, which the collector, left on, walks again and
    again while they are made (a tenth of the worker's instructions) and
    never frees. Garbage in cycles, if a job makes any, is collected as
    usual after it."""
    gc.disable()
    try:
        return deliver(sender, job)
    except Exception as error:
        return ([frozenset(before) for _, before in job[5]],
                f"the records were not made: {error!r}")
    finally:
        gc.enable()


def main() -> None:
    """Take jobs from the socket ``sys.argv[1]`` names until it closes."""
    # a Ctrl-C in the server's terminal reaches its whole process group: the
    # server closes the socket as it stops, and the worker ends then
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    connection = Connection(int(sys.argv[1]))
    try:
        sender: KinesisSender = connection.recv()
        while True:
            job: Job = connection.recv()
            connection.send(answer(sender, job))
    except (EOFError, OSError):  # the forwarder closed the socket, or its process died
        return
