"""Telling a full disk from other storage failures, and logging it in one line.

A full disk is an expected state, not a bug: the store keeps serving reads
and keeps acknowledged writes in its item log until space returns, so it is
logged as one warning line; any other failure keeps its traceback.
"""

from __future__ import annotations

import errno
import logging
import sqlite3

SQLITE_FULL = 13
SQLITE_IOERR_SHMSIZE = 4874  # the WAL index file could not grow (a full disk, mostly)


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` (or what caused it) is the disk or SQLite's size limit being full."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(seen, sqlite3.Error) and getattr(seen, "sqlite_errorcode", 0) == SQLITE_FULL:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def log_failure(log: logging.Logger, what: str, error: BaseException) -> None:
    """Log that ``what`` failed: one line for a full disk, else with the traceback."""
    if disk_full(error):
        log.warning("%s: the disk is full (%s)", what, error)
    else:
        log.error("%s", what, exc_info=error)
