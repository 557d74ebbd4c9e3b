"""The embedded store: SQLite in WAL mode, one writer on one connection
(a second one, on its own thread, copies the WAL back: ``checkpoint.py``).

Item writes commit to the item log (``item_log.py``) and are kept in memory
(the *overlay*) until they are written into SQLite in bulk; everything else
(the catalog, client tokens, and any transaction that also changes those)
commits to SQLite directly. See ``Store.transaction``.

A full overlay is *frozen* (``Store._freeze``): the item log moves aside
with it and a new one starts, and its rows go into SQLite a chunk after each
later commit (``FLUSH_CHUNK``), so that no commit waits for a whole bulk
write. Reads look in the overlay, then the frozen one, then SQLite.
"""

from __future__ import annotations

import functools
import itertools
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, NamedTuple, cast

import orjson

from tallydb.engine.storage.checkpoint import Checkpointer
from tallydb.engine.storage.full import SQLITE_IOERR_SHMSIZE, log_failure
from tallydb.engine.storage.item_log import HEADER_SIZE, ItemLog
from tallydb.engine.storage.kept_keys import kept_key
from tallydb.engine.storage.ownership import own_directory

Item = dict[str, Any]
#: One row of an items table: (SQLite table, hk, rk).
RowKey = tuple[str, bytes, bytes]

log_errors: Final = logging.getLogger("tallydb.engine.storage")

# Python's sqlite3 binds int, float, str and bytearray parameters as they
# are, but asks the adapter registry about any other type, bytes included,
# and each miss costs a failed attribute lookup on ``PrepareProtocol``
# (an exception made and cleared): about 0.5 µs per bytes parameter, and a
# row's write binds three (hk, rk, the item's JSON). Registered as itself,
# bytes is found at the first step (``bytes(b) is b``). The registry is the
# process's; an adapter someone registered for bytes first is left alone.
if (bytes, sqlite3.PrepareProtocol) not in sqlite3.adapters:
    sqlite3.register_adapter(bytes, bytes)


class Sync(StrEnum):
    """How far a commit goes before it is acknowledged.

    off: handed to the OS at commit; survives the server being killed
      (even ``kill -9``), not an OS crash or power loss, which may also
      corrupt the database.
    normal (default): as off, and the database stays intact through an OS
      crash or power loss, which may lose the last moments of commits.
    full: the WAL is fsynced before every (group) commit is acknowledged;
      survives power loss.
    """

    OFF = "off"
    NORMAL = "normal"
    FULL = "full"


def catalog_key(catalog: str, name: str) -> str:
    return f"{catalog}/{name}" if catalog else name


@dataclass(frozen=True)
class TableRecord:
    """A table as the catalog keeps it: its id, its DescribeTable body, and
    the ids of its index tables by index name.

    Records are never changed in place: a change is a new record put in the
    catalog (``Transaction.update_table``, ``create_index``), so a rolled-back
    transaction can put the old one back.
    """

    id: int
    name: str
    description: dict[str, Any]
    indexes: dict[str, int] = field(default_factory=dict)
    #: The catalog the table belongs to: "" (the shared one), or a region's
    #: own when regions are separate (``Transaction.catalog``).
    catalog: str = ""
    #: The SQLite table holding the table's items (derived from ``id``).
    items_table: str = field(init=False, repr=False, compare=False)
    #: The table's name in the catalog: ``name``, or ``CATALOG/NAME`` ("/"
    #: is in no table name, so no two catalogs' names meet).
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "items_table", f"items_{self.id}")
        object.__setattr__(self, "key", catalog_key(self.catalog, self.name))

    def index_table(self, index: str) -> str:
        """The SQLite table holding ``index``'s entries."""
        return f"items_{self.id}_{self.indexes[index]}"

    def with_description(self, description: dict[str, Any]) -> TableRecord:
        return replace(self, description=description)


_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS catalog (
    name TEXT PRIMARY KEY,
    id INTEGER NOT NULL UNIQUE,
    description BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sequence (name TEXT PRIMARY KEY, value INTEGER NOT NULL)
    WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS index_catalog (
    table_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    id INTEGER NOT NULL,
    PRIMARY KEY (table_id, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS client_tokens (
    token TEXT PRIMARY KEY,
    digest BLOB NOT NULL,
    created REAL NOT NULL,
    replay BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS client_tokens_created ON client_tokens(created);
CREATE TABLE IF NOT EXISTS item_counts (
    source TEXT PRIMARY KEY,
    items INTEGER NOT NULL,
    bytes INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS item_log_applied (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    lsn INTEGER NOT NULL
);
INSERT OR IGNORE INTO item_log_applied(one, lsn) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS retired_catalog (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    description BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (kind, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    name TEXT PRIMARY KEY,
    id INTEGER NOT NULL UNIQUE,
    tables BLOB NOT NULL,
    meta BLOB NOT NULL
) WITHOUT ROWID;
"""

#: The overlay is written into SQLite once it holds this many rows, or the
#: item log this many bytes: bounds memory, the pause of one bulk write, and
#: the replay at the next start. Random keys over 10,000 items (scenario B)
#: cost less per write at 512 than at 128 (a bulk write dirties fewer pages
#: per row: in-process, interleaved, 0.94 of the CPU with the clean cache
#: on; 2,048 gave 0.86 but 1.10 at 1,000,000 items, where 512 was level).
OVERLAY_ROWS = 512
#: While fewer than half of the rows the overlay holds had to be looked up
#: in SQLite (``Store._looked_up``), it waits for this many instead: the
#: rows come from a working set the clean cache holds, so a row is written
#: into SQLite once for more of its changes, and a larger bulk write shares
#: its pages among more rows (random keys over 10,000 items, a row written
#: for 0.89 of the changes at 2,048, 0.48 at 8,192: CPU a request 0.89 of
#: 512's at 2,048, in-process, interleaved; 0.67-0.79 of 2,048's at 8,192;
#: 0.75-0.83 of 8,192's at 32,768, where the overlay holds all 10,000 rows
#: and goes into SQLite when the item log reaches ``LOG_BYTES``). A read
#: of many rows merges the overlay with SQLite's rows, so its size costs
#: reads nothing. Over a table larger than the cache every row is a page
#: of its own whatever the bulk, and 2,048 there cost more (1,000,000
#: items: 1.05-1.11), so such writes stay at 512.
OVERLAY_ROWS_CACHED = 32768
LOG_BYTES: Final = 4 * 1024 * 1024
#: At most this many rows read from SQLite are remembered as held there
#: between two bulk writes of the overlay (``Store._held``): a table larger
#: than the cache writes its overlay at ``OVERLAY_ROWS``, and a cached
#: working set looks few rows up (past the bound, forgetting them costs a
#: lookup each at the bulk write).
HELD_ROWS: Final = 8192
#: The page size of a new database (an existing one keeps its own): a
#: commit appends every page it changed to the WAL, and a counter's change
#: is a few bytes on one page.
PAGE_SIZE: Final = 1024
#: The clean cache's budget (``Store._clean``): its rows' JSON plus
#: ``ROW_OVERHEAD`` each (the key tuple, its bytes and the dict's slot).
#: 4 MB holds 10,000 small counters; 16 MB cost random keys over 1,000,000
#: items 1.09x the CPU per write (the CPU's caches), 4 MB 1.00-1.05x, both
#: measured while each row still held orjson's 4 KB buffer (``_commit``).
CLEAN_BYTES = 4 * 1024 * 1024
ROW_OVERHEAD: Final = 200
#: A read of all of a table's rows (a Scan's page) merges the overlays'
#: rows with SQLite's while they hold at most this many, else writes them
#: into SQLite first: each page goes over all of them again, and a Scan's
#: pages, Limit 25 each, over an overlay of 10,000 rows cost 6.5 ms each
#: merged, 0.9 written first (the first page writes them). A read of one
#: partition goes over its own rows only (listed), and always merges: a
#: change feed's outbox, read every few milliseconds, would otherwise write
#: the overlay at each read while its worker is behind.
MERGED_ROWS = 512
FLUSH_RETRY = 1.0  # seconds between attempts to write the overlay into a full disk
#: Rows of a frozen overlay written into SQLite after each commit, in a
#: SQLite transaction of their own: bounds the pause a bulk write adds to a
#: commit (and so to every request of a server's group commit) to that of
#: this many rows. Smaller chunks cost more per row (a page changed by two
#: chunks goes into the WAL twice; in isolation, 10,000 items, random keys:
#: 2,048 rows at once 11.0 µs a row, chunks of 512 12.3, 256 12.8, 128 13.0).
FLUSH_CHUNK = 256
#: The item log of a frozen overlay, beside the live one until SQLite holds it.
FROZEN_LOG: Final = "tallydb.itemlog.frozen"
#: A frozen overlay's log once SQLite holds it: the next freeze's new log
#: (started afresh in place). No file is removed, replaced or truncated on
#: the write path: freeing a file's blocks can wait on the filesystem's
#: journal, held by a WAL checkpoint's fsyncs (an unlink took 62-119 ms
#: there at 1,000,000 items).
SPENT_LOG: Final = "tallydb.itemlog.spent"

#: An items table (a table's, or one index's): rows in (hk, rk) order.
_ITEMS_TABLE: Final = (
    "CREATE TABLE {} ("
    "hk BLOB NOT NULL, rk BLOB NOT NULL, item BLOB NOT NULL, PRIMARY KEY (hk, rk)"
    ") WITHOUT ROWID"
)

#: An items table's row count and bytes (DescribeTable's figures), kept in
#: the same transaction as its rows, so exact after a rollback, a
#: savepoint's or a replay, and read in one lookup however large the table.
#: A new row is counted by the writer that inserts it (``_put_rows``: a
#: bulk write of new keys runs no trigger per row, which cost ~1.5 µs of a
#: row's ~5); an upsert that finds its row, and a deletion, by SQLite's
#: triggers. A row rewritten at its old length (a counter's increment,
#: mostly) changes neither figure: the UPDATE trigger's ``WHEN`` skips the
#: write of ``item_counts`` (a seek and a row rewrite each: 0.7 µs of the 5
#: a row of a bulk write cost). ``_UPDATED_WHEN`` tells that trigger from
#: the one databases made before had, and ``_INSERTED`` names the INSERT
#: trigger they had (``Store._count_uncounted`` replaces the one and drops
#: the other).
_UPDATED_WHEN: Final = "WHEN length(NEW.item) != length(OLD.item)"
_INSERTED: Final = "_inserted"
_COUNTING: Final = (
    """CREATE TRIGGER IF NOT EXISTS "{0}_deleted" AFTER DELETE ON {0} BEGIN
        UPDATE item_counts SET items = items - 1, bytes = bytes - length(OLD.item)
        WHERE source = '{0}'; END""",
    """CREATE TRIGGER IF NOT EXISTS "{0}_updated" AFTER UPDATE OF item ON {0}
        """ + _UPDATED_WHEN + """ BEGIN
        UPDATE item_counts SET bytes = bytes + length(NEW.item) - length(OLD.item)
        WHERE source = '{0}'; END""",
)
_ADD_COUNTS: Final = "UPDATE item_counts SET items = items + ?, bytes = bytes + ? WHERE source = ?"


def _recount(conn: sqlite3.Connection, source: str) -> None:
    """Count ``source``'s rows again from what it holds (one scan)."""
    conn.execute(
        f"INSERT OR REPLACE INTO item_counts(source, items, bytes) "
        f"SELECT '{source}', count(*), coalesce(sum(length(item)), 0) FROM {source}")


def _start_counting(conn: sqlite3.Connection, source: str) -> None:
    """Count ``source``'s rows from what it holds now on (a new items
    table, or one of a database made before counts were kept)."""
    _recount(conn, source)
    for trigger in _COUNTING:
        conn.execute(trigger.format(source))

#: Copy every row of one items table into another (a snapshot, a restore).
_COPY_ROWS: Final = "INSERT INTO {}(hk, rk, item) SELECT hk, rk, item FROM {}"
#: The same, leaving the rows the target has already as they are.
_KEEP_ROWS: Final = "INSERT OR IGNORE INTO {}(hk, rk, item) SELECT hk, rk, item FROM {}"


class _RowSQL(NamedTuple):
    """The statements on one row of one items table (a table's, an index's)."""

    select: str
    #: an upsert: run only by ``_put_rows``, which counts the rows it inserts
    put: str
    delete: str
    #: a row SQLite must not hold yet (a conflict raises IntegrityError)
    insert: str
    #: an empty row where SQLite holds none (the put that follows fills it)
    reserve: str


@functools.lru_cache(maxsize=1024)
def _row_sql(source: str) -> _RowSQL:
    """``source``'s row statements, formatted once rather than per request.

    The put is an upsert, not INSERT OR REPLACE: SQLite updates an existing
    row in place where REPLACE deletes it and inserts it again (measured: a
    one-row transaction about 5 to 9 µs faster).
    """
    return _RowSQL(
        f"SELECT item FROM {source} WHERE hk = ? AND rk = ?",
        f"INSERT INTO {source}(hk, rk, item) VALUES (?, ?, ?) "
        "ON CONFLICT(hk, rk) DO UPDATE SET item = excluded.item",
        f"DELETE FROM {source} WHERE hk = ? AND rk = ?",
        f"INSERT INTO {source}(hk, rk, item) VALUES (?, ?, ?)",
        f"INSERT OR IGNORE INTO {source}(hk, rk, item) VALUES (?, ?, x'')",
    )


class Store:
    """One data directory (or one in-memory database) and its single writer."""

    def __init__(self, path: Path | str | None = None, sync: Sync | str = Sync.NORMAL) -> None:
        if path == ":memory:":  # sqlite3's name for a database in memory, not a directory
            path = None
        self.sync = Sync(sync)
        #: The data directory (None: in memory).
        self.directory: Path | None = None if path is None else Path(path)
        self._keys: dict[str, bytes] = {}
        if path is None:
            self.location = ":memory:"
        else:
            directory = Path(path)
            directory.mkdir(parents=True, exist_ok=True)
            self.location = str(directory / "tallydb.sqlite3")
        self._owner = None if path is None else own_directory(directory)
        self._lock = threading.RLock()
        self._conn = self._connect()
        # PAGE_SIZE for a new database (an existing one keeps its own).
        self._conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        #: The WAL index is in this process's memory, not a shared file
        #: (``_open_wal``): no second connection, so no checkpointer thread.
        self.exclusive = self._open_wal(directory if path is not None else None)
        self._conn.execute(f"PRAGMA synchronous={self.sync.value.upper()}")
        self._conn.execute("PRAGMA temp_store=MEMORY")
        # 32 MB of page cache (SQLite's default is 2 MB): random updates over
        # a million items read fewer pages back from the OS (about 10% less
        # CPU per update, bench/growth.py); it fills only as pages are read.
        self._conn.execute("PRAGMA cache_size=-32768")
        if not self.exclusive:
            # WAL checkpoints run on the checkpointer's thread, not in our commits.
            self._conn.execute("PRAGMA wal_autocheckpoint=0")
        #: The cursor a row's read by key runs on (``_looked_up_row``), kept
        #: rather than made for each read as ``conn.execute`` does: 0.8k
        #: of the 21k instructions of a read from Python (callgrind). Its
        #: statement is never left open holding SQLite's read snapshot:
        #: ``fetchone`` steps past the key's one row to the end, which
        #: resets it (tests/storage/test_clean_rows.py holds this).
        self._reads = self._conn.cursor()
        self._conn.executescript(_SCHEMA)
        indexes: dict[int, dict[str, int]] = {}
        for table_id, index_name, index_id in self._conn.execute(
            "SELECT table_id, name, id FROM index_catalog"
        ):
            indexes.setdefault(table_id, {})[index_name] = index_id
        #: Tables by catalog key (``TableRecord.key``); retired ones
        #: (``Transaction.delete_table``'s ``keep``) by id, which no key can equal.
        self._tables: dict[str | int, TableRecord] = {}
        for key, table_id, description in self._conn.execute(
            "SELECT name, id, description FROM catalog"
        ):
            catalog, _, name = key.rpartition("/")
            self._tables[key] = TableRecord(
                table_id, name, orjson.loads(description), indexes.get(table_id, {}), catalog)
        for table_id, key, description in self._conn.execute(
            "SELECT id, name, description FROM retired_catalog"
        ):
            catalog, _, name = key.rpartition("/")
            self._tables[table_id] = TableRecord(
                table_id, name, orjson.loads(description), indexes.get(table_id, {}), catalog)
        self._count_uncounted()
        self._depth = 0
        self._closed = False
        #: Committed item writes not yet in SQLite (durable in the item log),
        #: by (SQLite table, hk, rk): the row's JSON, or None (deleted).
        self._overlay: dict[RowKey, bytes | None] = {}
        #: An earlier overlay on its way into SQLite, a chunk after each
        #: commit (``_freeze``), read after the overlay (which is newer);
        #: None while there is none. ``_frozen_rows`` holds its rows in the
        #: order they are written, ``_frozen_at`` how many SQLite holds
        #: committed, and ``_frozen_lsn`` its last commit's LSN.
        self._frozen: dict[RowKey, bytes | None] | None = None
        self._frozen_rows: list[tuple[RowKey, bytes | None]] = []
        self._frozen_at = 0
        self._frozen_lsn = 0
        #: The range keys of the overlay's rows that have one (a table with
        #: a sort key, an index, a change feed), by partition: (SQLite
        #: table, hk): rk, for a read of one partition that merges them with
        #: SQLite's (``_partition_rows``); the same of the frozen overlay's.
        #: Only of the SQLite tables in ``_listed``: those read so since the
        #: store opened (the first such read lists what the overlays hold;
        #: each commit after it, its own rows; a fresh row deleted leaves its
        #: list as it leaves the overlay: a change feed's outbox, read every
        #: few milliseconds, lists only the rows not yet sent).
        self._partitions: dict[tuple[str, bytes], set[bytes]] = {}
        self._frozen_partitions: dict[tuple[str, bytes], set[bytes]] = {}
        self._listed: set[str] = set()
        #: Rows as SQLite holds them, committed (the JSON, or None: no such
        #: row), kept after a read or a flush so that the next read of the
        #: row needs no B-tree lookup (``_remember``). The overlay, newer, is
        #: read first; the cache is trusted only while the open transaction
        #: has not written SQLite itself, and emptied when such a one commits.
        self._clean: dict[RowKey, bytes | None] = {}
        self._clean_bytes = 0
        #: Rows read from SQLite itself (in neither the overlay nor the clean
        #: cache) since the overlay last went into SQLite (``OVERLAY_ROWS_CACHED``).
        self._looked_up = 0
        #: Rows those reads found (at most ``HELD_ROWS``): SQLite holds them
        #: committed, so the overlay's puts of them are counted by the
        #: UPDATE trigger alone (``_put_rows``), as are those the clean
        #: cache holds.
        self._held: set[RowKey] = set()
        #: The open transaction's item writes, kept the same way until it
        #: commits (None inside a savepoint: writes go straight to SQLite).
        self._pending: dict[RowKey, bytes | None] | None = None
        #: Rows in the overlay that were put new (``put_entry_encoded(...,
        #: fresh=True)``: a key never written before) since the overlay last
        #: went into SQLite: SQLite has no such row, so deleting one leaves
        #: nothing to write there, and it leaves the overlay (a change
        #: feed's outbox, whose rows are sent and deleted within moments).
        self._fresh: set[RowKey] = set()
        #: The open transaction's fresh puts, and its deletions of fresh rows.
        self._fresh_puts: list[RowKey] = []
        self._fresh_drops: list[RowKey] = []
        #: The open transaction has begun SQLite's; the overlay is written into it.
        self._in_sqlite = False
        self._overlay_written = False
        #: SQLite's open transaction holds writes of its own (the open
        #: transaction's), not only the overlay a read needed there.
        self._own_sqlite = False
        #: Item writes so far, kept or not: lets a caller tell whether an
        #: operation that failed had written anything.
        self.writes = 0
        #: Transactions and savepoints rolled back so far: lets a caller that
        #: remembers what it wrote tell whether some of it may be gone.
        self.rollbacks = 0
        self._log = (None if path is None else
                     ItemLog(directory / "tallydb.itemlog", fsync=self.sync is Sync.FULL))
        self._flush_after = 0.0  # monotonic time before which the overlay stays out of SQLite
        # the last LSN SQLite holds, and the last committed
        self._applied, self._lsn = self._replay()
        self._txn = Transaction(self)  # one serves every scope
        #: Row writers run once, before the open transaction's item writes
        #: leave memory (``Transaction.defer``).
        self._deferred: dict[Any, Callable[[], None]] = {}
        #: Called after each COMMIT, still holding the writer, with what the
        #: transaction recorded in ``Transaction.journal``; while it is None
        #: nothing is recorded (see ``tallydb.engine.feed``).
        self.on_commit: Callable[[list[Any]], None] | None = None
        self._checkpointer = (
            None if path is None or self.exclusive else Checkpointer(self.location))
        #: The engine's table lifecycle delays (``Transaction.table_delays``):
        #: None while tables change state at once.
        self.table_delays: Any = None
        #: Read views open on their own connections (``reader.read_view``):
        #: while any is, the WAL is not started again (that would wait for them).
        self.readers = 0

    def _open_wal(self, directory: Path | None) -> bool:
        """Put the database in WAL mode; whether it had to keep the WAL
        index in memory. That index is a file beside the database, which a
        full disk may leave no room to create: the store then opens with
        exclusive locking, which keeps it in memory, so reads are served
        and writes resume once space returns (checkpoints then run in the
        commits, until the next start)."""
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            return False
        except sqlite3.OperationalError as error:
            if getattr(error, "sqlite_errorcode", None) != SQLITE_IOERR_SHMSIZE:
                raise
            log_errors.warning(
                "no room for the WAL index beside the database in %s (%s): keeping it in "
                "memory until the next start", directory, error)
        self._conn.close()  # (the failed attempt stays with the connection)
        self._conn = self._connect()
        self._conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        self._conn.execute("PRAGMA journal_mode=WAL")
        return True

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(
            self.location, isolation_level=None, check_same_thread=False, cached_statements=512)

    def _catalog(self, name: str | int, record: TableRecord | None) -> None:
        """Put (or, given None, remove) a table in the cached catalog. The
        dict is replaced, never changed in place, so a transaction keeps the
        one it started with for a rollback without copying it."""
        tables = dict(self._tables)
        if record is None:
            del tables[name]
        else:
            tables[name] = record
        self._tables = tables

    def _count_uncounted(self) -> None:
        """Start counting the items tables a database made before counts
        were kept has (once: one scan of each), give those counted with an
        UPDATE trigger of before ``_UPDATED_WHEN`` today's, and drop the
        INSERT triggers of before ``_put_rows`` (once: the figures they
        kept stay as they are)."""
        counted = {row[0] for row in self._conn.execute("SELECT source FROM item_counts")}
        sources = [source for key, record in self._tables.items()
                   for source in ((record.items_table,) if isinstance(key, str) else ()) +
                   tuple(record.index_table(i) for i in record.indexes)]
        missing = [source for source in sources if source not in counted]
        triggers = self._conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
        outdated = [name for name, sql in triggers
                    if name.endswith("_updated") and _UPDATED_WHEN not in sql]
        inserting = [name for name, _ in triggers if name.endswith(_INSERTED)]
        if missing or outdated or inserting:
            self._conn.execute("BEGIN IMMEDIATE")
            for name in inserting:  # its writers count what they insert now
                self._conn.execute(f'DROP TRIGGER "{name}"')
            for name in outdated:
                self._conn.execute(f'DROP TRIGGER "{name}"')
                self._conn.execute(_COUNTING[1].format(name.removesuffix("_updated")))
            for source in missing:
                _start_counting(self._conn, source)
            self._conn.execute("COMMIT")

    def _replay(self) -> tuple[int, int]:
        """Write the item log's records after SQLite's last into SQLite, in
        one transaction, and start the log afresh; the LSN SQLite then
        holds, and the last committed.

        On a full disk the records stay where they are (durable in the log)
        and in the overlay, as if just committed: the store opens, reads
        see every acknowledged write, and they reach SQLite once there is
        room."""
        conn = self._conn
        applied: int = conn.execute("SELECT lsn FROM item_log_applied").fetchone()[0]
        log = self._log
        if log is None:
            return applied, applied
        assert self.directory is not None
        lsn = applied
        latest: dict[RowKey, bytes | None] = {}  # each row's last write, in LSN order
        for record_lsn, rows in _records(self.directory / FROZEN_LOG, log):
            if record_lsn <= applied:
                continue  # SQLite holds it: the log was not reset after that commit
            if record_lsn != lsn + 1:
                break  # a gap: what follows is not this history's
            latest.update(rows)
            lsn = record_lsn
        try:
            conn.execute("BEGIN IMMEDIATE")
            _write_rows(conn, latest)
            conn.execute("UPDATE item_log_applied SET lsn = ?", (lsn,))
            conn.execute("COMMIT")
        except (sqlite3.Error, OSError) as error:
            if conn.in_transaction:  # (SQLite may have rolled back already)
                conn.execute("ROLLBACK")
            log_failure(log_errors, f"replaying the item log into SQLite failed; its "
                        f"{len(latest)} rows stay in the log", error)
            if (self.directory / FROZEN_LOG).exists():  # some are durable only there
                self._frozen, self._frozen_rows, self._frozen_lsn = (
                    latest, list(latest.items()), lsn)
            else:
                self._overlay = latest
            self._flush_after = time.monotonic() + FLUSH_RETRY
            return applied, lsn
        try:
            log.reset()
        except OSError:
            log_errors.exception("starting the item log afresh failed")  # SQLite holds it all
        self._thaw()  # (the frozen log's records are in SQLite too)
        return lsn, lsn

    def _committed_row(self, row_key: RowKey) -> bytes | None:
        """A row's JSON (or None: no row) as the open transaction sees it,
        but for its own writes kept in memory (the caller looked there)."""
        if self._own_sqlite:  # SQLite holds writes of this transaction's
            return self._looked_up_row(row_key)
        blob = self._overlay.get(row_key, _UNWRITTEN)
        if blob is _UNWRITTEN:
            frozen = self._frozen
            if frozen is not None:
                blob = frozen.get(row_key, _UNWRITTEN)
            if blob is _UNWRITTEN:
                blob = self._clean.get(row_key, _UNWRITTEN)
                if blob is _UNWRITTEN:
                    return self._read_row(row_key)
        return blob  # type: ignore[return-value]

    def _read_row(self, row_key: RowKey) -> bytes | None:
        """A committed row neither the overlay nor the clean-row cache holds,
        read from SQLite (and remembered as held there, when it is)."""
        self._looked_up += 1
        blob = self._looked_up_row(row_key)
        if blob is not None:
            held = self._held
            if len(held) >= HELD_ROWS:
                held.clear()  # (forgetting costs a lookup at the flush)
            held.add(row_key)
        return blob


    def _looked_up_row(self, row_key: RowKey) -> bytes | None:
        """A row's JSON (or None) as SQLite's transaction holds it."""
        self._begin_reading()
        row = self._reads.execute(_row_sql(row_key[0]).select, row_key[1:]).fetchone()
        return None if row is None else bytes(row[0])

    def _partition_rows(self, source: str, hk: bytes | None, past: bytes | None = None
                        ) -> dict[tuple[bytes, bytes], bytes | None] | None:
        """The rows of ``source`` (one partition, ``hk``, or all) that the
        overlays hold committed and the open transaction wrote, by (hk,
        rk): the JSON, or None (deleted); None for a read of all of them
        while the overlays hold more than ``MERGED_ROWS``. ``past``: of one
        partition, only the rows after that rk (a forward read resuming
        there: the rows up to it are not looked up)."""
        frozen = self._frozen
        overlay = self._overlay
        keys: Iterable[RowKey]
        if hk is None:
            if len(overlay) + len(frozen or ()) > MERGED_ROWS:
                return None
            keys = [key for key in overlay if key[0] == source]
            if frozen is not None:
                keys.extend(key for key in frozen if key[0] == source)
        else:
            if source not in self._listed:
                self._listed.add(source)
                _list_partitions(self._partitions, overlay, self._listed)
                if frozen is not None:
                    _list_partitions(self._frozen_partitions, frozen, self._listed)
            partition = (source, hk)
            rks = {b"", *self._partitions.get(partition, ()),
                   *self._frozen_partitions.get(partition, ())}
            keys = ([(source, hk, rk) for rk in rks] if past is None else
                    [(source, hk, rk) for rk in rks if rk > past])
        found: dict[tuple[bytes, bytes], bytes | None] = {}
        for row_key in keys:
            blob = overlay.get(row_key, _UNWRITTEN)
            if blob is _UNWRITTEN and frozen is not None:
                blob = frozen.get(row_key, _UNWRITTEN)
            if blob is not _UNWRITTEN:  # (else not there: a key without rk, a fresh row deleted)
                found[row_key[1:]] = blob  # type: ignore[assignment]
        pending = self._pending
        if pending:  # (newest: the transaction's own, a few rows)
            for row_key in ([key for key in pending if key[0] == source] if hk is None else
                            [key for key in pending if key[1] == hk and key[0] == source]):
                found[row_key[1:]] = pending[row_key]
        return found

    def _run_deferred(self) -> None:
        """Let the deferred writers write their rows (``Transaction.defer``)."""
        deferred = self._deferred
        while deferred:
            deferred.popitem()[1]()

    def _sync_items(self) -> None:
        """Make SQLite hold every item write so far (the overlay, then what
        the open transaction kept), beginning its transaction only if there
        is something to write: before a read of many rows."""
        if self._deferred:
            self._run_deferred()
        if self._in_sqlite:
            if not self._overlay_written:  # (the transaction's first write of SQLite)
                held = (self._held, self._clean)
                if self._frozen is not None:  # older: first (committed with the rest)
                    _write_rows(self._conn, dict(self._frozen_rows[self._frozen_at:]), held)
                _write_rows(self._conn, self._overlay, held)
                self._overlay_written = True
                self._fresh.clear()  # in SQLite now (or again absent, rolled back)
            self._fresh_puts.clear()  # this transaction's writes go to SQLite too
            self._fresh_drops.clear()
            pending = self._pending
            if pending:
                self._own_sqlite = True
                _write_rows(self._conn, pending)
                pending.clear()
        elif self._overlay or self._pending or self._frozen is not None:
            self._begin_sqlite(own=bool(self._pending))
        else:
            self._begin_reading()

    def _begin_sqlite(self, own: bool = True) -> None:
        """Before anything that writes SQLite itself (a catalog change, a
        client token, a savepoint): the open transaction commits to SQLite,
        with every item write so far. (``own=False``: only so that a read
        of many rows sees the overlay there.)"""
        if own:
            self._own_sqlite = True
        if not self._in_sqlite:
            if not self._conn.in_transaction:  # else its reads' becomes one by writing
                self._conn.execute("BEGIN IMMEDIATE")
            self._in_sqlite = True
        self._sync_items()

    def _begin_reading(self) -> None:
        """Before a read of SQLite: all of the open transaction's reads share
        one SQLite transaction, ended when it commits (a read outside one is
        a transaction of its own, taking and dropping the WAL's locks)."""
        if not self._conn.in_transaction:
            self._conn.execute("BEGIN")

    def _end_reading(self) -> None:
        """End the reads' SQLite transaction (the open one has not written SQLite)."""
        if self._conn.in_transaction:
            self._conn.execute("COMMIT")

    def _commit(self) -> None:
        """Commit the open transaction: to SQLite if it began SQLite's, else
        its item writes as one record of the item log, into the overlay."""
        if self._deferred:
            self._run_deferred()
        if self._in_sqlite:
            self._sync_items()
            if self._own_sqlite:
                self._commit_sqlite()
            else:
                self._commit_overlay()
            return
        pending, self._pending = self._pending, None
        # Before the overlay is written: its write transaction then reads the
        # newest WAL, which it starts again if the checkpointer has copied it all.
        self._end_reading()
        if not pending:
            return
        log = self._log
        if log is not None:
            log.append(self._lsn + 1, pending)
        self._lsn += 1
        # Kept past the transaction (the overlay, then the clean cache) as
        # exact copies: orjson's output holds the 4 KB buffer it was written
        # into, whatever its length, and so would every row kept.
        self._overlay.update({row_key: None if blob is None else memoryview(blob).tobytes()
                              for row_key, blob in pending.items()})
        if self._listed:
            _list_partitions(self._partitions, pending, self._listed)
        if self._fresh_puts or self._fresh_drops:
            self._settle_fresh(pending)
        if self._frozen is not None and time.monotonic() >= self._flush_after:
            self._write_chunk(FLUSH_CHUNK)
        rows = len(self._overlay)
        full = rows >= OVERLAY_ROWS and (
            rows >= OVERLAY_ROWS_CACHED or 2 * self._looked_up >= rows)
        if (full or (log is not None and log.size >= LOG_BYTES)
                ) and time.monotonic() >= self._flush_after:
            if self._frozen is not None:  # (the one before is not in yet: the rest now)
                self._write_chunk(len(self._frozen_rows))
            if self._frozen is None and self._freeze():
                self._write_chunk(FLUSH_CHUNK)

    def _freeze(self) -> bool:
        """Set the overlay aside to go into SQLite a chunk at a time, with
        its item log (renamed ``FROZEN_LOG``; a new log takes the commits
        after it); whether it could. A failure to rename leaves everything
        as it was."""
        log = self._log
        if log is not None:
            assert self.directory is not None
            spent = self.directory / SPENT_LOG
            try:
                os.replace(log.path, self.directory / FROZEN_LOG)
            except OSError:
                log_errors.exception("moving the item log aside failed; the overlay stays")
                self._flush_after = time.monotonic() + FLUSH_RETRY
                return False
            log.close()
            try:  # (its records are all in SQLite: a replay skips them until reset)
                os.replace(spent, log.path)
            except FileNotFoundError:
                pass
            except OSError:  # a new file instead
                log_errors.exception("reusing the spent item log failed")
            self._log = ItemLog(log.path, fsync=log.fsync, fresh=True)
            if log.fsync:  # the new log's name is durable before a record in it is
                _fsync_directory(self.directory)
        self._frozen = self._overlay
        self._frozen_rows = list(self._overlay.items())
        self._frozen_at = 0
        self._frozen_lsn = self._lsn
        self._overlay = {}
        self._frozen_partitions, self._partitions = self._partitions, {}
        # On their way into SQLite: a deletion of one must now reach it too.
        self._fresh.clear()
        self._looked_up = 0
        return True

    def _write_chunk(self, rows: int) -> None:
        """Write the frozen overlay's next ``rows`` rows into SQLite, in a
        transaction of their own; the last of them with its LSN, which
        ends it. Its rows are committed already (in the item log): a
        failure (a full disk) leaves them to be tried again FLUSH_RETRY
        seconds later. (Rows SQLite holds before the LSN says so are ones
        the frozen overlay and the log hold too, so a replay writes them
        again.)"""
        conn = self._conn
        at = self._frozen_at
        end = min(at + rows, len(self._frozen_rows))
        last = end == len(self._frozen_rows)
        chunk = dict(self._frozen_rows[at:end])
        try:
            conn.execute("BEGIN IMMEDIATE")
            _write_rows(conn, chunk, (self._held, self._clean))
            if last:
                conn.execute("UPDATE item_log_applied SET lsn = ?", (self._frozen_lsn,))
            conn.execute("COMMIT")
        except Exception as error:
            log_failure(log_errors, "writing the item overlay into SQLite failed", error)
            if conn.in_transaction:  # (SQLite may have rolled back already)
                conn.execute("ROLLBACK")
            self._flush_after = time.monotonic() + FLUSH_RETRY
            return
        self._frozen_at = end
        # SQLite holds these rows as they are now (what a later bulk write
        # asks to count new keys right, before the frozen overlay is all in)
        self._remember(chunk)
        held = self._held
        for row_key, blob in chunk.items():
            if blob is None:
                held.discard(row_key)
        if last:
            self._applied = self._frozen_lsn
            self._thaw()
        self._after_sqlite_commit()

    def _thaw(self) -> None:
        """SQLite holds the frozen overlay committed: drop it, and its log."""
        self._frozen = None
        self._frozen_rows = []
        self._frozen_at = 0
        self._frozen_partitions = {}
        self._held.clear()  # (a row it deleted is no longer held)
        if self.directory is not None:
            try:
                os.replace(self.directory / FROZEN_LOG, self.directory / SPENT_LOG)
            except FileNotFoundError:
                pass
            except OSError:  # replays skip what SQLite holds: only a file is left
                log_errors.exception("setting the frozen item log aside failed")

    def _settle_fresh(self, pending: dict[RowKey, bytes | None]) -> None:
        """After a commit into the overlay: its fresh puts become fresh rows,
        and the fresh rows it deleted leave the overlay (the item log keeps
        the put and the deletion, which a replay applies in order)."""
        fresh = self._fresh
        fresh.update(self._fresh_puts)
        self._fresh_puts.clear()
        overlay = self._overlay
        partitions = self._partitions
        for key in self._fresh_drops:
            if key in fresh and pending.get(key, b"") is None:
                del overlay[key]
                fresh.discard(key)
                listed = partitions.get(key[:2])
                if listed is not None:  # (a change feed's outbox: its list stays short)
                    listed.discard(key[2])
                    if not listed:
                        del partitions[key[:2]]
        self._fresh_drops.clear()

    def _commit_overlay(self) -> None:
        """Commit a transaction that wrote nothing but put the overlay into
        SQLite for its reads. The overlay is committed already (in the item
        log): a failure to write it (a full disk) leaves it where it is, and
        the reads stand."""
        try:
            self._commit_sqlite()
        except (sqlite3.Error, OSError) as error:
            log_failure(log_errors, "writing the item overlay into SQLite failed; it stays in "
                        "the item log", error)
            self._rollback()
            self._flush_after = time.monotonic() + FLUSH_RETRY

    def _commit_sqlite(self) -> None:
        """COMMIT SQLite's transaction (which holds the overlay); the overlay
        and the item log are then empty."""
        if self._lsn != self._applied:
            self._conn.execute("UPDATE item_log_applied SET lsn = ?", (self._lsn,))
        self._conn.execute("COMMIT")
        frozen = self._frozen
        if frozen is not None:  # written into this transaction (``_sync_items``)
            self._thaw()
        if self._own_sqlite:  # rows changed that the cache cannot know of
            self._forget_clean()
        else:  # SQLite now holds the overlay's rows as they are
            if frozen is not None:
                self._remember(frozen)
            self._remember(self._overlay)
        self._in_sqlite = self._own_sqlite = False
        self._overlay_written = False
        self._overlay = {}
        self._partitions = {}
        self._fresh.clear()
        self._looked_up = 0
        self._held.clear()
        self._applied = self._lsn
        self._after_sqlite_commit()
        log = self._log
        if log is not None and log.size > HEADER_SIZE:
            try:
                log.reset()
            except OSError:
                # Committed all the same: the replay skips what SQLite holds.
                log_errors.exception("starting the item log afresh failed")

    def _after_sqlite_commit(self) -> None:
        """Let the checkpointer copy what SQLite's last commit added to the WAL."""
        checkpointer = self._checkpointer
        if checkpointer is not None:
            if checkpointer.restart_due and not self.readers:
                checkpointer.restart(self._conn)
            else:
                checkpointer.wake()

    def _remember(self, rows: Mapping[RowKey, bytes | None]) -> None:
        """Keep committed rows in the clean cache, within ``CLEAN_BYTES``
        (once full it is emptied and fills again: a working set that fits
        stays, random keys over a larger table cost one dict insert)."""
        clean = self._clean
        get = clean.get
        added = 0
        for row_key, blob in rows.items():
            added += ROW_OVERHEAD if blob is None else ROW_OVERHEAD + len(blob)
            kept = get(row_key, _UNWRITTEN)
            if kept is not _UNWRITTEN:  # replaced: no longer counted
                added -= ROW_OVERHEAD + (0 if kept is None else len(kept))  # type: ignore[arg-type]
        if self._clean_bytes + added > CLEAN_BYTES:
            clean.clear()
            self._clean_bytes = 0
            added = sum(ROW_OVERHEAD if blob is None else ROW_OVERHEAD + len(blob)
                        for blob in rows.values())
            if added > CLEAN_BYTES:
                return
        clean.update(rows)
        self._clean_bytes += added

    def _forget_clean(self) -> None:
        self._clean.clear()
        self._clean_bytes = 0

    def _rollback(self) -> None:
        """Undo the open transaction; the overlay (committed) stays."""
        self.rollbacks += 1
        self._pending = None
        self._fresh_puts.clear()
        self._fresh_drops.clear()
        self._deferred.clear()
        self._in_sqlite = self._overlay_written = self._own_sqlite = False
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")

    @contextmanager
    def settled(self) -> Iterator[None]:
        """Hold the writer, with every committed write in SQLite itself (none
        only in the overlay): a second connection opened inside sees them all."""
        with self._lock:
            with self.transaction():
                self._begin_sqlite()
            yield

    def database_bytes(self) -> bytes:
        """The whole database, as SQLite serializes it (an in-memory store's copy)."""
        with self.settled():
            return self._conn.serialize()

    @property
    def context(self) -> Any:
        """What the engine above keeps with its store (``Transaction.context``)."""
        return self._txn.context

    @context.setter
    def context(self, context: Any) -> None:
        self._txn.context = context

    def transaction(self) -> _Scope:
        """Hold the writer: everything done inside commits together or not at all.

        Re-entrant: a transaction opened inside another joins it. (A class,
        not a generator context manager: it is entered on every request.)

        Item writes are kept in memory and read back from there. A
        transaction that wrote nothing but items commits them as one record
        of the item log, into the overlay; one that also changed the catalog
        or a client token, took a savepoint, or read many rows (``items``,
        ``count_items``) commits everything to SQLite, overlay included. A
        server runs a whole group commit in one transaction, so a hot counter
        incremented by every request of the group is one row of one record.
        """
        return _Scope(self)

    def kept_key(self, name: str) -> bytes:
        """A random key kept with the data under ``name`` (``kept_keys``):
        the same for as long as the data directory lives."""
        key = self._keys.get(name)
        if key is None:
            key = self._keys[name] = kept_key(self.directory, name)
        return key

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                if self._overlay or self._frozen is not None:
                    try:
                        with self.transaction():
                            self._begin_sqlite()
                    except (sqlite3.Error, OSError) as error:
                        # a full disk: the item log keeps it, for the next open
                        log_failure(log_errors, "writing the item overlay into SQLite failed",
                                    error)
                self._closed = True
                if self._checkpointer is not None:
                    self._checkpointer.close()
                self._conn.close()
                if self._log is not None:
                    self._log.close()
                if self._owner is not None:
                    self._owner.close()


def _records(frozen: Path, log: ItemLog
             ) -> Iterator[tuple[int, dict[RowKey, bytes | None]]]:
    """The records of a frozen overlay's log (if one is left), then the live log's."""
    if frozen.exists():
        older = ItemLog(frozen, fsync=False)
        try:
            yield from older.records()
        finally:
            older.close()
    yield from log.records()


def _list_partitions(partitions: dict[tuple[str, bytes], set[bytes]],
                     rows: Iterable[RowKey], sources: set[str]) -> None:
    """List the range keys of ``rows`` of ``sources`` by partition (a key
    without one, b"": a table's without a sort key, needs no list)."""
    for source, hk, rk in rows:
        if rk and source in sources:
            found = partitions.get((source, hk))
            if found is None:
                partitions[(source, hk)] = {rk}
            else:
                found.add(rk)


def _in_range(rows: Mapping[tuple[bytes, bytes], bytes | None], low: bytes | None,
              below: bytes | None, after: tuple[bytes, bytes] | None,
              forward: bool) -> list[tuple[tuple[bytes, bytes], bytes | None]]:
    """The rows a read of ``Transaction.items`` asks for (``low <= rk <
    below``, strictly after ``after``), in its order."""
    kept = [(key, blob) for key, blob in rows.items()
            if (low is None or key[1] >= low) and (below is None or key[1] < below)
            and (after is None or (key > after if forward else key < after))]
    kept.sort(key=lambda row: row[0], reverse=not forward)
    return kept


def _merged(older: Iterator[tuple[bytes, bytes, bytes]],
            newer: Mapping[tuple[bytes, bytes], bytes | None],
            kept: list[tuple[tuple[bytes, bytes], bytes | None]], forward: bool,
            ) -> Iterator[tuple[bytes, bytes, bytes]]:
    """SQLite's rows (``older``, in key order) with the overlays' (``kept``,
    the same order; ``newer`` all of them by key) in their place: a row
    they hold replaces SQLite's, and None (deleted) removes it."""
    at = 0
    end = len(kept)
    for row in older:
        key = (row[0], row[1])
        while at < end and (kept[at][0] <= key if forward else kept[at][0] >= key):
            (row_hk, row_rk), blob = kept[at]
            if blob is not None:
                yield row_hk, row_rk, blob
            at += 1
        if key not in newer:
            yield row
    for (row_hk, row_rk), blob in kept[at:]:
        if blob is not None:
            yield row_hk, row_rk, blob


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: Rows SQLite is known to hold, committed: a set of some, and the clean
#: cache (a row it keeps as JSON, not None, is held).
Held = tuple[set[RowKey], Mapping[RowKey, bytes | None]]


def _write_rows(conn: sqlite3.Connection, rows: Mapping[RowKey, bytes | None],
                held: Held | None = None) -> None:
    """Write item rows into SQLite: one statement per SQLite table and kind
    (``held``: rows SQLite is known to hold, for ``_put_rows``)."""
    if not rows:
        return
    puts: dict[str, list[tuple[bytes, bytes, bytes]]] = {}
    deletes: dict[str, list[tuple[bytes, bytes]]] = {}
    for (source, hk, rk), blob in rows.items():
        if blob is None:
            deletes.setdefault(source, []).append((hk, rk))
        else:
            puts.setdefault(source, []).append((hk, rk, blob))
    for source, keys in deletes.items():
        conn.executemany(_row_sql(source).delete, keys)
    for source, entries in puts.items():
        _put_rows(conn, source, entries, held)


def _put_rows(conn: sqlite3.Connection, source: str,
              entries: list[tuple[bytes, bytes, bytes]],
              held: Held | None = None) -> None:
    """Put rows (hk, rk, JSON; no key twice) into an items table, counting
    the new ones in ``item_counts``: plain INSERTs (nothing to count per
    row) until one finds its key taken; that row and the rest are upserts,
    their bytes counted by the UPDATE trigger. Those of them ``held`` does
    not know SQLite to hold go in first as empty rows where SQLite has none
    (INSERT OR IGNORE: how many it inserted is the count of new items), so
    that the upsert finds every row and the trigger counts all the bytes."""
    sql = _row_sql(source)
    inserted = 0

    def until_one_exists() -> Iterator[tuple[bytes, bytes, bytes]]:
        nonlocal inserted
        for entry in entries:
            yield entry
            inserted += 1  # (asked for the next: this one was written)

    added = 0
    try:
        conn.executemany(sql.insert, until_one_exists())
    except sqlite3.IntegrityError:  # entries[inserted]'s key is taken, and it is not written
        rest = entries[inserted:]
        if held is None:
            unknown = rest[1:]
        else:
            found, kept = held[0], held[1].get
            unknown = [entry for entry in rest[1:]
                       if (key := (source, entry[0], entry[1])) not in found
                       and kept(key) is None]
        if unknown:
            added = conn.executemany(sql.reserve, [(hk, rk) for hk, rk, _ in unknown]).rowcount
        conn.executemany(sql.put, rest)
    if inserted or added:
        conn.execute(_ADD_COUNTS, (
            inserted + added, sum(len(blob) for _, _, blob in entries[:inserted]), source))


class _Scope:
    """One entry into the writer (see ``Store.transaction``)."""

    __slots__ = ("_outer", "_store", "_tables_before")

    def __init__(self, store: Store) -> None:
        self._store = store

    def __enter__(self) -> Transaction:
        store = self._store
        store._lock.acquire()
        if store._closed:
            store._lock.release()
            raise RuntimeError("the store is closed")
        self._outer = store._depth == 0
        store._depth += 1
        txn = store._txn
        if self._outer:
            self._tables_before = store._tables
            store._pending = {}
            txn.segment = next(_SEGMENTS)
            txn.journal = None if store.on_commit is None else []
        return txn

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: object) -> None:
        store = self._store
        try:
            if self._outer:
                committed = False
                txn = store._txn
                journal, txn.journal = txn.journal, None
                try:
                    if kind is None:
                        store._commit()
                        committed = True
                finally:
                    if not committed:
                        store._rollback()
                        store._tables = self._tables_before
                if journal and store.on_commit is not None:
                    store.on_commit(journal)
        finally:
            store._depth -= 1
            store._lock.release()


class _Savepoint:
    """One operation inside a shared transaction: undone alone if it fails.

    The transaction commits to SQLite from here on; what the operation
    writes goes straight to SQLite, where ROLLBACK TO can undo it.
    """

    __slots__ = ("_journaled", "_pending", "_store", "_tables_before")

    def __init__(self, store: Store) -> None:
        self._store = store

    def __enter__(self) -> None:
        store = self._store
        store._begin_sqlite()
        self._pending, store._pending = store._pending, None
        self._tables_before = store._tables
        journal = store._txn.journal
        self._journaled = 0 if journal is None else len(journal)
        store._txn.segment = next(_SEGMENTS)
        store._conn.execute("SAVEPOINT operation")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: object) -> None:
        store = self._store
        if kind is None:
            store._run_deferred()  # into SQLite, inside the savepoint
        else:
            store._deferred.clear()  # the failed operation's, undone with it
        store._pending = self._pending
        store._txn.segment = next(_SEGMENTS)
        conn = store._conn
        if kind is not None:
            conn.execute("ROLLBACK TO operation")
            store.rollbacks += 1
            store._tables = self._tables_before
            journal = store._txn.journal
            if journal is not None:
                del journal[self._journaled:]
        conn.execute("RELEASE operation")


#: ``get_item``'s "nothing kept for this row" (None means kept as deleted).
_UNWRITTEN: Final = object()

#: Numbers for ``Transaction.segment``, unique in the process.
_SEGMENTS: Final = itertools.count(1)


class Transaction:
    """What one writer may do while it holds the store.

    ``journal``: while the store has an ``on_commit`` hook, a list the
    transaction's writers append what they changed to (dropped with a
    rolled-back savepoint or transaction, handed to the hook after COMMIT);
    None otherwise.

    ``catalog``: whose tables the running operation sees and creates: ""
    (the shared catalog), or a region's own name when regions are separate;
    its caller sets it before each operation.

    ``region``: the region the running operation was asked in when regions
    are separate, None when they are shared (set with ``catalog``).
    """

    __slots__ = ("_conn", "_store", "catalog", "context", "journal", "region", "segment")

    def __init__(self, store: Store) -> None:
        self._store = store
        self._conn = store._conn
        self.journal: list[Any] | None = None
        #: A number, unique in the process, for the stretch of this
        #: transaction since it began or since a savepoint began or ended:
        #: a row written again and again within one segment (many changes
        #: gathered into one row) commits or rolls back as one. (An
        #: attribute, not a property: the write path reads it per write.)
        self.segment = 0
        self.catalog = ""
        self.region: str | None = None
        #: What the engine above keeps with the store (its integrations).
        #: (An attribute, not a property: the write path reads it per write.)
        self.context: Any = None

    @property
    def table_delays(self) -> Any:
        """How long tables stay CREATING, DELETING, UPDATING (the engine's)."""
        return self._store.table_delays

    def savepoint(self) -> _Savepoint:
        """Run one of several operations sharing this transaction so that,
        if it fails, what it wrote is undone and the others' writes stay."""
        return _Savepoint(self._store)

    def kept_key(self, name: str) -> bytes:
        """The store's random key ``name`` (``Store.kept_key``)."""
        return self._store.kept_key(name)

    # -- the catalog -------------------------------------------------------

    def table(self, name: str) -> TableRecord | None:
        catalog = self.catalog
        return self._store._tables.get(f"{catalog}/{name}" if catalog else name)

    def table_by_key(self, key: str) -> TableRecord | None:
        """A table by its catalog key (``TableRecord.key``), whatever the catalog."""
        return self._store._tables.get(key)

    def table_in(self, catalog: str, name: str) -> TableRecord | None:
        """The table ``name`` of another catalog than this transaction's."""
        return self._store._tables.get(catalog_key(catalog, name))

    def catalog_state(self) -> object:
        """The cached catalog of every catalog, as one object: the same
        object for as long as no table changes (it is replaced, never
        changed in place), so a caller can keep what it derived from it."""
        return self._store._tables

    def tables(self) -> list[TableRecord]:
        """The tables of this transaction's catalog, by name."""
        catalog = self.catalog
        return sorted((t for k, t in self._store._tables.items()
                       if isinstance(k, str) and t.catalog == catalog), key=lambda t: t.name)

    def all_tables(self) -> list[TableRecord]:
        """The tables of every catalog (upkeep that serves them all: TTL, streams)."""
        return [t for k, t in self._store._tables.items() if isinstance(k, str)]

    def retired_tables(self, every_catalog: bool = False) -> list[TableRecord]:
        """Deleted tables that kept an index (``delete_table``'s ``keep``), of
        this transaction's catalog (or of every one), oldest first."""
        catalog = self.catalog
        return sorted((t for k, t in self._store._tables.items() if isinstance(k, int)
                       and (every_catalog or t.catalog == catalog)), key=lambda t: t.id)

    def _next(self, sequence: str) -> int:
        self._store._begin_sqlite()
        row = self._conn.execute(
            "SELECT value FROM sequence WHERE name = ?", (sequence,)).fetchone()
        value = (row[0] if row else 0) + 1
        self._conn.execute(
            "INSERT INTO sequence(name, value) VALUES (?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            (sequence, value),
        )
        return int(value)

    def create_table(self, name: str, description: dict[str, Any]) -> TableRecord:
        record = TableRecord(  # SQLite's transaction is begun by _next
            self._next("table"), name, description, catalog=self.catalog)
        self._conn.execute(
            "INSERT INTO catalog(name, id, description) VALUES (?, ?, ?)",
            (record.key, record.id, orjson.dumps(description)),
        )
        self._conn.execute(_ITEMS_TABLE.format(record.items_table))
        _start_counting(self._conn, record.items_table)
        self._store._catalog(record.key, record)
        return record

    def update_table(self, record: TableRecord) -> None:
        self._store._begin_sqlite()
        self._conn.execute(
            "UPDATE catalog SET description = ? WHERE name = ?",
            (orjson.dumps(record.description), record.key),
        )
        self._store._catalog(record.key, record)

    def delete_table(self, record: TableRecord, keep: str | None = None) -> None:
        """Delete a table with its items and indexes; with ``keep`` (one of
        its indexes) the table is retired instead: gone by name, its index
        ``keep`` and its description kept (``retired_tables``) until
        ``drop_retired``."""
        self._store._begin_sqlite()
        self._conn.execute("DELETE FROM catalog WHERE name = ?", (record.key,))
        dropped = [index for index in record.indexes if index != keep]
        self._conn.executemany("DELETE FROM index_catalog WHERE table_id = ? AND name = ?",
                               [(record.id, index) for index in dropped])
        for index in dropped:
            self._conn.execute(f"DROP TABLE IF EXISTS {record.index_table(index)}")
        self._conn.execute(f"DROP TABLE IF EXISTS {record.items_table}")
        self._conn.executemany("DELETE FROM item_counts WHERE source = ?", [
            (source,) for source in (record.items_table,
                                     *(record.index_table(i) for i in dropped))])
        self._store._catalog(record.key, None)
        if keep is not None and keep in record.indexes:
            retired = replace(record, indexes={keep: record.indexes[keep]})
            self._conn.execute(
                "INSERT INTO retired_catalog(id, name, description) VALUES (?, ?, ?)",
                (record.id, record.key, orjson.dumps(record.description)))
            self._store._catalog(record.id, retired)

    def update_retired(self, record: TableRecord) -> None:
        """Keep a new description of a retired table."""
        self._store._begin_sqlite()
        self._conn.execute("UPDATE retired_catalog SET description = ? WHERE id = ?",
                           (orjson.dumps(record.description), record.id))
        self._store._catalog(record.id, record)

    def drop_retired(self, record: TableRecord) -> None:
        """Delete a retired table's kept index, and the table for good."""
        self._store._begin_sqlite()
        for index in record.indexes:
            self._conn.execute(f"DROP TABLE IF EXISTS {record.index_table(index)}")
            self._conn.execute("DELETE FROM item_counts WHERE source = ?",
                               (record.index_table(index),))
        self._conn.execute("DELETE FROM index_catalog WHERE table_id = ?", (record.id,))
        self._conn.execute("DELETE FROM retired_catalog WHERE id = ?", (record.id,))
        self._store._catalog(record.id, None)

    def create_index(self, record: TableRecord, index: str) -> TableRecord:
        """Add an empty index table to ``record``'s table; the new record
        (the catalog already holds it)."""
        index_id = self._next("index")
        self._conn.execute(
            "INSERT INTO index_catalog(table_id, name, id) VALUES (?, ?, ?)",
            (record.id, index, index_id),
        )
        updated = replace(record, indexes={**record.indexes, index: index_id})
        self._conn.execute(_ITEMS_TABLE.format(updated.index_table(index)))
        _start_counting(self._conn, updated.index_table(index))
        self._store._catalog(record.key, updated)
        return updated

    def drop_index(self, record: TableRecord, index: str) -> TableRecord:
        """Remove an index table; the new record (the catalog already holds it)."""
        self._store._begin_sqlite()
        self._conn.execute(f"DROP TABLE IF EXISTS {record.index_table(index)}")
        self._conn.execute("DELETE FROM item_counts WHERE source = ?",
                           (record.index_table(index),))
        self._conn.execute(
            "DELETE FROM index_catalog WHERE table_id = ? AND name = ?", (record.id, index))
        updated = replace(
            record, indexes={k: v for k, v in record.indexes.items() if k != index})
        self._store._catalog(record.key, updated)
        return updated

    def count_items(self, record: TableRecord, index: str | None = None) -> tuple[int, int]:
        """(ItemCount, bytes of stored item JSON) of the table or of one of
        its indexes: DescribeTable's figures, kept as rows are written (one
        lookup, not a scan)."""
        self._store._sync_items()
        source = record.items_table if index is None else record.index_table(index)
        row = self._conn.execute(
            "SELECT items, bytes FROM item_counts WHERE source = ?", (source,)).fetchone()
        return (0, 0) if row is None else (int(row[0]), int(row[1]))

    # -- items -------------------------------------------------------------

    def get_item(self, record: TableRecord, hk: bytes, rk: bytes = b"") -> Item | None:
        blob = self._row_blob((record.items_table, hk, rk))
        return None if blob is None else orjson.loads(blob)

    def get_item_blob(self, record: TableRecord, hk: bytes, rk: bytes = b"") -> bytes | None:
        """The JSON of one item as stored (the very bytes written, while
        the transaction that wrote them is open), or None (no item).
        (``_row_blob``, inline: every counter's update reads this.)"""
        row_key = (record.items_table, hk, rk)
        store = self._store
        pending = store._pending
        if pending is not None:
            blob = pending.get(row_key, _UNWRITTEN)
            if blob is not _UNWRITTEN:
                return blob  # type: ignore[return-value]
        if store._own_sqlite:  # SQLite holds writes of this transaction's
            return store._looked_up_row(row_key)
        # ``_committed_row``, inline (a counter among many is read from the
        # overlay or the clean-row cache)
        blob = store._overlay.get(row_key, _UNWRITTEN)
        if blob is _UNWRITTEN:
            frozen = store._frozen
            if frozen is not None:
                blob = frozen.get(row_key, _UNWRITTEN)
            if blob is _UNWRITTEN:
                blob = store._clean.get(row_key, _UNWRITTEN)
                if blob is _UNWRITTEN:
                    return store._read_row(row_key)
        return blob  # type: ignore[return-value]

    def get_entry_blob(self, record: TableRecord, index: str, hk: bytes, rk: bytes
                       ) -> bytes | None:
        """The JSON of one entry of an index as stored, or None (no entry)."""
        return self._row_blob((record.index_table(index), hk, rk))

    def _row_blob(self, row_key: tuple[str, bytes, bytes]) -> bytes | None:
        """A row's JSON: this transaction's own write if it made one, else
        the committed row (the overlay, the clean-row cache, SQLite)."""
        store = self._store
        pending = store._pending
        if pending is not None:
            blob = pending.get(row_key, _UNWRITTEN)
            if blob is not _UNWRITTEN:
                return blob  # type: ignore[return-value]
        return store._committed_row(row_key)

    @property
    def rollbacks(self) -> int:
        """How many transactions and savepoints were rolled back so far."""
        return self._store.rollbacks

    def put_item(self, record: TableRecord, hk: bytes, rk: bytes, item: Item) -> None:
        self.put_encoded(record, hk, rk, orjson.dumps(item))

    def put_encoded(self, record: TableRecord, hk: bytes, rk: bytes, blob: bytes) -> None:
        """``put_item`` given the item's JSON (``orjson.dumps(item)``).
        (``_write``, inline: every item write comes this way.)"""
        store = self._store
        store.writes += 1
        pending = store._pending
        if pending is not None:
            pending[(record.items_table, hk, rk)] = blob
        else:
            _put_rows(self._conn, record.items_table, [(hk, rk, blob)])

    def delete_item(self, record: TableRecord, hk: bytes, rk: bytes = b"") -> None:
        self._write(record.items_table, hk, rk, None)

    def put_entry(self, record: TableRecord, index: str, hk: bytes, rk: bytes, item: Item
                  ) -> None:
        """Write one entry of an index (its keys encoded as the caller likes)."""
        self._write(record.index_table(index), hk, rk, orjson.dumps(item))

    def put_entry_encoded(self, record: TableRecord, index: str, hk: bytes, rk: bytes,
                          blob: bytes | bytearray, *, fresh: bool = False) -> None:
        """``put_entry`` given the entry's JSON. A bytearray is kept as it is,
        not copied: its writer may extend it and put it again until the
        transaction commits (never after). ``fresh``: SQLite has no row
        under the key (a sequence number never written before, or a row put
        fresh that is still only in memory, ``fresh_entry``), so that a
        deletion of the row before it reaches SQLite leaves nothing to write
        there."""
        source = record.index_table(index)
        store = self._store
        if fresh and store._pending is not None:
            row_key = (source, hk, rk)
            if row_key not in store._fresh:  # (one put again stays fresh as it is)
                store._fresh_puts.append(row_key)
        self._write(source, hk, rk, cast(bytes, blob))

    def fresh_entry(self, record: TableRecord, index: str, hk: bytes, rk: bytes) -> bytes | None:
        """The committed JSON of an entry put fresh (``put_entry_encoded``'s
        ``fresh``) that is still only in memory, not in SQLite, and that
        the open transaction has not written; otherwise None. Its writer
        may put it again, longer, as fresh (SQLite still has no such row)."""
        store = self._store
        row_key = (record.index_table(index), hk, rk)
        pending = store._pending
        if pending is None or row_key not in store._fresh or row_key in pending:
            return None
        return store._overlay.get(row_key)

    def defer(self, key: Any, write: Callable[[], None]) -> None:
        """Have ``write`` called once (once per ``key``), just before this
        transaction's item writes leave memory: at its commit, before a
        read of many rows, when a savepoint begins or ends well. It writes
        rows made of many changes at once (a stream's records). Dropped
        when the transaction, or the savepoint it was deferred in, fails."""
        self._store._deferred[key] = write

    def delete_entry(self, record: TableRecord, index: str, hk: bytes, rk: bytes) -> None:
        source = record.index_table(index)
        store = self._store
        if store._fresh and store._pending is not None and (source, hk, rk) in store._fresh:
            store._fresh_drops.append((source, hk, rk))
        self._write(source, hk, rk, None)

    def _write(self, source: str, hk: bytes, rk: bytes, blob: bytes | None) -> None:
        """Put (``blob``) or delete (None) one row of an items table: kept
        until the transaction commits (inside a savepoint: written to SQLite)."""
        store = self._store
        store.writes += 1
        pending = store._pending
        if pending is not None:
            pending[(source, hk, rk)] = blob
        elif blob is None:
            self._conn.execute(_row_sql(source).delete, (hk, rk))
        else:
            _put_rows(self._conn, source, [(hk, rk, blob)])

    def items(
        self,
        record: TableRecord,
        hk: bytes | None = None,
        *,
        index: str | None = None,
        after: tuple[bytes, bytes] | None = None,
        low: bytes | None = None,
        below: bytes | None = None,
        forward: bool = True,
        decode: bool = True,
    ) -> Iterator[tuple[bytes, bytes, Any]]:
        """Rows of the table (or of ``index``) in key order: one partition
        (``hk``) with ``low <= rk < below``, or all of them; resuming strictly
        after ``after``. Each row's item, or with ``decode`` false its JSON.

        The rows still in memory (the overlays', and the open transaction's
        own writes) are merged with SQLite's rather than written into
        SQLite first: a read of one partition costs no write, however
        large the overlay; a read of all of them, while the overlays hold
        at most ``MERGED_ROWS``."""
        where: list[str] = []
        args: list[Any] = []
        if hk is None:
            low = below = None  # (a range of rk is within one partition)
        else:
            where.append("hk = ?")
            args.append(hk)
            if low is not None:
                where.append("rk >= ?")
                args.append(low)
            if below is not None:
                where.append("rk < ?")
                args.append(below)
        if after is not None:
            where.append("(hk, rk) > (?, ?)" if forward else "(hk, rk) < (?, ?)")
            args.extend(after)
        source = record.items_table if index is None else record.index_table(index)
        order = "ASC" if forward else "DESC"
        sql = f"SELECT hk, rk, item FROM {source}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY hk {order}, rk {order}"
        store = self._store
        if store._deferred:
            store._run_deferred()
        pending = store._pending
        overlay = store._overlay
        frozen = store._frozen
        newer = (None if store._in_sqlite or pending is None
                 or not (overlay or pending or frozen is not None)
                 else store._partition_rows(
                     source, hk, after[1] if after is not None and hk is not None and forward
                     and after[0] == hk else None))
        if newer is None:
            store._sync_items()  # (SQLite holds them all: it is read alone)
            rows: Iterator[tuple[bytes, bytes, bytes]] = self._conn.execute(sql, args)
        else:
            store._begin_reading()
            rows = _merged(self._conn.execute(sql, args), newer,
                           _in_range(newer, low, below, after, forward), forward)
        if not decode:
            yield from rows
            return
        for row_hk, row_rk, blob in rows:
            yield row_hk, row_rk, orjson.loads(blob)

    def appended_rows(self, record: TableRecord, index: str, hk: bytes,
                      after: bytes | None = None) -> Iterator[tuple[bytes, bytes]]:
        """(rk, stored JSON) of one partition (``hk``) of ``index``, in rk
        order, as committed: what a reader that comes back often for rows
        appended since (a change feed's outbox) reads; ``after``: only the
        rows after that rk (its reader's rows up to it all deleted, which
        SQLite may hold still, until their deletions reach it: an index
        seek past them, not a read of each)."""
        start = None if after is None else (hk, after)
        for _, rk, blob in self.items(record, hk, index=index, decode=False, after=start):
            yield rk, blob

    # -- documents: small records of the engine's own (jobs, settings) -------

    def document(self, kind: str, name: str) -> Any:
        """The document ``name`` of ``kind`` (as JSON gave it), or None."""
        self._store._begin_reading()
        row = self._conn.execute(
            "SELECT body FROM documents WHERE kind = ? AND name = ?", (kind, name)).fetchone()
        return None if row is None else orjson.loads(row[0])

    def documents(self, kind: str) -> list[tuple[str, Any]]:
        """(name, document) of every document of ``kind``, by name."""
        self._store._begin_reading()
        rows = self._conn.execute(
            "SELECT name, body FROM documents WHERE kind = ? ORDER BY name", (kind,)).fetchall()
        return [(name, orjson.loads(body)) for name, body in rows]

    def put_document(self, kind: str, name: str, body: Any) -> None:
        self._store._begin_sqlite()
        self._conn.execute(
            "INSERT INTO documents(kind, name, body) VALUES (?, ?, ?) "
            "ON CONFLICT(kind, name) DO UPDATE SET body = excluded.body",
            (kind, name, orjson.dumps(body)))

    # -- TransactWriteItems' client tokens -----------------------------------

    def get_token(self, token: str) -> tuple[bytes, float, bytes] | None:
        """(digest, created, replay) recorded for ``token``, if any."""
        self._store._begin_reading()
        row = self._conn.execute(
            "SELECT digest, created, replay FROM client_tokens WHERE token = ?", (token,)
        ).fetchone()
        return None if row is None else (bytes(row[0]), float(row[1]), bytes(row[2]))

    def put_token(self, token: str, digest: bytes, created: float, replay: bytes) -> None:
        self._store._begin_sqlite()
        self._conn.execute(
            "INSERT OR REPLACE INTO client_tokens(token, digest, created, replay) "
            "VALUES (?, ?, ?, ?)",
            (token, digest, created, replay),
        )

    def forget_tokens_before(self, created: float) -> None:
        self._store._begin_sqlite()
        self._conn.execute("DELETE FROM client_tokens WHERE created < ?", (created,))

    # -- snapshots (backups) -------------------------------------------------

    def create_snapshot(self, name: str, record: TableRecord, meta: dict[str, Any]) -> None:
        """Copy the table's items and every index's entries, as this
        transaction sees them, under ``name`` with ``meta`` (the caller's
        description of it). A copy inside SQLite: the writer is held for it,
        so no write lands halfway."""
        snapshot_id = self._next("snapshot")  # SQLite's, begun: every item write is in it
        tables: dict[str, str] = {}
        sources = {"": record.items_table}
        sources.update((index, record.index_table(index)) for index in record.indexes)
        for number, (index, source) in enumerate(sources.items()):
            copy = tables[index] = f"snapshot_{snapshot_id}_{number}"
            self._conn.execute(_ITEMS_TABLE.format(copy))
            self._conn.execute(_COPY_ROWS.format(copy, source))
        self._conn.execute(
            "INSERT INTO snapshots(name, id, tables, meta) VALUES (?, ?, ?, ?)",
            (name, snapshot_id, orjson.dumps(tables), orjson.dumps(meta)))

    def snapshots(self) -> list[tuple[str, dict[str, Any]]]:
        """(name, meta) of every snapshot, oldest first."""
        self._store._begin_reading()
        rows = self._conn.execute("SELECT name, meta FROM snapshots ORDER BY id").fetchall()
        return [(name, orjson.loads(meta)) for name, meta in rows]

    def snapshot(self, name: str) -> dict[str, Any] | None:
        """The meta of snapshot ``name``, or None."""
        self._store._begin_reading()
        row = self._conn.execute("SELECT meta FROM snapshots WHERE name = ?", (name,)).fetchone()
        return None if row is None else orjson.loads(row[0])

    def copy_rows(self, source: TableRecord, target: TableRecord,
                  index: str | None = None, *, keep: bool = False) -> None:
        """Copy every row of ``source``'s table (or of its ``index``) into
        ``target``'s table (or its index of that name), as this transaction
        sees them: a copy inside SQLite. With ``keep``, a row ``target``
        has already stays as it is."""
        self._store._begin_sqlite()  # every item write so far is in SQLite's transaction
        copy = _KEEP_ROWS if keep else _COPY_ROWS
        if index is None:
            into, rows = target.items_table, source.items_table
        else:
            into, rows = target.index_table(index), source.index_table(index)
        self._conn.execute(copy.format(into, rows))
        _recount(self._conn, into)  # (no trigger counts what a copy inserts)

    def put_rows(self, record: TableRecord, rows: Mapping[tuple[bytes, bytes], bytes | None]
                 ) -> None:
        """Put (JSON) or delete (None) many rows of a table at once, by (hk,
        rk), straight into SQLite's transaction (a restore's bulk writes)."""
        self._store._begin_sqlite()
        self._store.writes += 1
        table = record.items_table
        _write_rows(self._conn, {(table, hk, rk): blob for (hk, rk), blob in rows.items()})

    def first_rows(self, record: TableRecord, index: str, low: bytes
                   ) -> Iterator[tuple[bytes, bytes, bytes]]:
        """(rk, hk, stored JSON) of each rk's row with the smallest hk at or
        above ``low`` in ``index`` (one row per rk, in no order)."""
        self._store._sync_items()
        yield from self._conn.execute(
            f"SELECT rk, min(hk), item FROM {record.index_table(index)} "
            "WHERE hk >= ? GROUP BY rk", (low,))

    def restore_snapshot(self, name: str, record: TableRecord) -> None:
        """Fill ``record``'s (empty) table, and each of its indexes the
        snapshot holds, from snapshot ``name``."""
        self._store._begin_sqlite()
        row = self._conn.execute("SELECT tables FROM snapshots WHERE name = ?", (name,)).fetchone()
        for index, copy in orjson.loads(row[0]).items():
            if index == "":
                target = record.items_table
            elif index in record.indexes:
                target = record.index_table(index)
            else:
                continue
            self._conn.execute(_COPY_ROWS.format(target, copy))
            _recount(self._conn, target)  # (no trigger counts what a copy inserts)

    def delete_snapshot(self, name: str) -> None:
        self._store._begin_sqlite()
        row = self._conn.execute("SELECT tables FROM snapshots WHERE name = ?", (name,)).fetchone()
        if row is None:
            return
        for copy in orjson.loads(row[0]).values():
            self._conn.execute(f"DROP TABLE IF EXISTS {copy}")
        self._conn.execute("DELETE FROM snapshots WHERE name = ?", (name,))
