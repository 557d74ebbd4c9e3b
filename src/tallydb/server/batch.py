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

import orjson

from tallydb.api import Engine
from tallydb.errors import DynamoDBError, InternalServerError
from tallydb.server import http
from tallydb.server.exchange import Exchange
from tallydb.server.routing import error_response

log = logging.getLogger("tallydb.server")


class Batcher:
    """Collects a turn's requests, commits them together, then answers."""

    def __init__(self, engine: Engine, loop: asyncio.AbstractEventLoop) -> None:
        self.engine = engine
        self.loop = loop
        self.queue: list[Exchange] = []
        self.scheduled = False
        self.batches = 0
        self.requests = 0

    def submit(self, ex: Exchange) -> None:
        self.queue.append(ex)
        if not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        """Run, commit and answer everything queued so far."""
        self.scheduled = False
        queue = self.queue
        if not queue:
            return
        self.queue = []
        http.refresh_date()
        calls = [ex for ex in queue if ex.response is None]
        if calls:
            self._run(calls)
        touched = []
        for ex in queue:
            conn = ex.conn
            if not conn.out:
                touched.append(conn)
            conn.out.append(ex.response)  # type: ignore[arg-type]
            conn.pending -= 1
            if ex.close:
                conn.close_after_write = True
        for conn in touched:
            conn.write_out()

    def _run(self, calls: list[Exchange]) -> None:
        self.batches += 1
        self.requests += len(calls)
        try:
            with self.engine.batch() as call:
                for ex in calls:
                    try:
                        result = call(ex.operation, ex.request)  # type: ignore[arg-type]
                        ex.response = http.render(200, orjson.dumps(result), ex.response_type,
                                                  ex.extra)
                    except DynamoDBError as error:
                        ex.response = error_response(ex, error)
                    except Exception:
                        log.exception("%s failed; answering InternalServerError", ex.operation)
                        ex.response = error_response(ex, InternalServerError())
        except Exception:
            # The batch did not commit (or could not start): nothing it did
            # happened, whatever each request was about to be told.
            log.exception("a batch of %d requests failed to commit", len(calls))
            failed = InternalServerError()
            for ex in calls:
                ex.response = error_response(ex, failed)
