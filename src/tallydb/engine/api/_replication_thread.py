"""The replication thread: an engine's global tables send their changes
to their other replicas, make and remove replicas, on a daemon thread of
its own (``Engine.replicate`` runs one round).

It starts with the first global table (or at open, when the store has
one) and sleeps until the next change is due, or until told of work it
may not know of: a replica asked for, a first change while nothing was
waiting. A round holds the writer like any transaction.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tallydb.engine.api import Engine

__all__ = ["Replicator"]

log = logging.getLogger(__name__)

#: Seconds between rounds after one failed (a full disk, say).
RETRY = 1.0


class Replicator:
    """``Replicator(engine).wake()`` starts it (once) or wakes it; ``stop()``
    before the engine is closed."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._wanted = threading.Event()
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        """Run a round soon (starting the thread the first time)."""
        self._wanted.set()
        if self._thread is None:
            with self._lock:
                if self._thread is None and not self._stopping.is_set():
                    self._thread = threading.Thread(
                        target=self._run, name="tallydb-replication", daemon=True)
                    self._thread.start()

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wanted.clear()
            try:
                wait = self.engine.replicate()
            except Exception:
                log.exception("a replication round failed")
                wait = RETRY
            if wait == 0:
                continue
            self._wanted.wait(wait)

    def stop(self) -> None:
        """Stop; returns once no round is running."""
        self._stopping.set()
        self._wanted.set()
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join()
