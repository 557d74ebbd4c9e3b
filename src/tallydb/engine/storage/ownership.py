"""A data directory is one process's: its store takes an exclusive lock
on ``tallydb.lock`` for as long as it is open."""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO


class StoreInUseError(RuntimeError):
    """The data directory belongs to another open store (another process)."""


def own_directory(directory: Path) -> IO[bytes]:
    """Take the data directory for this process: the catalog is cached in
    memory, so a second process writing beside us would go unseen."""
    owner = open(directory / "tallydb.lock", "a+b")  # noqa: SIM115 - held until close()
    try:
        fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        owner.close()
        raise StoreInUseError(
            f"the data directory {directory} is in use by another tallydb process") from None
    return owner
