"""Large requests judged in a worker process before the event loop parses them.

Parsing a request's JSON and checking its values is CPU time on the event
loop, where every other client waits: a PutItem of a 900,000-element list
(10 MB) costs a second or more, and orjson holds the GIL for the whole
parse, so a worker thread would not spare the loop. A body of ``SCREENED``
bytes or more (``SCREENED_ENCODED`` when compressed) is first decoded,
parsed and prechecked in one worker process (``engine.api.precheck``: its
shape, then what its operation checks before it reads a table, such as an
item over 400 KB); the loop parses only a request that could be valid, and
answers any other with the worker's verdict, in DynamoDB's order
(``Router.route``). Meanwhile its connection reads nothing more, so its
answers stay in order, and its body keeps its share of the body budget.

A request that may be valid is then parsed on the loop, its values are
checked on a thread (``engine.api.prevalidate``: Python code, which lets
the loop take its turns), and it runs in its batch without checking them
again. Its parse is what stays on the loop: orjson holds the GIL on any
thread, about a quarter of a second for 200,000 tiny list elements on a
busy machine.

The worker is spawned with the first large request, lives as long as the
server and dies with it; should it fail, requests are parsed on the loop as
before.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor

import orjson

from tallydb.engine.api import precheck
from tallydb.engine.errors import DynamoDBError
from tallydb.server.bodies import trim_heap
from tallydb.server.encoding import decode_body
from tallydb.server.routing import NOT_AN_OBJECT, NOT_JSON, Verdict

log = logging.getLogger("tallydb.server")

SCREENED = 256 * 1024  # bytes of a plain body from which it is judged off the loop
SCREENED_ENCODED = 1024  # the same, compressed (it may inflate a thousandfold)
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _outlive_nobody(server: int) -> None:
    """In the worker, first: die with the server, even by ``kill -9``
    (Linux; elsewhere the worker ends when it next reads from the server)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if os.getppid() != server:  # it died before we asked
        os._exit(0)


def judge(operation: str, content_encoding: bytes | None, body: bytes) -> Verdict:
    """In the worker: what routing would find, short of what needs a table;
    then what the parse took goes back to the OS."""
    verdict = _judged(operation, content_encoding, body)
    del body
    trim_heap()
    return verdict


def _judged(operation: str, content_encoding: bytes | None, body: bytes) -> Verdict:
    if content_encoding is not None:
        try:
            body = decode_body(content_encoding, body)
        except Exception:  # undecodable, unknown, too large: routing says which, as quickly
            return None
    try:
        request = orjson.loads(body)
    except orjson.JSONDecodeError:
        return NOT_JSON
    if type(request) is not dict:
        return NOT_AN_OBJECT
    try:
        precheck(operation, request)
    except DynamoDBError as error:
        return error.status, orjson.dumps(error.to_wire())
    return None


class Screen:
    """The worker process, started when first needed."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._pool: ProcessPoolExecutor | None = None

    @staticmethod
    def wanted(body: bytes, content_encoding: bytes | None) -> bool:
        """Whether a request's body is large enough to be judged off the loop."""
        size = len(body)
        return size >= SCREENED or (content_encoding is not None and size >= SCREENED_ENCODED)

    async def judge(self, operation: str, content_encoding: bytes | None, body: bytes
                    ) -> Verdict:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"),
                initializer=_outlive_nobody, initargs=(os.getpid(),))
        try:
            return await self.loop.run_in_executor(
                self._pool, judge, operation, content_encoding, body)
        except Exception:
            log.exception("the worker that judges large requests failed; parsing on the loop")
            self.close()
            return None

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
