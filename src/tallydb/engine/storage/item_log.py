"""The item log: committed item writes not yet in SQLite, one record each.

A transaction that wrote only items (every UpdateItem, PutItem, DeleteItem,
and a server's whole group commit of them) commits by appending one record
to this file: one ``write`` instead of a SQLite COMMIT, which costs several
times more (a WAL frame per changed page, the WAL index, the B-tree upsert).
The store keeps those rows in memory and writes them into SQLite now and
then (``Store`` decides when); each SQLite commit records the last log
sequence number (LSN) it holds, and the log is then started afresh. At open,
records after that LSN are replayed into SQLite.

The file is a header (magic, and a random id for this life of the file)
followed by records::

    length u32 | crc32 u32 | lsn u64 | rows

each row ``source-len u16 | hk-len u32 | rk-len u32 | blob-len u32 | source | hk | rk | blob``,
with blob-len ``DELETED`` for a deletion. The CRC covers the LSN and the rows
and is seeded with the header, so a record left over from an earlier life of
the file never passes as one of this life's. Replay takes records in LSN
order from the one after SQLite's (skipping those SQLite holds, should a
reset have failed) and stops at the first torn, corrupt or out-of-sequence
record: what it keeps is always a prefix of the commits.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final

#: One row of a record: (SQLite table, hk, rk) -> the item's JSON, or None (deleted).
Rows = Mapping[tuple[str, bytes, bytes], bytes | None]

MAGIC: Final = b"TALLYLOG"
HEADER_SIZE: Final = 16
DELETED: Final = 0xFFFFFFFF
_RECORD: Final = struct.Struct("<IIQ")  # length of what follows the crc, crc, lsn
_ROW: Final = struct.Struct("<HIII")
_LSN: Final = struct.Struct("<Q")


class ItemLog:
    """The log file of one data directory (the store owns the directory)."""

    def __init__(self, path: Path, fsync: bool, *, fresh: bool = False) -> None:
        """Open the log at ``path``; ``fresh``: start a new life in it
        at once, without reading what an earlier life left there."""
        self.path = path
        self.fsync = fsync
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        self._seed = 0
        if fresh:
            self.reset()
            return
        self.size = os.fstat(self._fd).st_size
        header = os.pread(self._fd, HEADER_SIZE, 0)
        if len(header) == HEADER_SIZE and header.startswith(MAGIC):
            self._seed = zlib.crc32(header)
            # Appends go after the last whole record of this life, not after
            # a torn one, nor after an earlier life's bytes (``reset``).
            self.size = self._valid_end()
        else:
            self.size = 0  # no header (new, or torn while being started): nothing in it

    def records(self) -> Iterator[tuple[int, dict[tuple[str, bytes, bytes], bytes | None]]]:
        """(lsn, rows) of every whole record in file order, up to the first
        bad one (read before any append: a record whose CRC holds but whose
        rows do not fit it also ends the appends' place there)."""
        if self.size < HEADER_SIZE:
            return
        data = os.pread(self._fd, self.size, 0)
        for at, body_end in _whole_records(data, self._seed):
            rows = _decode_rows(data, at + _RECORD.size, body_end)
            if rows is None:
                self.size = at
                return
            yield _RECORD.unpack_from(data, at)[2], rows

    def _valid_end(self) -> int:
        """Where the last whole record of this life ends (its CRC checked;
        its rows are decoded once, by the replay's ``records``)."""
        ends = [end for _, end in _whole_records(os.pread(self._fd, self.size, 0), self._seed)]
        return ends[-1] if ends else HEADER_SIZE

    def append(self, lsn: int, rows: Rows) -> None:
        """Write one record (and, with ``fsync``, make it durable); a
        failure leaves the file as it was before the call."""
        if self.size == 0:
            self.reset()
        payload = _encode_rows(rows)
        crc = zlib.crc32(payload, zlib.crc32(_LSN.pack(lsn), self._seed))
        record = _RECORD.pack(_LSN.size + len(payload), crc, lsn) + payload
        try:
            written = 0
            while written < len(record):  # a short write: the next one says why (ENOSPC)
                done = os.pwrite(self._fd, record[written:], self.size + written)
                if not done:
                    raise OSError(f"the item log took none of {len(record) - written} bytes")
                written += done
            if self.fsync:
                os.fdatasync(self._fd)
        except BaseException:
            os.ftruncate(self._fd, self.size)  # no torn record for later appends to hide behind
            raise
        self.size += len(record)

    def reset(self) -> None:
        """Start a new life of the file: everything in it is in SQLite now.

        The file is not truncated: freeing its blocks can wait for the
        filesystem's journal (a WAL checkpoint's fsyncs) for tens of ms.
        The earlier life's bytes after this life's records are never read
        as records: the new header seeds every CRC."""
        header = MAGIC + os.urandom(HEADER_SIZE - len(MAGIC))
        self.size = 0  # should the header fail to be written, the next append starts over
        os.pwrite(self._fd, header, 0)
        self._seed = zlib.crc32(header)
        self.size = HEADER_SIZE

    def close(self) -> None:
        os.close(self._fd)


def _whole_records(data: bytes, seed: int) -> Iterator[tuple[int, int]]:
    """Where each whole record of a life (its CRC seeded with ``seed``)
    starts and ends, in file order, up to the first torn or corrupt one."""
    at = HEADER_SIZE
    end = len(data)
    while at + _RECORD.size <= end:
        length, crc, _ = _RECORD.unpack_from(data, at)
        body_end = at + 8 + length
        if length < _LSN.size or body_end > end:
            return
        if zlib.crc32(memoryview(data)[at + 8 : body_end], seed) != crc:
            return
        yield at, body_end
        at = body_end


def _encode_rows(rows: Rows) -> bytes:
    """The rows of one record, joined once (each row's parts are not
    concatenated first: a row's item would be copied twice)."""
    pack = _ROW.pack
    parts: list[bytes] = []
    names: dict[str, bytes] = {}
    for (source, hk, rk), blob in rows.items():
        name = names.get(source)
        if name is None:
            name = names[source] = source.encode()
        if blob is None:
            parts += (pack(len(name), len(hk), len(rk), DELETED), name, hk, rk)
        else:
            parts += (pack(len(name), len(hk), len(rk), len(blob)), name, hk, rk, blob)
    return b"".join(parts)


def _decode_rows(data: bytes, at: int, end: int
                 ) -> dict[tuple[str, bytes, bytes], bytes | None] | None:
    """The rows of one record's body; None if they do not fit it exactly."""
    rows: dict[tuple[str, bytes, bytes], bytes | None] = {}
    unpack = _ROW.unpack_from
    while at < end:
        if at + _ROW.size > end:
            return None
        name_len, hk_len, rk_len, blob_len = unpack(data, at)
        at += _ROW.size
        keys_end = at + name_len + hk_len + rk_len
        blob_end = keys_end + (0 if blob_len == DELETED else blob_len)
        if blob_end > end:
            return None
        source = data[at : at + name_len].decode()
        hk = data[at + name_len : at + name_len + hk_len]
        rk = data[at + name_len + hk_len : keys_end]
        rows[source, hk, rk] = None if blob_len == DELETED else data[keys_end:blob_end]
        at = blob_end
    return rows
