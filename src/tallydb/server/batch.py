"""Group commit: the requests of one event-loop turn share one transaction.

Connections hand every finished request to ``Batcher.submit`` in arrival
order; the first one of a turn schedules ``flush`` with ``call_soon``, so
the flush runs after the loop has read every socket that was ready. The
flush runs the operations in one ``engine.batch()``, and only after its
COMMIT returns are responses written: nothing is acknowledged before it is
durable at the store's sync level, and no client sees a write that might
still roll back. Requests answered without the engine (errors found while
routing) wait in the same queue, so a connection's responses leave in the
order its requests came.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Final

import orjson

from tallydb.console.metrics import Metrics
from tallydb.engine.api import NO_OUTPUT, Engine, UnitsReport
from tallydb.engine.errors import DynamoDBError, InternalServerError
from tallydb.engine.storage.full import disk_full, log_failure
from tallydb.server import accesslog, http, observe
from tallydb.server.exchange import Exchange
from tallydb.server.routing import error_response

log: Final = logging.getLogger("tallydb.server")

INTERNAL_ERROR: Final = "Internal server error"  # DynamoDB's message for its own faults
DISK_FULL: Final = (
    "Internal server error: the server's disk is full, so this request changed nothing; "
    "reads are still served, and writes resume once space is freed"
)


#: The answer of most writes (``{}``), as ``orjson.dumps`` would make it:
#: one object, whose hash ``http.render``'s cache computes once.
_EMPTY_OBJECT: Final = b"{}"

#: No operation reports its units while no page listens (``Batcher._run``).
_NO_REPORT: Final[tuple[frozenset[str], UnitsReport]] = (frozenset(), UnitsReport())


def internal_error(error: BaseException) -> InternalServerError:
    return InternalServerError(DISK_FULL if disk_full(error) else INTERNAL_ERROR)


class Batcher:
    """Collects a turn's requests, commits them together, then answers.

    With ``offload``, a batch runs and commits on a worker thread while the
    loop reads and parses the next one: worth it when COMMIT waits for an
    fsync (``--sync full``), which releases the GIL. One batch is in flight
    at a time, so batches still commit, and are answered, in order.
    """

    def __init__(
        self,
        engine: Engine,
        loop: asyncio.AbstractEventLoop,
        offload: bool = False,
        log_requests: bool = False,
    ) -> None:
        self.engine = engine
        self.loop = loop
        self.log_requests = log_requests
        self.queue: list[Exchange] = []
        self.scheduled = False
        self.executor = (
            ThreadPoolExecutor(1, thread_name_prefix="tallydb-commit") if offload else None
        )
        self.inflight: asyncio.Future[None] | None = None
        self.batches = 0
        self.requests = 0
        #: while a console page listens: the operational view's numbers,
        #: which each answered request is added to (server/observe.py)
        self.metrics: Metrics | None = None
        #: and the engine's units report meanwhile (``Engine.report_units``)
        self.units: UnitsReport | None = None

    def submit(self, ex: Exchange) -> None:
        self.queue.append(ex)
        if not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        """Run, commit and answer everything queued so far (or, offloaded,
        start to; a batch still in flight will flush again when it lands)."""
        self.scheduled = False
        if self.inflight is not None:
            return
        queue = self.queue
        if not queue:
            return
        self.queue = []
        http.refresh_date()
        calls = [ex for ex in queue if ex.response is None]
        if calls and self.executor is not None:
            self.inflight = self.loop.run_in_executor(self.executor, self._run, calls)
            self.inflight.add_done_callback(lambda _: self._landed(queue))
            return
        if calls:
            self._run(calls)
        self._deliver(queue)
        if self.log_requests:
            self._log(queue)
        if self.metrics is not None:
            observe.record(self.metrics, queue, time.perf_counter())

    def _landed(self, queue: list[Exchange]) -> None:
        self.inflight = None
        self._deliver(queue)
        if self.log_requests:
            self._log(queue)
        if self.metrics is not None:
            observe.record(self.metrics, queue, time.perf_counter())
        if self.queue and not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self.flush)

    async def drain(self) -> None:
        """Shutdown: wait for the batch in flight, then run what is queued."""
        while self.inflight is not None:
            await asyncio.wait([self.inflight])
            await asyncio.sleep(0)  # let _landed run
        executor, self.executor = self.executor, None
        self.flush()
        if executor is not None:
            executor.shutdown(wait=True)

    def _log(self, queue: list[Exchange]) -> None:
        now = time.perf_counter()
        for ex in queue:
            if ex.response:
                accesslog.record(ex, ex.response, now)

    @staticmethod
    def _deliver(queue: list[Exchange]) -> None:
        touched = []
        for ex in queue:
            conn = ex.conn
            out = conn.out
            if not out:
                touched.append(conn)
            response = ex.response
            if response is None:  # the batch died in a way _run could not catch
                response = error_response(ex, InternalServerError(INTERNAL_ERROR))
            out.append(response)
            conn.pending -= 1
            if ex.close:
                conn.close_after_write = True
                conn.stream = ex.stream
        for conn in touched:
            conn.write_out()

    def _run(self, calls: list[Exchange]) -> None:
        self.batches += 1
        self.requests += len(calls)
        try:
            metrics, units = self.metrics, self.units
            render, dumps, no_output = http.render, orjson.dumps, NO_OUTPUT
            # (the writes that leave their units in the engine's report)
            reported, report = (observe.REPORTED, units) if units is not None else _NO_REPORT
            with self.engine.batch() as call:
                for ex in calls:
                    try:
                        operation = ex.operation
                        if metrics is None:
                            result = call(operation, ex.request, ex.region, ex.access)
                        elif operation in reported:  # the engine reports its units
                            result = call(operation, ex.request, ex.region, ex.access)
                            observed = report.last
                            if observed is None:
                                observe.answered(ex, result, False, None)
                            else:
                                report.last = None
                                ex.observed = observed
                        else:
                            asked = observe.ask_capacity(ex)
                            result = call(operation, ex.request, ex.region, ex.access)
                            observe.answered(ex, result, asked, units)
                        ex.response = render(
                            200, b"" if operation in no_output else dumps(result) if result
                            else _EMPTY_OBJECT, ex.response_type, ex.extra, ex.coding)
                    except DynamoDBError as refused:
                        if metrics is not None:
                            observe.refused(ex, refused)
                        ex.response = error_response(ex, refused)
                    except Exception as failure:
                        log_failure(log, f"{ex.operation} failed; answering InternalServerError",
                                    failure)
                        ex.response = error_response(ex, internal_error(failure))
        except Exception as error:
            # The batch did not commit (or could not start): nothing it did
            # happened, whatever each request was about to be told.
            if disk_full(error) and len(calls) > 1:
                # Each request alone: the reads among them, and writes that
                # need no new space, still succeed; only the others fail.
                log.warning("the disk is full: a batch of %d requests runs one by one",
                            len(calls))
                for ex in calls:
                    self._run([ex])
                return
            log_failure(log, f"a batch of {len(calls)} requests failed to commit", error)
            failed = internal_error(error)
            for ex in calls:
                ex.response = error_response(ex, failed)
