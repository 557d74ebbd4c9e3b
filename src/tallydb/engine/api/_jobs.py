"""Background jobs: exports, imports and bulk puts, each on a thread of its
own while requests go on, its state a document in the store.

An operation that starts a job writes the job's document (its description,
IN_PROGRESS) in the request's transaction and asks ``Jobs.start`` for a
thread. The thread's first step takes the writer to read that document, so
it waits for the request to commit, and finds nothing (and stops) if the
request was rolled back. A job updates its document as it goes, each time
in a short transaction of its own; it never holds the writer for long.

A job still IN_PROGRESS when the server stopped (or was killed) is run
again from the start when the engine next opens (``resume``): an export is
taken again, an import puts its items again (a put of the same item is the
same item).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tallydb.engine.objects import ObjectStore
from tallydb.engine.storage import Store

__all__ = ["Integrations", "Jobs", "Runner", "integrations", "job_document"]

log = logging.getLogger("tallydb.engine.jobs")

#: Runs one job: (the jobs, the job's kind and name). Raises nothing a
#: caller must handle: a runner records its own failure in its document.
Runner = Callable[["Jobs", str, str], None]


def job_document(description: dict[str, Any], request: dict[str, Any], optional: tuple[str, ...],
                 **where: Any) -> dict[str, Any]:
    """A job's stored record: its ``description`` with those of the request's
    ``optional`` members it was given, the request, and ``where`` (its id,
    table, catalog and region)."""
    description.update((member, request[member]) for member in optional if member in request)
    return {"description": description, "request": request, **where}


class Jobs:
    """The running jobs of one store, by (kind, name)."""

    def __init__(self, store: Store, runners: dict[str, Runner]) -> None:
        self.store = store
        self.runners = runners
        self.closing = threading.Event()
        self._threads: dict[tuple[str, str], threading.Thread] = {}
        self._lock = threading.Lock()
        self.integrations: Integrations | None = None

    def start(self, kind: str, name: str) -> None:
        """Run job ``name`` of ``kind`` on a thread (once the request that
        recorded it has committed)."""
        with self._lock:
            if self.closing.is_set() or (kind, name) in self._threads:
                return
            thread = threading.Thread(target=self._run, args=(kind, name),
                                      name=f"tallydb-{kind}", daemon=True)
            self._threads[(kind, name)] = thread
        thread.start()

    def _run(self, kind: str, name: str) -> None:
        try:
            self.runners[kind](self, kind, name)
        except Exception:
            log.exception("the %s job %s failed", kind, name)
        finally:
            with self._lock:
                self._threads.pop((kind, name), None)

    def document(self, kind: str, name: str) -> Any:
        with self.store.transaction() as txn:
            return txn.document(kind, name)

    def update(self, kind: str, name: str, change: Callable[[dict[str, Any]], None]) -> None:
        """Change a job's document in a transaction of its own."""
        with self.store.transaction() as txn:
            document = txn.document(kind, name)
            if document is not None:
                change(document)
                txn.put_document(kind, name, document)

    def resume(self, status_of: Callable[[str, dict[str, Any]], str]) -> None:
        """Start again every job whose document says it is still running."""
        with self.store.transaction() as txn:
            found = [(kind, name) for kind in self.runners
                     for name, document in txn.documents(kind)
                     if status_of(kind, document) in ("IN_PROGRESS", "CANCELLING")]
        for kind, name in found:
            self.start(kind, name)

    def close(self, timeout: float = 10.0) -> None:
        """Ask every job to stop, and wait a while for them."""
        self.closing.set()
        with self._lock:
            threads = list(self._threads.values())
        for thread in threads:
            thread.join(timeout)


@dataclass
class Integrations:
    """What an engine is connected to beyond its store: where exports go
    and imports come from (``objects``), and its background jobs."""

    objects: ObjectStore
    jobs: Jobs
    #: Where logs of the jobs go (an import's error log).
    logs: Path
    #: Runs one operation in an open transaction (PutItem, for an import).
    run: Callable[[Any, str, dict[str, Any]], dict[str, Any]]
    #: The region of the operation running (set by the engine before each
    #: one that is not an item operation): the region a job shows ARNs in.
    region: str = "us-east-1"
    #: Anything else an integration keeps per engine, by name.
    extras: dict[str, Any] = field(default_factory=dict)
    #: The engine's units report while it keeps one (``_units.keep_report``).
    units: Any = None


def integrations(txn: Any) -> Integrations:
    """The integrations of the engine a transaction belongs to."""
    found: Integrations = txn.context
    return found
