"""DynamoDB's S3 export layout: the files ``ExportTableToPointInTime``
writes and ``ImportTable`` reads, as AWS documents them ("DynamoDB table
export output format")::

    PREFIX/AWSDynamoDB/<ExportId>/_started                empty: the export began
    PREFIX/AWSDynamoDB/<ExportId>/manifest-summary.json   the export's summary
    PREFIX/AWSDynamoDB/<ExportId>/manifest-files.json     one JSON line per data file
    PREFIX/AWSDynamoDB/<ExportId>/manifest-*.md5          their MD5s, base64
    PREFIX/AWSDynamoDB/<ExportId>/data/<name>.json.gz     a full export's items
    PREFIX/AWSDynamoDB/data/<name>.json.gz                an incremental export's changes

A full export's data line is ``{"Item": {...}}`` (DYNAMODB_JSON) or
``$ion_1_0 {Item:{...}}`` (ION: numbers as decimals, binaries as blobs,
sets as lists annotated ``$dynamodb_SS``/``NS``/``BS``). An incremental
export's is ``{"Metadata": {"WriteTimestampMicros": {"N": ...}}, "Keys":
{...}, "NewImage": {...}, "OldImage": {...}}``, the images as its view
type asks. Keys in the manifests are S3 keys of the bucket.

The same layout serves ``tallydb export``/``import`` (``tallydb.transfer``).
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import hashlib
import io
import uuid
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from typing import Any

import orjson

from tallydb.engine.objects import ObjectStore

__all__ = [
    "ION_VERSION", "ITEMS_PER_FILE", "SUMMARY", "DataWriter", "export_id", "export_prefix",
    "from_ion", "ion_line", "timestamp", "write_manifests",
]

#: Items (or changes) per data file.
ITEMS_PER_FILE = 250_000
SUMMARY = "manifest-summary.json"
ION_VERSION = b"$ion_1_0 "
_EXTENSIONS = {"DYNAMODB_JSON": ".json.gz", "ION": ".ion.gz"}


def md5_base64(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode("ascii")


def timestamp(when: float) -> str:
    """A manifest's time: ``2020-11-04T07:28:34.028Z``."""
    moment = dt.datetime.fromtimestamp(when, dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def export_id(started: float) -> str:
    """``01604474914028-a1b2c3d4``: the start in epoch ms, and 8 hex digits."""
    return f"{int(started * 1000):014d}-{uuid.uuid4().hex[:8]}"


def export_prefix(prefix: str | None, export: str) -> str:
    """The key of an export's folder (its manifests) in the bucket."""
    base = f"{prefix.rstrip('/')}/" if prefix else ""
    return f"{base}AWSDynamoDB/{export}"


# --- Ion --------------------------------------------------------------------------------


def _to_ion(value: dict[str, Any]) -> Any:
    from amazon.ion.core import IonType
    from amazon.ion.simple_types import IonPyBytes, IonPyList, IonPyNull

    kind, inner = next(iter(value.items()))
    if kind == "S":
        return inner
    if kind == "N":
        return Decimal(inner)
    if kind == "B":
        return IonPyBytes.from_value(IonType.BLOB, base64.b64decode(inner))
    if kind == "BOOL":
        return bool(inner)
    if kind == "NULL":
        return IonPyNull.from_value(IonType.NULL, None)
    if kind == "M":
        return {name: _to_ion(member) for name, member in inner.items()}
    if kind == "L":
        return [_to_ion(member) for member in inner]
    if kind == "SS":
        members: list[Any] = list(inner)
    elif kind == "NS":
        members = [Decimal(n) for n in inner]
    else:  # BS
        members = [IonPyBytes.from_value(IonType.BLOB, base64.b64decode(b)) for b in inner]
    return IonPyList.from_value(IonType.LIST, members, (f"$dynamodb_{kind}",))


def ion_line(document: dict[str, dict[str, Any]]) -> bytes:
    """``$ion_1_0 {Item:{...}}``: a data line of an ION export, from the same
    document in DynamoDB JSON (``{"Item": item}``)."""
    from amazon.ion import simpleion

    value = {name: {attr: _to_ion(av) for attr, av in image.items()}
             for name, image in document.items()}
    text: str = simpleion.dumps(value, binary=False)
    return text.encode("utf-8")


def from_ion(value: Any) -> dict[str, Any]:
    """An Ion value (as ``simpleion.loads`` gives it) as DynamoDB JSON."""
    from amazon.ion.core import IonType

    ion_type = getattr(value, "ion_type", None)
    annotations = [getattr(a, "text", a) for a in getattr(value, "ion_annotations", ())]
    if ion_type is IonType.NULL or value is None:
        return {"NULL": True}
    if ion_type is IonType.BOOL or isinstance(value, bool):
        return {"BOOL": bool(value)}
    if ion_type in (IonType.INT, IonType.DECIMAL, IonType.FLOAT) or isinstance(
            value, int | Decimal | float):
        from tallydb.engine.values import normalize_number

        return {"N": normalize_number(str(Decimal(str(value))))}
    if ion_type in (IonType.STRING, IonType.SYMBOL) or isinstance(value, str):
        return {"S": str(value)}
    if ion_type in (IonType.BLOB, IonType.CLOB) or isinstance(value, bytes):
        return {"B": base64.b64encode(bytes(value)).decode("ascii")}
    if ion_type is IonType.STRUCT or isinstance(value, dict):
        return {"M": {str(k): from_ion(v) for k, v in value.items()}}
    if ion_type in (IonType.LIST, IonType.SEXP) or isinstance(value, list):
        for annotation in annotations:
            if annotation in ("$dynamodb_SS", "$dynamodb_NS", "$dynamodb_BS"):
                kind = annotation[-2:]
                members = [from_ion(v) for v in value]
                return {kind: [next(iter(m.values())) for m in members]}
        return {"L": [from_ion(v) for v in value]}
    raise ValueError(f"an Ion value of type {ion_type} has no DynamoDB type")


# --- writing ----------------------------------------------------------------------------


class DataWriter:
    """Data files of one export: lines go in, gzip files of up to
    ``ITEMS_PER_FILE`` lines come out under ``folder``/data/, each put in
    the bucket as soon as it is full; ``entries`` are manifest-files.json's."""

    def __init__(self, objects: ObjectStore, bucket: str, folder: str, export_format: str,
                 per_file: int = ITEMS_PER_FILE) -> None:
        self.objects, self.bucket, self.folder = objects, bucket, folder
        self.extension = _EXTENSIONS[export_format]
        self.per_file = per_file
        self.entries: list[dict[str, Any]] = []
        self.total = 0
        self._open()

    def _open(self) -> None:
        self._buffer = io.BytesIO()
        self._gzip = gzip.GzipFile(fileobj=self._buffer, mode="wb", compresslevel=6, mtime=0)
        self._count = 0

    def write(self, lines: Iterable[bytes], count: int) -> None:
        """``count`` lines, each ending in a newline."""
        self._gzip.write(b"".join(lines))
        self._count += count
        self.total += count
        if self._count >= self.per_file:
            self._close()
            self._open()

    def _close(self) -> None:
        self._gzip.close()
        data = self._buffer.getvalue()
        key = f"{self.folder}/data/{uuid.uuid4().hex[:26]}{self.extension}"
        self.objects.put(self.bucket, key, data)
        digest = hashlib.md5(data)
        self.entries.append({
            "itemCount": self._count,
            "md5Checksum": base64.b64encode(digest.digest()).decode("ascii"),
            "etag": digest.hexdigest(),
            "dataFileS3Key": key,
        })

    def finish(self) -> list[dict[str, Any]]:
        """Put the last file (an empty export has one empty file, as
        DynamoDB's empty partitions do); the manifest entries."""
        if self._count or not self.entries:
            self._close()
        else:
            self._gzip.close()
        return self.entries


def write_manifests(objects: ObjectStore, bucket: str, folder: str,
                    entries: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    """manifest-files.json, then manifest-summary.json (naming it), with
    their MD5 files; the summary's key."""
    files = b"".join(orjson.dumps(entry) + b"\n" for entry in entries)
    objects.put(bucket, f"{folder}/manifest-files.json", files)
    objects.put(bucket, f"{folder}/manifest-files.md5", md5_base64(files).encode())
    summary = {**summary, "manifestFilesS3Key": f"{folder}/manifest-files.json"}
    data = orjson.dumps(summary)
    objects.put(bucket, f"{folder}/{SUMMARY}", data)
    objects.put(bucket, f"{folder}/manifest-summary.md5", md5_base64(data).encode())
    return f"{folder}/{SUMMARY}"


# --- reading ----------------------------------------------------------------------------


def decompressor(compression: str) -> Callable[[bytes], bytes]:
    """How an object of ImportTable's InputCompressionType is opened."""
    if compression == "GZIP":
        return gzip.decompress
    if compression == "ZSTD":
        import zstandard

        def unzstd(data: bytes) -> bytes:
            with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data)) as reader:
                opened: bytes = reader.read()
            return opened

        return unzstd
    return lambda data: data


def lines_of(data: bytes) -> Iterator[bytes]:
    """The non-blank lines of an object."""
    for line in data.splitlines():
        if line.strip():
            yield line
