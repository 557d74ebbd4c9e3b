"""Where exports are written and imports read: buckets of objects by key.

An ``ObjectStore`` is the little of S3 the engine needs: put an object, get
one, list keys under a prefix. ``Directory`` (the default) keeps a directory
per bucket under one root, each object at its key's path, so a bucket's
directory can be uploaded to S3 unchanged (``aws s3 sync DIR/BUCKET
s3://BUCKET``) and a copy of one downloaded can be read. Any S3-compatible
endpoint is served by the server's boto3 store (``tallydb.server.connectors``).

A failure is an ``ObjectStoreError`` carrying S3's error code
(``NoSuchBucket``, ``NoSuchKey``, ``AccessDenied``...), from which an
export or import takes its FailureCode.

A leaf module: it imports nothing of tallydb.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

__all__ = ["Directory", "ObjectStore", "ObjectStoreError"]


class ObjectStoreError(Exception):
    """S3's refusal: ``code`` is its error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ObjectStore(Protocol):
    """Objects by bucket and key."""

    def put(self, bucket: str, key: str, data: bytes) -> None: ...

    def get(self, bucket: str, key: str) -> bytes: ...

    def keys(self, bucket: str, prefix: str) -> Iterator[tuple[str, int]]:
        """(key, size) of every object whose key starts with ``prefix``, in key order."""
        ...

    def describe(self) -> str:
        """Where the objects are, for people (a directory, an endpoint)."""
        ...


class Directory:
    """Buckets as directories under ``root``, objects at their keys' paths.

    A bucket's directory is made on first write (a local store has no one
    to create buckets for it); reading one that does not exist is S3's
    NoSuchBucket. Objects are written whole to a temporary name and renamed,
    so a reader never sees half of one.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def describe(self) -> str:
        return str(self.root)

    def _path(self, bucket: str, key: str) -> Path:
        parts = [part for part in key.split("/") if part]
        if not parts or any(part in (".", "..") for part in parts) or "/" in bucket:
            raise ObjectStoreError("InvalidArgument", f"the key {key!r} names no file")
        return self.root.joinpath(bucket, *parts)

    def put(self, bucket: str, key: str, data: bytes) -> None:
        path = self._path(bucket, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as error:
            raise ObjectStoreError("AccessDenied", f"{path}: {error.strerror}") from None

    def get(self, bucket: str, key: str) -> bytes:
        if not (self.root / bucket).is_dir():
            raise ObjectStoreError("NoSuchBucket", f"The specified bucket does not exist: {bucket}")
        path = self._path(bucket, key)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise ObjectStoreError("NoSuchKey", f"The specified key does not exist: {key}"
                                   ) from None
        except OSError as error:
            raise ObjectStoreError("AccessDenied", f"{path}: {error.strerror}") from None

    def keys(self, bucket: str, prefix: str) -> Iterator[tuple[str, int]]:
        top = self.root / bucket
        if not top.is_dir():
            raise ObjectStoreError("NoSuchBucket", f"The specified bucket does not exist: {bucket}")
        found: list[tuple[str, int]] = []
        for folder, directories, files in os.walk(top):
            directories[:] = [d for d in directories if not d.startswith(".part-")]
            relative = Path(folder).relative_to(top).as_posix()
            base = "" if relative == "." else relative + "/"
            if not (base.startswith(prefix) or prefix.startswith(base)):
                directories[:] = []
                continue
            for name in files:
                key = base + name
                if key.startswith(prefix) and not name.startswith(".part-"):
                    found.append((key, (Path(folder) / name).stat().st_size))
        yield from sorted(found)
