"""Global tables: which tables are replicas of one another, and what a
write to one of them does on its way (the replication itself runs later:
``_replicate``).

A global table (version 2019.11.21) is a group of tables of one name, one
per region, each in its region's own catalog (so regions must be separate).
Each replica keeps the whole group in its description (``GLOBAL``): the
consistency mode, the replicas by region in creation order with their
status and overrides, the witness of a strongly consistent group, and its
own region.

Multi-Region eventual consistency (``EVENTUAL``, the default): a write is
applied to the replica it was sent to and acknowledged. Each item carries
its last writer's version, a timestamp from the sequence clock and the
region (``VERSIONS_SOURCE``), and the change joins the replica's outbox
(``OUTBOX_SOURCE``: one row per transaction, written with the change in
the same item-log append, so exactly as durable). The replication worker
sends each outbox row to every other replica once it is ``delay`` old, and
there a change is applied only if its version is later than the item's:
last writer wins, item by item, on the whole item. Two regions adding to one
counter at about the same time each apply their own increment, and the
later image wins everywhere: one increment is lost.

Multi-Region strong consistency (``STRONG``): a write is applied to every
replica in its own transaction, so it is acknowledged only once replicated
and a strongly consistent read in any replica sees it. A write to an item
that another region wrote less than ``delay`` ago (its replication still
settling) is refused with ReplicatedWriteConflictException (HTTP 409,
which SDKs retry).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from tallydb.engine.api._jobs import integrations
from tallydb.engine.api._regions import DEFAULT_REGION
from tallydb.engine.api._stream_records import next_sequence
from tallydb.engine.api.describe_table import GLOBAL
from tallydb.engine.errors import ReplicatedWriteConflictException, ValidationException
from tallydb.engine.storage import TableRecord, Transaction
from tallydb.engine.values import Item

__all__ = [
    "EVENTUAL", "GLOBAL", "OUTBOX_SOURCE", "STRONG", "VERSIONS_SOURCE", "Replication",
    "catalog_of", "local_write", "members", "outbox_shard", "peers", "refuse_strong",
    "region_of", "replication", "version_of",
]

EVENTUAL, STRONG = "EVENTUAL", "STRONG"
#: Each item's last writer: "<timestamp ns> <region>" (``$`` takes no index name).
VERSIONS_SOURCE = "$versions"
#: Changes not yet sent to the other replicas: one row per transaction.
OUTBOX_SOURCE = "$outbox"
_OUTBOX_SHARD = b"\x00"
#: DynamoDB's text for the conflict (botocore's model documents the error so).
CONFLICT = ("The request was rejected because one or more items in the request are being "
            "modified by a request in another Region.")


def region_of(record: TableRecord) -> str:
    """The region a table lives in (the shared catalog is the default region's)."""
    return record.catalog or DEFAULT_REGION


def catalog_of(region: str) -> str:
    """The catalog of a region's tables when regions are separate."""
    return "" if region == DEFAULT_REGION else region


@dataclass
class Replication:
    """An engine's replication settings and state.

    ``delay``: seconds before a change reaches the other replicas of an
    EVENTUAL group, and the window in which a STRONG group refuses another
    region's write to an item. ``wake``: called when the worker has work it
    may not know of (a replica to make, a first change to send)."""

    delay: float = 1.0
    wake: Any = None
    #: True while the worker waits with nothing to send: the next change wakes it.
    idle: bool = True
    #: STRONG groups' recent writes: (table, hk, rk) -> (region, until ns).
    claims: dict[tuple[str, bytes, bytes], tuple[str, int]] = field(default_factory=dict)

    @property
    def delay_ns(self) -> int:
        return int(self.delay * 1_000_000_000)

    def nudge(self) -> None:
        if self.wake is not None:
            self.wake()


def replication(txn: Transaction) -> Replication:
    """The replication settings of the engine a transaction belongs to."""
    extras = integrations(txn).extras
    found = extras.get("replication")
    if found is None:
        found = extras["replication"] = Replication()
    return found


# --- the group ------------------------------------------------------------------------


def members(glob: dict[str, Any]) -> list[str]:
    """The regions of a group's replicas, in creation order."""
    return [replica["RegionName"] for replica in glob["Replicas"]]


def peers(txn: Transaction, record: TableRecord, glob: dict[str, Any],
          statuses: tuple[str, ...] = ("ACTIVE",)) -> list[TableRecord]:
    """The other replicas' tables, of replicas in one of ``statuses``."""
    own = region_of(record)
    found = []
    for replica in glob["Replicas"]:
        region = replica["RegionName"]
        if region != own and replica["ReplicaStatus"] in statuses:
            peer = txn.table_in(catalog_of(region), record.name)
            if peer is not None:
                found.append(peer)
    return found


# --- a write ---------------------------------------------------------------------------


def refuse_strong(record: TableRecord, feature: str) -> None:
    """Refuse what a STRONG group does not support (transactions, TTL):
    DynamoDB's texts for these are not on record; this one is ours."""
    glob = record.description.get(GLOBAL)
    if glob is not None and glob["Consistency"] == STRONG:
        raise ValidationException(
            f"{feature} is not supported for global tables with MultiRegionConsistency set "
            f"to STRONG: {record.name}")


def version_of(blob: bytes | None) -> tuple[int, str]:
    """A stored version as (timestamp ns, region); (0, "") for none."""
    if not blob:
        return 0, ""
    stamp, _, region = bytes(blob).partition(b" ")
    return int(stamp), region.decode()


def local_write(txn: Transaction, record: TableRecord, glob: dict[str, Any], hk: bytes,
                rk: bytes, old: Item | None, new: Item | None) -> list[TableRecord]:
    """What a write sent to this replica does for the group, before it is
    stored: an EVENTUAL one joins the outbox, to be versioned when its
    transaction commits (nothing is returned); a STRONG one is refused if
    another region wrote the item within the replication window, else the
    replicas it must also be written to are returned."""
    if len(glob["Replicas"]) < 2:
        return []
    if glob["Consistency"] == STRONG:
        return _claim(txn, record, glob, hk, rk)
    outbox = _outboxes.get(id(record))
    if outbox is None or outbox.record is not record:
        outbox = _outbox_of(record)
    image = new if new is not None else old
    assert image is not None
    outbox.add(txn, hk, rk, image, new)
    return []


def check_claim(txn: Transaction, record: TableRecord, hk: bytes, rk: bytes) -> None:
    """Refuse, as ``local_write`` would, a write to an item of a STRONG
    replica that another region holds, without claiming it: a request that
    writes many items checks them all before it writes any."""
    glob = record.description.get(GLOBAL)
    if glob is None or len(glob["Replicas"]) < 2 or glob["Consistency"] != STRONG:
        return
    held = replication(txn).claims.get((record.name, hk, rk))
    if held is not None and held[0] != region_of(record) and held[1] > time.monotonic_ns():
        raise ReplicatedWriteConflictException(CONFLICT)


def _claim(txn: Transaction, record: TableRecord, glob: dict[str, Any], hk: bytes,
           rk: bytes) -> list[TableRecord]:
    settings = replication(txn)
    region = region_of(record)
    now = time.monotonic_ns()
    claims = settings.claims
    key = (record.name, hk, rk)
    held = claims.get(key)
    if held is not None and held[0] != region and held[1] > now:
        raise ReplicatedWriteConflictException(CONFLICT)
    if len(claims) > 65_536:
        for stale in [k for k, (_, until) in claims.items() if until <= now]:
            del claims[stale]
    claims[key] = (region, now + settings.delay_ns)
    return peers(txn, record, glob)


class _Outbox:
    """The changes of one replica's open transaction on their way to its
    outbox: one row, with the item's last change of the transaction each,
    written just before the transaction's writes leave memory
    (``Transaction.defer``). The changes are versioned then, all with one
    timestamp, taken as the transaction commits (a hot counter's run of
    writes costs one dict entry each)."""

    __slots__ = ("changes", "keys", "record", "region", "segment", "txn")

    def __init__(self, record: TableRecord) -> None:
        self.record = record
        self.region = region_of(record)
        self.segment = -1
        self.changes: dict[tuple[bytes, bytes], tuple[Item, Item | None]] = {}
        self.keys = tuple(k["AttributeName"] for k in record.description["KeySchema"])
        self.txn: Transaction | None = None

    def add(self, txn: Transaction, hk: bytes, rk: bytes, image: Item, new: Item | None
            ) -> None:
        segment = txn.segment
        if self.segment != segment:  # the first change of a new row
            self.segment, self.txn = segment, txn
            self.changes = {}
            txn.defer(self, self.write)
        self.changes[hk, rk] = (image, new)

    def write(self) -> None:
        txn = self.txn
        assert txn is not None
        stamp = next_sequence()
        version = b"%d %s" % (stamp, self.region.encode())
        record, keys, region = self.record, self.keys, self.region
        entries = []
        for (hk, rk), (image, new) in self.changes.items():
            txn.put_entry_encoded(record, VERSIONS_SOURCE, hk, rk, version)
            entries.append([stamp, region, {name: image[name] for name in keys}, new])
        txn.put_entry_encoded(record, OUTBOX_SOURCE, _OUTBOX_SHARD, stamp.to_bytes(8, "big"),
                              orjson.dumps(entries))
        self.changes = {}
        self.segment = -1
        settings = replication(txn)
        if settings.idle:
            settings.nudge()


_outboxes: dict[int, _Outbox] = {}


def _outbox_of(record: TableRecord) -> _Outbox:
    if len(_outboxes) > 1024:
        _outboxes.clear()
    found = _outboxes[id(record)] = _Outbox(record)
    return found


def outbox_shard() -> bytes:
    """The hk of every outbox row."""
    return _OUTBOX_SHARD
