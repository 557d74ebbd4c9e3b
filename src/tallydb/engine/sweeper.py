"""The embedded engine's TTL sweep: what ``tallydb serve`` does on its loop,
done by a daemon thread for a store opened in-process (``tallydb.connect()``,
``mock_dynamodb()``).

Every ``interval`` seconds it calls :meth:`tallydb.engine.api.Engine.sweep_expired`,
and again at once while a sweep deletes a full batch (a backlog). Expired
items are deleted as DynamoDB deletes them: some time after they expire,
never before; a read in between may still see them.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from tallydb.engine.api import SWEEP_BATCH, SWEEP_INTERVAL

if TYPE_CHECKING:
    from tallydb.engine.api import Engine

__all__ = ["Sweeper"]

log = logging.getLogger(__name__)


class Sweeper:
    """``Sweeper(engine).start()``; ``stop()`` before the engine is closed."""

    def __init__(self, engine: Engine, interval: float = SWEEP_INTERVAL) -> None:
        self.engine = engine
        self.interval = interval
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tallydb-ttl", daemon=True)

    def start(self) -> Sweeper:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stopping.wait(self.interval):
            deleted = SWEEP_BATCH
            while deleted >= SWEEP_BATCH and not self._stopping.is_set():
                try:
                    deleted = self.engine.sweep_expired()
                except Exception:
                    log.exception("the TTL sweep failed")
                    break

    def stop(self) -> None:
        """Stop sweeping; returns once no sweep is running."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()
