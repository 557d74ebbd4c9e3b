"""The checkpointer: copies SQLite's WAL back into the database file on a
thread of its own.

A WAL checkpoint fsyncs the WAL and then the database file (at ``--sync``
normal and full). Run by the writer, as SQLite does by default every 1,000
pages, those fsyncs stop every request behind it: with random keys over a
million items the server spent about a fifth of its time waiting on them
(scenario B at 1,000,000 items, a one-off run: about 8,000 req/s, 14,000
with no checkpoints at all; `python -m bench.ab 73d60b6 ef7a682 --keys
1000000`, before and after this thread: 9,104 and 13,019). Here a
second connection runs PASSIVE checkpoints, which never wait for nor block
the writer or its readers, and SQLite releases the GIL while one runs.

The store wakes the checkpointer after each SQLite commit; a checkpoint
starts at once, then the next no sooner than ``INTERVAL`` later. A page
written many times in between is copied and synced once, and that is what
the interval is for. With random keys over a million items (66,000 pages
of 1 KB) at 20,000 updates a second, a checkpoint every 0.5 s copies about
0.93 pages per update, one every 6 s about half as many (the arithmetic of
random keys: a page is written 1.8 times in 6 s on average); 10,000 items
(640 pages) are copied whole either way. Scenario B, 6 s against 0.5 s:
`python -m bench.ab e9efbae cce45c2 --keys 1000000` gave 1.03x the req/s,
p99 10.7 down to 6.3 ms, and 1.05x at 10,000 items (without ``--keys``);
two more runs, from throwaway branches with ``RESTART_FRAMES`` at 131,072,
gave 1.07x and 1.12x at 1,000,000 items (p99 10.5 and 10.9 down to 5.8 and
5.2 ms) and 1.01x at 10,000. The price is a longer WAL: the frames of
``INTERVAL`` seconds (135-140 MB at 20,000 random updates a second; a
restart after ``kill -9`` reads it whole, 0.11 s for 128 MB).

A WAL is started again from its beginning only once it has all been copied
back, which passive checkpoints never achieve under a steady stream of
writes (each misses what was appended while it copied): the WAL would grow
without bound. So once it holds ``RESTART_FRAMES``, the checkpointer copies
until little is left, then asks the writer (``restart_due``) to copy the rest
itself, between two of its transactions, and start the WAL again: a short
pause, once every ``RESTART_FRAMES`` pages written.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log_errors = logging.getLogger("tallydb.engine.storage")

#: Seconds between the starts of two checkpoints, at least.
INTERVAL = 6.0
#: WAL frames (pages) from which the writer is asked to restart the WAL
#: (checked after each checkpoint: the WAL holds at most about twice this,
#: or ``INTERVAL`` seconds of frames).
RESTART_FRAMES = 65_536
#: Before asking, at most ``TAIL_ROUNDS`` more passive checkpoints (each
#: copies what was appended during the one before) until no more than this
#: many frames were appended during the last one.
TAIL_FRAMES = 256
TAIL_ROUNDS = 8


class Checkpointer:
    """A daemon thread checkpointing one database's WAL when woken."""

    def __init__(self, location: str) -> None:
        self._location = location
        self._wanted = threading.Event()
        self._restarted = threading.Event()
        self._closing = threading.Event()
        #: The WAL's frames and how many of them are in the database file,
        #: as the last checkpoint left them.
        self.frames = (0, 0)
        #: The writer should call ``restart`` after its next commit; the
        #: checkpointer waits for it meanwhile.
        self.restart_due = False
        self._thread = threading.Thread(
            target=self._run, name="tallydb-checkpointer", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Ask for a checkpoint: the WAL has new frames."""
        self._wanted.set()

    def restart(self, conn: sqlite3.Connection) -> None:
        """On the writer's connection, outside a transaction: copy what is
        left of the WAL and have the next commit start it again."""
        self.restart_due = False
        try:
            self._checkpoint(conn, "RESTART")
        except sqlite3.Error:
            log_errors.exception("restarting the WAL failed")
        finally:
            self._restarted.set()

    def close(self) -> None:
        """Stop the thread (after the checkpoint under way, if any)."""
        self._closing.set()
        self._wanted.set()
        self._restarted.set()
        self._thread.join()

    def _run(self) -> None:
        conn = sqlite3.connect(self._location, isolation_level=None, check_same_thread=False)
        try:
            while True:
                self._wanted.wait()
                if self._closing.is_set():
                    return
                self._wanted.clear()
                try:
                    self._checkpoint(conn, "PASSIVE")
                    if self.frames[0] >= RESTART_FRAMES:
                        self._catch_up(conn)
                        self._restarted.clear()
                        self.restart_due = True
                        if not self._closing.is_set():  # else close() set it before the clear
                            self._restarted.wait()
                except sqlite3.Error:
                    log_errors.exception("checkpointing the WAL failed")
                if self._closing.wait(INTERVAL):
                    return
        finally:
            conn.close()

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        for _ in range(TAIL_ROUNDS):
            copied = self.frames[1]
            self._checkpoint(conn, "PASSIVE")
            if self.frames[0] - copied <= TAIL_FRAMES:
                return

    def _checkpoint(self, conn: sqlite3.Connection, mode: str) -> None:
        _busy, frames, copied = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        self.frames = (frames, copied)
