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
from itertools import chain, islice
from multiprocessing.connection import Connection

import orjson

from tallydb.engine.api._kinesis import (
    KinesisError,
    KinesisSender,
    changes_of,
    records_of,
)

__all__ = ["BATCH", "BATCH_BYTES", "Job", "Report", "answer", "deliver"]

#: Records in one PutRecords (Kinesis takes 500 at most), and their bytes,
#: partition keys included (Kinesis takes 5 MiB at most).
BATCH = 500
BATCH_BYTES = 5 * 1024 * 1024

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
    changes = [changes_of(orjson.loads(blob)) for blob, _ in rows]
    made = iter(records_of(chain.from_iterable(changes), table, names, region, precision))
    # Each record still to send, its sequence number, and its row.
    records: list[tuple[str, bytes]] = []
    numbers: list[int] = []
    owners: list[int] = []
    waiting = [0] * len(rows)  # records of each row not taken yet
    taken = [set(before) for _, before in rows]
    for row, ((_, before), entries) in enumerate(zip(rows, changes, strict=True)):
        if not before:  # the usual: none of the row taken yet
            records.extend(islice(made, len(entries)))
            numbers.extend([entry[0] for entry in entries])
            owners.extend([row] * len(entries))
            waiting[row] = len(entries)
            continue
        for entry, one in zip(entries, islice(made, len(entries)), strict=True):
            if entry[0] not in before:
                records.append(one)
                numbers.append(entry[0])
                owners.append(row)
                waiting[row] += 1
    problem = None
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
            again = _taken_of(batch, sender.put_records(arn, chunk), records, numbers, owners,
                              waiting, taken)
            if len(again) == len(batch):
                raise KinesisError(f"Kinesis took none of {len(batch)} records")
            queue = again + queue[end:]
    except KinesisError as error:
        problem = str(error)
    return [None if not left else frozenset(done)
            for left, done in zip(waiting, taken, strict=True)], problem


def _taken_of(batch: list[int], answers: list[bool], records: list[tuple[str, bytes]],
              numbers: list[int], owners: list[int], waiting: list[int],
              taken: list[set[int]]) -> list[int]:
    """Count the records of one PutRecords Kinesis took; the ones to send
    again, in order: each it refused, and after one refused every later
    one of the same item (partition key), taken or not, so that the item's
    records arrive again in their order after the refused one."""
    if all(answers):  # the usual answer: every record taken
        for row, count in Counter(map(owners.__getitem__, batch)).items():
            waiting[row] -= count
            if waiting[row]:  # said should the job stop short (a row done needs none)
                taken[row].update(numbers[i] for i in batch if owners[i] == row)
        return []
    again: list[int] = []
    refused: set[str] = set()
    for i, took in zip(batch, answers, strict=True):
        partition = records[i][0]
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
