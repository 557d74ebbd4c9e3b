"""Random keys kept with the data: the same after a restart, never sent out.

A key lives in ``<data directory>/<name>.key`` (32 random bytes, mode 0600),
made the first time it is asked for and written whole or not at all
(a temporary file renamed into place); an in-memory store's lives as long
as the store. The shard iterators' MAC uses one (``engine/api/_stream_api``).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

KEY_BYTES = 32


def kept_key(directory: Path | None, name: str) -> bytes:
    """The key ``name`` of the data in ``directory`` (None: in memory, a new one)."""
    if directory is None:
        return secrets.token_bytes(KEY_BYTES)
    path = directory / f"{name}.key"
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        key = b""
    if len(key) == KEY_BYTES:
        return key
    key = secrets.token_bytes(KEY_BYTES)
    temporary = directory / f".{name}.key.new"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(descriptor, key)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    os.replace(temporary, path)
    return key
